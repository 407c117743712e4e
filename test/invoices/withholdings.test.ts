import { describe, expect, it } from "vitest";
import { catalogIds, createContact, salesSetup } from "../support/sales";
import { seedTenant, seedUser, seedWorkspace } from "../support/seed";
import { createProduct } from "../support/stock";
import { storedEvents } from "../webhooks/helpers";

/**
 * What a company buyer withholds of an invoice (ITBIS, ISR) and pays to DGII for the seller:
 * PUT /invoices/{id}/withholdings settles the invoice as a payment does (docs/api.md) and the 607
 * reports it (test/reports/report607.test.ts). And the invoice's DGII income type.
 */
async function fiscalInvoice(extra: Record<string, unknown> = {}) {
  const tenant = await seedTenant();
  const ids = await catalogIds(tenant.api);
  const company = await createContact(tenant.api, { identification_type: "rnc", identification: "101000112" });
  const service = await createProduct(tenant.api, { product_type: "service", track_inventory: false });
  const res = await tenant.api.post("/invoices", {
    contact_id: company.id,
    document_subtype_id: ids.b01,
    issue_date: "2026-11-02",
    items: [{ product_id: service.id, quantity: "1", unit_price: "1000.00", tax_ids: [ids.itbis18] }],
    ...extra,
  });
  expect(res.status, res.text).toBe(201);
  return { tenant, ids, company, service, id: res.body.data.id as number };
}

const withholdings = (itbis: string, isr: string, date: string | null) => ({ itbis_withheld: itbis, isr_withheld: isr, withholding_date: date });

