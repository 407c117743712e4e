import { MONEY_MAX } from "../../lib/bounds";
import { Big } from "../../lib/decimal";
import { AppError, type FieldErrors } from "../../lib/errors";
import { cents } from "./money";

/** A tax as a line applies it: what it is (a snapshot of the tax at the time). */
export interface LineTax {
  id: number;
  name: string;
  type: string;
  rate: string;
  /** Formato e-CF v1.0 Tabla I code (001-039), when the tax has one. */
  dgii_code?: string | null;
  /** ISC específico: the amount per unit. */
  amount_per_unit?: string | null;
}

/** A tax as applied to a line: the snapshot, the base it was computed on, and its amount. */
export interface AppliedTax extends Omit<LineTax, "dgii_code" | "amount_per_unit"> {
  dgii_code?: string;
  amount_per_unit?: string;
  /** What the rate applied to (absent for a specific ISC, which is per unit). */
  base?: string;
  amount: string;
}

export interface LineInput {
  quantity: string;
  unitPrice: string;
  /** Percentage 0-100 of the line subtotal. */
  discount: string;
  taxes: LineTax[];
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

/**
 * Taxes of which a line may hold at most one: its ITBIS indicator (Formato e-CF v1.0,
 * IndicadorFacturacion: ITBIS 18/16/0 %, exento, no facturable). ISC and other additional taxes
 * come on top of it.
 */
export const EXCLUSIVE_TAX_TYPES = new Set(["itbis", "exento", "no_facturable"]);

/** Tabla I codes whose amount is per unit (ISC específico, 006-022) rather than a rate. */
export const isSpecificIscCode = (code: string | null | undefined) => code != null && code >= "006" && code <= "022";

/**
 * ISC codes 006-039 (alcohol and tobacco) form part of the ITBIS base: "Solo forman parte de la base
 * imponible del ITBIS los impuestos selectivos al consumo con códigos desde 006 hasta 039"
 * (Formato e-CF v1.0, Total ITBIS Tasa 1, field 101). 001-005 (propina, CDT, ISC on insurance and
 * telecommunications, primera placa) do not.
 */
export const entersItbisBase = (tax: LineTax) => tax.type === "isc" && tax.dgii_code != null && tax.dgii_code >= "006" && tax.dgii_code <= "039";

/**
 * The line math, in exact decimals with half-up rounding to cents at each amount the document
 * shows: subtotal = quantity × unit price; discount amount = subtotal × discount%; taxable =
 * subtotal − discount amount. Then, in this order: ISC específico = quantity × amount per unit; ISC
 * ad valorem, propina and other additional taxes = taxable × rate%; ITBIS (or exento, 0) =
 * (taxable + the ISC that enters the ITBIS base) × rate%. Total = taxable + Σ taxes.
 */
export function lineAmounts(line: LineInput): LineAmounts {
  const subtotal = cents(new Big(line.quantity).times(line.unitPrice));
  const discountAmount = cents(subtotal.times(line.discount).div(100));
  const taxable = subtotal.minus(discountAmount);
  const amountOf = new Map<LineTax, { base?: Big; amount: Big }>();
  for (const tax of line.taxes) {
    if (EXCLUSIVE_TAX_TYPES.has(tax.type)) continue;
    if (tax.type === "isc" && isSpecificIscCode(tax.dgii_code)) {
      amountOf.set(tax, { amount: cents(new Big(line.quantity).times(tax.amount_per_unit ?? 0)) });
    } else {
      amountOf.set(tax, { base: taxable, amount: cents(taxable.times(tax.rate).div(100)) });
    }
  }
  const itbisBase = line.taxes.filter(entersItbisBase).reduce((sum, tax) => sum.plus(amountOf.get(tax)?.amount ?? 0), taxable);
  for (const tax of line.taxes) {
    if (EXCLUSIVE_TAX_TYPES.has(tax.type)) amountOf.set(tax, { base: itbisBase, amount: cents(itbisBase.times(tax.rate).div(100)) });
  }
  let taxAmount = new Big(0);
  const taxes = line.taxes.map((tax): AppliedTax => {
    const { base, amount } = amountOf.get(tax)!;
    taxAmount = taxAmount.plus(amount);
    return {
      id: tax.id,
      name: tax.name,
      type: tax.type,
      rate: new Big(tax.rate).toFixed(2),
      ...(tax.dgii_code ? { dgii_code: tax.dgii_code } : {}),
      ...(tax.amount_per_unit ? { amount_per_unit: new Big(tax.amount_per_unit).toFixed(2) } : {}),
      ...(base ? { base: base.toFixed(2) } : {}),
      amount: amount.toFixed(2),
    };
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
 * quantity and price (`priceField`: a sale's unit_price, a purchase's unit_cost); a document whose
 * sums exceed it is a 422 on `items`. (Otherwise Postgres refuses the insert with a numeric
 * overflow, a 422 that names no field.)
 */
export function documentAmounts(lines: LineAmounts[], priceField: "unit_price" | "unit_cost" = "unit_price"): DocumentAmounts {
  const lineErrors: FieldErrors = {};
  lines.forEach((line, i) => {
    const amounts = [line.subtotal, line.discountAmount, line.taxAmount, line.total, ...line.taxes.map((tax) => tax.amount)];
    if (amounts.some((amount) => new Big(amount).abs().gt(MONEY_MAX))) {
      const message = `The line's amount (quantity × ${priceField === "unit_cost" ? "unit cost" : "unit price"}, with its taxes) exceeds ${MONEY_MAX}.`;
      lineErrors[`items.${i}.quantity`] = [message];
      lineErrors[`items.${i}.${priceField}`] = [message];
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

/**
 * A document's taxes by kind, as the e-CF's Totales section and the 606/607 reports need them
 * (Formato e-CF v1.0, Encabezado.Totales and ImpuestosAdicionales): per ITBIS rate its taxed base
 * (MontoGravadoI1/I2/I3: the lines' taxable amounts) and amount; the exempt base (MontoExento:
 * exento lines and lines with no ITBIS indicator); non-billable amounts; and per Tabla I code the
 * additional taxes (ISC específico and ad valorem, propina, others). Sums of the lines' amounts.
 */
export interface TaxBreakdown {
  itbis: { rate: string; base: string; amount: string }[];
  exempt_base: string;
  non_billable: string;
  additional: { code: string | null; kind: "isc_specific" | "isc_ad_valorem" | "propina" | "other"; name: string; rate: string; amount: string }[];
  isc_specific: string;
  isc_ad_valorem: string;
  propina: string;
  other_additional: string;
}

function additionalKind(tax: AppliedTax): TaxBreakdown["additional"][number]["kind"] {
  if (tax.type === "propina_legal") return "propina";
  if (tax.type === "isc") return isSpecificIscCode(tax.dgii_code) ? "isc_specific" : "isc_ad_valorem";
  return "other";
}

export function taxBreakdown(lines: LineAmounts[]): TaxBreakdown {
  const itbis = new Map<string, { base: Big; amount: Big }>();
  const additional = new Map<string, TaxBreakdown["additional"][number] & { sum: Big }>();
  let exempt = new Big(0);
  let nonBillable = new Big(0);
  const byKind = { isc_specific: new Big(0), isc_ad_valorem: new Big(0), propina: new Big(0), other: new Big(0) };
  for (const line of lines) {
    const taxable = new Big(line.subtotal).minus(line.discountAmount);
    const indicator = line.taxes.find((tax) => EXCLUSIVE_TAX_TYPES.has(tax.type));
    if (indicator?.type === "itbis") {
      const entry = itbis.get(indicator.rate) ?? { base: new Big(0), amount: new Big(0) };
      entry.base = entry.base.plus(taxable);
      entry.amount = entry.amount.plus(indicator.amount);
      itbis.set(indicator.rate, entry);
    } else if (indicator?.type === "no_facturable") {
      nonBillable = nonBillable.plus(taxable);
    } else {
      exempt = exempt.plus(taxable);
    }
    for (const tax of line.taxes) {
      if (EXCLUSIVE_TAX_TYPES.has(tax.type)) continue;
      const kind = additionalKind(tax);
      byKind[kind] = byKind[kind].plus(tax.amount);
      const key = `${tax.dgii_code ?? `tax ${tax.id}`}|${tax.rate}|${tax.amount_per_unit ?? ""}`;
      const entry = additional.get(key) ?? {
        code: tax.dgii_code ?? null,
        kind,
        name: tax.name,
        rate: tax.amount_per_unit ?? tax.rate,
        amount: "0.00",
        sum: new Big(0),
      };
      entry.sum = entry.sum.plus(tax.amount);
      additional.set(key, entry);
    }
  }
  return {
    itbis: [...itbis.entries()]
      .sort(([a], [b]) => new Big(b).cmp(a))
      .map(([rate, entry]) => ({ rate, base: entry.base.toFixed(2), amount: entry.amount.toFixed(2) })),
    exempt_base: exempt.toFixed(2),
    non_billable: nonBillable.toFixed(2),
    additional: [...additional.values()].map(({ sum, ...entry }) => ({ ...entry, amount: sum.toFixed(2) })),
    isc_specific: byKind.isc_specific.toFixed(2),
    isc_ad_valorem: byKind.isc_ad_valorem.toFixed(2),
    propina: byKind.propina.toFixed(2),
    other_additional: byKind.other.toFixed(2),
  };
}
