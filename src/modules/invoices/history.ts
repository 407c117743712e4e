import { and, asc, eq } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import * as schema from "../../db/schema";
import type { RequestScope } from "../../http/scope";
import { decimal2, timestamp } from "../../lib/format";
import { totalsFields } from "../sales/serialize";

type InvoiceRow = typeof schema.invoices.$inferSelect;

/** What happened to an issued invoice: issued from a draft, changed, paid or a payment removed, the buyer's withholdings recorded, a note issued or cancelled (one DGII rejected as void), cancelled, deleted. */
export const HISTORY_ACTIONS = [
  "issued",
  "updated",
  "payment_added",
  "payment_removed",
  "withholdings",
  "credit_note",
  "debit_note",
  "note_cancelled",
  "cancelled",
  "deleted",
] as const;
type HistoryAction = (typeof HISTORY_ACTIONS)[number];
type HistoryValue = string | number | null;

/**
 * The fields of an issued invoice that its history follows, by API name. Money is shown as the
 * API shows it (two decimals, strings), never as a float.
 */
function trackedFields(row: InvoiceRow): Record<string, HistoryValue> {
  return {
    status: row.status,
    document_number: row.documentNumber,
    contact_id: row.contactId,
    currency_id: row.currencyId,
    issue_date: row.issueDate,
    due_date: row.dueDate,
    payment_term: row.paymentTerm,
    notes: row.notes,
    ...totalsFields(row),
    amount_paid: decimal2(row.amountPaid),
    itbis_withheld: decimal2(row.itbisWithheld),
    isr_withheld: decimal2(row.isrWithheld),
    withholding_date: row.withholdingDate,
    income_type: row.incomeType,
    credited_amount: decimal2(row.creditedAmount),
    debited_amount: decimal2(row.debitedAmount),
    deleted_at: timestamp(row.deletedAt),
  };
}

/** Only what changed: `before` and `after` carry the same keys. */
function changedFields(before: InvoiceRow, after: InvoiceRow) {
  const old = trackedFields(before);
  const now = trackedFields(after);
  const keys = Object.keys(now).filter((key) => old[key] !== now[key]);
  return {
    before: Object.fromEntries(keys.map((key) => [key, old[key]])),
    after: Object.fromEntries(keys.map((key) => [key, now[key]])),
  };
}

/**
 * Records a change of an issued invoice (issue 17: an issued document is a record, its changes are
 * kept with who and when), from its issue on: a draft has no NCF yet and is not a record, so its
 * edits write nothing. A change that touches no tracked field (e.g. a PATCH resending the same
 * values) writes nothing.
 */
export async function recordInvoiceChange(db: AnyDb, scope: RequestScope, action: HistoryAction, before: InvoiceRow, after: InvoiceRow): Promise<void> {
  const statement = invoiceChange(db, scope, action, before, after);
  if (statement) await statement;
}

/** recordInvoiceChange's statement, not sent: for a write that sends it inside its own (sales/payments.ts); null when nothing is recorded. */
export function invoiceChange(db: AnyDb, scope: RequestScope, action: HistoryAction, before: InvoiceRow, after: InvoiceRow) {
  if (before.status === "draft" && action !== "issued") return null;
  const change = changedFields(before, after);
  if (action === "updated" && Object.keys(change.after).length === 0) return null;
  return db.insert(schema.invoiceHistory).values({ tenantId: scope.tenantId, invoiceId: before.id, action, userId: scope.userId, ...change });
}

/** The invoice's history, oldest first, with the user's current name. */
export async function invoiceHistory(db: AnyDb, invoiceId: number) {
  const h = schema.invoiceHistory;
  const rows = await db
    .select({ id: h.id, action: h.action, userId: h.userId, userName: schema.users.name, before: h.before, after: h.after, createdAt: h.createdAt })
    .from(h)
    .innerJoin(schema.users, eq(schema.users.id, h.userId))
    .where(and(eq(h.invoiceId, invoiceId)))
    .orderBy(asc(h.id));
  return rows.map((row) => ({
    id: row.id,
    action: row.action as HistoryAction,
    user: { id: row.userId, name: row.userName },
    before: row.before as Record<string, HistoryValue>,
    after: row.after as Record<string, HistoryValue>,
    created_at: timestamp(row.createdAt),
  }));
}
