import { eq } from "drizzle-orm";
import { type Database, withTenantTransaction } from "../db/client";
import * as schema from "../db/schema";
import { config, type Env } from "../env";
import { log } from "../lib/log";
import {
  DgiiRefused,
  type DgiiResult,
  DgiiUnavailable,
  type HeldTrackId,
  queryConsumerSummary,
  queryResult,
  queryTrackIds,
  refusalMessages,
  sendConsumerSummary,
  sendEcf,
  trackIdToFollow,
  UNJUDGED,
  withDgiiToken,
} from "../modules/ecf/dgii";
import { clearDgiiBackoff, dgiiBackoffOf, recordDgiiBackoff, slowDownStatus } from "../modules/ecf/dgii-pace";
import { sendingPausedUntil } from "../modules/ecf/dgii-status";
import { documentKindOf } from "../modules/ecf/documents";
import type { EcfEnvironment } from "../modules/ecf/schemas";
import { dgiiUrls, tenantSigningMaterial } from "../modules/ecf/service";
import { entriesValue, messagesText, sameHold, sentAfter, type TimelineEntry, writtenEntries } from "../modules/ecf/timeline";
import { recordEcfTransitionEvent } from "../modules/ecf/transitions";
import { dueRows, ECF_MAX_OUTAGE_MS, endLease, lockedEcfRow, outageDelaySeconds, type SweepOptions } from "./due";
import { type EcfRef, enqueueDeliveries, enqueueEcf, enqueueWebhooks } from "./messages";

/**
 * Transmission of signed e-CF to DGII (issue 18; docs/ecf.md, "Sending and states"). Each
 * `ecf_documents` row is its own outbox entry:
 *
 * - The issuing request pushes the row's id onto `c.var.ecf`; once it has committed, `afterCommitDispatch`
 *   puts `{tenant_id, ecf_id}` on ECF_QUEUE. The minute sweep re-enqueues every row that is due and
 *   still `pending` or `in_process`, so nothing depends on a queue message surviving: a document is
 *   never lost between commit and send.
 * - One message = one step, inside the tenant's transaction holding the row's lock (FOR UPDATE SKIP
 *   LOCKED) across the DGII call, so two steps of the same document never overlap and a document is
 *   never sent twice concurrently. A step: no trackId yet → send (token first: seed → signed seed →
 *   token, cached; a 401 refreshes it once) → trackId, `in_process`; with a trackId → query the
 *   result: accepted (1), rejected (2, with DGII's messages and secuenciaUtilizada), in process (3)
 *   or conditionally accepted (4). An E32 under RD$250,000 sends its signed summary (RFCE) to the
 *   consumer-invoice host instead, whose answer is final at once.
 * - Result queries back off from seconds to minutes (2 s doubling, capped at 10 min): DGII says a
 *   validation takes ~200 ms on average, but `in_process` may last.
 * - DGII unreachable (network, 5xx, 408, 429): the step is retried with backoff (30 s doubling,
 *   capped at 15 min) for 24 hours from the first failure of the outage, then `failed` (retry:
 *   POST …/ecf/retry). DGII refusing a reception outright (4xx): `rejected`, sequence not used.
 * - Never sent twice (issue 33): an e-CF without a trackId whose earlier attempt may have reached
 *   DGII (a timeout, a connection cut after sending: the answer was lost) first asks DGII's trackIds
 *   service which trackIds it holds for the e-NCF, and follows an accepted or in-process one
 *   instead of sending again. A rejection is reconciled the same way: when DGII holds an accepted copy of the same
 *   e-NCF under another trackId (the first send got through, a resend was answered "secuencia ya
 *   utilizada"), the document follows that copy and is accepted, never marked rejected or failed.
 */

export function pollDelaySeconds(polls: number): number {
  return Math.min(2 * 2 ** Math.max(0, polls - 1), 600);
}

