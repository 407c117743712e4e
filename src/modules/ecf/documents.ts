import { and, asc, eq, gte, isNull, lte } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { orderBy, pageOf } from "../../db/queries";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import type { Config } from "../../env";
import type { ListQuery } from "../../http/pagination";
import type { RequestScope } from "../../http/scope";
import { ecfDateTime } from "../../lib/dates";
import { AppError, notFound } from "../../lib/errors";
import { decimal2, timestamp } from "../../lib/format";
import type { EcfType } from "../../lib/ncf";
import type { PdfDocumentData } from "../sales/pdf";
import { TimbreError, timbreUrl } from "../sales/qr";
import type {
  ECF_CAUSE_CODES,
  ECF_DELIVERY_STATUSES,
  ECF_STATUS_VALUES,
  ECF_TIMELINE_STATES,
  EcfEnvironment,
  SubmissionFilter,
  SubmissionSort,
} from "./schemas";
import { dgiiUrls } from "./service";

/** The consumer's lookup page of a tenant's E32 (modules/lookup/routes.ts), on the tenant's host. */
export const LOOKUP_PATH = "/consulta";

/** The documents an e-CF can be: its route prefix decides which table holds the document. */
export type EcfOwner = "invoice" | "credit_note" | "debit_note" | "purchase";

const e = schema.ecfDocuments;
const inv = schema.invoices;
const notes = schema.invoiceNotes;
export type EcfRow = typeof e.$inferSelect;

/** The e-CF of a document visible in the request's workspace (404 for another branch's, a deleted one, or one without e-CF). */
export async function findEcf(db: AnyDb, scope: RequestScope, owner: EcfOwner, id: number, lock = false): Promise<EcfRow> {
  const purchases = schema.purchases;
  const query =
    owner === "purchase"
      ? db
          .select({ ecf: e })
          .from(e)
          .innerJoin(purchases, eq(purchases.id, e.purchaseId))
          .where(and(eq(e.tenantId, scope.tenantId), eq(purchases.id, id), eq(purchases.workspaceId, scope.workspaceId)))
      : owner === "invoice"
        ? db
            .select({ ecf: e })
            .from(e)
            .innerJoin(inv, eq(inv.id, e.invoiceId))
            .where(and(eq(e.tenantId, scope.tenantId), eq(inv.id, id), eq(inv.workspaceId, scope.workspaceId), isNull(inv.deletedAt)))
        : db
            .select({ ecf: e })
            .from(e)
            .innerJoin(notes, eq(notes.id, e.noteId))
            .where(
              and(
                eq(e.tenantId, scope.tenantId),
                eq(notes.id, id),
                eq(notes.workspaceId, scope.workspaceId),
                eq(notes.kind, owner === "credit_note" ? "credit" : "debit"),
              ),
            );
  const [row] = lock ? await query.for("update", { of: e }) : await query;
  if (!row) throw notFound("e-CF");
  return row.ecf;
}

/**
 * The timbre URL of the printed representation (DGII, Descripción técnica, "Consulta timbre (QR)"
 * and "Consulta timbre FC"), from what the e-CF stored: the consumer URL for an E32 whose summary
 * is what DGII received. Null only for a row the URL cannot be made of (an issuer without an RNC).
 */
function qrUrlOf(row: EcfRow, urls: { ecf: string; fc: string }): string | null {
  try {
    return timbreUrl({
      ecfBaseUrl: urls.ecf,
      fcBaseUrl: urls.fc,
      type: row.ecfType as EcfType,
      issuerRnc: row.issuerRnc,
      buyerRnc: row.buyerRnc,
      encf: row.encf,
      issueDate: row.issueDate,
      total: row.totalAmount,
      signedAt: row.signedAt,
      securityCode: row.securityCode,
      consumerSummary: row.summaryXml !== null,
    });
  } catch (error) {
    if (error instanceof TimbreError) return null;
    throw error;
  }
}

