import { and, eq } from "drizzle-orm";
import { withTenantTransaction } from "../db/client";
import * as schema from "../db/schema";
import { config, type Env } from "../env";
import { log } from "../lib/log";
import {
  DgiiRefused,
  DgiiUnavailable,
  directoryReceiver,
  refusalMessages,
  sendApprovalToReceiver,
  sendCommercialApproval,
  withDgiiToken,
} from "../modules/ecf/dgii";
import { dgiiPaceOf, secondsUntil } from "../modules/ecf/dgii-pace";
import type { EcfEnvironment } from "../modules/ecf/schemas";
import { dgiiUrls, receiverPolicy, tenantSigningMaterial } from "../modules/ecf/service";
import type { DeliveryStatus } from "../modules/reception/schemas";
import { dueRows, ECF_MAX_OUTAGE_MS, endLease, handleStepMessage, outageDelaySeconds, type SweepOptions } from "./due";
import { type ApprovalRef, enqueueApprovals } from "./messages";

/**
 * Delivery of our commercial approvals (ACECF) of received e-CF: to DGII's aprobacioncomercial
 * service and to the issuer's receiver, whose URL DGII's directory gives (Descripción técnica,
 * "Recepción de aprobación comercial" and "Estándar de comunicación Emisor-Receptor"). As for e-CF
 * (jobs/ecf.ts): each `ecf_approvals` row is its own outbox entry, one queue message is one step
 * under the row's lock, the minute sweep re-enqueues what is due (drizzle/0061
 * sweep_due). A step attempts each delivery still pending: `delivered` on a 2xx,
 * `refused` on a 4xx (sending the same ACECF again would not help; the messages are kept), and
 * otherwise retried with the e-CF backoff (30 s doubling to 15 min) for 24 hours, then `failed`.
 */

const a = schema.ecfApprovals;
type ApprovalRow = typeof a.$inferSelect;

export interface ApprovalStep {
  /** backoff: DGII asked the company to wait (a 429 or 503, modules/ecf/dgii-pace.ts): nothing tried, the sweep takes it after the wait. */
  outcome: "done" | "retry" | "unavailable" | "not_due" | "backoff";
  dgii?: string;
  issuer?: string;
  retryInSeconds?: number;
}

/** What one delivery attempt came to; `retry` becomes pending again (or failed after 24 h). */
type Outcome = "delivered" | "refused" | "retry";

