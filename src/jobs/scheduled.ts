import { withTenantTransaction } from "../db/client";
import type { Env } from "../env";
import { log } from "../lib/log";
import { compactInvoiceStatusCounts } from "../modules/invoices/counts";
import { sweepApprovals } from "./approvals";
import { sweepCertificationRuns } from "./certification-runs";
import { sweepDgiiStatus } from "./dgii-status";
import { sweepEcf } from "./ecf";
import { ALERTS_SWEEP_CRON, sweepEcfAlerts } from "./ecf-alerts";
import { sweepDeliveries } from "./ecf-delivery";
import { OUTBOX_SWEEP_CRON, sweepOutbox } from "./outbox";
import { runWorkerRncSync } from "./rnc-sync";
import { purgeWebhookEvents, sweepWebhooks } from "./webhooks";

/**
 * Crons (wrangler.toml): every minute the outbox, webhook and e-CF sweeps and the folding of invoice count deltas;
 * hourly (`0 * * * *`) the e-CF alert sweep; weekly (`0 6 * * SUN`) the RNC sync.
 */
export async function handleScheduled(controller: ScheduledController, env: Env): Promise<void> {
  log.info("scheduled run", { cron: controller.cron, scheduledTime: controller.scheduledTime });
  // Every minute: the outbox, webhook, e-CF, approval, buyer-delivery and certification-run sweeps re-enqueue what is due (src/jobs/outbox.ts, webhooks.ts, ecf.ts, approvals.ts, ecf-delivery.ts),
  // and DGII's status is read (jobs/dgii-status.ts);
  // events past their 30 days are deleted after the webhook sweep.
  if (controller.cron === OUTBOX_SWEEP_CRON) {
    const [, , , folded] = await Promise.all([
      sweepOutbox(env),
      sweepWebhooks(env).then(() => purgeWebhookEvents(env)),
      sweepDgiiSteps(env),
      withTenantTransaction(env, null, compactInvoiceStatusCounts),
      // DGII's service states and maintenance windows, which pause sending (issue 33).
      sweepDgiiStatus(env),
    ]);
    if (folded) log.info("invoice counts folded", { rows: folded });
    return;
  }
  // Hourly: deadlines at risk raise their alerts once, and alerts whose cause is gone resolve (jobs/ecf-alerts.ts).
  if (controller.cron === ALERTS_SWEEP_CRON) {
    const result = await sweepEcfAlerts(env, { now: new Date(controller.scheduledTime) });
    log.info("ecf alert sweep", result);
    return;
  }
  const result = await runWorkerRncSync(env);
  log.info("rnc sync producer finished", { runId: result.runId, status: result.status, batches: result.batches, error: result.error });
}

/**
 * The sweeps of the steps that call DGII, one after the other, sharing each company's pace: at most
 * ECF_SENDS_PER_MINUTE of a company's DGII steps a minute across them (drizzle/0061 sweep_due's
 * `spent`), none while DGII asks it to wait. The few (runs of the test set, approvals, buyer
 * deliveries) go first, so that a backlog of e-CF does not hold them back; the e-CF take the rest.
 */
export async function sweepDgiiSteps(env: Env, options: { now?: Date } = {}): Promise<Map<number, number>> {
  const spent = new Map<number, number>();
  await sweepCertificationRuns(env, { ...options, spent });
  await sweepApprovals(env, { ...options, spent });
  await sweepDeliveries(env, { ...options, spent });
  await sweepEcf(env, { ...options, spent });
  return spent;
}
