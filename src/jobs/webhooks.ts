import { and, eq, sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { withTenantTransaction } from "../db/client";
import { rowsOf } from "../db/rows";
import * as schema from "../db/schema";
import { config, type Env } from "../env";
import { decryptSecret } from "../lib/crypto";
import { log } from "../lib/log";
import { endpointUrlProblem, ResolverUnavailable, resolvedHostProblem } from "../lib/outbound-url";
import { eventPayload } from "../modules/webhooks/data-formats";
import { disableForFailures, EVENT_RETENTION_MS } from "../modules/webhooks/service";
import { dueRows, endLease, type SweepOptions } from "./due";
import { enqueueOutbox, enqueueWebhooks, type WebhookRef } from "./messages";

/**
 * Delivery of outgoing webhooks (issue 21, docs/webhooks.md), through the `outbox` Queue as
 * `{tenant_id, webhook_delivery_id}` messages: queued after the request's commit
 * (jobs/dispatch.ts), re-queued by the minute sweep when due, one delivery per message inside its
 * tenant's transaction with the row locked (FOR UPDATE SKIP LOCKED) across the HTTP call, so two
 * attempts of one delivery never overlap and a delivered one is never sent again.
 *
 * Each attempt is signed with the Standard Webhooks library (headers webhook-id = the event's id,
 * the same on every attempt, webhook-timestamp, webhook-signature); 5 s timeout, redirects not
 * followed; any non-2xx, redirect or timeout is retried after RETRY_SCHEDULE with ±10 % jitter until
 * the delivery is RETRY_WINDOW_MS old, then `failed`. An endpoint whose attempts have all failed for
 * DISABLE_AFTER_MS (`failing_since`, cleared by a success) is disabled, never deleted, and the
 * tenant's admins get an email through the outbox.
 */

export const WEBHOOK_TIMEOUT_MS = 5000;
/** Seconds before the 2nd, 3rd, … attempt; the last repeats (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h…). */
export const RETRY_SCHEDULE = [5, 300, 1800, 7200, 18_000, 36_000];
/** Retried for at least 3 days after the event. */
export const RETRY_WINDOW_MS = 3 * 24 * 3600 * 1000;
/** An endpoint with no successful attempt for this long after a failed one is disabled, and the admins emailed. */
export const DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;
const RESPONSE_BODY_BYTES = 1024;

export type WebhookOutcome = "succeeded" | "retry" | "failed" | "not_due" | "done" | "unavailable";

export interface WebhookResult {
  outcome: WebhookOutcome;
  statusCode?: number | null;
  retryInSeconds?: number;
}

/** The delay before the attempt after `attempts` failed ones, jittered ±10 % so retries of many deliveries spread. */
export function retryDelaySeconds(attempts: number, random = Math.random()): number {
  const base = RETRY_SCHEDULE[Math.min(attempts, RETRY_SCHEDULE.length) - 1]!;
  return Math.max(1, Math.round(base * (0.9 + 0.2 * random)));
}

/** The body's first KB (a receiver's error page can be large; the rest is not read). */
async function firstKilobyte(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < RESPONSE_BODY_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return new TextDecoder().decode(bytes.subarray(0, RESPONSE_BODY_BYTES));
}

interface Attempt {
  statusCode: number | null;
  body: string | null;
  error: string | null;
  durationMs: number;
}

/**
 * What the endpoint's host resolves to now (lib/outbound-url.ts), as a refusal: a private
 * address, or no answer from the resolver — the attempt is not sent while the host is unknown, and
 * is retried on the schedule as any failed attempt.
 */
async function hostProblem(url: string, allowHttpLoopback: boolean, resolverUrl: string): Promise<string | null> {
  try {
    return await resolvedHostProblem(url, allowHttpLoopback, resolverUrl);
  } catch (error) {
    if (error instanceof ResolverUnavailable) return `host not resolved: ${error.message}`;
    throw error;
  }
}

async function post(url: string, headers: Record<string, string>, payload: string): Promise<Attempt> {
  const started = Date.now();
  try {
    const response = await fetch(url, { method: "POST", headers, body: payload, redirect: "manual", signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS) });
    const body = await firstKilobyte(response);
    const redirect = response.status >= 300 && response.status < 400;
    return { statusCode: response.status, body, error: redirect ? "redirects are not followed" : null, durationMs: Date.now() - started };
  } catch (error) {
    const name = (error as Error).name;
    const message = name === "TimeoutError" || name === "AbortError" ? `timeout after ${WEBHOOK_TIMEOUT_MS} ms` : `network: ${(error as Error).message}`;
    return { statusCode: null, body: null, error: message, durationMs: Date.now() - started };
  }
}

