import { Big } from "../../src/lib/decimal";
import { buildEcf, type EcfDocument } from "../../src/modules/ecf/xml";
import { lineAmounts, taxBreakdown } from "../../src/modules/sales/lines";

/**
 * An e-CF as a supplier issues it to the tenant: an E31 (crédito fiscal) of two lines, 10 bags of
 * cement at RD$1,500.00 with ITBIS 18 % and a delivery at RD$500.00 exempt — subtotal 15,500.00,
 * ITBIS 2,700.00, total 18,200.00. Built with the project's builder (its output is checked against
 * DGII's schema in test/node/ecf-xsd.test.ts); signed by the test as the supplier.
 */
export const SUPPLIER_TOTAL = "18200.00";
export const SUPPLIER_ITBIS = "2700.00";

/** A line of the supplier's e-CF: IndicadorFacturacion 1 (ITBIS 18 %), 3 (ITBIS 0 %) or 4 (exento); discount a percentage. */
export interface SupplierLine {
  name: string;
  quantity: string;
  unitPrice: string;
  discount?: string;
  indicator: 1 | 3 | 4;
}

const itbis = { id: 1, name: "ITBIS 18%", type: "itbis", rate: "18.00" };
const exento = { id: 2, name: "Exento", type: "exento", rate: "0.00" };
const itbis0 = { id: 3, name: "ITBIS 0%", type: "itbis", rate: "0.00" };
const CEMENT_AND_DELIVERY: SupplierLine[] = [
  { name: "Cemento gris funda 42.5 kg", quantity: "10", unitPrice: "1500", indicator: 1 },
  { name: "Entrega en obra", quantity: "1", unitPrice: "500", indicator: 4 },
];

export function supplierEcf(options: {
  issuerRnc: string;
  buyerRnc: string;
  encf: string;
  issuerName?: string;
  issueDate?: string;
  lines?: SupplierLine[];
  /** A foreign currency: the lines are in it, the e-CF's pesos at the rate (OtraMoneda). */
  currency?: { code: string; exchangeRate: string };
  /** A note instead of an E31: E33 (débito) or E34 (crédito), modifying `reference.ncf`. */
  note?: { type: "33" | "34"; reference: { ncf: string; date: string; reason: string } };
}): string {
  const specs = (options.lines ?? CEMENT_AND_DELIVERY).map((line) => ({
    ...line,
    goodsOrService: line.indicator === 4 ? (2 as const) : (1 as const),
    taxes: [{ 1: itbis, 3: itbis0, 4: exento }[line.indicator]],
  }));
  const amounts = specs.map((s) => lineAmounts({ quantity: s.quantity, unitPrice: s.unitPrice, discount: s.discount ?? "0", taxes: s.taxes }));
  const doc: EcfDocument = {
    type: options.note?.type ?? "31",
    encf: options.encf,
    sequenceExpiry: "2027-12-31",
    issueDate: options.issueDate ?? "2026-11-20",
    paymentType: 2,
    dueDate: "2026-12-20",
    incomeType: "01",
    snapshot: {
      issuer: {
        rnc: options.issuerRnc,
        legal_name: options.issuerName ?? "Materiales del Cibao SRL",
        trade_name: null,
        address: "Av. Estrella Sadhalá 45, Santiago",
        municipality_code: null,
        province_code: null,
        phone: null,
        email: null,
        branch: { id: 1, name: "Principal", address: null, phone: null },
      },
      buyer: { contact_id: 1, name: "Cliente", identification_type: "rnc", identification: options.buyerRnc, address: null, email: null },
      sequence: { prefix: "E31", name: "Crédito fiscal electrónico", valid_until: "2027-12-31", authorization_number: null },
      currency: { id: 1, code: options.currency?.code ?? "DOP", exchange_rate: options.currency?.exchangeRate ?? "1.00" },
    },
    lines: specs.map((s, i) => ({
      name: s.name,
      goodsOrService: s.goodsOrService,
      quantity: s.quantity,
      unitPrice: s.unitPrice,
      discountAmount: amounts[i]!.discountAmount,
      amount: new Big(amounts[i]!.subtotal).minus(amounts[i]!.discountAmount).toFixed(2),
      billingIndicator: s.indicator,
    })),
    breakdown: taxBreakdown(amounts),
    total: amounts.reduce((sum, a) => sum.plus(a.total), new Big(0)).toFixed(2),
    signedAt: new Date(),
    ...(options.currency ? { currency: options.currency } : {}),
    ...(options.note ? { reference: { ...options.note.reference, modificationCode: 3 as const } } : {}),
  };
  return buildEcf(doc);
}
