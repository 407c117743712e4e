import { and, eq } from "drizzle-orm";
import { Resend } from "resend";
import { type Database, withTenantTransaction } from "../db/client";
import * as schema from "../db/schema";
import { config, type Env } from "../env";
import { log } from "../lib/log";
import { dueRows, endLease, type SweepOptions } from "./due";
import { enqueueOutbox, type OutboxRef } from "./messages";

/**
 * Delivery of the transactional outbox (`outbox_messages`).
 *
 * - A request that writes outbox rows pushes their ids onto `c.var.outbox`; after the request commits,
 *   `afterCommitDispatch` (jobs/dispatch.ts) sends `{tenant_id, outbox_id}` messages to the `outbox` Queue.
 * - The cron sweep (`* * * * *`) re-enqueues every pending row that is due and was not delivered,
 *   whatever the reason: a queue send that failed, a writer that does not note its ids, a retry
 *   whose queue message was lost. Nothing depends on a queue message surviving.
 * - The consumer delivers one row per message inside its tenant's transaction, holding the row
 *   lock (FOR UPDATE SKIP LOCKED) across the provider call, so two deliveries of the same row never
 *   overlap, and a row that is no longer `pending` is never sent again. Resend also gets an
 *   Idempotency-Key per row, so a retry after a lost response does not send twice.
 * - Failures: attempts + 1, then `failed` after OUTBOX_MAX_ATTEMPTS or on a permanent refusal
 *   (a 4xx other than 408/409/429), else retried after OUTBOX_BACKOFF_BASE_SECONDS · 2^(attempts−1)
 *   (capped at an hour): 30 s, 1 min, 2 min, 4 min.
 * - Without RESEND_API_KEY, emails are logged (recipient, subject, template; never the body, which
 *   may carry an invitation token) and marked `skipped`.
 * - Once a row is final (sent, failed for good, skipped) its payload is scrubbed: the invitation
 *   link's token is replaced by a marker, so only the token's SHA-256 (invitations.token_hash)
 *   stays stored. Until then the row must keep it: it is what a retry sends.
 */

export const OUTBOX_SWEEP_CRON = "* * * * *";
export const OUTBOX_MAX_ATTEMPTS = 5;
const OUTBOX_BACKOFF_BASE_SECONDS = 30;
const OUTBOX_BACKOFF_CAP_SECONDS = 3600;
const PROVIDER_TIMEOUT_MS = 10_000;

type DeliveryOutcome =
  /** Delivered now. */
  | "sent"
  /** No provider configured: logged and marked skipped. */
  | "skipped"
  /** Failed; will be retried after `retryInSeconds`. */
  | "retry"
  /** Failed for good (attempts exhausted or a permanent refusal). */
  | "failed"
  /** Not due yet (`retryInSeconds` until it is). */
  | "not_due"
  /** Already sent, skipped or failed: nothing to do (never sent twice). */
  | "done"
  /** Missing, or locked by a delivery in progress. */
  | "unavailable";

interface DeliveryResult {
  outcome: DeliveryOutcome;
  retryInSeconds?: number;
}

interface DeliveryOptions {
  /** The clock (tests move it forward to reach a retry). */
  now?: Date;
  requestId?: string;
}

export function backoffSeconds(attempts: number): number {
  return Math.min(OUTBOX_BACKOFF_BASE_SECONDS * 2 ** Math.max(0, attempts - 1), OUTBOX_BACKOFF_CAP_SECONDS);
}

interface EmailPayload {
  to: string;
  subject: string;
  text: string;
  html?: string;
  template?: string;
}

type SendResult = { ok: true; providerId: string | null } | { ok: false; permanent: boolean; error: string };

async function sendEmail(env: Env, outboxId: number, tenantId: number, payload: EmailPayload): Promise<SendResult> {
  const { RESEND_API_KEY, RESEND_BASE_URL, EMAIL_FROM } = config(env);
  const resend = new Resend(RESEND_API_KEY, { baseUrl: RESEND_BASE_URL });
  try {
    const { data, error } = await resend.emails.send(
      {
        from: EMAIL_FROM,
        to: payload.to,
        subject: payload.subject,
        text: payload.text,
        ...(payload.html ? { html: payload.html } : {}),
      },
      { idempotencyKey: `sucursal-outbox-${tenantId}-${outboxId}`, signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) },
    );
    if (error) {
      const status = (error as { statusCode?: number | null }).statusCode ?? null;
      const permanent = status !== null && status >= 400 && status < 500 && ![408, 409, 429].includes(status);
      return { ok: false, permanent, error: `${status ?? "network"}: ${error.name}: ${error.message}` };
    }
    return { ok: true, providerId: data?.id ?? null };
  } catch (error) {
    return { ok: false, permanent: false, error: `network: ${(error as Error).message}` };
  }
}

const o = schema.outboxMessages;

