import { Big } from "../../lib/decimal";
import type { PurchaseRow } from "./prepare";

/* What is left to pay a supplier, and the status it gives a purchase. */

/** What is left to pay the supplier: total − withholdings (paid to DGII instead) − payments. */
export function amountDue(row: Pick<PurchaseRow, "totalAmount" | "itbisWithheld" | "isrWithheld" | "amountPaid">): Big {
  return new Big(row.totalAmount).minus(row.itbisWithheld).minus(row.isrWithheld).minus(row.amountPaid);
}

export function paymentStatus(
  row: Pick<PurchaseRow, "totalAmount" | "itbisWithheld" | "isrWithheld" | "amountPaid">,
): "pending_payment" | "partially_paid" | "paid" {
  if (new Big(row.amountPaid).lte(0)) return "pending_payment";
  return amountDue(row).lte(0) ? "paid" : "partially_paid";
}
