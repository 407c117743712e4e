import { eq, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { oneRow, rowFromJson, rowsOf } from "../../db/rows";
import * as schema from "../../db/schema";
import type { RequestScope } from "../../http/scope";
import { Big } from "../../lib/decimal";
import { AppError, fieldError } from "../../lib/errors";
import type { TaxBreakdown } from "../sales/lines";
import { balanceOf, invoiceAccount, paymentStatus } from "../sales/money";
import type { Payable } from "../sales/payments";
import * as payments from "../sales/payments";
import type { CreatePaymentInput } from "../sales/schemas";
import { invoiceChange } from "./history";
import { type InvoiceData, serializeInvoice } from "./json";
import type { InvoiceWithholdingsInput } from "./schemas";
import { lockInvoice } from "./service";

/*
 * What settles an invoice besides its notes: payments, added and removed, and the amounts the
 * buyer withheld for DGII.
 */

const inv = schema.invoices;

/** Payments settle an issued invoice, pending or partly paid; its history records each (sales/payments.ts writes it with the payment). */
function payableInvoice(db: AnyDb, scope: RequestScope, id: number): Payable<"invoice"> {
  return {
    kind: "invoice",
    id,
    lock: () => lockInvoice(db, scope, id),
    closed: ["cancelled"],
    account: invoiceAccount,
    alongside: (before, after, change) => invoiceChange(db, scope, change === "add" ? "payment_added" : "payment_removed", before, after),
  };
}

/** Applies a payment under the invoice's row lock, so concurrent payments never exceed the total. */
export async function addPayment(db: AnyDb, scope: RequestScope, id: number, input: CreatePaymentInput) {
  const { payment, document } = await payments.addPayment(db, scope, payableInvoice(db, scope, id), input);
  return { payment, invoice: serializeInvoice(document) };
}

export async function deletePayment(db: AnyDb, scope: RequestScope, id: number, paymentId: number): Promise<InvoiceData> {
  return serializeInvoice(await payments.removePayment(db, payableInvoice(db, scope, id), paymentId));
}

/**
 * Records what the buyer withheld of an issued invoice (ITBIS: Norma General 02-2005 and 07-2007;
 * ISR: Código Tributario art. 309) and paid to DGII for the seller, as the buyer reports it:
 * replaces what was recorded (zeros clear it). Like a payment it settles the invoice — amount_due
 * and status follow — and the 607 reports it in the month of its date. Refused on drafts and
 * cancelled invoices; ITBIS withheld at most the invoice's ITBIS; never more than is left to pay.
 */
export async function setWithholdings(
  db: AnyDb,
  scope: RequestScope,
  id: number,
  input: InvoiceWithholdingsInput,
  today: string,
): Promise<{ invoice: InvoiceData; paidNow: boolean }> {
  const invoice = await lockInvoice(db, scope, id);
  if (invoice.status === "draft" || invoice.status === "cancelled") {
    throw new AppError(
      "invoice_not_payable",
      `Withholdings apply only to issued invoices; this one is ${invoice.status === "draft" ? "a draft" : "cancelled"}.`,
    );
  }
  const itbis = new Big(input.itbis_withheld);
  const isr = new Big(input.isr_withheld);
  const any = itbis.gt(0) || isr.gt(0);
  if (any && !input.withholding_date) throw fieldError("withholding_date", "Required when an amount is withheld.");
  const date = any ? input.withholding_date : null;
  if (date && date < invoice.issueDate) throw fieldError("withholding_date", `Cannot be before the invoice's issue date (${invoice.issueDate}).`);
  if (date && date > today) throw fieldError("withholding_date", "Cannot be in the future (Dominican date).");
  const breakdown = (invoice.taxBreakdown as TaxBreakdown | null) ?? null;
  const invoiceItbis = (breakdown?.itbis ?? []).reduce((sum, entry) => sum.plus(entry.amount), new Big(0));
  if (itbis.gt(invoiceItbis)) throw fieldError("itbis_withheld", `Cannot exceed the invoice's ITBIS (${invoiceItbis.toFixed(2)}).`);
  const next = { ...invoice, itbisWithheld: itbis.toFixed(2), isrWithheld: isr.toFixed(2) };
  if (balanceOf(invoiceAccount(next)).lt(0)) {
    const left = balanceOf(invoiceAccount({ ...invoice, itbisWithheld: "0", isrWithheld: "0" }));
    throw fieldError(
      isr.gt(0) ? "isr_withheld" : "itbis_withheld",
      `The withholdings exceed what is left to pay after payments and notes (${left.toFixed(2)}).`,
    );
  }
  const updatedAt = new Date();
  const after = { ...next, withholdingDate: date, status: paymentStatus(invoiceAccount(next)), updatedAt };
  const update = db
    .update(inv)
    .set({ itbisWithheld: after.itbisWithheld, isrWithheld: after.isrWithheld, withholdingDate: date, status: after.status, updatedAt })
    .where(eq(inv.id, id))
    .returning();
  // The row and its history entry in one statement (one round trip), as a payment's are written.
  const history = invoiceChange(db, scope, "withholdings", invoice, after);
  const result = await db.execute(sql`
    WITH updated AS (${update.getSQL()})${history ? sql`, history AS (${history.getSQL()})` : sql``}
    SELECT row_to_json(updated) AS invoice FROM updated`);
  const updated = rowFromJson(inv, oneRow(rowsOf<{ invoice: Record<string, unknown> }>(result)).invoice);
  return { invoice: serializeInvoice(updated), paidNow: updated.status === "paid" && invoice.status !== "paid" };
}