type StepOutcome =
  /** Sent or queried; DGII's answer is final (accepted, accepted_conditional, rejected). */
  | "final"
  /** Sent or queried, not final: query again after `retryInSeconds`. */
  | "in_process"
  /** DGII could not be reached: retried after `retryInSeconds`. */
  | "retry"
  /** DGII is in a maintenance window or reports the service down: nothing tried, again after `retryInSeconds`. */
  | "paused"
  /** DGII asked this company to slow down (a 429 or 503, modules/ecf/dgii-pace.ts): nothing tried, the sweep takes it after the wait. */
  | "backoff"
  /** Unreachable for 24 h: failed. */
  | "failed"
  | "not_due"
  /** Already final. */
  | "done"
  /** Missing, or locked by a step in progress. */
  | "unavailable";

export interface StepResult {
  outcome: StepOutcome;
  status?: string;
  retryInSeconds?: number;
  /** DGII accepted an e-CF naming a buyer: its delivery to the buyer's receiver is due now. */
  deliver?: boolean;
  /** The deliveries of the event of the transition the step made (ecf.sent, ecf.accepted…): queued after its commit. */
  webhooks?: number[];
}

const e = schema.ecfDocuments;
type EcfRow = typeof e.$inferSelect;

const FINAL_BY_CODE: Record<number, "accepted" | "rejected" | "accepted_conditional"> = { 1: "accepted", 2: "rejected", 4: "accepted_conditional" };
/** DGII's words for its final states, as the timeline quotes them. */
const STATE_WORDS = { accepted: "Aceptado", rejected: "Rechazado", accepted_conditional: "Aceptado Condicional" } as const;

/** Calls DGII for a document with its tenant's token (refreshed once on a 401). */
async function withToken<T>(env: Env, db: Database, row: EcfRow, call: (token: string, urls: { ecf: string; fc: string }) => Promise<T>): Promise<T> {
  const environment = row.environment as EcfEnvironment;
  const urls = dgiiUrls(config(env), environment);
  const material = await tenantSigningMaterial(db, row.tenantId, config(env).APP_ENCRYPTION_KEY);
  return withDgiiToken(row.tenantId, environment, urls.ecf, material, (token) => call(token, urls));
}