export async function stepApproval(env: Env, ref: ApprovalRef, options: { now?: Date } = {}): Promise<ApprovalStep> {
  const now = options.now ?? new Date();
  return withTenantTransaction(env, ref.tenant_id, async (db) => {
    await endLease(db, "ecf_approvals", ref.approval_id);
    const [found] = await db
      .select({ approval: a, received: schema.receivedEcf })
      .from(a)
      .innerJoin(schema.receivedEcf, eq(schema.receivedEcf.id, a.receivedEcfId))
      .where(and(eq(a.tenantId, ref.tenant_id), eq(a.id, ref.approval_id)))
      .for("update", { of: a, skipLocked: true });
    if (!found) return { outcome: "unavailable" };
    const { approval: row, received } = found;
    if (row.dgiiStatus !== "pending" && row.issuerStatus !== "pending") return { outcome: "done", dgii: row.dgiiStatus, issuer: row.issuerStatus };
    const dueIn = Math.ceil((row.nextAttemptAt.getTime() - now.getTime()) / 1000);
    if (dueIn > 0) return { outcome: "not_due", retryInSeconds: dueIn };
    // DGII asked the company to wait: no call of its to DGII until then (issue 48).
    const pace = await dgiiPaceOf(db, row.tenantId, now);
    if (pace.waitingUntil) return { outcome: "backoff", retryInSeconds: secondsUntil(pace.waitingUntil, now) };

    const settings = config(env);
    const environment = row.environment as EcfEnvironment;
    const urls = dgiiUrls(settings, environment);
    const material = await tenantSigningMaterial(db, row.tenantId, settings.APP_ENCRYPTION_KEY);
    const fileName = `${received.buyerRnc}${received.encf}.xml`;
    const context = { tenantId: row.tenantId, approvalId: row.id, encf: received.encf };
    const errors: string[] = [];
    let dgiiMessages = row.dgiiMessages;
    let issuerUrl = row.issuerUrl;

    const attempt = async (what: string, send: () => Promise<void>): Promise<Outcome> => {
      try {
        await send();
        return "delivered";
      } catch (error) {
        if (error instanceof DgiiRefused) {
          errors.push(`${what}: ${error.message}`);
          return "refused";
        }
        if (error instanceof DgiiUnavailable) {
          errors.push(`${what}: ${error.message}`);
          return "retry";
        }
        throw error;
      }
    };

    let dgii: Outcome | DeliveryStatus = row.dgiiStatus as DeliveryStatus;
    if (row.dgiiStatus === "pending") {
      dgii = await attempt("DGII", async () => {
        try {
          const answer = await pace.call(() =>
            withDgiiToken(row.tenantId, environment, urls.ecf, material, (token) => sendCommercialApproval(urls.ecf, token, row.xml, fileName)),
          );
          dgiiMessages = answer.messages;
          // Judged by the body (issue 33): "rechazada" is a refusal whatever the HTTP status.
          if (answer.code === 2)
            throw new DgiiRefused(
              `DGII refused the approval: ${answer.messages.map((m) => m.valor).join(" ")}`.trim(),
              JSON.stringify({ mensajes: answer.messages }),
            );
        } catch (error) {
          if (error instanceof DgiiRefused) dgiiMessages = refusalMessages(error.body);
          throw error;
        }
      });
    }
    let issuer: Outcome | DeliveryStatus = row.issuerStatus as DeliveryStatus;
    if (row.issuerStatus === "pending") {
      issuer = await attempt("issuer's receiver", async () => {
        if (!issuerUrl) {
          const found = await pace.call(() =>
            withDgiiToken(row.tenantId, environment, urls.ecf, material, (token) => directoryReceiver(urls.ecf, token, received.issuerRnc)),
          );
          if (!found?.approvalUrl) throw new DgiiRefused(`DGII's directory lists no receiver for RNC ${received.issuerRnc}.`, "");
          issuerUrl = found.approvalUrl;
        }
        await sendApprovalToReceiver(issuerUrl, receiverPolicy(settings), material, row.xml, fileName);
      });
    }

    const pending = dgii === "retry" || issuer === "retry";
    const since = row.unreachableSince ?? now;
    const expired = pending && now.getTime() - since.getTime() >= ECF_MAX_OUTAGE_MS;
    const settle = (delivery: Outcome | DeliveryStatus): DeliveryStatus => (delivery === "retry" ? (expired ? "failed" : "pending") : delivery);
    const failures = row.unreachableSince ? row.attempts + 1 : 1;
    const delay = outageDelaySeconds(failures);
    const values: Partial<ApprovalRow> = {
      dgiiStatus: settle(dgii),
      issuerStatus: settle(issuer),
      issuerUrl,
      dgiiMessages,
      attempts: row.attempts + 1,
      lastError: errors.length ? errors.join(" | ").slice(0, 2000) : null,
      unreachableSince: pending && !expired ? since : null,
      nextAttemptAt: pending && !expired ? new Date(now.getTime() + delay * 1000) : row.nextAttemptAt,
      updatedAt: now,
    };
    await db.update(a).set(values).where(eq(a.id, row.id));
    if (pending && !expired) {
      log.warn("approval: delivery will be retried", { ...context, retryInSeconds: delay, error: values.lastError });
      return { outcome: "retry", dgii: values.dgiiStatus, issuer: values.issuerStatus, retryInSeconds: delay };
    }
    log.info("approval: delivered", { ...context, dgii: values.dgiiStatus, issuer: values.issuerStatus });
    return { outcome: "done", dgii: values.dgiiStatus, issuer: values.issuerStatus };
  });
}

/** One approval message of ECF_QUEUE (which carries e-CF steps, approvals and deliveries). */
export const handleApprovalMessage = (message: Message<ApprovalRef>, env: Env) =>
  handleStepMessage(
    message,
    "approval",
    (ref) => stepApproval(env, ref),
    (refs, delay) => enqueueApprovals(env, refs, delay),
  );

/**
 * The minute sweep: approvals with a delivery pending and due, across tenants, back on the queue;
 * none of a company DGII asked to wait, and within the company's pace (ECF_SENDS_PER_MINUTE, shared
 * with its other DGII steps: jobs/scheduled.ts).
 */
export async function sweepApprovals(env: Env, options: SweepOptions = {}): Promise<number> {
  const refs = (await dueRows(env, "ecf_approvals", { ...options, perTenant: options.perTenant ?? config(env).ECF_SENDS_PER_MINUTE })).map((row) => ({
    tenant_id: row.tenantId,
    approval_id: row.id,
  }));
  if (refs.length) log.info("approval sweep", { due: refs.length, enqueued: await enqueueApprovals(env, refs) });
  return refs.length;
}