const d = schema.webhookDeliveries;
const e = schema.webhookEndpoints;
const ev = schema.webhookEvents;

/** One attempt of one delivery, if due. `now` is the clock (tests move it forward to reach a retry). */
export async function deliverWebhook(env: Env, ref: WebhookRef, options: { now?: Date } = {}): Promise<WebhookResult> {
  const now = options.now ?? new Date();
  const { APP_ENCRYPTION_KEY, WEBHOOKS_ALLOW_HTTP_LOOPBACK, WEBHOOKS_DNS_RESOLVER_URL } = config(env);
  const emails: number[] = [];
  const outcome = await withTenantTransaction(env, ref.tenant_id, async (db): Promise<WebhookResult> => {
    await endLease(db, "webhooks", ref.webhook_delivery_id);
    const [row] = await db
      .select({ delivery: d, endpoint: e, event: ev })
      .from(d)
      .innerJoin(e, eq(e.id, d.endpointId))
      .innerJoin(ev, eq(ev.id, d.eventId))
      .where(and(eq(d.tenantId, ref.tenant_id), eq(d.id, ref.webhook_delivery_id)))
      .for("update", { of: d, skipLocked: true });
    if (!row) return { outcome: "unavailable" };
    const { delivery, endpoint, event } = row;
    if (delivery.status !== "pending") return { outcome: "done" };
    const dueIn = Math.ceil((delivery.nextAttemptAt.getTime() - now.getTime()) / 1000);
    if (dueIn > 0) return { outcome: "not_due", retryInSeconds: dueIn };
    const context = { tenantId: ref.tenant_id, deliveryId: delivery.id, endpointId: endpoint.id, eventId: event.publicId };
    // A disabled endpoint receives nothing: what was pending for it is dropped (docs/webhooks.md).
    if (!endpoint.enabled) {
      await db.update(d).set({ status: "failed" }).where(eq(d.id, delivery.id));
      return { outcome: "failed" };
    }

    const attempt = delivery.attempts + 1;
    // Checked again at delivery: the configuration, or what the name resolves to, may have changed
    // since the endpoint was saved.
    const problem =
      endpointUrlProblem(endpoint.url, WEBHOOKS_ALLOW_HTTP_LOOPBACK) ??
      (await hostProblem(endpoint.url, WEBHOOKS_ALLOW_HTTP_LOOPBACK, WEBHOOKS_DNS_RESOLVER_URL));
    let result: Attempt;
    if (problem) {
      result = { statusCode: null, body: null, error: `url refused: ${problem}`, durationMs: 0 };
    } else {
      const payload = JSON.stringify({
        id: event.publicId,
        type: event.type,
        created_at: event.createdAt.toISOString(),
        data: eventPayload(event, config(env)),
      });
      const secrets = [await decryptSecret(APP_ENCRYPTION_KEY, endpoint.secretEncrypted)];
      if (endpoint.previousSecretEncrypted && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now) {
        secrets.push(await decryptSecret(APP_ENCRYPTION_KEY, endpoint.previousSecretEncrypted));
      }
      // The timestamp is the wall clock's, whatever `now` says: receivers check it against theirs.
      // During a rotation both secrets sign; the spec's header carries space-separated signatures.
      const sentAt = new Date();
      const signature = secrets.map((secret) => new Webhook(secret).sign(event.publicId, sentAt, payload)).join(" ");
      result = await post(
        endpoint.url,
        {
          "content-type": "application/json",
          "user-agent": "Sucursal-Webhooks/1",
          "webhook-id": event.publicId,
          "webhook-timestamp": String(Math.floor(sentAt.getTime() / 1000)),
          "webhook-signature": signature,
        },
        payload,
      );
    }
    await db.insert(schema.webhookAttempts).values({
      tenantId: ref.tenant_id,
      deliveryId: delivery.id,
      attempt,
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      responseBody: result.body,
      error: result.error,
      attemptedAt: now,
    });
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    if (ok) {
      await db.update(d).set({ status: "succeeded", attempts: attempt, deliveredAt: now }).where(eq(d.id, delivery.id));
      if (endpoint.failingSince) await db.update(e).set({ failingSince: null }).where(eq(e.id, endpoint.id));
      log.info("webhook delivered", { ...context, attempt, statusCode: result.statusCode });
      return { outcome: "succeeded", statusCode: result.statusCode };
    }
    const failingSince = endpoint.failingSince ?? now;
    if (!endpoint.failingSince) await db.update(e).set({ failingSince }).where(eq(e.id, endpoint.id));
    if (now.getTime() - failingSince.getTime() >= DISABLE_AFTER_MS) {
      await db.update(d).set({ status: "failed", attempts: attempt }).where(eq(d.id, delivery.id));
      emails.push(...(await disableForFailures(db, ref.tenant_id, { ...endpoint, failingSince }, now)));
      log.error("webhook endpoint disabled after 5 days of failures", { ...context, attempt, failingSince: failingSince.toISOString(), emails: emails.length });
      return { outcome: "failed", statusCode: result.statusCode };
    }
    if (now.getTime() - delivery.createdAt.getTime() >= RETRY_WINDOW_MS) {
      await db.update(d).set({ status: "failed", attempts: attempt }).where(eq(d.id, delivery.id));
      log.error("webhook failed for good", { ...context, attempt, statusCode: result.statusCode, error: result.error });
      return { outcome: "failed", statusCode: result.statusCode };
    }
    const delay = retryDelaySeconds(attempt);
    await db
      .update(d)
      .set({ attempts: attempt, nextAttemptAt: new Date(now.getTime() + delay * 1000) })
      .where(eq(d.id, delivery.id));
    log.warn("webhook failed; will retry", { ...context, attempt, statusCode: result.statusCode, error: result.error, retryInSeconds: delay });
    return { outcome: "retry", statusCode: result.statusCode, retryInSeconds: delay };
  });
  // The admins' emails, written with the disabling, go on the Queue once it has committed (else the outbox sweep sends them).
  if (emails.length) {
    await enqueueOutbox(
      env,
      emails.map((id) => ({ tenant_id: ref.tenant_id, outbox_id: id })),
    );
  }
  return outcome;
}