/** One step of one document (see above), inside its tenant's transaction. */
export async function stepEcfDocument(env: Env, ref: EcfRef, options: { now?: Date } = {}): Promise<StepResult> {
  const now = options.now ?? new Date();
  return withTenantTransaction(env, ref.tenant_id, async (db) => {
    await endLease(db, "ecf", ref.ecf_id);
    const row = await lockedEcfRow(db, ref);
    if (!row) return { outcome: "unavailable" };
    if (row.status !== "pending" && row.status !== "in_process") return { outcome: "done", status: row.status };
    const dueIn = Math.ceil((row.nextAttemptAt.getTime() - now.getTime()) / 1000);
    if (dueIn > 0) return { outcome: "not_due", retryInSeconds: dueIn };
    // DGII asked this company to wait (a 429 or 503 to one of its steps): no call until the wait is
    // over; the minute sweep takes the document then, at the company's pace (issue 48).
    const backoff = await dgiiBackoffOf(db, row.tenantId);
    if (backoff && backoff.until > now) {
      return { outcome: "backoff", status: row.status, retryInSeconds: Math.max(1, Math.ceil((backoff.until.getTime() - now.getTime()) / 1000)) };
    }
    // A known outage (a maintenance window, a service DGII reports down) is waited out: no attempt
    // is spent and no backoff grows through it (issue 33).
    const service = row.summaryXml ? "Recepción FC" : row.trackId ? "Consulta Resultado" : "Recepción";
    // A contingency covering the branch holds what was not sent yet (modules/ecf/contingency.ts);
    // its 24-hour outage clock starts again after the close.
    const pause = await sendingPausedUntil(
      db,
      row.environment,
      service,
      now,
      row.trackId ? undefined : { tenantId: row.tenantId, workspaceId: row.workspaceId },
    );
    if (pause) {
      const retryInSeconds = Math.max(1, Math.ceil((pause.until.getTime() - now.getTime()) / 1000));
      // The first step a hold meets is a timeline entry; the same hold met again is not (issue 43).
      const cause = `${{ contingency: "Held", window: "Held through", reported_outage: "Held while" }[pause.kind]} ${pause.reason.replace(/^held /, "")}.`;
      const entry = sameHold(row.transition, pause.kind, cause)
        ? {}
        : { transition: entriesValue([{ state: "held", code: pause.kind, cause, attempt: row.attempts || null, track_id: row.trackId }]) };
      await db
        .update(e)
        .set({
          nextAttemptAt: pause.until,
          lastError: `Paused: ${pause.reason}.`,
          updatedAt: now,
          ...(pause.kind === "contingency" ? { unreachableSince: null } : {}),
          ...entry,
        })
        .where(eq(e.id, row.id));
      log.info("ecf: paused", { tenantId: row.tenantId, ecfId: row.id, encf: row.encf, reason: pause.reason, retryInSeconds });
      return { outcome: "paused", status: row.status, retryInSeconds };
    }
    const attempts = row.attempts + 1;
    const context = { tenantId: row.tenantId, ecfId: row.id, encf: row.encf, attempts };
    /** A call to DGII with the company's token; the first answer DGII gives ends a wait it had asked for. */
    let waited = backoff !== undefined;
    const dgii = async <T>(call: (token: string, urls: { ecf: string; fc: string }) => Promise<T>): Promise<T> => {
      const answered = async () => {
        if (!waited) return;
        waited = false;
        await clearDgiiBackoff(db, row.tenantId);
      };
      try {
        const result = await withToken(env, db, row, call);
        await answered();
        return result;
      } catch (error) {
        if (error instanceof DgiiRefused) await answered();
        throw error;
      }
    };
    /** The step's one write, with the timeline entries it adds (modules/ecf/timeline.ts), in order. */
    const save = (values: Partial<EcfRow>, entries: TimelineEntry[] = []) =>
      db
        .update(e)
        .set({ attempts, lastAttemptAt: now, updatedAt: now, ...values, ...(entries.length ? { transition: entriesValue(entries) } : {}) })
        .where(eq(e.id, row.id));
    /**
     * A change of state as its event (modules/ecf/transitions.ts), in this step's transaction; its
     * deliveries are queued after the commit. A step that leaves the state as it was emits nothing.
     */
    const transitionEvent = async (status: "in_process" | "accepted" | "accepted_conditional" | "rejected" | "failed") =>
      status === row.status
        ? []
        : recordEcfTransitionEvent(
            db,
            row.tenantId,
            { id: row.id, workspaceId: row.workspaceId, kind: documentKindOf(row), documentId: (row.invoiceId ?? row.noteId ?? row.purchaseId)! },
            status === "in_process" ? "sent" : status,
          );
    const fileName = `${row.issuerRnc}${row.encf}.xml`;
    /** What this step is, in the timeline's words: a send, or a step after one. */
    const after = sentAfter(row.transition, attempts);
    const sentWords = after.code === "first_attempt" ? "on the first attempt" : `on attempt ${attempts}, ${after.words}`;
    /** The entries the step writes before its final one (the rejection of a resend as a used number). */
    const course: TimelineEntry[] = [];
    /** A trackId DGII already held for this e-NCF, followed instead of the row's (saved with the step). */
    let followed: HeldTrackId | null = null;
    /** How the step learnt the summary's state when it did not send it (consultarfce). */
    let summaryLookedUp = false;
    const heldByDgii = async () => {
      try {
        return await dgii((token, urls) => queryTrackIds(urls.ecf, token, row.issuerRnc, row.encf));
      } catch (error) {
        // The lookup refused (not the document): go on as if DGII held nothing; an outage is retried.
        if (!(error instanceof DgiiRefused)) throw error;
        log.warn("ecf: DGII's trackIds lookup refused", { ...context, error: error.message });
        return [];
      }
    };
    try {
      let result: DgiiResult | null = null;
      if (row.summaryXml) {
        // A summary already attempted is first looked up (issue 43): DGII may hold it though its
        // answer was lost or could not be judged. One DGII answered without a codigo or an estado
        // was received: it is never sent again, its state is asked until DGII gives one.
        const answeredUnjudged = writtenEntries(row.transition).some((entry) => entry.code === "unjudged");
        if (row.attempts > 0) {
          const known = await dgii((token, urls) => queryConsumerSummary(urls.fc, token, row.issuerRnc, row.encf, row.securityCode)).catch((error: unknown) => {
            // The lookup refused (not the summary): as if DGII held nothing; an outage is retried.
            if (!(error instanceof DgiiRefused)) throw error;
            log.warn("ecf: DGII's summary lookup refused", { ...context, error: error.message });
            return { code: 0, messages: [], sequenceUsed: null } satisfies DgiiResult;
          });
          if (FINAL_BY_CODE[known.code]) {
            result = known;
            summaryLookedUp = true;
          } else if (answeredUnjudged) {
            result = { ...known, code: known.code === UNJUDGED ? UNJUDGED : 0 };
            summaryLookedUp = true;
          }
        }
        result ??= await dgii((token, urls) => sendConsumerSummary(urls.fc, token, row.summaryXml!, fileName));
      } else if (!row.trackId) {
        // An earlier attempt may have reached DGII though its answer was lost: ask before sending again.
        // A copy DGII rejected is not followed: a retry of a rejection whose number was not used
        // (its cause fixed, POST …/ecf/retry) must reach DGII again.
        followed = row.attempts > 0 ? trackIdToFollow((await heldByDgii()).filter((held) => !/^rechazado/i.test(held.state))) : null;
        if (!followed) {
          const trackId = await dgii((token, urls) => sendEcf(urls.ecf, token, row.xml, fileName));
          const delay = pollDelaySeconds(1);
          await save({ status: "in_process", trackId, lastError: null, unreachableSince: null, nextAttemptAt: new Date(now.getTime() + delay * 1000) }, [
            { state: "sent", code: after.code, cause: `Sent to DGII ${sentWords}; DGII gave trackId ${trackId}.`, attempt: attempts, track_id: trackId },
          ]);
          const webhooks = await transitionEvent("in_process");
          log.info("ecf: sent", { ...context, trackId });
          return { outcome: "in_process", status: "in_process", retryInSeconds: delay, ...(webhooks.length ? { webhooks } : {}) };
        }
        log.info("ecf: DGII already holds it; following its trackId instead of sending again", {
          ...context,
          trackId: followed.trackId,
          state: followed.state,
        });
        const trackId = followed.trackId;
        result = await dgii((token, urls) => queryResult(urls.ecf, token, trackId));
      } else {
        result = await dgii((token, urls) => queryResult(urls.ecf, token, row.trackId!));
      }
      /** How the step came to the trackId it reports: found through consultatrackids, or the row's. */
      let reconciled: string | null = followed
        ? `Not sent again on attempt ${attempts}: DGII's consultatrackids shows it already received this e-NCF as trackId ${followed.trackId} (${followed.state}); followed`
        : null;
      if (FINAL_BY_CODE[result.code] === "rejected" && !row.summaryXml) {
        // "Secuencia ya utilizada" after a resend: DGII may hold an accepted copy under another trackId.
        const current = followed?.trackId ?? row.trackId;
        const copy = trackIdToFollow((await heldByDgii()).filter((held) => held.trackId !== current && /^aceptado/i.test(held.state)));
        if (copy) {
          log.info("ecf: rejected as a resend of an accepted copy; following the copy", { ...context, rejectedTrackId: current, trackId: copy.trackId });
          const refused = messagesText(result.messages);
          course.push({
            state: "used_number",
            code: "dgii_answer",
            cause: `DGII rejected trackId ${current}${refused ? `: ${refused}` : ""} (its e-NCF was already used).`,
            attempt: attempts,
            track_id: current,
          });
          followed = copy;
          reconciled = `Reconciled through DGII's consultatrackids: it already held this e-NCF as trackId ${copy.trackId} (${copy.state}); followed`;
          result = await dgii((token, urls) => queryResult(urls.ecf, token, copy.trackId));
        }
      }
      const final = FINAL_BY_CODE[result.code];
      const trackId = followed?.trackId ?? row.trackId;
      if (!final) {
        // 3 en proceso (or 0, not found yet): ask again later, backing off. An answer that cannot be
        // judged (neither a codigo nor an estado of DGII's) is never taken for a final one either.
        const unjudged = result.code === UNJUDGED ? "DGII's answer could not be judged (no codigo nor estado of DGII's): asked again." : null;
        if (unjudged) log.warn("ecf: DGII's answer could not be judged", { ...context, messages: result.messages });
        const polls = row.trackId ? attempts - 1 : attempts;
        const delay = pollDelaySeconds(polls);
        const entries: TimelineEntry[] = [...course];
        if (row.status === "pending") {
          entries.push({
            state: "sent",
            code: reconciled ? "reconciled" : after.code,
            cause: reconciled ? `${reconciled}.` : `Consumer summary (RFCE) sent to DGII ${sentWords}.`,
            attempt: attempts,
            track_id: trackId,
          });
        }
        if (row.summaryXml && unjudged && !summaryLookedUp) {
          entries.push({
            state: "unanswered",
            code: "unjudged",
            cause: `DGII's answer to the consumer summary (attempt ${attempts}) had neither a codigo nor an estado: it is never sent again; its state is asked of DGII (consultarfce) until DGII gives one.`,
            attempt: attempts,
            track_id: null,
          });
        }
        await save(
          {
            ...(followed ? { trackId: followed.trackId } : {}),
            status: "in_process",
            dgiiMessages: result.messages,
            lastError: unjudged ?? (summaryLookedUp ? "DGII has no state for the summary yet (consultarfce): asked again." : null),
            unreachableSince: null,
            nextAttemptAt: new Date(now.getTime() + delay * 1000),
          },
          entries,
        );
        const webhooks = await transitionEvent("in_process");
        return { outcome: "in_process", status: "in_process", retryInSeconds: delay, ...(webhooks.length ? { webhooks } : {}) };
      }
      // Accepted, it goes to the buyer's receiver next (jobs/ecf-delivery.ts), when it names one.
      const deliver = (final === "accepted" || final === "accepted_conditional") && row.buyerRnc !== null;
      const sequenceUsed = final === "rejected" ? result.sequenceUsed : null;
      const messages = messagesText(result.messages);
      const said = `${STATE_WORDS[final]}${messages ? ` (${messages})` : ""}`;
      const used = final === "rejected" ? (sequenceUsed === false ? "; its e-NCF was not used" : "; its e-NCF counts as used") : "";
      const cause = row.summaryXml
        ? summaryLookedUp
          ? `Not sent again on attempt ${attempts}: DGII's consultarfce says the consumer summary (RFCE) it received is ${said}${used}.`
          : `Consumer summary (RFCE) sent to DGII ${sentWords}; DGII answered ${said}${used}.`
        : reconciled
          ? `${reconciled}; DGII answered ${said} for it${used}.`
          : `DGII answered ${said} for trackId ${trackId}${used}.`;
      await save(
        {
          ...(followed ? { trackId: followed.trackId } : {}),
          status: final,
          dgiiMessages: result.messages,
          sequenceUsed,
          lastError: null,
          unreachableSince: null,
          ...(deliver ? { deliveryStatus: "pending", deliveryNextAttemptAt: now } : {}),
        },
        [...course, { state: final, code: reconciled || summaryLookedUp ? "reconciled" : "dgii_answer", cause, attempt: attempts, track_id: trackId }],
      );
      const webhooks = await transitionEvent(final);
      log.info("ecf: final", { ...context, status: final });
      return deliver ? { outcome: "final", status: final, deliver, webhooks } : { outcome: "final", status: final, webhooks };
    } catch (error) {
      if (error instanceof DgiiRefused) {
        // DGII refused the file itself: nothing was received, so the number was not used.
        await save({ status: "rejected", dgiiMessages: refusalMessages(error.body), sequenceUsed: false, lastError: error.message }, [
          {
            state: "rejected",
            code: "refused",
            cause: `DGII refused it on attempt ${attempts}: ${error.message.slice(0, 600)} Nothing was received: its e-NCF was not used.`,
            attempt: attempts,
            track_id: row.trackId,
          },
        ]);
        const webhooks = await transitionEvent("rejected");
        log.warn("ecf: refused by DGII", { ...context, error: error.message });
        return { outcome: "final", status: "rejected", webhooks };
      }
      if (!(error instanceof DgiiUnavailable)) throw error;
      // DGII asking to slow down (429, 503) holds the whole company back, not only this document.
      if (slowDownStatus(error.status)) {
        const until = await recordDgiiBackoff(db, row.tenantId, now, error.message, error.retryAfterSeconds);
        log.warn("ecf: DGII asked the company to slow down", { ...context, status: error.status, until: until.toISOString() });
      }
      const since = row.unreachableSince ?? now;
      if (now.getTime() - since.getTime() >= ECF_MAX_OUTAGE_MS) {
        await save({ status: "failed", lastError: error.message, unreachableSince: since }, [
          {
            state: "failed",
            code: "outage_24h",
            cause: `DGII could not be reached for 24 hours, since ${since.toISOString()}: ${error.message.slice(0, 600)}`,
            attempt: attempts,
            track_id: row.trackId,
          },
        ]);
        const webhooks = await transitionEvent("failed");
        log.error("ecf: DGII unreachable for 24 hours; failed", { ...context, error: error.message });
        return { outcome: "failed", status: "failed", webhooks };
      }
      const failures = row.unreachableSince ? attempts : 1;
      const delay = outageDelaySeconds(failures);
      // The first failure of an outage is a timeline entry (the course changed); the retries of it are not.
      const next = row.trackId
        ? "Its result is asked again"
        : row.summaryXml
          ? "Before sending again, DGII is asked whether it received the summary (consultarfce)"
          : "Before sending again, DGII is asked whether it received it (consultatrackids)";
      await save(
        { lastError: error.message, unreachableSince: since, nextAttemptAt: new Date(now.getTime() + delay * 1000) },
        row.unreachableSince
          ? []
          : [
              {
                state: "unanswered",
                code: "unreachable",
                cause: `Attempt ${attempts} got no answer from DGII (${error.message.slice(0, 600)}). ${next}, backing off from ${delay} s.`,
                attempt: attempts,
                track_id: row.trackId,
              },
            ],
      );
      log.warn("ecf: DGII unreachable; will retry", { ...context, retryInSeconds: delay, error: error.message });
      return { outcome: "retry", status: row.status, retryInSeconds: delay };
    }
  });
}

