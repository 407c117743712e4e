import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { oneRow, rowFromJson, rowsOf } from "../../db/rows";
import * as schema from "../../db/schema";
import type { RequestScope } from "../../http/scope";
import { Big } from "../../lib/decimal";
import { AppError, fieldError, notFound } from "../../lib/errors";
import { decimal2 } from "../../lib/format";
import { isActiveBankAccount } from "../bank-accounts/service";
import { type Account, balanceOf, paymentStatus } from "./money";
import type { CreatePaymentInput } from "./schemas";

/*
 * A payment added to or removed from a document (invoices' and purchases' payments): the one
 * service for the rule — never more than is due, under the document's row lock, the status
 * following (money.ts) — and for its statements. Three round trips after connecting, in the
 * request's one transaction under row-level security (docs/money.md, "Payments"):
 * 1. with BEGIN and the request context, the document locked FOR UPDATE and, issued together,
 *    the bank account checked (adding) or the payment read (removing);
 * 2. one statement writes the payment (or deletes it), the document's amount_paid and status, and
 *    what goes with them (an invoice's history);
 * 3. COMMIT, with the webhook events deferred to it.
 */

/** Each kind of document that takes payments: its table, its payments' table and the column that links them. */
const BOOKS = {
  invoice: { documents: schema.invoices, payments: schema.invoicePayments, link: "invoice_id" },
  purchase: { documents: schema.purchases, payments: schema.purchasePayments, link: "purchase_id" },
} as const;
type Kind = keyof typeof BOOKS;
type DocumentRow<K extends Kind> = (typeof BOOKS)[K]["documents"]["$inferSelect"];

/** A payment as the API shows it beside its document. */
export interface PaymentData {
  id: number;
  amount: string;
  payment_date: string;
  payment_method: string;
  bank_account_id: number | null;
}

/** A payment added or removed. */
type Change = "add" | "remove";

/** What a kind of document brings to the rule. */
export interface Payable<K extends Kind> {
  kind: K;
  /** The document's id (the request's path). */
  id: number;
  /** The document of the request's workspace, locked FOR UPDATE (404 when there is none). */
  lock: () => Promise<DocumentRow<K>>;
  /**
   * The states in which no payment is removed either (a cancelled invoice; a draft or voided
   * purchase). A payment is added only while the document is pending or partially paid.
   */
  closed: readonly string[];
  /** What its balance is made of (money.ts). */
  account: (row: DocumentRow<K>) => Account;
  /** A statement written with the payment, given the document before and after it (an invoice's history). */
  alongside?: (before: DocumentRow<K>, after: DocumentRow<K>, change: Change) => SQLWrapper | null;
}

/** POST …/payments: a payment of at most what is due; answers it and the document as written. */
export async function addPayment<K extends Kind>(
  db: AnyDb,
  scope: RequestScope,
  payable: Payable<K>,
  input: CreatePaymentInput,
): Promise<{ payment: PaymentData; document: DocumentRow<K> }> {
  const [row, bankAccountActive] = await Promise.all([payable.lock(), isActiveBankAccount(db, scope.tenantId, input.bank_account_id)]);
  if (row.status !== "pending_payment" && row.status !== "partially_paid") {
    throw new AppError(`${payable.kind}_not_payable`, `Payments apply only to ${payable.kind}s pending payment or partially paid; this one is ${row.status}.`);
  }
  const due = balanceOf(payable.account(row));
  if (new Big(input.amount).gt(due)) throw fieldError("amount", `The amount exceeds what is due (${due.toFixed(2)}).`);
  if (!bankAccountActive) throw fieldError("bank_account_id", "No such active bank account.");
  const { payments, link } = BOOKS[payable.kind];
  const payment = sql`INSERT INTO ${payments} (tenant_id, ${sql.identifier(link)}, amount, payment_date, payment_method, bank_account_id, created_by)
    VALUES (${scope.tenantId}, ${row.id}, ${input.amount}::numeric, ${input.payment_date}::date, ${input.payment_method}, ${input.bank_account_id ?? null}::int, ${scope.userId})
    RETURNING *`;
  return write(db, payable, row, "add", new Big(row.amountPaid).plus(input.amount), payment);
}

/** DELETE …/payments/{payment_id}: the payment removed; answers the document as written. */
export async function removePayment<K extends Kind>(db: AnyDb, payable: Payable<K>, paymentId: number): Promise<DocumentRow<K>> {
  const { payments, link } = BOOKS[payable.kind];
  const [row, found] = await Promise.all([
    payable.lock(),
    // Read after the lock is held (the next statement of the same message): a payment another
    // request removed meanwhile is gone.
    db.execute(sql`SELECT amount::text AS amount FROM ${payments} WHERE id = ${paymentId} AND ${sql.identifier(link)} = ${payable.id}`),
  ]);
  if (payable.closed.includes(row.status)) throw new AppError(`${payable.kind}_not_payable`, `The ${payable.kind} is ${row.status}.`);
  const [payment] = rowsOf<{ amount: string }>(found);
  if (!payment) throw notFound("Payment");
  const removed = sql`DELETE FROM ${payments} WHERE id = ${paymentId} AND ${sql.identifier(link)} = ${row.id} RETURNING *`;
  return (await write(db, payable, row, "remove", new Big(row.amountPaid).minus(payment.amount), removed)).document;
}

/**
 * The one statement of a payment's change: `statement` (the payment inserted or deleted, RETURNING
 * it), the document's amount_paid and the status that gives it, and what goes alongside.
 */
async function write<K extends Kind>(
  db: AnyDb,
  payable: Payable<K>,
  row: DocumentRow<K>,
  change: Change,
  paid: Big,
  statement: SQL,
): Promise<{ payment: PaymentData; document: DocumentRow<K> }> {
  const { documents } = BOOKS[payable.kind];
  const amountPaid = paid.toFixed(2);
  const updatedAt = new Date();
  const after = { ...row, amountPaid, updatedAt } as DocumentRow<K>;
  after.status = paymentStatus(payable.account(after));
  const alongside = payable.alongside?.(row, after, change);
  const result = await db.execute(sql`
    WITH payment AS (${statement}),
      document AS (
        UPDATE ${documents} SET amount_paid = ${amountPaid}::numeric, status = ${after.status}, updated_at = ${updatedAt.toISOString()}::timestamptz
        WHERE id = ${row.id} AND EXISTS (SELECT 1 FROM payment) RETURNING *)
      ${alongside ? sql`, alongside AS (${alongside.getSQL()})` : sql``}
    SELECT (SELECT json_build_object('id', id, 'amount', amount::text, 'payment_date', payment_date, 'payment_method', payment_method,
        'bank_account_id', bank_account_id) FROM payment) AS payment,
      (SELECT row_to_json(document) FROM document) AS document`);
  const written = oneRow(rowsOf<{ payment: PaymentData | null; document: Record<string, unknown> | null }>(result));
  if (!written.payment || !written.document) throw notFound("Payment");
  return {
    payment: { ...written.payment, amount: decimal2(written.payment.amount) },
    document: rowFromJson(documents, written.document) as DocumentRow<K>,
  };
}