/** A webhook message of the `outbox` Queue (the queue registry, jobs/queue.ts, hands it here). */
export async function handleWebhookMessage(message: Message<unknown>, env: Env, options: { now?: Date } = {}): Promise<void> {
  try {
    const result = await deliverWebhook(env, message.body as WebhookRef, options);
    if ((result.outcome === "retry" || result.outcome === "not_due") && result.retryInSeconds) {
      message.retry({ delaySeconds: Math.min(result.retryInSeconds, 43_200) });
    } else {
      message.ack();
    }
  } catch (error) {
    log.error("webhook: delivery errored", { ...(message.body as WebhookRef), error: (error as Error).message });
    message.retry();
  }
}

/** The minute sweep: pending deliveries due for SWEEP_GRACE_SECONDS, across tenants and fairly between them (drizzle/0061 sweep_due), back on the Queue. */
export async function sweepWebhooks(env: Env, options: SweepOptions = {}): Promise<number> {
  const refs = (await dueRows(env, "webhooks", options)).map((row) => ({ tenant_id: row.tenantId, webhook_delivery_id: row.id }));
  if (refs.length) log.info("webhook sweep", { due: refs.length, enqueued: await enqueueWebhooks(env, refs) });
  return refs.length;
}

/** Events older than this are deleted (GET /events shows 30 days; a day's margin for a resend at the edge). */
export const EVENT_PURGE_AFTER_MS = EVENT_RETENTION_MS + 24 * 3600 * 1000;
const PURGE_LIMIT = 1000;

/**
 * The retention sweep (every minute, jobs/scheduled.ts): deletes up to `limit` events past
 * EVENT_PURGE_AFTER_MS across tenants, with their finished deliveries and attempts; one with a
 * delivery still pending waits for it (webhook_purge_events, migrations 0040 and 0047, which
 * clamps any cutoff to 31 days ago: keep the two in step). Bounded per run: a backlog is worked
 * off a run at a time.
 */
export async function purgeWebhookEvents(env: Env, options: SweepOptions = {}): Promise<number> {
  const now = options.now ?? new Date();
  const before = new Date(now.getTime() - EVENT_PURGE_AFTER_MS).toISOString();
  const [row] = await withTenantTransaction(env, null, async (db) =>
    rowsOf<{ purged: number }>(await db.execute(sql`SELECT webhook_purge_events(${before}::timestamptz, ${options.limit ?? PURGE_LIMIT}) AS purged`)),
  );
  const purged = Number(row?.purged ?? 0);
  if (purged) log.info("webhook events purged", { purged, before });
  return purged;
}
