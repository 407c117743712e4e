import { AppError, type FieldErrors } from "../../http/errors";
import { MONEY_MAX } from "../../lib/bounds";
import { Big } from "../../lib/decimal";

/** A tax as applied to a line: a snapshot of the tax at the time, and its amount. */
export interface AppliedTax {
  id: number;
  name: string;
  type: string;
  rate: string;
  amount: string;
}

export interface LineInput {
  quantity: string;
  unitPrice: string;
  /** Percentage 0-100 of the line subtotal. */
  discount: string;
  taxes: { id: number; name: string; type: string; rate: string }[];
}

export interface LineAmounts {
  subtotal: string;
  discountAmount: string;
  taxAmount: string;
  total: string;
  taxes: AppliedTax[];
}

interface DocumentAmounts {
  subtotalAmount: string;
  discountAmount: string;
  taxAmount: string;
  totalAmount: string;
}

/** Taxes of which a line may hold at most one. */
export const EXCLUSIVE_TAX_TYPES = new Set(["itbis", "isc", "exento", "no_facturable"]);

const cents = (value: Big) => value.round(2, Big.roundHalfUp);

/**
 * The line math, in exact decimals with half-up rounding to cents at each step the document
 * shows: subtotal = quantity × unit price; discount amount = subtotal × discount%; each tax =
 * (subtotal − discount amount) × rate%; total = subtotal − discount amount + Σ taxes.
 */
export function lineAmounts(line: LineInput): LineAmounts {
  const subtotal = cents(new Big(line.quantity).times(line.unitPrice));
  const discountAmount = cents(subtotal.times(line.discount).div(100));
  const taxable = subtotal.minus(discountAmount);
  let taxAmount = new Big(0);
  const taxes = line.taxes.map((tax) => {
    const amount = cents(taxable.times(tax.rate).div(100));
    taxAmount = taxAmount.plus(amount);
    return { id: tax.id, name: tax.name, type: tax.type, rate: new Big(tax.rate).toFixed(2), amount: amount.toFixed(2) };
  });
  return {
    subtotal: subtotal.toFixed(2),
    discountAmount: discountAmount.toFixed(2),
    taxAmount: taxAmount.toFixed(2),
    total: taxable.plus(taxAmount).toFixed(2),
    taxes,
  };
}

/**
 * Document totals as sums of the lines, so the lines always add up to the document exactly.
 *
 * Every amount is stored as numeric(14,2). The request schema bounds each factor (quantity ≤
 * 99,999,999.99, unit price ≤ 9,999,999,999.99, discount and tax rates ≤ 100 %), but no bound on
 * the factors alone keeps their product — or 500 lines' sum — within 12 integer digits without
 * refusing ordinary lines. So the computed amounts are checked here, before any write: a line
 * whose subtotal, discount, taxes or total exceeds 999,999,999,999.99 is a 422 on that line's
 * quantity and unit_price; a document whose sums exceed it is a 422 on `items`. (Otherwise
 * Postgres refuses the insert with a numeric overflow.)
 */
export function documentAmounts(lines: LineAmounts[]): DocumentAmounts {
  const lineErrors: FieldErrors = {};
  lines.forEach((line, i) => {
    const amounts = [line.subtotal, line.discountAmount, line.taxAmount, line.total, ...line.taxes.map((tax) => tax.amount)];
    if (amounts.some((amount) => new Big(amount).abs().gt(MONEY_MAX))) {
      const message = `The line's amount (quantity × unit price, with its taxes) exceeds ${MONEY_MAX}.`;
      lineErrors[`items.${i}.quantity`] = [message];
      lineErrors[`items.${i}.unit_price`] = [message];
    }
  });
  if (Object.keys(lineErrors).length) throw new AppError("validation_failed", "The given data was invalid.", lineErrors);

  const sum = (pick: (l: LineAmounts) => string) => lines.reduce((acc, l) => acc.plus(pick(l)), new Big(0));
  const subtotal = sum((l) => l.subtotal);
  const discount = sum((l) => l.discountAmount);
  const tax = sum((l) => l.taxAmount);
  const total = subtotal.minus(discount).plus(tax);
  if ([subtotal, discount, tax, total].some((amount) => amount.abs().gt(MONEY_MAX))) {
    const message = `The document's total exceeds ${MONEY_MAX}; split it into several documents.`;
    throw new AppError("validation_failed", "The given data was invalid.", { items: [message] });
  }
  return {
    subtotalAmount: subtotal.toFixed(2),
    discountAmount: discount.toFixed(2),
    taxAmount: tax.toFixed(2),
    totalAmount: total.toFixed(2),
  };
}