/** What an e-CF's PDF prints besides the document (issue 18, "Printed representation"), or null for a document without e-CF. */
export async function printedEcf(
  db: AnyDb,
  document: { invoiceId: number } | { noteId: number } | { purchaseId: number },
  config: Pick<Config, "DGII_ECF_BASE_URL" | "DGII_FC_BASE_URL">,
  /** The tenant host's origin: an E32 prints its consumer lookup page there (modules/lookup). */
  origin?: string,
): Promise<PdfDocumentData["ecf"] | null> {
  const owner =
    "invoiceId" in document
      ? eq(e.invoiceId, document.invoiceId)
      : "noteId" in document
        ? eq(e.noteId, document.noteId)
        : eq(e.purchaseId, document.purchaseId);
  const [row] = await db.select().from(e).where(owner);
  if (!row) return null;
  const qrUrl = qrUrlOf(row, dgiiUrls(config, row.environment as EcfEnvironment));
  if (!qrUrl) return null;
  const printed: NonNullable<PdfDocumentData["ecf"]> = { qrUrl, securityCode: row.securityCode, signedAt: ecfDateTime(row.signedAt) };
  if (origin && row.ecfType === "32") printed.lookupUrl = `${origin}${LOOKUP_PATH}`;
  return printed;
}

export function serializeEcf(row: EcfRow, config: Pick<Config, "DGII_ECF_BASE_URL" | "DGII_FC_BASE_URL">) {
  const open = row.status === "pending" || row.status === "in_process";
  return {
    encf: row.encf,
    type: row.ecfType,
    environment: row.environment as EcfEnvironment,
    status: row.status as (typeof ECF_STATUS_VALUES)[number],
    track_id: row.trackId,
    security_code: row.securityCode,
    signed_at: timestamp(row.signedAt),
    qr_url: qrUrlOf(row, dgiiUrls(config, row.environment as EcfEnvironment)),
    dgii_messages: row.dgiiMessages as { codigo: string; valor: string }[],
    sequence_used: row.sequenceUsed,
    consumer_summary: row.summaryXml !== null,
    attempts: row.attempts,
    last_attempt_at: timestamp(row.lastAttemptAt),
    next_attempt_at: open ? timestamp(row.nextAttemptAt) : null,
    last_error: row.lastError,
    total_amount: decimal2(row.totalAmount),
    deferred_sending:
      row.offlineIssuedAt && row.deferredDeadline ? { offline_issued_at: timestamp(row.offlineIssuedAt), deadline: timestamp(row.deferredDeadline) } : null,
    commercial_status: row.commercialStatus as "approved" | "rejected" | null,
    commercial_reason: row.commercialReason,
    commercial_at: timestamp(row.commercialAt),
    buyer_delivery: row.deliveryStatus
      ? {
          status: row.deliveryStatus as (typeof ECF_DELIVERY_STATUSES)[number],
          receiver_url: row.deliveryUrl,
          reason_code: row.deliveryReason,
          attempts: row.deliveryAttempts,
          last_error: row.deliveryError,
          next_attempt_at: row.deliveryStatus === "pending" ? timestamp(row.deliveryNextAttemptAt) : null,
          delivered_at: timestamp(row.deliveredAt),
        }
      : null,
  };
}

/** The e-CF's timeline in order: each entry with its time, what caused it and who (ecf_transitions, written by a trigger: drizzle/0046, 0056). */
export async function ecfTimeline(db: AnyDb, row: EcfRow) {
  const t = schema.ecfTransitions;
  const u = schema.users;
  const rows = await db
    .select({ state: t.state, code: t.code, cause: t.cause, attempt: t.attempt, trackId: t.trackId, userId: t.userId, userName: u.name, at: t.at })
    .from(t)
    .leftJoin(u, eq(u.id, t.userId))
    .where(and(eq(t.tenantId, row.tenantId), eq(t.ecfDocumentId, row.id)))
    .orderBy(asc(t.id));
  return rows.map((r) => ({
    state: r.state as (typeof ECF_TIMELINE_STATES)[number],
    at: timestamp(r.at),
    code: r.code as (typeof ECF_CAUSE_CODES)[number] | null,
    cause: r.cause,
    attempt: r.attempt,
    track_id: r.trackId,
    by: r.userId === null ? null : { id: r.userId, name: r.userName ?? `user #${r.userId}` },
  }));
}

const OWNER_PATHS: Record<EcfOwner, string> = { invoice: "invoices", credit_note: "credit-notes", debit_note: "debit-notes", purchase: "purchases" };

