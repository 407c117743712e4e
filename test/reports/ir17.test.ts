import { beforeAll, describe, expect, it } from "vitest";
import type { Ir17 } from "../../src/modules/reports/ir17";
import { createPurchase, createSupplier } from "../purchases/helpers";
import { catalogIds, freshRnc } from "../support/sales";
import { type SeededTenant, seedTenant } from "../support/seed";

/**
 * The IR-17's renglón of the company (issue 47; docs/reports.md, "IR-17"): the JSON carries the RNC
 * and the razón social, like the IT-1; a closed month's IR-17 keeps both as its close had them: served
 * from the snapshot byte for byte after the company changes its name and RNC, and computed again with
 * inputs under the kept ones, not today's profile.
 */

const PERIOD = "202610";

let tenant: SeededTenant;
let ids: Awaited<ReturnType<typeof catalogIds>>;

beforeAll(async () => {
  tenant = await seedTenant();
  ids = await catalogIds(tenant.api);
  // A professional fee of a persona física in October 2026: 10,000.00 + 18 %, its ISR withheld at 15 % (Ley 30-26).
  const consultor = (await createSupplier(tenant, { identification_type: "cedula", identification: "00100000017" })).id;
  await createPurchase(tenant, {
    supplier_id: consultor,
    supplier_ncf: `B01${String(Math.floor(Math.random() * 1e8)).padStart(8, "0")}`,
    issue_date: "2026-10-05",
    expense_type: "02",
    payment_method: "bank_transfer",
    items: [{ description: "Honorarios", quantity: "1", unit_cost: "10000.00", tax_ids: [ids.itbis18] }],
    itbis_withheld: "1800.00",
    isr_withheld: "1500.00",
    withholding_date: "2026-10-20",
  });
});

describe("the IR-17's RNC and razón social", () => {
  it("are the profile's while the month is open, and the close's after it, byte for byte, whatever the profile says later", async () => {
    const api = tenant.api;
    const profile = (await api.get("/company")).body.data as { rnc: string; legal_name: string };
    const open = await api.get<Ir17>(`/reports/ir17?period=${PERIOD}`);
    expect(open.status, open.text).toBe(200);
    expect(open.body).toMatchObject({ form: "IR-17", rnc: profile.rnc, legal_name: profile.legal_name, period: PERIOD });
    expect(open.body.concepts.find((c) => c.casilla === "2")).toMatchObject({ rate: "15.00", base: "10000.00", amount: "1500.00", count: 1 });

    const closed = await api.post(`/fiscal-periods/${PERIOD}/close`);
    expect(closed.status, closed.text).toBe(200);
    const snapshot = await api.get(`/fiscal-periods/${PERIOD}/snapshot?report=ir17&format=json`);
    expect(snapshot.status, snapshot.text).toBe(200);
    expect(snapshot.text).toBe(open.text);

    // The company changes its razón social and its RNC.
    const newName = `${profile.legal_name} Renombrada`;
    const newRnc = freshRnc();
    const renamed = await api.patch("/company", { legal_name: newName, rnc: newRnc });
    expect(renamed.status, renamed.text).toBe(200);

    const served = await api.get(`/reports/ir17?period=${PERIOD}`);
    expect(served.status).toBe(200);
    expect(served.text).toBe(snapshot.text);
    expect(served.headers.get("x-content-sha256")).toBe(snapshot.headers.get("x-content-sha256"));
    // With inputs it is computed again from the locked month: the figures and the renglón the close kept.
    const withInputs = await api.get<Ir17>(`/reports/ir17?period=${PERIOD}&surcharges=25.50`);
    expect(withInputs.status, withInputs.text).toBe(200);
    expect([withInputs.body.rnc, withInputs.body.legal_name]).toEqual([profile.rnc, profile.legal_name]);
    expect(withInputs.body.liquidation.at(-1)).toMatchObject({ casilla: "37", amount: "1525.50" });
    // An open month's IR-17 takes the profile as it is now.
    const november = await api.get<Ir17>("/reports/ir17?period=202611");
    expect([november.body.rnc, november.body.legal_name]).toEqual([newRnc, newName]);
  });
});
