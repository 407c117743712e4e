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

export function supplierEcf(options: { issuerRnc: string; buyerRnc: string; encf: string; issuerName?: string; issueDate?: string }): string {
  const itbis = { id: 1, name: "ITBIS 18%", type: "itbis", rate: "18.00" };
  const exento = { id: 2, name: "Exento", type: "exento", rate: "0.00" };
  const specs = [
    { name: "Cemento gris funda 42.5 kg", goodsOrService: 1 as const, quantity: "10", unitPrice: "1500", taxes: [itbis], indicator: 1 as const },
    { name: "Entrega en obra", goodsOrService: 2 as const, quantity: "1", unitPrice: "500", taxes: [exento], indicator: 4 as const },
  ];
  const amounts = specs.map((s) => lineAmounts({ quantity: s.quantity, unitPrice: s.unitPrice, discount: "0", taxes: s.taxes }));
  const doc: EcfDocument = {
    type: "31",
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
      currency: { id: 1, code: "DOP", exchange_rate: "1.00" },
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
  };
  return buildEcf(doc);
}