describe("the buyer's withholdings", () => {
  it("settle the invoice as a payment does: amount_due and status follow, GET and the history show them, invoice.paid once it is settled", async () => {
    const { tenant, id } = await fiscalInvoice();
    // 1,000.00 + ITBIS 180.00: 30 % of the ITBIS (54.00) and 10 % ISR (100.00) withheld.
    const res = await tenant.api.put(`/invoices/${id}/withholdings`, withholdings("54.00", "100.00", "2026-11-10"));
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({
      itbis_withheld: "54.00",
      isr_withheld: "100.00",
      withholding_date: "2026-11-10",
      amount_paid: "0.00",
      amount_due: "1026.00",
      status: "partially_paid",
    });
    // The branch sales summary's due follows (the invoice is the month's one B01).
    const summary = await tenant.api.get("/reports/sales-summary?from=2026-11-01&to=2026-11-30&group_by=document_type");
    expect(summary.status, summary.text).toBe(200);
    expect(summary.body.data.groups[0]).toMatchObject({ key: "B01", total: "1180.00", paid: "0.00", due: "1026.00" });
    const over = await tenant.api.post(`/invoices/${id}/payments`, { amount: "1026.01", payment_date: "2026-11-11", payment_method: "cash" });
    expect(over.status).toBe(422);
    expect(over.body.errors.amount[0]).toContain("1026.00");
    const paid = await tenant.api.post(`/invoices/${id}/payments`, { amount: "1026.00", payment_date: "2026-11-11", payment_method: "bank_transfer" });
    expect(paid.body.data.invoice).toMatchObject({ status: "paid", amount_due: "0.00", amount_paid: "1026.00" });
    const got = (await tenant.api.get(`/invoices/${id}`)).body.data;
    expect(got).toMatchObject({ itbis_withheld: "54.00", isr_withheld: "100.00", withholding_date: "2026-11-10", income_type: "01", status: "paid" });
    const list = (await tenant.api.get("/invoices")).body.data.find((row: { id: number }) => row.id === id);
    expect(list).toMatchObject({ itbis_withheld: "54.00", isr_withheld: "100.00", withholding_date: "2026-11-10", amount_due: "0.00" });
    const history = (await tenant.api.get(`/invoices/${id}/history`)).body.data as { action: string; before: unknown; after: unknown }[];
    expect(history.find((entry) => entry.action === "withholdings")).toMatchObject({
      before: { itbis_withheld: "0.00", isr_withheld: "0.00", withholding_date: null, status: "pending_payment" },
      after: { itbis_withheld: "54.00", isr_withheld: "100.00", withholding_date: "2026-11-10", status: "partially_paid" },
    });
    expect((await storedEvents(tenant.tenantId, "invoice.updated")).map((e) => e.data.itbis_withheld)).toEqual(["54.00"]);
    expect(await storedEvents(tenant.tenantId, "invoice.paid")).toHaveLength(1);
  });

  it("withholdings alone can settle it (invoice.paid); zeros clear them and the invoice is due again", async () => {
    const { tenant, id } = await fiscalInvoice();
    expect((await tenant.api.post(`/invoices/${id}/payments`, { amount: "1000.00", payment_date: "2026-11-03", payment_method: "cash" })).status).toBe(201);
    // The whole ITBIS withheld (100 %, as some services require) settles the rest.
    const all = await tenant.api.put(`/invoices/${id}/withholdings`, withholdings("180.00", "0.00", "2026-11-03"));
    expect(all.body.data).toMatchObject({ status: "paid", amount_due: "0.00" });
    expect((await storedEvents(tenant.tenantId, "invoice.paid")).map((e) => e.data.status)).toEqual(["paid"]);
    const cleared = await tenant.api.put(`/invoices/${id}/withholdings`, withholdings("0", "0", "2026-11-03"));
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.data).toMatchObject({
      itbis_withheld: "0.00",
      isr_withheld: "0.00",
      withholding_date: null,
      status: "partially_paid",
      amount_due: "180.00",
    });
    expect(await storedEvents(tenant.tenantId, "invoice.paid")).toHaveLength(1);
  });

  it("refuses what cannot be: no date, a date before the invoice or in the future, more ITBIS than invoiced, more than is left to pay, a draft, a cancelled invoice", async () => {
    const { tenant, ids, company, service, id } = await fiscalInvoice();
    const put = (body: unknown, invoiceId = id) => tenant.api.put(`/invoices/${invoiceId}/withholdings`, body);
    const cases: [unknown, string, string][] = [
      [withholdings("54.00", "0", null), "withholding_date", "Required when an amount is withheld."],
      [withholdings("54.00", "0", "2026-11-01"), "withholding_date", "Cannot be before the invoice's issue date (2026-11-02)."],
      [withholdings("54.00", "0", "2099-01-01"), "withholding_date", "Cannot be in the future (Dominican date)."],
      [withholdings("180.01", "0", "2026-11-10"), "itbis_withheld", "Cannot exceed the invoice's ITBIS (180.00)."],
      [withholdings("-1", "0", "2026-11-10"), "itbis_withheld", ""],
      [withholdings("0", "-1", "2026-11-10"), "isr_withheld", ""],
      [{ itbis_withheld: "1.00", withholding_date: "2026-11-10" }, "isr_withheld", ""],
      [withholdings("1.00", "0", "2026-11-31"), "withholding_date", ""],
      [{ ...withholdings("1", "0", "2026-11-10"), extra: true }, "extra", "Unknown field: this request takes no such field."],
    ];
    for (const [body, field, message] of cases) {
      const res = await put(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(res.body.errors), JSON.stringify(body)).toContain(field);
      if (message) expect(res.body.errors[field]).toEqual([message]);
    }
    expect((await tenant.api.post(`/invoices/${id}/payments`, { amount: "1100.00", payment_date: "2026-11-03", payment_method: "cash" })).status).toBe(201);
    const beyond = await put(withholdings("54.00", "100.00", "2026-11-10"));
    expect(beyond.status).toBe(422);
    expect(beyond.body.errors.isr_withheld).toEqual(["The withholdings exceed what is left to pay after payments and notes (80.00)."]);
    // Without ISR, the ITBIS is the amount named.
    const itbisBeyond = await put(withholdings("80.01", "0", "2026-11-10"));
    expect(itbisBeyond.status).toBe(422);
    expect(itbisBeyond.body.errors).toEqual({ itbis_withheld: ["The withholdings exceed what is left to pay after payments and notes (80.00)."] });
    // Nothing was recorded by the refusals.
    expect((await tenant.api.get(`/invoices/${id}`)).body.data).toMatchObject({ itbis_withheld: "0.00", isr_withheld: "0.00", withholding_date: null });

    const line = [{ product_id: service.id, quantity: "1", unit_price: "100.00", tax_ids: [ids.itbis18] }];
    const draft = await tenant.api.post("/invoices", {
      contact_id: company.id,
      document_subtype_id: ids.b01,
      issue_date: "2026-11-02",
      items: line,
      draft: true,
    });
    const onDraft = await put(withholdings("1.00", "0", "2026-11-10"), draft.body.data.id);
    expect([onDraft.status, onDraft.body.code]).toEqual([409, "invoice_not_payable"]);
    const other = await tenant.api.post("/invoices", { contact_id: company.id, document_subtype_id: ids.b01, issue_date: "2026-11-02", items: line });
    expect((await tenant.api.post(`/invoices/${other.body.data.id}/cancel`)).status).toBe(200);
    const onCancelled = await put(withholdings("1.00", "0", "2026-11-10"), other.body.data.id);
    expect([onCancelled.status, onCancelled.body.code]).toEqual([409, "invoice_not_payable"]);
  });

  it("in another currency are the invoice's amounts; the 607 gives them in DOP at its rate, half-up to the cent", async () => {
    const tenant = await seedTenant();
    const ids = await catalogIds(tenant.api);
    const company = await createContact(tenant.api, { identification_type: "rnc", identification: "101000112" });
    const service = await createProduct(tenant.api, { product_type: "service", track_inventory: false });
    const usd = ((await tenant.api.get("/currencies")).body.data as { id: number; code: string }[]).find((c) => c.code === "USD")!.id;
    const created = await tenant.api.post("/invoices", {
      contact_id: company.id,
      document_subtype_id: ids.b01,
      issue_date: "2026-11-02",
      currency_id: usd,
      exchange_rate: "58.4567",
      items: [{ product_id: service.id, quantity: "1", unit_price: "100.00", tax_ids: [ids.itbis18] }],
    });
    expect(created.status, created.text).toBe(201);
    const { id, document_number: ncf } = created.body.data as { id: number; document_number: string };
    // US$100.00 + 18.00 ITBIS: 30 % of the ITBIS (5.40) and 10 % ISR (10.00) withheld, the rest paid.
    expect((await tenant.api.put(`/invoices/${id}/withholdings`, withholdings("5.40", "10.00", "2026-11-05"))).status).toBe(200);
    const paid = await tenant.api.post(`/invoices/${id}/payments`, { amount: "102.60", payment_date: "2026-11-05", payment_method: "bank_transfer" });
    expect(paid.body.data.invoice).toMatchObject({ status: "paid", amount_due: "0.00", itbis_withheld: "5.40", isr_withheld: "10.00" });
    const report = await tenant.api.get("/reports/607?period=202611&format=json");
    expect(report.status, report.text).toBe(200);
    const row = (report.body.rows as { ncf: string }[]).find((r) => r.ncf === ncf);
    // 5.40 × 58.4567 = 315.666…, 10.00 × 58.4567 = 584.567, 102.60 × 58.4567 = 5,997.657…; the total,
    // 5,845.67 + 1,052.22 = 6,897.89, is a cent short of their sum, so nothing is on credit.
    expect(row).toMatchObject({
      withholding_date: "20261105",
      amount: "5845.67",
      itbis_invoiced: "1052.22",
      itbis_withheld: "315.67",
      isr_withheld: "584.57",
      bank: "5997.66",
      on_credit: "0.00",
    });
  });

  it("need payments:create in the invoice's workspace: a viewer is refused, another workspace or tenant sees no invoice", async () => {
    const { tenant, id } = await fiscalInvoice();
    const body = withholdings("54.00", "0", "2026-11-10");
    const viewer = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    expect((await viewer.api.put(`/invoices/${id}/withholdings`, body)).status).toBe(403);
    const branch = await seedWorkspace(tenant);
    expect((await tenant.api.put(`/invoices/${id}/withholdings`, body, { headers: { "X-Workspace-ID": String(branch) } })).status).toBe(404);
    const stranger = await seedTenant();
    expect((await stranger.api.put(`/invoices/${id}/withholdings`, body)).status).toBe(404);
    expect((await tenant.api.get(`/invoices/${id}`)).body.data.itbis_withheld).toBe("0.00");
  });
});

