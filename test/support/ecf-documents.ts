import { Big } from "../../src/lib/decimal";
import type { EcfDocument } from "../../src/modules/ecf/xml";
import { lineAmounts, taxBreakdown } from "../../src/modules/sales/lines";

/**
 * An E31 of `lines` ITBIS 18 % lines from one issuer to one buyer, with realistic names (an
 * ampersand and angle brackets to escape) and a 5 % discount on every fifth line: the document
 * `npm run bench:ecf` builds and signs, and test/ecf/xsd-worker.test.ts validates.
 */
export function documentFor(lines: number): EcfDocument {
  const itbis = { id: 1, name: "ITBIS 18%", type: "itbis", rate: "18.00" };
  const inputs = Array.from({ length: lines }, (_, i) => ({
    quantity: String(1 + (i % 7)),
    unitPrice: `${100 + (i % 50)}.25`,
    discount: i % 5 === 0 ? "5" : "0",
    taxes: [itbis],
  }));
  const amounts = inputs.map(lineAmounts);
  const total = amounts.reduce((sum, a) => sum.plus(a.total), new Big(0));
  return {
    type: "31",
    encf: "E310000000001",
    sequenceExpiry: "2027-12-31",
    issueDate: "2026-11-23",
    paymentType: 1,
    incomeType: "01",
    snapshot: {
      issuer: {
        rnc: "131246796",
        legal_name: "Comercial Bench SRL",
        trade_name: "Bench",
        address: "Calle El Conde 1, Santo Domingo",
        municipality_code: null,
        province_code: null,
        phone: null,
        email: null,
        branch: { id: 1, name: "Principal", address: null, phone: null },
      },
      buyer: { contact_id: 1, name: "Cliente Bench SRL", identification_type: "rnc", identification: "101000122", address: null, email: null },
      sequence: { prefix: "E31", name: "Crédito fiscal electrónico", valid_until: "2027-12-31", authorization_number: null },
      currency: { id: 1, code: "DOP", exchange_rate: "1.00" },
    },
    lines: inputs.map((input, i) => ({
      name: `Artículo de ferretería número ${i + 1} — tornillos & tuercas <surtidos>`,
      goodsOrService: 1,
      quantity: input.quantity,
      unitPrice: input.unitPrice,
      discountAmount: amounts[i]!.discountAmount,
      amount: new Big(amounts[i]!.subtotal).minus(amounts[i]!.discountAmount).toFixed(2),
      billingIndicator: 1,
    })),
    breakdown: taxBreakdown(amounts),
    total: total.toFixed(2),
    signedAt: new Date("2026-11-23T14:00:00Z"),
  };
}
