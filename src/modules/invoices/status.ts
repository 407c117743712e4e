import { Big } from "../../lib/decimal";

/** The amounts an invoice's balance is made of (its row's columns). */
interface Balance {
  totalAmount: string;
  debitedAmount: string;
  creditedAmount: string;
  amountPaid: string;
}

/**
 * What the buyer owes: the invoice's total, plus its debit notes, minus its credit notes and
 * payments. Negative when credit notes took back more than was left to pay: the seller owes that
 * refund (issue 17, "a credit note reduces the invoice's amount_due; beyond it … a refund owed").
 */
export function balanceOf(row: Balance): Big {
  return new Big(row.totalAmount).plus(row.debitedAmount).minus(row.creditedAmount).minus(row.amountPaid);
}

/** amount_due and refund_due as the API shows them (never negative). */
export function dueAmounts(row: Balance): { amount_due: string; refund_due: string } {
  const balance = balanceOf(row);
  return { amount_due: (balance.gt(0) ? balance : new Big(0)).toFixed(2), refund_due: (balance.lt(0) ? balance.neg() : new Big(0)).toFixed(2) };
}

/** The same, in SQL over the invoices row aliased `i` (lists built by Postgres). */
export const DUE_SQL = {
  amount_due: "greatest(i.total_amount + i.debited_amount - i.credited_amount - i.amount_paid, 0)::numeric(14, 2)::text",
  refund_due: "greatest(i.credited_amount + i.amount_paid - i.total_amount - i.debited_amount, 0)::numeric(14, 2)::text",
};

/**
 * The status of an issued invoice from its balance: `paid` once nothing is due (payments, or
 * credit notes that settled it), `partially_paid` while something was paid and something is due,
 * else `pending_payment`.
 */
export function invoiceStatus(row: Balance): "pending_payment" | "partially_paid" | "paid" {
  // An invoice nobody paid or credited stays pending, even of 0.00 (as before notes existed).
  if (new Big(row.amountPaid).lte(0) && new Big(row.creditedAmount).lte(0)) return "pending_payment";
  if (balanceOf(row).lte(0)) return "paid";
  return new Big(row.amountPaid).gt(0) ? "partially_paid" : "pending_payment";
}
