import { Big } from "../../lib/decimal";

/** The amounts an invoice's balance is made of (its row's columns). */
interface Balance {
  totalAmount: string;
  debitedAmount: string;
  creditedAmount: string;
  amountPaid: string;
  itbisWithheld: string;
  isrWithheld: string;
}

/** What settled the invoice besides credit notes: payments, and what the buyer withheld for DGII. */
export function settledOf(row: Pick<Balance, "amountPaid" | "itbisWithheld" | "isrWithheld">): Big {
  return new Big(row.amountPaid).plus(row.itbisWithheld).plus(row.isrWithheld);
}

/**
 * What the buyer owes: the invoice's total, plus its debit notes, minus its credit notes, payments
 * and what the buyer withheld (paid to DGII on the seller's behalf, as a purchase's withholdings
 * are). Negative when credit notes took back more than was left to pay: the seller owes that
 * refund (issue 17, "a credit note reduces the invoice's amount_due; beyond it … a refund owed").
 */
export function balanceOf(row: Balance): Big {
  return new Big(row.totalAmount).plus(row.debitedAmount).minus(row.creditedAmount).minus(settledOf(row));
}

/** amount_due and refund_due as the API shows them (never negative). */
export function dueAmounts(row: Balance): { amount_due: string; refund_due: string } {
  const balance = balanceOf(row);
  return { amount_due: (balance.gt(0) ? balance : new Big(0)).toFixed(2), refund_due: (balance.lt(0) ? balance.neg() : new Big(0)).toFixed(2) };
}

/** The same, in SQL over the invoices row aliased `i` (lists built by Postgres). */
export const DUE_SQL = {
  amount_due: "greatest(i.total_amount + i.debited_amount - i.credited_amount - i.amount_paid - i.itbis_withheld - i.isr_withheld, 0)::numeric(14, 2)::text",
  refund_due: "greatest(i.credited_amount + i.amount_paid + i.itbis_withheld + i.isr_withheld - i.total_amount - i.debited_amount, 0)::numeric(14, 2)::text",
};

/**
 * The status of an issued invoice from its balance: `paid` once nothing is due (payments,
 * withholdings, or credit notes that settled it), `partially_paid` while something was paid or
 * withheld and something is due,
 * else `pending_payment`.
 */
export function invoiceStatus(row: Balance): "pending_payment" | "partially_paid" | "paid" {
  const settled = settledOf(row);
  // An invoice nobody paid, withheld or credited stays pending, even of 0.00 (as before notes existed).
  if (settled.lte(0) && new Big(row.creditedAmount).lte(0)) return "pending_payment";
  if (balanceOf(row).lte(0)) return "paid";
  return settled.gt(0) ? "partially_paid" : "pending_payment";
}
