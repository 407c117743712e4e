import { describe, expect, it } from "vitest";
import { ANONYMOUS_BUYER, catalogIds, createContact } from "../support/sales";
import { type SeededTenant, seedTenant, uniqueName } from "../support/seed";

/**
 * The buyer and tax rules of each NCF type at issue (Norma 06-2018; docs/fiscal.md): a 422 naming
 * the field, and nothing numbered when refused.
 */
async function setup(tenant: SeededTenant) {
  const ids = await catalogIds(tenant.api);
  const subtypes = (await tenant.api.get("/document-subtypes?per_page=100")).body.data as { id: number; prefix: string }[];
  const b14 = subtypes.find((s) => s.prefix === "B14")!.id;
  const b16 = (
    await tenant.api.post("/document-subtypes", { name: "Exportaciones", type: "invoice", prefix: "B16", end_number: 100, valid_until: "2099-12-31" })
  ).body.data.id as number;
  const product = (await tenant.api.post("/products", { name: uniqueName("Servicio "), product_type: "service", price: "100", track_inventory: false })).body
    .data.id as number;
  const anonymous = await createContact(tenant.api, ANONYMOUS_BUYER);
  const company = await createContact(tenant.api);
  return { ids, b14, b16, product, anonymous, company };
}

const invoice = (contact: number, subtype: number, product: number, unitPrice: string, taxIds?: number[]) => ({
  contact_id: contact,
  document_subtype_id: subtype,
  issue_date: "2026-11-20",
  items: [{ product_id: product, quantity: "1", unit_price: unitPrice, tax_ids: taxIds ?? [] }],
});

/** A 422 naming exactly this field. */
function refusedOn(res: { status: number; body: { errors: Record<string, unknown> } }, field: string) {
  expect(res.status).toBe(422);
  expect(Object.keys(res.body.errors)).toEqual([field]);
}

describe("NCF type rules at issue", () => {
  it("01 needs a buyer with an RNC or cédula; 02 only from RD$250,000", async () => {
    const tenant = await seedTenant();
    const s = await setup(tenant);
    const refused = await tenant.api.post("/invoices", invoice(s.anonymous.id, s.ids.b01, s.product, "100"));
    refusedOn(refused, "contact_id");
    const fiscal = await tenant.api.post("/invoices", invoice(s.company.id, s.ids.b01, s.product, "100"));
    expect(fiscal.status).toBe(201);
    expect(fiscal.body.data.document_number).toBe("B0100000001");

    const below = await tenant.api.post("/invoices", invoice(s.anonymous.id, s.ids.b02, s.product, "249999.99"));
    expect(below.status).toBe(201);
    const large = await tenant.api.post("/invoices", invoice(s.anonymous.id, s.ids.b02, s.product, "250000.00"));
    refusedOn(large, "contact_id");
    const named = await tenant.api.post("/invoices", invoice(s.company.id, s.ids.b02, s.product, "250000.00"));
    expect(named.status).toBe(201);
    expect(named.body.data.document_number).toBe("B0200000002");
  });

  it("02's threshold is the total in DOP at the currency's rate", async () => {
    const tenant = await seedTenant();
    const s = await setup(tenant);
    // Every tenant starts with USD at 60 (tenants/service.ts).
    const currencies = (await tenant.api.get("/currencies?per_page=100")).body.data as { id: number; code: string; exchange_rate: string }[];
    const usd = currencies.find((c) => c.code === "USD")!;
    expect(Number(usd.exchange_rate)).toBe(60);
    // US$ 4,166.67 × 60 = RD$250,000.20: identified buyer needed; US$ 4,166.66 × 60 = RD$249,999.60 is not.
    const over = await tenant.api.post("/invoices", { ...invoice(s.anonymous.id, s.ids.b02, s.product, "4166.67"), currency_id: usd.id });
    refusedOn(over, "contact_id");
    const under = await tenant.api.post("/invoices", { ...invoice(s.anonymous.id, s.ids.b02, s.product, "4166.66"), currency_id: usd.id });
    expect(under.status).toBe(201);
    // The total in DOP is the one stored and reported (half-up to the cent, sales/money.ts inDop):
    // US$ 4,251.65 × 58.8007 = 249,999.996155 is RD$250,000.00, at the threshold; 4,251.64 is 249,999.41.
    const atCent = await tenant.api.post("/invoices", {
      ...invoice(s.anonymous.id, s.ids.b02, s.product, "4251.65"),
      currency_id: usd.id,
      exchange_rate: "58.8007",
    });
    refusedOn(atCent, "contact_id");
    const belowCent = await tenant.api.post("/invoices", {
      ...invoice(s.anonymous.id, s.ids.b02, s.product, "4251.64"),
      currency_id: usd.id,
      exchange_rate: "58.8007",
    });
    expect(belowCent.status, JSON.stringify(belowCent.body)).toBe(201);
    expect((await tenant.api.get(`/invoices/${belowCent.body.data.id}`)).body.data.total_amount_dop).toBe("249999.41");
  });

  it("14 refuses ITBIS lines; 16 refuses ITBIS 18 and takes exempt lines", async () => {
    const tenant = await seedTenant();
    const s = await setup(tenant);
    const special = await tenant.api.post("/invoices", invoice(s.anonymous.id, s.b14, s.product, "100", [s.ids.itbis18]));
    refusedOn(special, "items");
    expect((await tenant.api.post("/invoices", invoice(s.anonymous.id, s.b14, s.product, "100", [s.ids.exento]))).status).toBe(201);

    const exportTaxed = await tenant.api.post("/invoices", invoice(s.anonymous.id, s.b16, s.product, "100", [s.ids.itbis18]));
    refusedOn(exportTaxed, "items");
    const exportExempt = await tenant.api.post("/invoices", invoice(s.anonymous.id, s.b16, s.product, "100", [s.ids.exento]));
    expect(exportExempt.status).toBe(201);
    expect(exportExempt.body.data.document_number).toBe("B1600000001");
  });
});
