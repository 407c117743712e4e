import { sql } from "drizzle-orm";
import { withTenantTransaction } from "../db/client";
import { rowsOf } from "../db/rows";
import { config, type Env } from "../env";
import { log } from "../lib/log";
import { type AlertSweepResult, sweepTenantAlerts } from "../modules/ecf/alerts";
import { type AlertSweepRef, enqueueAlertSweeps, enqueueOutbox, enqueueWebhooks } from "./messages";

/**
 * The hourly alert sweep (issue 33, "Deadlines watched"; modules/ecf/alerts.ts): the tenants with
 * e-CF on or an alert open, found across tenants by `ecf_alert_tenants` (drizzle/0050, past RLS,
 * ids only), each swept in its own transaction, from its own queue message (sweepEcfAlerts); what it raised (emails, webhook deliveries) is put
 * on the queues after that commit, and the minute sweeps of the outbox and webhooks would find it
 * anyway.
 */
export const ALERTS_SWEEP_CRON = "0 * * * *";

const TENANTS_PER_PAGE = 500;

/**
 * One tenant's alerts at `now` (its transaction), then what it raised on the queues: the emails
 * (outbox) and the `ecf.alert` deliveries.
 */
export async function sweepAlertsOf(env: Env, tenantId: number, options: { now?: Date } = {}): Promise<AlertSweepResult> {
  const settings = config(env);
  const now = options.now ?? new Date();
  const thresholds = {
    deferredHoursLeft: settings.ALERT_DEFERRED_HOURS_LEFT,
    dgiiDownHours: settings.ALERT_DGII_DOWN_HOURS,
    contingencyLimitHours: settings.CONTINGENCY_LIMIT_HOURS,
    contingencyHoursLeft: settings.ALERT_CONTINGENCY_HOURS_LEFT,
  };
  const result = await withTenantTransaction(env, tenantId, (db) => sweepTenantAlerts(db, tenantId, now, thresholds, settings.APP_URL));
  if (result.outboxIds.length)
    await enqueueOutbox(
      env,
      result.outboxIds.map((id) => ({ tenant_id: tenantId, outbox_id: id })),
    );
  if (result.webhookDeliveryIds.length)
    await enqueueWebhooks(
      env,
      result.webhookDeliveryIds.map((id) => ({ tenant_id: tenantId, webhook_delivery_id: id })),
    );
  if (result.raised.length) log.info("ecf alerts raised", { tenantId, kinds: result.raised.map((row) => row.kind) });
  return result;
}

/**
 * The hourly cron: the companies to sweep (e-CF on, or an alert open), a page of 500 at a time,
 * each put on the `ecf` queue as its own message (issue 48): the cron's cost is a query and a
 * `sendBatch` per 100 companies, not a transaction per company — 10,000 companies with e-CF on
 * would otherwise be 10,000 transactions, and as many subrequests, in one invocation (Cloudflare
 * allows 10,000). The consumers sweep each company at the cron's time. A page whose send failed is
 * swept here, as before.
 */
export async function sweepEcfAlerts(env: Env, options: { now?: Date } = {}): Promise<{ tenants: number; queued: number; raised: number; resolved: number }> {
  const now = options.now ?? new Date();
  const totals = { tenants: 0, queued: 0, raised: 0, resolved: 0 };
  let after = 0;
  for (;;) {
    const tenants = await withTenantTransaction(env, null, async (db) =>
      rowsOf<{ tenant_id: number }>(await db.execute(sql`SELECT tenant_id FROM ecf_alert_tenants(${after}, ${TENANTS_PER_PAGE})`)).map((row) =>
        Number(row.tenant_id),
      ),
    );
    totals.tenants += tenants.length;
    if (
      await enqueueAlertSweeps(
        env,
        tenants.map((tenantId) => ({ tenant_id: tenantId, alerts_at: now.getTime() })),
      )
    ) {
      totals.queued += tenants.length;
    } else {
      for (const tenantId of tenants) {
        try {
          const result = await sweepAlertsOf(env, tenantId, { now });
          totals.raised += result.raised.length;
          totals.resolved += result.resolved;
        } catch (error) {
          // One tenant's failure (a lost connection) leaves the others swept; the next hour tries it again.
          log.error("ecf alerts: tenant sweep errored", { tenantId, error: (error as Error).message });
        }
      }
    }
    if (tenants.length < TENANTS_PER_PAGE) break;
    after = tenants[tenants.length - 1]!;
  }
  return totals;
}

/** One company's hourly alert sweep from the `ecf` queue; an error (the database unreachable) retries it. */
export async function handleAlertSweepMessage(message: Message<AlertSweepRef>, env: Env): Promise<void> {
  try {
    await sweepAlertsOf(env, message.body.tenant_id, { now: new Date(message.body.alerts_at) });
    message.ack();
  } catch (error) {
    log.error("ecf alerts: tenant sweep errored", { ...message.body, error: (error as Error).message });
    message.retry();
  }
}
