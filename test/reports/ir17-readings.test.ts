import { beforeAll, describe, expect, it } from "vitest";
import type { Ir17 } from "../../src/modules/reports/ir17";
import { createPurchase, createSupplier } from "../purchases/helpers";
import { catalogIds } from "../support/sales";
import { type SeededTenant, seedTenant } from "../support/seed";

/**
 * The IR-17's two unconfirmed readings are the accountant's (../shared/MONTHLY-CLOSE.md §5, §7;
 * docs/reports.md, "IR-17"): `casilla_11_rate` (10 by default, or 5) and `code_03_casilla` (16 by
 * default, or 17 at casilla 17's rate in force). The defaults give the figures the report always
 * gave; the JSON says which readings it was computed with; a closed month asked for with another
 * reading is computed again, never answered from the JSON its close kept.
 */

let tenant: SeededTenant;

const ncf = () => `B01${String(Math.floor(Math.random() * 1e8)).padStart(8, "0")}`;

beforeAll(async () => {
  tenant = await seedTenant();
  const ids = await catalogIds(tenant.api);
  const lender = (await createSupplier(tenant, { identification_type: "cedula", identification: "00100000017" })).id;
  const company = (await createSupplier(tenant)).id;
  // October 2026 (Ley 30-26 rates). Interest of 20,000.05 paid to a persona física (gastos financieros,
  // 606 code 06 → casilla 11), its ISR withheld at 10 %: 2,000.005 → 2,000.01.
  await createPurchase(tenant, {
    supplier_id: lender,
    supplier_ncf: ncf(),
    issue_date: "2026-10-05",
    expense_type: "07",
    payment_method: "bank_transfer",
    items: [{ description: "Intereses", quantity: "1", unit_cost: "20000.05", tax_ids: [ids.exento] }],
    isr_withheld: "2000.01",
    withholding_date: "2026-10-20",
  });
  // A company's service of 8,333.33 + 18 % (606 code 03, otras rentas), ISR withheld at 15 %: 1,250.00.
  await createPurchase(tenant, {
    supplier_id: company,
    supplier_ncf: ncf(),
    issue_date: "2026-10-06",
    expense_type: "02",
    payment_method: "bank_transfer",
    items: [{ description: "Servicio", quantity: "1", unit_cost: "8333.33", tax_ids: [ids.itbis18] }],
    isr_withheld: "1250.00",
    withholding_date: "2026-10-21",
  });
  // June 2026 (before Ley 30-26; the 2025 layout): the same service, ISR withheld at 10 %: 833.33.
  await createPurchase(tenant, {
    supplier_id: company,
    supplier_ncf: ncf(),
    issue_date: "2026-06-05",
    expense_type: "02",
    payment_method: "bank_transfer",
    items: [{ description: "Servicio", quantity: "1", unit_cost: "8333.33", tax_ids: [ids.itbis18] }],
    isr_withheld: "833.33",
    withholding_date: "2026-06-20",
  });
});

const ir17 = async (query: string) => {
  const res = await tenant.api.get<Ir17>(`/reports/ir17?${query}`);
  expect(res.status, res.text).toBe(200);
  return res;
};
const casilla = (report: Ir17, number: string) => report.concepts.find((c) => c.casilla === number);
const liquidation = (report: Ir17, number: string) => report.liquidation.find((l) => l.casilla === number)?.amount;