/** One e-CF step message of ECF_QUEUE; a step that leaves the document open enqueues the next one, delayed. */
export async function handleEcfMessage(message: Message<EcfRef>, env: Env): Promise<void> {
  try {
    const result = await stepEcfDocument(env, message.body);
    // A delay past the queue's 12-hour limit is left to the sweep. A held document (paused: a
    // contingency, a maintenance window) and a company DGII asked to wait (backoff) are left to the
    // sweep too, which takes them when due at the company's pace: 20,000 held e-CF do not all come
    // back on the queue at the same second, ahead of every other company's (issue 48).
    if ((result.outcome === "in_process" || result.outcome === "retry") && result.retryInSeconds) {
      await enqueueEcf(env, [message.body], Math.min(result.retryInSeconds, 43_200));
    }
    if (result.deliver) await enqueueDeliveries(env, [{ tenant_id: message.body.tenant_id, ecf_id: message.body.ecf_id, delivery: true }]);
    const tenantId = message.body.tenant_id;
    if (result.webhooks?.length)
      await enqueueWebhooks(
        env,
        result.webhooks.map((id) => ({ tenant_id: tenantId, webhook_delivery_id: id })),
      );
    message.ack();
  } catch (error) {
    // The database was unreachable, say: the row is untouched; the queue retries, and the sweep would find it anyway.
    log.error("ecf: step errored", { ...message.body, error: (error as Error).message });
    message.retry();
  }
}

/**
 * The minute sweep: open documents due, across tenants, back on the queue (drizzle/0061
 * sweep_due): round-robin between companies, at most ECF_SENDS_PER_MINUTE of one company a minute
 * (its pace towards DGII), none of a company DGII asked to wait. A company's backlog (a
 * contingency's held e-CF) drains at that pace while every other company's due e-CF goes in the
 * same minute.
 */
export async function sweepEcf(env: Env, options: SweepOptions = {}): Promise<number> {
  const perTenant = options.perTenant ?? config(env).ECF_SENDS_PER_MINUTE;
  const refs = (await dueRows(env, "ecf", { ...options, perTenant })).map((row) => ({ tenant_id: row.tenantId, ecf_id: row.id }));
  if (refs.length) log.info("ecf sweep", { due: refs.length, enqueued: await enqueueEcf(env, refs) });
  return refs.length;
}
