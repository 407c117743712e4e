import type { AnyDb } from "../../db/client";
import type { RequestScope } from "../../http/scope";
import { purchaseAccount } from "../sales/money";
import type { Payable } from "../sales/payments";
import * as payments from "../sales/payments";
import type { CreatePaymentInput } from "../sales/schemas";
import type { PurchaseSummary } from "./schemas";
import { lockPurchase, serializePurchase } from "./service";

/* Payments to the supplier: the invoices' rule and statements (sales/payments.ts), on the purchase's rows. */

function payablePurchase(db: AnyDb, scope: RequestScope, id: number): Payable<"purchase"> {
  return {
    kind: "purchase",
    id,
    lock: () => lockPurchase(db, scope, id),
    closed: ["voided", "draft"],
    account: purchaseAccount,
  };
}

/** POST /purchases/{id}/payments: as on invoices, under the purchase's row lock, so concurrent payments never pay more than is due. */
export async function addPurchasePayment(db: AnyDb, scope: RequestScope, id: number, input: CreatePaymentInput) {
  const { payment, document } = await payments.addPayment(db, scope, payablePurchase(db, scope, id), input);
  return { payment, purchase: serializePurchase(document) };
}

export async function deletePurchasePayment(db: AnyDb, scope: RequestScope, id: number, paymentId: number): Promise<PurchaseSummary> {
  return serializePurchase(await payments.removePayment(db, payablePurchase(db, scope, id), paymentId));
}