/** Where a document of each kind is issued anew: a note on its invoice. */
async function issuePath(db: AnyDb, row: EcfRow, owner: EcfOwner): Promise<string> {
  if (owner === "invoice" || owner === "purchase") return `/api/v1/${OWNER_PATHS[owner]}`;
  const note = await db.select({ invoiceId: notes.invoiceId }).from(notes).where(eq(notes.id, row.noteId!)).then(oneRow);
  return `/api/v1/invoices/${note.invoiceId}/${owner === "credit_note" ? "credit-notes" : "debit-notes"}`;
}

const ISSUED_AGAIN: Record<EcfOwner, (path: string) => string> = {
  // The void invoice still holds its stock and its balance until it is cancelled (invoices/changes.ts, cancelVoidEcf).
  invoice: (path) => `Cancel this invoice (POST ${path}/cancel: its stock returns, no credit note is issued), then issue the sale again as a new invoice`,
  // A void note still counts on its invoice (and a credit note's restocked goods stay in stock) until it is cancelled (notes/void.ts).
  credit_note: (path) =>
    `Cancel this credit note (POST ${path}/cancel: its amounts leave the invoice and what it restocked goes back out), then issue the credit note again on its invoice`,
  debit_note: (path) => `Cancel this debit note (POST ${path}/cancel: its amounts leave the invoice), then issue the debit note again on its invoice`,
  purchase: () => "Record the purchase again",
};

/**
 * What to do next with an e-CF that did not go through, from DGII's answer (issues 33, 43): a
 * `failed` one, or a `rejected` one whose e-NCF DGII says was not used (secuenciaUtilizada false),
 * is sent again once its cause is fixed; a rejection that used the number leaves the e-CF void for
 * tax purposes (Descripción técnica, "Consulta resultado": Rechazado), so it cannot be sent again,
 * nor modified by a credit or debit note (a note modifies a valid e-CF: Formato e-CF v1.0,
 * InformacionReferencia): the document is issued again under a new e-NCF. The same words are the
 * 409 of its retry (transitions.ts). Null while nothing is to be done.
 */
export async function nextAction(db: AnyDb, row: EcfRow, owner: EcfOwner, documentId: number) {
  const base = `/api/v1/${OWNER_PATHS[owner]}/${documentId}`;
  if (row.status === "failed" || (row.status === "rejected" && row.sequenceUsed === false)) {
    return {
      code: "retry" as const,
      method: "POST" as const,
      path: `${base}/ecf/retry`,
      description:
        row.status === "failed"
          ? "DGII could not be reached for 24 hours: send it again once DGII is back (its e-NCF may also be annulled with POST /api/v1/ecf/annulments)."
          : "DGII rejected it without using its e-NCF: fix the cause DGII gives (certificate, delegation, structure) and send the same signed e-CF again.",
    };
  }
  if (row.status === "rejected") {
    return {
      code: "issue_again" as const,
      method: "POST" as const,
      path: await issuePath(db, row, owner),
      description: `DGII rejected it and counts its e-NCF as used: this e-CF is void for tax purposes, so it cannot be sent again nor corrected by a credit or debit note. ${ISSUED_AGAIN[owner](base)}, with the next e-NCF, correcting what DGII's messages say.`,
    };
  }
  return null;
}

/** The e-CF of a document as GET …/{id}/ecf shows it: the e-CF, its timeline and what to do next. */
export async function documentEcfView(
  db: AnyDb,
  row: EcfRow,
  owner: EcfOwner,
  documentId: number,
  config: Pick<Config, "DGII_ECF_BASE_URL" | "DGII_FC_BASE_URL">,
) {
  return {
    ...serializeEcf(row, config),
    timeline: await ecfTimeline(db, row),
    next_action: await nextAction(db, row, owner, documentId),
  };
}

/** The document an e-CF is (what its events are about). */
export function documentKindOf(row: Pick<EcfRow, "invoiceId" | "purchaseId" | "ecfType">) {
  return row.invoiceId !== null
    ? ("invoice" as const)
    : row.purchaseId !== null
      ? ("purchase" as const)
      : row.ecfType === "33"
        ? ("debit_note" as const)
        : ("credit_note" as const);
}

