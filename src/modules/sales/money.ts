import { Big } from "../../lib/decimal";
import { fieldError } from "../../lib/errors";
import { exchangeRateText } from "../../lib/format";

/*
 * The money rules every document shares, each in one place (docs/money.md): what the other party
 * still owes and the status that gives a document, and the rate a document is fixed at. Invoices
 * and purchases say only what their columns mean (`invoiceAccount`, `purchaseAccount`).
 */

/** What a document's balance is made of, as decimals. */
/** To the cent, half up: how every amount is rounded (FISCAL.md, "Rounding": per line, half-up to the cent). */
export const cents = (value: Big): Big => value.round(2, Big.roundHalfUp);

/**
 * An amount of a document's currency in DOP at the document's rate, half-up to the cent: the
 * stored `*_amount_dop`, the e-CF's amounts of a document in another currency (Formato e-CF v1.0,
 * the totals in DOP beside the OtraMoneda ones), the cost a purchase adds to stock, the 606, 607
 * and IT-1 in DOP. One home, so the document, its e-CF and its reports agree to the cent.
 */
export const inDop = (amount: Big.BigSource, rate: Big.BigSource): Big => cents(new Big(amount).times(rate));

export interface Account {
  /** What the document asks of the other party: its total, plus its debit notes. */
  charged: Big;
  /** What credit notes took back: it lowers the balance, and settles it only when nothing is left. */
  credited: Big;
  /** What was paid toward it (on an invoice, also what the buyer withheld and paid DGII for the seller). */
  settled: Big;
}

/** What is left to pay: negative when credit notes took back more than was left (a refund owed). */
export function balanceOf(account: Account): Big {
  return account.charged.minus(account.credited).minus(account.settled);
}

/** amount_due and refund_due as the API shows them (never negative). */
export function dueAmounts(account: Account): { amount_due: string; refund_due: string } {
  const balance = balanceOf(account);
  return { amount_due: (balance.gt(0) ? balance : new Big(0)).toFixed(2), refund_due: (balance.lt(0) ? balance.neg() : new Big(0)).toFixed(2) };
}

/**
 * The status of an issued document from its balance: `paid` once nothing is due (payments, or
 * credit notes that settled it), `partially_paid` while something was paid and something is due,
 * else `pending_payment` — also a document nobody paid or credited, even of 0.00.
 */
export function paymentStatus(account: Account): "pending_payment" | "partially_paid" | "paid" {
  if (account.settled.lte(0) && account.credited.lte(0)) return "pending_payment";
  if (balanceOf(account).lte(0)) return "paid";
  return account.settled.gt(0) ? "partially_paid" : "pending_payment";
}

/** The money columns of an invoice row. */
interface InvoiceMoney {
  totalAmount: string;
  debitedAmount: string;
  creditedAmount: string;
  amountPaid: string;
  itbisWithheld: string;
  isrWithheld: string;
}

/**
 * An invoice's account: the buyer owes the total and its debit notes, less its credit notes. What
 * the buyer withheld (ITBIS: Normas Generales 02-2005 and 07-2007; ISR: Código Tributario art. 309)
 * it paid to DGII in the seller's name, who credits it against its own taxes (IT-1 Anexo A, the
 * annual ISR): it settles that part of the invoice as a payment does, and counts toward
 * `partially_paid` and `paid` like one.
 */
export function invoiceAccount(row: InvoiceMoney): Account {
  return {
    charged: new Big(row.totalAmount).plus(row.debitedAmount),
    credited: new Big(row.creditedAmount),
    settled: new Big(row.amountPaid).plus(row.itbisWithheld).plus(row.isrWithheld),
  };
}

/** The money columns of a purchase row. */
interface PurchaseMoney {
  totalAmount: string;
  amountPaid: string;
  itbisWithheld: string;
  isrWithheld: string;
}

/**
 * A purchase's account, seen from the supplier: what the company withholds it owes DGII, not the
 * supplier (declared with the bill: 606 columns 12 and 17-18, paid in the IT-1 and the IR-17), so
 * the supplier is owed the total less the withholdings, and only payments to the supplier settle
 * that. A purchase with withholdings and no payment is pending, its amount due total − withholdings.
 */
export function purchaseAccount(row: PurchaseMoney): Account {
  return {
    charged: new Big(row.totalAmount).minus(row.itbisWithheld).minus(row.isrWithheld),
    credited: new Big(0),
    settled: new Big(row.amountPaid),
  };
}

/** An invoice's balance in SQL over its row aliased `alias`, as balanceOf(invoiceAccount(row)) computes it. */
export const invoiceBalanceSql = (alias: string) =>
  `(${alias}.total_amount + ${alias}.debited_amount - ${alias}.credited_amount - ${alias}.amount_paid - ${alias}.itbis_withheld - ${alias}.isr_withheld)`;

/** dueAmounts(invoiceAccount(row)) in SQL over the invoices row aliased `i` (lists built by Postgres). */
export const INVOICE_DUE_SQL = {
  amount_due: `greatest(${invoiceBalanceSql("i")}, 0)::numeric(14, 2)::text`,
  refund_due: `greatest(-${invoiceBalanceSql("i")}, 0)::numeric(14, 2)::text`,
};

/**
 * The rate a document is fixed at (FISCAL.md, "Amounts": the rate of its issue date): the one
 * given, else its currency's current rate; in the default currency (DOP), or with none, always 1,
 * where another given rate is a 422 on `exchange_rate`. As the API shows a rate (exchangeRateText:
 * "1.00", "58.4567"), so what is stored, signed and answered is the same text.
 */
export function exchangeRateFor(currency: { isDefault: boolean; rate: string } | null, given: string | null | undefined, document: string): string {
  if (!currency || currency.isDefault) {
    if (given != null && !new Big(given).eq(1)) throw fieldError("exchange_rate", `${document} in the default currency (DOP) has an exchange rate of 1.`);
    return exchangeRateText(1);
  }
  return exchangeRateText(given ?? currency.rate);
}
