import { and, eq } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import type { RequestScope } from "../../http/scope";
import { Big } from "../../lib/decimal";
import { AppError, fieldError, notFound } from "../../lib/errors";
import { decimal2 } from "../../lib/format";
import { assertActiveBankAccount } from "../bank-accounts/service";
import { balanceOf, paymentStatus, purchaseAccount } from "../sales/money";
import type { CreatePaymentInput } from "../sales/schemas";
import { pur } from "./prepare";
import type { PurchaseSummary } from "./schemas";
import { lockPurchase, serializePurchase } from "./service";

/* Payments to the supplier. */

/** POST /purchases/{id}/payments: as on invoices, under the purchase's row lock, so concurrent payments never pay more than is due. */
export async function addPurchasePayment(db: AnyDb, scope: RequestScope, id: number, input: CreatePaymentInput) {
  const row = await lockPurchase(db, scope, id);
  if (row.status !== "pending_payment" && row.status !== "partially_paid") {
    throw new AppError("purchase_not_payable", `Payments apply only to purchases pending payment or partially paid; this one is ${row.status}.`);
  }
  const due = balanceOf(purchaseAccount(row));
  if (new Big(input.amount).gt(due)) throw fieldError("amount", `The amount exceeds what is due (${due.toFixed(2)}).`);
  await assertActiveBankAccount(db, scope.tenantId, input.bank_account_id);
  const payment = await db
    .insert(schema.purchasePayments)
    .values({
      tenantId: scope.tenantId,
      purchaseId: id,
      amount: input.amount,
      paymentDate: input.payment_date,
      paymentMethod: input.payment_method,
      bankAccountId: input.bank_account_id ?? null,
      createdBy: scope.userId,
    })
    .returning()
    .then(oneRow);
  const paid = new Big(row.amountPaid).plus(input.amount).toFixed(2);
  const updated = await db
    .update(pur)
    .set({ amountPaid: paid, status: paymentStatus(purchaseAccount({ ...row, amountPaid: paid })), updatedAt: new Date() })
    .where(eq(pur.id, id))
    .returning()
    .then(oneRow);
  return { payment: serializePayment(payment), purchase: serializePurchase(updated) };
}

export async function deletePurchasePayment(db: AnyDb, scope: RequestScope, id: number, paymentId: number): Promise<PurchaseSummary> {
  const row = await lockPurchase(db, scope, id);
  if (row.status === "voided" || row.status === "draft") throw new AppError("purchase_not_payable", `The purchase is ${row.status}.`);
  const [payment] = await db
    .delete(schema.purchasePayments)
    .where(and(eq(schema.purchasePayments.purchaseId, id), eq(schema.purchasePayments.id, paymentId)))
    .returning();
  if (!payment) throw notFound("Payment");
  const paid = new Big(row.amountPaid).minus(payment.amount).toFixed(2);
  const updated = await db
    .update(pur)
    .set({ amountPaid: paid, status: paymentStatus(purchaseAccount({ ...row, amountPaid: paid })), updatedAt: new Date() })
    .where(eq(pur.id, id))
    .returning()
    .then(oneRow);
  return serializePurchase(updated);
}

function serializePayment(p: typeof schema.purchasePayments.$inferSelect) {
  return { id: p.id, amount: decimal2(p.amount), payment_date: p.paymentDate, payment_method: p.paymentMethod, bank_account_id: p.bankAccountId };
}
