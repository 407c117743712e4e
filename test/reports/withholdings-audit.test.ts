import { beforeAll, describe, expect, it } from "vitest";
import type { Ir17 } from "../../src/modules/reports/ir17";
import type { Casilla, It1 } from "../../src/modules/reports/it1";
import { createPurchase, createSupplier, sequence } from "../purchases/helpers";
import { catalogIds } from "../support/sales";
import { type SeededTenant, seedTenant } from "../support/seed";
import { createProduct } from "../support/stock";

/**
 * The month's withholdings against ../shared/MONTHLY-CLOSE.md: IT-1 section A 39 is the services
 * (606 column 8) of a persona física's bill, not its goods (§3, section A); the IR-17's casillas are
 * the taxable base × the rate in force at the payment date, the form's own product, half-up to the
 * cent (§5: "the form applies the rate"; §1, "Amounts"), what was withheld (606 column 18) shown apart.
 * And the lock's purchase paths close.test.ts does not take (docs/reports.md, "Closing the month"):
 * entering a draft dated in a closed month, removing a payment dated in it.
 */

const PERIOD = "202610";

let tenant: SeededTenant;

beforeAll(async () => {
  tenant = await seedTenant();
  const api = tenant.api;
  const ids = await catalogIds(api);
  const goods = (await createProduct(api, { track_inventory: false })).id;
  const ncf = () => `B01${String(Math.floor(Math.random() * 1e8)).padStart(8, "0")}`;
  // A persona física bills goods 1,000.00 and a service 2,000.00, both at 18 %, and an exempt service
  // of 500.00: the company withholds the taxed service's ITBIS in full (360.00) and ISR at 15 % of the
  // services (375.00; October 2026, Ley 30-26).
  const tecnico = (await createSupplier(tenant, { identification_type: "cedula", identification: "00113918205" })).id;
  await createPurchase(tenant, {
    supplier_id: tecnico,
    supplier_ncf: ncf(),
    issue_date: "2026-10-06",
    expense_type: "02",
    payment_method: "bank_transfer",
    items: [
      { product_id: goods, quantity: "1", unit_cost: "1000.00", tax_ids: [ids.itbis18] },
      { description: "Instalación", quantity: "1", unit_cost: "2000.00", tax_ids: [ids.itbis18] },
      { description: "Traslado", quantity: "1", unit_cost: "500.00", tax_ids: [ids.exento] },
    ],
    itbis_withheld: "360.00",
    isr_withheld: "375.00",
    withholding_date: "2026-10-20",
  });
  // Goods bought from an informal supplier on the company's comprobante de compras (B11): 1,000.00 at
  // 18 %, 500.00 at 16 %, 300.00 exempt; the ITBIS withheld in full (180.00 + 80.00, Norma 05-19).
  const informal = (await createSupplier(tenant, { identification_type: "cedula", identification: "00116454281" })).id;
  await createPurchase(tenant, {
    supplier_id: informal,
    self_issued_subtype_id: await sequence(tenant, "B11"),
    issue_date: "2026-10-07",
    expense_type: "09",
    payment_method: "cash",
    items: [
      { product_id: goods, quantity: "1", unit_cost: "1000.00", tax_ids: [ids.itbis18] },
      { product_id: goods, quantity: "1", unit_cost: "500.00", tax_ids: [ids.itbis16] },
      { product_id: goods, quantity: "1", unit_cost: "300.00", tax_ids: [ids.exento] },
    ],
    itbis_withheld: "260.00",
    withholding_date: "2026-10-23",
  });
  // Another persona física's fee of 3,333.33, paid in October 2026 with its ISR withheld at the old
  // 10 % (333.33), no ITBIS withheld: the form takes 15 % of the base whatever was withheld.
  const abogado = (await createSupplier(tenant, { identification_type: "cedula", identification: "00100000017" })).id;
  await createPurchase(tenant, {
    supplier_id: abogado,
    supplier_ncf: ncf(),
    issue_date: "2026-10-09",
    expense_type: "02",
    payment_method: "bank_transfer",
    items: [{ description: "Honorarios legales", quantity: "1", unit_cost: "3333.33", tax_ids: [ids.exento] }],
    itbis_withheld: "0.00",
    isr_withheld: "333.33",
    withholding_date: "2026-10-21",
  });
});

const byCasilla = <T extends { casilla: string }>(list: T[]) => Object.fromEntries(list.map((c) => [c.casilla, c]));

