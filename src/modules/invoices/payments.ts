import { and, eq } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import type { RequestScope } from "../../http/scope";
import { Big } from "../../lib/decimal";
import { AppError, fieldError, notFound } from "../../lib/errors";
import { decimal2 } from "../../lib/format";
import { assertActiveBankAccount } from "../bank-accounts/service";
import type { TaxBreakdown } from "../sales/lines";
import { balanceOf, invoiceAccount, paymentStatus } from "../sales/money";
import type { CreatePaymentInput } from "../sales/schemas";
import { recordInvoiceChange } from "./history";
import { type InvoiceData, serializeInvoice } from "./json";
import type { InvoiceWithholdingsInput } from "./schemas";
import { lockInvoice } from "./service";

/*
 * What settles an invoice besides its notes: payments, added and removed, and the amounts the
 * buyer withheld for DGII.
 */

const inv = schema.invoices;

/** Applies a payment under the invoice's row lock, so concurrent payments never exceed the total. */
export async function addPayment(
  db: AnyDb,
  scope: RequestScope,
  id: number,
  input: CreatePaymentInput,
): Promise<{ payment: { id: number; amount: string; payment_date: string; payment_method: string; bank_account_id: number | null }; invoice: InvoiceData }> {
  const invoice = await lockInvoice(db, scope, id);
  if (invoice.status !== "pending_payment" && invoice.status !== "partially_paid") {
    throw new AppError("invoice_not_payable", `Payments apply only to invoices pending payment or partially paid; this one is ${invoice.status}.`);
  }
  const due = balanceOf(invoiceAccount(invoice));
  if (new Big(input.amount).gt(due)) throw fieldError("amount", `The amount exceeds what is due (${due.toFixed(2)}).`);
  await assertActiveBankAccount(db, scope.tenantId, input.bank_account_id);
  const paid = new Big(invoice.amountPaid).plus(input.amount);
  const payment = await db
    .insert(schema.invoicePayments)
    .values({
      tenantId: scope.tenantId,
      invoiceId: id,
      amount: input.amount,
      paymentDate: input.payment_date,
      paymentMethod: input.payment_method,
      bankAccountId: input.bank_account_id ?? null,
      createdBy: scope.userId,
    })
    .returning()
    .then(oneRow);
  const updated = await db
    .update(inv)
    .set({ amountPaid: paid.toFixed(2), status: paymentStatus(invoiceAccount({ ...invoice, amountPaid: paid.toFixed(2) })), updatedAt: new Date() })
    .where(eq(inv.id, id))
    .returning()
    .then(oneRow);
  await recordInvoiceChange(db, scope, "payment_added", invoice, updated);
  return {
    payment: {
      id: payment.id,
      amount: decimal2(payment.amount),
      payment_date: payment.paymentDate,
      payment_method: payment.paymentMethod,
      bank_account_id: payment.bankAccountId,
    },
    invoice: serializeInvoice(updated),
  };
}

export async function deletePayment(db: AnyDb, scope: RequestScope, id: number, paymentId: number): Promise<InvoiceData> {
  const invoice = await lockInvoice(db, scope, id);
  if (invoice.status === "cancelled") throw new AppError("invoice_not_payable", "The invoice is cancelled.");
  const [payment] = await db
    .delete(schema.invoicePayments)
    .where(and(eq(schema.invoicePayments.invoiceId, id), eq(schema.invoicePayments.id, paymentId)))
    .returning();
  if (!payment) throw notFound("Payment");
  const paid = new Big(invoice.amountPaid).minus(payment.amount);
  const updated = await db
    .update(inv)
    .set({ amountPaid: paid.toFixed(2), status: paymentStatus(invoiceAccount({ ...invoice, amountPaid: paid.toFixed(2) })), updatedAt: new Date() })
    .where(eq(inv.id, id))
    .returning()
    .then(oneRow);
  await recordInvoiceChange(db, scope, "payment_removed", invoice, updated);
  return serializeInvoice(updated);
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
  const updated = await db
    .update(inv)
    .set({
      itbisWithheld: next.itbisWithheld,
      isrWithheld: next.isrWithheld,
      withholdingDate: date,
      status: paymentStatus(invoiceAccount(next)),
      updatedAt: new Date(),
    })
    .where(eq(inv.id, id))
    .returning()
    .then(oneRow);
  await recordInvoiceChange(db, scope, "withholdings", invoice, updated);
  return { invoice: serializeInvoice(updated), paidNow: updated.status === "paid" && invoice.status !== "paid" };
}