export const REDACTED = "[redacted]";
/** The token segment of an invitation's accept link (see acceptUrl in modules/invitations). */
const INVITATION_TOKEN = /(\/invitations\/)[^/?#\s"'<>]+(\/accept)/g;

/** The payload as kept once the row is final: secrets the email carried are gone. */
function scrubbedPayload(payload: EmailPayload): EmailPayload {
  const scrub = <T>(text: T) => (typeof text === "string" ? text.replace(INVITATION_TOKEN, `$1${REDACTED}$2`) : text);
  return { ...payload, text: scrub(payload.text), ...(payload.html ? { html: scrub(payload.html) } : {}) };
}

async function markSkipped(db: Database, id: number, payload: EmailPayload, reason: string): Promise<void> {
  await db
    .update(o)
    .set({ status: "skipped", lastError: reason, payload: scrubbedPayload(payload) })
    .where(eq(o.id, id));
}

/** Delivers one outbox row, inside its tenant's transaction. */
export async function deliverOutboxMessage(env: Env, ref: OutboxRef, options: DeliveryOptions = {}): Promise<DeliveryResult> {
  const now = options.now ?? new Date();
  return withTenantTransaction(env, ref.tenant_id, async (db) => {
    await endLease(db, "outbox", ref.outbox_id);
    const [row] = await db
      .select()
      .from(o)
      .where(and(eq(o.tenantId, ref.tenant_id), eq(o.id, ref.outbox_id)))
      .for("update", { skipLocked: true });
    if (!row) return { outcome: "unavailable" };
    if (row.status !== "pending") return { outcome: "done" };
    const dueIn = Math.ceil((row.nextAttemptAt.getTime() - now.getTime()) / 1000);
    if (dueIn > 0) return { outcome: "not_due", retryInSeconds: dueIn };
    const context = { tenantId: ref.tenant_id, outboxId: row.id, kind: row.kind, requestId: options.requestId };

    if (row.kind !== "email") {
      log.error("outbox: unknown message kind", context);
      await db
        .update(o)
        .set({ status: "failed", attempts: row.attempts + 1, lastError: `unknown kind ${row.kind}` })
        .where(eq(o.id, row.id));
      return { outcome: "failed" };
    }
    const payload = row.payload as EmailPayload;
    if (!config(env).RESEND_API_KEY) {
      log.info("outbox: email not sent (RESEND_API_KEY is not configured)", {
        ...context,
        template: payload.template,
        to: payload.to,
        subject: payload.subject,
      });
      await markSkipped(db, row.id, payload, "RESEND_API_KEY is not configured");
      return { outcome: "skipped" };
    }

    const result = await sendEmail(env, row.id, ref.tenant_id, payload);
    const attempts = row.attempts + 1;
    if (result.ok) {
      await db
        .update(o)
        .set({ status: "sent", attempts, sentAt: now, lastError: null, payload: scrubbedPayload(payload) })
        .where(eq(o.id, row.id));
      log.info("outbox: email sent", { ...context, template: payload.template, attempts, providerId: result.providerId });
      return { outcome: "sent" };
    }
    if (result.permanent || attempts >= OUTBOX_MAX_ATTEMPTS) {
      await db
        .update(o)
        .set({ status: "failed", attempts, lastError: result.error, payload: scrubbedPayload(payload) })
        .where(eq(o.id, row.id));
      log.error("outbox: email failed for good", { ...context, template: payload.template, attempts, error: result.error });
      return { outcome: "failed" };
    }
    const delay = backoffSeconds(attempts);
    await db
      .update(o)
      .set({ attempts, lastError: result.error, nextAttemptAt: new Date(now.getTime() + delay * 1000) })
      .where(eq(o.id, row.id));
    log.warn("outbox: email failed; will retry", { ...context, template: payload.template, attempts, retryInSeconds: delay, error: result.error });
    return { outcome: "retry", retryInSeconds: delay };
  });
}

/** One outbox message of the `outbox` Queue (which carries webhook deliveries too, jobs/webhooks.ts). */
export async function handleOutboxMessage(message: Message<OutboxRef>, env: Env, options: DeliveryOptions = {}): Promise<void> {
  try {
    const result = await deliverOutboxMessage(env, message.body, options);
    if ((result.outcome === "retry" || result.outcome === "not_due") && result.retryInSeconds) {
      message.retry({ delaySeconds: Math.min(result.retryInSeconds, 43_200) });
    } else {
      message.ack();
    }
  } catch (error) {
    // The database was unreachable, say: the row is untouched and stays pending; the queue
    // retries, and the sweep would find it anyway.
    log.error("outbox: delivery errored", { ...message.body, error: (error as Error).message });
    message.retry();
  }
}

/**
 * The cron sweep: pending rows due for at least SWEEP_GRACE_SECONDS, across tenants and fairly
 * between them (drizzle/0061 sweep_due), go back on the Queue. Returns the count.
 */
export async function sweepOutbox(env: Env, options: SweepOptions = {}): Promise<number> {
  const refs = (await dueRows(env, "outbox", options)).map((row) => ({ tenant_id: row.tenantId, outbox_id: row.id }));
  if (refs.length) {
    const sent = await enqueueOutbox(env, refs);
    log.info("outbox sweep", { due: refs.length, enqueued: sent });
  }
  return refs.length;
}