describe("IT-1 section A", () => {
  it("puts a persona física's services taxed with ITBIS in 39, not the goods nor the exempt part of the same bill; a B11's goods by rate in 47 and 48", async () => {
    const res = await tenant.api.get<It1>(`/reports/it1?period=${PERIOD}`);
    expect(res.status, res.text).toBe(200);
    const form = byCasilla<Casilla>(res.body.section_a);
    // 39 = 2,000.00 (the 606's column 8 says 2,500.00, the exempt 500.00 in it); 50 = 18 % of 41 =
    // 360.00 = what was withheld. The B11's goods by rate: 47 1,000.00 and 48 500.00 (the exempt 300.00
    // is no base); 56 = 180.00, 57 = 80.00. 60 = 360.00 + 260.00.
    expect(["39", "41", "42", "43", "47", "48", "49", "50", "56", "57", "58", "60"].map((c) => [c, form[c]!.amount])).toEqual([
      ["39", "2000.00"],
      ["41", "2000.00"],
      ["42", "0.00"],
      ["43", "0.00"],
      ["47", "1000.00"],
      ["48", "500.00"],
      ["49", "1500.00"],
      ["50", "360.00"],
      ["56", "180.00"],
      ["57", "80.00"],
      ["58", "260.00"],
      ["60", "620.00"],
    ]);
    expect(res.body.checks[2]).toMatchObject({ expected: "620.00", actual: "620.00", difference: "0.00" });
  });
});

describe("the IR-17", () => {
  it("gives each concept the base × the rate in force, half-up to the cent, and shows what was withheld apart", async () => {
    const res = await tenant.api.get<Ir17>(`/reports/ir17?period=${PERIOD}`);
    expect(res.status, res.text).toBe(200);
    const fees = byCasilla(res.body.concepts)["2"]!;
    // Base 2,500.00 (the services, 606 column 8; the goods are no base) + 3,333.33 = 5,833.33;
    // × 15 % = 874.9995 → 875.00 (half-up to the cent).
    expect(fees).toMatchObject({ rate: "15.00", base: "5833.33", amount: "875.00", withheld: "708.33", count: 2 });
    // Casilla 25 (total), 29 (impuesto a pagar) and 37 (total a pagar): the form's 875.00.
    const liquidation = byCasilla(res.body.liquidation);
    expect(["25", "27", "29", "33", "37"].map((c) => [c, liquidation[c]!.amount])).toEqual([
      ["25", "875.00"],
      ["27", "875.00"],
      ["29", "875.00"],
      ["33", "875.00"],
      ["37", "875.00"],
    ]);
    // The tie-out with the 606's column 18 shows the 166.67 withheld short, never hides it.
    expect(res.body.checks[0]).toMatchObject({ expected: "708.33", actual: "875.00", difference: "166.67" });
  });
});

describe("a closed month's purchases", () => {
  it("refuse 409 period_closed a draft entered into it and a payment dated in it removed", async () => {
    const api = tenant.api;
    const ids = await catalogIds(api);
    const supplier = (await createSupplier(tenant)).id;
    const body = {
      supplier_id: supplier,
      supplier_ncf: `B01${String(Math.floor(Math.random() * 1e8)).padStart(8, "0")}`,
      issue_date: "2026-09-10",
      expense_type: "02",
      payment_method: "bank_transfer",
      items: [{ description: "Mantenimiento", quantity: "1", unit_cost: "1000.00", tax_ids: [ids.itbis18] }],
    };
    const draft = await createPurchase(tenant, { ...body, status: "draft" });
    const entered = await createPurchase(tenant, { ...body, supplier_ncf: `B01${String(Math.floor(Math.random() * 1e8)).padStart(8, "0")}` });
    const paid = await api.post(`/purchases/${entered.id}/payments`, { amount: "500.00", payment_date: "2026-09-15", payment_method: "cash" });
    expect(paid.status, paid.text).toBe(201);
    const paymentId = (paid.body.data as { payment: { id: number } }).payment.id;
    const closed = await api.post("/fiscal-periods/202609/close");
    expect(closed.status, closed.text).toBe(200);

    for (const [what, res] of [
      ["entering a draft dated in it", await api.post(`/purchases/${draft.id}/enter`)],
      ["removing a payment dated in it", await api.delete(`/purchases/${entered.id}/payments/${paymentId}`)],
    ] as const) {
      expect([res.status, res.body.code, res.body.errors], `${what}: ${res.text}`).toEqual([409, "period_closed", { period: ["202609"] }]);
    }
  });
});
