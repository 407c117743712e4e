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

export interface DocumentAmounts {
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

/** Document totals as sums of the lines, so the lines always add up to the document exactly. */
export function documentAmounts(lines: LineAmounts[]): DocumentAmounts {
  const sum = (pick: (l: LineAmounts) => string) => lines.reduce((acc, l) => acc.plus(pick(l)), new Big(0));
  const subtotal = sum((l) => l.subtotal);
  const discount = sum((l) => l.discountAmount);
  const tax = sum((l) => l.taxAmount);
  return {
    subtotalAmount: subtotal.toFixed(2),
    discountAmount: discount.toFixed(2),
    taxAmount: tax.toFixed(2),
    totalAmount: subtotal.minus(discount).plus(tax).toFixed(2),
  };
}