/** An e-CF with the document it is, as GET /ecf/submissions lists it (also ecf.accepted and ecf.rejected's `data`). */
export function serializeSubmission(row: EcfRow, config: Pick<Config, "DGII_ECF_BASE_URL" | "DGII_FC_BASE_URL">) {
  return {
    id: row.id,
    document_kind: documentKindOf(row),
    document_id: (row.invoiceId ?? row.noteId ?? row.purchaseId)!,
    issue_date: row.issueDate,
    ...serializeEcf(row, config),
  };
}

export async function getDocumentEcf(db: AnyDb, scope: RequestScope, owner: EcfOwner, id: number): Promise<EcfRow> {
  return findEcf(db, scope, owner, id);
}

/**
 * A document whose e-CF was signed is never changed nor deleted (its signed XML is the fiscal
 * record): once DGII may have it (sent at least once) → 409 ecf_already_sent, corrections go by
 * credit or debit note; signed but not yet sent → 409 `unsentCode` (an unsent e-NCF is annulled
 * through POST /ecf/annulments instead).
 */
export async function assertNoEcf(db: AnyDb, invoiceId: number, what: string, unsentCode: "invoice_not_editable" | "invoice_not_deletable"): Promise<void> {
  const [row] = await db.select({ status: e.status, attempts: e.attempts }).from(e).where(eq(e.invoiceId, invoiceId));
  if (!row) return;
  if (row.attempts > 0 || row.status !== "pending") {
    throw new AppError("ecf_already_sent", `This invoice's e-CF was sent to DGII: it cannot be ${what}; correct it with a credit or debit note.`);
  }
  throw new AppError(unsentCode, `This invoice's e-CF is signed: it cannot be ${what}; correct it with a credit or debit note.`);
}

/**
 * Where a document's e-CF stands with DGII, for cancelling it (invoices/changes.ts, notes/void.ts): `void` when DGII
 * rejected it and counts its e-NCF as used (Descripción técnica, "Consulta resultado": Rechazado —
 * the e-CF is void for tax purposes, so no note may modify it), `unsent` when DGII holds no valid
 * copy (rejected without using the number, or unreachable for 24 hours), `valid` otherwise (sent,
 * accepted or on its way), null when the document has no e-CF.
 */
export async function ecfStanding(db: AnyDb, document: { invoiceId: number } | { noteId: number }): Promise<"void" | "unsent" | "valid" | null> {
  const [row] = await db
    .select({ status: e.status, sequenceUsed: e.sequenceUsed })
    .from(e)
    .where("invoiceId" in document ? eq(e.invoiceId, document.invoiceId) : eq(e.noteId, document.noteId));
  if (!row) return null;
  if (row.status === "rejected") return row.sequenceUsed === false ? "unsent" : "void";
  if (row.status === "failed") return "unsent";
  return "valid";
}

/**
 * GET /ecf/submissions: the e-CF of the request's workspace, newest first, with DGII's state — the
 * operator's view of what was sent, what is still open and what needs a hand (rejected, failed).
 */
export async function listSubmissions(
  db: AnyDb,
  scope: RequestScope,
  query: ListQuery<SubmissionFilter, SubmissionSort>,
  config: Pick<Config, "DGII_ECF_BASE_URL" | "DGII_FC_BASE_URL">,
) {
  const f = query.filters;
  const where = and(
    eq(e.tenantId, scope.tenantId),
    eq(e.workspaceId, scope.workspaceId),
    f.status ? eq(e.status, f.status) : undefined,
    f.type ? eq(e.ecfType, f.type) : undefined,
    f.issue_date_from ? gte(e.issueDate, f.issue_date_from) : undefined,
    f.issue_date_to ? lte(e.issueDate, f.issue_date_to) : undefined,
  );
  const column = { issue_date: e.issueDate, encf: e.encf, created_at: e.createdAt, updated_at: e.updatedAt }[query.sort.field];
  const page = await pageOf(db, e, where, orderBy(column, e.id, query.sort.descending), query);
  return {
    data: page.rows.map((row) => serializeSubmission(row, config)),
    total: page.total,
  };
}