describe("the invoice's income type (DGII's Tipo de Ingreso)", () => {
  it("is 01 unless given, set on create and by PATCH while editable, one of DGII's six codes", async () => {
    const { tenant, id } = await fiscalInvoice();
    expect((await tenant.api.get(`/invoices/${id}`)).body.data.income_type).toBe("01");
    const rent = await fiscalInvoice({ income_type: "04" });
    expect((await rent.tenant.api.get(`/invoices/${rent.id}`)).body.data.income_type).toBe("04");
    const patched = await tenant.api.patch(`/invoices/${id}`, { income_type: "06" });
    expect(patched.status, patched.text).toBe(200);
    expect((await tenant.api.get(`/invoices/${id}`)).body.data.income_type).toBe("06");
    const bad = await tenant.api.patch(`/invoices/${id}`, { income_type: "07" });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(["income_type"]);
    const { tenant: t2, ids, contact, service } = await salesSetup();
    const draft = await t2.api.post("/invoices", {
      contact_id: contact.id,
      document_subtype_id: ids.b02,
      issue_date: "2026-11-02",
      items: [{ product_id: service.id, quantity: "1", unit_price: "10.00", tax_ids: [] }],
      draft: true,
      income_type: "03",
    });
    expect(draft.status, draft.text).toBe(201);
    const issued = await t2.api.post(`/invoices/${draft.body.data.id}/issue`, { issue_date: "2026-11-02" });
    expect(issued.status, issued.text).toBe(200);
    expect((await t2.api.get(`/invoices/${draft.body.data.id}`)).body.data.income_type).toBe("03");
  });
});