describe("the IR-17's readings (MONTHLY-CLOSE §5, §7)", () => {
  it("by default: code 06 in casilla 11 at 10 %, code 03 in casilla 16 at the Art. 309 rate, as before; the JSON names the readings", async () => {
    const { body } = await ir17("period=202610");
    expect(body.readings).toEqual({ casilla_11_rate: "10", code_03_casilla: "16" });
    expect(casilla(body, "11")).toMatchObject({ rate: "10.00", base: "20000.05", amount: "2000.01", withheld: "2000.01", count: 1, from: "books" });
    expect(casilla(body, "16")).toMatchObject({ rate: "15.00", base: "8333.33", amount: "1250.00", withheld: "1250.00", count: 1, from: "books" });
    expect(casilla(body, "17")).toMatchObject({ rate: "3.00", base: "0.00", amount: "0.00", count: 0 });
    expect(liquidation(body, "25")).toBe("3250.01");
    expect(liquidation(body, "37")).toBe("3250.01");
    // The defaults given explicitly are the same report, byte for byte.
    expect((await ir17("period=202610&casilla_11_rate=10&code_03_casilla=16")).text).toBe((await ir17("period=202610")).text);
  });

  it("casilla_11_rate=5: casilla 11 at 5 % (20,000.05 × 5 % = 1,000.00), total 25 with it; the shortfall shows in the checks", async () => {
    const { body } = await ir17("period=202610&casilla_11_rate=5");
    expect(body.readings).toEqual({ casilla_11_rate: "5", code_03_casilla: "16" });
    expect(casilla(body, "11")).toMatchObject({ rate: "5.00", base: "20000.05", amount: "1000.00", withheld: "2000.01" });
    expect(casilla(body, "16")).toMatchObject({ amount: "1250.00" });
    expect(liquidation(body, "25")).toBe("2250.00");
    expect(body.checks[1]).toMatchObject({ actual: "1000.01" });
  });

  it("code_03_casilla=17: code 03's base in casilla 17 at 17's rate in force (3 % from July 2026, 2 % before), 16 left to the accountant", async () => {
    const october = (await ir17("period=202610&code_03_casilla=17")).body;
    expect(october.readings).toEqual({ casilla_11_rate: "10", code_03_casilla: "17" });
    expect(casilla(october, "16")).toMatchObject({ rate: "15.00", base: "0.00", amount: "0.00", count: 0, from: "accountant" });
    // 8,333.33 × 3 % = 249.9999 → 250.00.
    expect(casilla(october, "17")).toMatchObject({ rate: "3.00", base: "8333.33", amount: "250.00", withheld: "1250.00", count: 1, from: "books" });
    expect(liquidation(october, "25")).toBe("2250.01");
    const both = (await ir17("period=202610&code_03_casilla=17&casilla_11_rate=5")).body;
    expect(liquidation(both, "25")).toBe("1250.00");

    // June 2026, the 2025 layout: 16 at 10 % (833.33) by default, 17 at 2 % (8,333.33 × 2 % = 166.6666 → 166.67).
    const juneDefault = (await ir17("period=202606")).body;
    expect(casilla(juneDefault, "16")).toMatchObject({ rate: "10.00", base: "8333.33", amount: "833.33" });
    expect(liquidation(juneDefault, "22")).toBe("833.33");
    const june = (await ir17("period=202606&code_03_casilla=17")).body;
    expect(casilla(june, "16")).toMatchObject({ base: "0.00", amount: "0.00" });
    expect(casilla(june, "17")).toMatchObject({ rate: "2.00", base: "8333.33", amount: "166.67", count: 1 });
    expect(liquidation(june, "22")).toBe("166.67");
  });

  it("a bad reading is 422 on its parameter", async () => {
    for (const [query, field] of [
      ["casilla_11_rate=7", "casilla_11_rate"],
      ["casilla_11_rate=10.00", "casilla_11_rate"],
      ["code_03_casilla=18", "code_03_casilla"],
    ] as const) {
      const res = await tenant.api.get<{ errors?: Record<string, unknown> }>(`/reports/ir17?period=202610&${query}`);
      expect(res.status, res.text).toBe(422);
      expect(Object.keys(res.body.errors ?? {})).toEqual([field]);
    }
  });

  it("a closed month: the defaults are the JSON its close kept; another reading is computed again from the locked month", async () => {
    const open = await ir17("period=202610");
    const closed = await tenant.api.post("/fiscal-periods/202610/close");
    expect(closed.status, closed.text).toBe(200);
    const kept = await ir17("period=202610");
    expect(kept.text).toBe(open.text);
    expect(kept.headers.get("x-fiscal-period-version")).toBe("1");
    const explicitDefault = await ir17("period=202610&casilla_11_rate=10");
    expect(explicitDefault.text).toBe(open.text);
    expect(explicitDefault.headers.get("x-fiscal-period-version")).toBe("1");

    const other = await ir17("period=202610&casilla_11_rate=5&code_03_casilla=17");
    expect(other.headers.get("x-fiscal-period-version")).toBeNull();
    expect(other.body.readings).toEqual({ casilla_11_rate: "5", code_03_casilla: "17" });
    expect(casilla(other.body, "11")).toMatchObject({ amount: "1000.00" });
    expect(casilla(other.body, "17")).toMatchObject({ base: "8333.33", amount: "250.00" });
    expect(liquidation(other.body, "25")).toBe("1250.00");
    expect([other.body.rnc, other.body.legal_name]).toEqual([open.body.rnc, open.body.legal_name]);
  });
});
