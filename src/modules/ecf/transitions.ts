import { eq, sql } from "drizzle-orm";
import type { Context } from "hono";
import type { AnyDb } from "../../db/client";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import type { AppEnv } from "../../http/context";
import type { RequestScope } from "../../http/scope";
import { AppError } from "../../lib/errors";
import type { WebhookEventType } from "../events/catalog";
import { type EventDataQuery, emitEvent, recordEvent } from "../events/service";
import { type EcfOwner, type EcfRow, findEcf, nextAction } from "./documents";
import type { ECF_TIMELINE_STATES } from "./schemas";
import { userEntryValue } from "./timeline";

/** The timeline's changes of state, each an event; its course entries (held, unanswered, used_number) are not. */
type EcfStateChange = Exclude<(typeof ECF_TIMELINE_STATES)[number], "held" | "unanswered" | "used_number">;

/**
 * Every transition of an e-CF's state is a webhook event (issue 33: "so an integrator never polls"),
 * recorded in the transaction that changes the state — the event is the outbox row of that change,
 * committed with it or not at all. The transition itself is the row the trigger
 * ecf_record_transition (drizzle/0046) wrote for the change, read with the e-CF by the statement
 * that stores the event (no round trip of its own); `accepted_conditional` is an `ecf.accepted`, as
 * it has been since that event existed (`data.status` tells them apart).
 */
export const ECF_EVENT_OF_STATE: Record<EcfStateChange, WebhookEventType> = {
  signed: "ecf.signed",
  sent: "ecf.sent",
  retried: "ecf.retried",
  accepted: "ecf.accepted",
  accepted_conditional: "ecf.accepted",
  rejected: "ecf.rejected",
  failed: "ecf.failed",
  annulled: "ecf.annulled",
};

/** The e-CF a transition happened to: its id, workspace and the document it is (what its events are about: GET /events' resource). */
export interface EcfSubject {
  id: number;
  workspaceId: number;
  kind: "invoice" | "credit_note" | "debit_note" | "purchase";
  documentId: number;
}

/**
 * The event of the e-CF's last transition (`state`, which the caller just made), in the caller's
 * transaction, after the statement that changed it: `data` is the e-CF as GET /ecf/submissions lists
 * it (id, e-NCF, the document, status, trackId, DGII's messages…) with `transition` (the state, when,
 * its cause: its timeline's entry), shaped by the `ecf` data format (webhooks/data-formats.ts).
 * Returns the delivery ids (also kept on `db` for a request's after-commit dispatch).
 */
export function recordEcfTransitionEvent(db: AnyDb, tenantId: number, subject: EcfSubject, state: EcfStateChange): Promise<number[]> {
  return recordEvent(db, tenantId, ECF_EVENT_OF_STATE[state], subject.workspaceId, ecfEventData(tenantId, subject));
}

/**
 * The same event written by the request's COMMIT message (events/service.ts emitEvent): issuing an
 * e-CF costs no round trip for its ecf.signed. Its statement reads the e-CF's last transition at the
 * commit, which is still the one the request made (the e-CF is the request's own, locked until then).
 */
export function emitEcfTransitionEvent(c: Context<AppEnv>, subject: EcfSubject, state: EcfStateChange): Promise<void> {
  return emitEvent(c, ECF_EVENT_OF_STATE[state], subject.workspaceId, ecfEventData(c.get("tenant").id, subject));
}

/** The e-CF and its last transition, read by the statement that stores the event (data format `ecf`). */
function ecfEventData(tenantId: number, subject: EcfSubject): EventDataQuery {
  return {
    format: "ecf",
    resourceId: subject.documentId,
    resourceType: subject.kind,
    statement: sql`SELECT row_to_json(d) AS document, json_build_object('state', t.state, 'at', t.at, 'cause', t.cause, 'code', t.code) AS transition
      FROM ecf_documents d, LATERAL (SELECT state, at, cause, code FROM ecf_transitions WHERE ecf_document_id = d.id
        AND state IN (${sql.join(
          Object.keys(ECF_EVENT_OF_STATE).map((state) => sql`${state}`),
          sql`, `,
        )}) ORDER BY id DESC LIMIT 1) t
      WHERE d.tenant_id = ${tenantId} AND d.id = ${subject.id}`,
  };
}

const e = schema.ecfDocuments;

/**
 * POST …/ecf/retry: a `failed` e-CF (DGII unreachable for 24 h) is sent again; so is a `rejected`
 * one whose e-NCF DGII says was not used (secuenciaUtilizada false: a refused signature or
 * structure, an unauthorized signer), once its cause is fixed. The stored signed XML is what is
 * sent: it is never rebuilt. Anything else → 409 ecf_not_retryable. The change is `retried` on the
 * timeline, and its ecf.retried event.
 */
export async function retryDocumentEcf(db: AnyDb, scope: RequestScope, owner: EcfOwner, id: number, now: Date): Promise<EcfRow> {
  const row = await findEcf(db, scope, owner, id, true);
  const retryable = row.status === "failed" || (row.status === "rejected" && row.sequenceUsed === false);
  if (!retryable) {
    // One story (issue 43): a rejection that used the number says here what GET …/ecf's next_action says.
    const action = await nextAction(db, row, owner, id);
    throw new AppError(
      "ecf_not_retryable",
      action
        ? `${action.description} (${action.method} ${action.path})`
        : `Only a failed e-CF, or a rejected one whose e-NCF DGII says was not used, can be sent again; this one is ${row.status}.`,
    );
  }
  const updated = await db
    .update(e)
    .set({
      status: "pending",
      trackId: null,
      sequenceUsed: null,
      unreachableSince: null,
      lastError: null,
      nextAttemptAt: now,
      updatedAt: now,
      transition: userEntryValue(
        { state: "retried", code: "retry", attempt: row.attempts, track_id: row.trackId },
        scope.userId,
        "Sent again by ",
        ` (POST …/ecf/retry), after it was ${row.status === "failed" ? "failed: DGII could not be reached for 24 hours" : "rejected without its e-NCF being used"}.`,
      ),
    })
    .where(eq(e.id, row.id))
    .returning()
    .then(oneRow);
  await recordEcfTransitionEvent(db, scope.tenantId, { id: row.id, workspaceId: row.workspaceId, kind: owner, documentId: id }, "retried");
  return updated;
}
