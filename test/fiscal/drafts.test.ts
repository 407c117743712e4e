import { describe, expect, it } from "vitest";
import type { InvoiceDetail, InvoiceSummary } from "../../src/modules/invoices/schemas";
import type { Data, Page } from "../support/api";
import { fetchBytes, pdfText } from "../support/pdf";
import { ANONYMOUS_BUYER, createContact, salesSetup } from "../support/sales";
import { ownerRow, ownerRows, sql } from "../support/seed";
import { createProduct, initialStock, levelOf } from "../support/stock";

/**
 * Drafts and issuing (issue 17; docs/fiscal.md "Drafts and issuing"): a draft has no number, no
 * stock and no email; POST /invoices/{id}/issue takes them with the checks of POST /invoices and
 * freezes the snapshot (issuer, buyer, sequence, currency and rate) that the PDF prints.
 */

async function draftSetup() {
  const setup = await salesSetup();
  const product = await createProduct(setup.tenant.api, { price: "100.00" });
  await initialStock(setup.tenant.api, [{ product_id: product.id, quantity: "10" }]);
  return { ...setup, product };
}

const nextNumber = async (subtypeId: number) =>
  (await ownerRow<{ n: string }>(sql`SELECT next_number::text AS n FROM document_subtypes WHERE id = ${subtypeId}`)).n;
const emails = async (tenantId: number) =>
  (await ownerRows<{ n: number }>(sql`SELECT count(*)::int AS n FROM outbox_messages WHERE tenant_id = ${tenantId} AND kind = 'email'`))[0]!.n;

describe("invoice drafts", () => {
  it("a draft has no number, no stock movement and no email; it is listed, edited freely and deleted without a trace", async () => {
    const { tenant, ids, contact, product } = await draftSetup();
    const before = await nextNumber(ids.b01);
    const created = await tenant.api.post("/invoices", {
      draft: true,
      contact_id: contact.id,
      document_subtype_id: ids.b02,
      issue_date: "2026-11-20",
      items: [{ product_id: product.id, quantity: "3", unit_price: "100.00", tax_ids: [ids.itbis18] }],
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.message).toBe("Draft created.");
    expect(created.body.warnings).toEqual([]);
    expect(created.body.data).toMatchObject({ status: "draft", document_number: null, total_amount: "354.00" });
    const id = created.body.data.id as number;
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("10.00");
    expect(await emails(tenant.tenantId)).toBe(0);

    const drafts = await tenant.api.get<Page<InvoiceSummary>>("/invoices?filter[status]=draft");
    expect(drafts.body.data.map((i) => [i.id, i.document_number, i.exchange_rate, i.total_amount_dop])).toEqual([[id, null, null, null]]);
    const shown = await tenant.api.get<Data<InvoiceDetail>>(`/invoices/${id}`);
    expect(shown.body.data.snapshot).toBeNull();

    // A draft is not a fiscal document yet: its subtype and lines change, no history is kept.
    const edited = await tenant.api.patch(`/invoices/${id}`, {
      document_subtype_id: ids.b01,
      items: [{ product_id: product.id, quantity: "2", unit_price: "50.1234", tax_ids: [] }],
    });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.data).toMatchObject({ document_number: null, total_amount: "100.25" });
    expect((await tenant.api.get(`/invoices/${id}/history`)).body.data).toEqual([]);
    expect(await nextNumber(ids.b01)).toBe(before);

    const pdf = await fetchBytes(tenant.subdomain, tenant.admin.token, `/invoices/${id}/pdf`);
    expect(pdf.status).toBe(200);
    const text = await pdfText(pdf.bytes);
    expect(text).toContain("Borrador de factura");
    expect(text).toContain("(sin número hasta su emisión)");

    expect((await tenant.api.delete(`/invoices/${id}`)).status).toBe(200);
    expect((await tenant.api.get(`/invoices/${id}`)).status).toBe(404);
    expect(await ownerRows(sql`SELECT id FROM invoices WHERE id = ${id}`)).toEqual([]);
    expect(await ownerRows(sql`SELECT id FROM ncf_annulments WHERE tenant_id = ${tenant.tenantId}`)).toEqual([]);
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("10.00");
  });

  it("issuing takes the next NCF, the stock and the email then, with a snapshot; a second issue is 409 invoice_not_draft", async () => {
    const { tenant, ids, contact, product } = await draftSetup();
    // An invoice issued at once takes B0100000001; the draft created before it takes the next one when issued.
    const draft = await tenant.api.post("/invoices", {
      draft: true,
      contact_id: contact.id,
      document_subtype_id: ids.b01,
      issue_date: "2026-11-01",
      items: [{ product_id: product.id, quantity: "4", unit_price: "100.00", tax_ids: [ids.itbis18] }],
    });
    const id = draft.body.data.id as number;
    const direct = await tenant.api.post("/invoices", {
      contact_id: contact.id,
      document_subtype_id: ids.b01,
      issue_date: "2026-11-20",
      items: [{ product_id: product.id, quantity: "1", unit_price: "100.00", tax_ids: [] }],
    });
    expect(direct.body.data.document_number).toBe("B0100000001");

    const issued = await tenant.api.post(`/invoices/${id}/issue`, { issue_date: "2026-11-21" });
    expect(issued.status, issued.text).toBe(200);
    // (`warnings` depends on the global RNC registry other test files load: test/rnc/registry.test.ts checks it.)
    expect(issued.body).toMatchObject({
      data: { id, status: "pending_payment", document_number: "B0100000002", issue_date: "2026-11-21", total_amount: "472.00" },
      message: "Invoice issued.",
    });
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("5.00");
    expect(await emails(tenant.tenantId)).toBe(2);

    const shown = (await tenant.api.get<Data<InvoiceDetail>>(`/invoices/${id}`)).body.data;
    expect(shown).toMatchObject({ exchange_rate: "1.00", total_amount_dop: "472.00", tax_amount_dop: "72.00" });
    expect(shown.snapshot).toMatchObject({
      issuer: { rnc: "131246796", address: "Calle El Conde 1, Santo Domingo", branch: { id: tenant.workspaceId, name: "Principal" } },
      buyer: { contact_id: contact.id, name: contact.name, identification_type: "rnc" },
      sequence: { prefix: "B01" },
      currency: { code: "DOP", exchange_rate: "1.00" },
    });

    const again = await tenant.api.post(`/invoices/${id}/issue`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("invoice_not_draft");
    expect(await nextNumber(ids.b01)).toBe("3");
  });

  it("issuing checks what creating checks: a refused draft stays a draft and takes no number", async () => {
    const { tenant, ids, product } = await draftSetup();
    const anonymous = await createContact(tenant.api, ANONYMOUS_BUYER);
    const draft = await tenant.api.post("/invoices", {
      draft: true,
      contact_id: anonymous.id,
      document_subtype_id: ids.b01,
      issue_date: "2026-11-20",
      items: [{ product_id: product.id, quantity: "20", unit_price: "100.00", tax_ids: [] }],
    });
    // A draft is not checked against the type's rules (B01 needs an identified buyer) nor the stock.
    expect(draft.status, draft.text).toBe(201);
    const id = draft.body.data.id as number;
    const refused = await tenant.api.post(`/invoices/${id}/issue`);
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(["contact_id"]);

    const named = await createContact(tenant.api);
    expect((await tenant.api.patch(`/invoices/${id}`, { contact_id: named.id })).status).toBe(200);
    const noStock = await tenant.api.post(`/invoices/${id}/issue`);
    expect(noStock.status).toBe(422);
    expect(noStock.body.code).toBe("insufficient_stock");
    expect((await tenant.api.get(`/invoices/${id}`)).body.data).toMatchObject({ status: "draft", document_number: null });
    expect(await nextNumber(ids.b01)).toBe("1");

    const missing = await tenant.api.post("/invoices/999999/issue");
    expect(missing.status).toBe(404);
    const badBody = await tenant.api.post(`/invoices/${id}/issue`, { issue_date: "2026-02-30" });
    expect(badBody.status).toBe(422);
    expect(Object.keys(badBody.body.errors)).toEqual(["issue_date"]);
  });

  it("10 concurrent issues of one draft: one 200, nine 409, one number taken, stock sold once", async () => {
    const { tenant, ids, contact, product } = await draftSetup();
    const draft = await tenant.api.post("/invoices", {
      draft: true,
      contact_id: contact.id,
      document_subtype_id: ids.b01,
      issue_date: "2026-11-20",
      items: [{ product_id: product.id, quantity: "1", unit_price: "100.00", tax_ids: [] }],
    });
    const id = draft.body.data.id as number;
    const answers = await Promise.all(Array.from({ length: 10 }, () => tenant.api.post(`/invoices/${id}/issue`)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array(9).fill(409)]);
    expect(await nextNumber(ids.b01)).toBe("2");
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("9.00");
  });
});

describe("snapshots and foreign currency", () => {
  it("an issued invoice keeps the issuer, buyer and rate it was issued with: later changes reach neither its GET nor its PDF", async () => {
    const { tenant, ids, contact, service } = await salesSetup();
    const currencies = (await tenant.api.get("/currencies?per_page=100")).body.data as { id: number; code: string }[];
    const usd = currencies.find((c) => c.code === "USD")!;
    const created = await tenant.api.post("/invoices", {
      contact_id: contact.id,
      document_subtype_id: ids.b01,
      issue_date: "2026-11-20",
      currency_id: usd.id,
      items: [{ product_id: service.id, quantity: "3", unit_price: "33.3333", tax_ids: [ids.itbis18] }],
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id as number;
    // Lines: 3 × 33.3333 = 100.00; ITBIS 18.00; total 118.00 USD at 60 (every tenant's USD rate).
    const before = (await tenant.api.get<Data<InvoiceDetail>>(`/invoices/${id}`)).body.data;
    expect(before).toMatchObject({
      total_amount: "118.00",
      exchange_rate: "60.00",
      subtotal_amount_dop: "6000.00",
      tax_amount_dop: "1080.00",
      total_amount_dop: "7080.00",
    });

    expect((await tenant.api.patch("/company", { legal_name: "Otra Razón Social SRL", address: "Av. Nueva 2" })).status).toBe(200);
    expect((await tenant.api.patch(`/contacts/${contact.id}`, { name: "Nombre Cambiado" })).status).toBe(200);
    expect((await tenant.api.patch(`/currencies/${usd.id}`, { exchange_rate: "61.5" })).status).toBe(200);

    const after = (await tenant.api.get<Data<InvoiceDetail>>(`/invoices/${id}`)).body.data;
    expect(after.snapshot).toEqual(before.snapshot);
    expect(after.snapshot!.issuer.legal_name).toBe(`Tenant ${tenant.subdomain} SRL`);
    expect(after.snapshot!.currency).toEqual({ id: usd.id, code: "USD", exchange_rate: "60.00" });
    expect(after.total_amount_dop).toBe("7080.00");
    const text = await pdfText((await fetchBytes(tenant.subdomain, tenant.admin.token, `/invoices/${id}/pdf`)).bytes);
    expect(text).toContain(`Tenant ${tenant.subdomain} SRL`);
    expect(text).not.toContain("Otra Razón Social");
    expect(text).toContain(contact.name);
    expect(text).not.toContain("Nombre Cambiado");
    expect(text).toContain("Moneda: USD — Tasa: 60.00");
    expect(text).toContain("Total en DOP");
    expect(text).toContain("RD$7,080.00");

    // New lines on the issued invoice: DOP amounts at the invoice's rate (60), not the currency's new one.
    const updated = await tenant.api.patch(`/invoices/${id}`, { items: [{ product_id: service.id, quantity: "1", unit_price: "10.00", tax_ids: [] }] });
    expect(updated.status, updated.text).toBe(200);
    expect((await tenant.api.get<Data<InvoiceDetail>>(`/invoices/${id}`)).body.data).toMatchObject({ total_amount: "10.00", total_amount_dop: "600.00" });
  });

  it("takes the exchange rate given for the document; DOP refuses a rate other than 1", async () => {
    const { tenant, ids, contact, service } = await salesSetup();
    const currencies = (await tenant.api.get("/currencies?per_page=100")).body.data as { id: number; code: string }[];
    const usd = currencies.find((c) => c.code === "USD")!;
    const body = (extra: Record<string, unknown>) => ({
      contact_id: contact.id,
      document_subtype_id: ids.b01,
      issue_date: "2026-11-20",
      items: [{ product_id: service.id, quantity: "1", unit_price: "10.01", tax_ids: [] }],
      ...extra,
    });
    const given = await tenant.api.post("/invoices", body({ currency_id: usd.id, exchange_rate: "58.123456" }));
    expect(given.status, given.text).toBe(201);
    // 10.01 × 58.123456 = 581.81579… → 581.82
    expect((await tenant.api.get(`/invoices/${given.body.data.id}`)).body.data).toMatchObject({ exchange_rate: "58.123456", total_amount_dop: "581.82" });

    const dop = await tenant.api.post("/invoices", body({ exchange_rate: "2" }));
    expect(dop.status).toBe(422);
    expect(Object.keys(dop.body.errors)).toEqual(["exchange_rate"]);
    const bad = await tenant.api.post("/invoices", body({ currency_id: usd.id, exchange_rate: "0" }));
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(["exchange_rate"]);
  });

  it("an issued consumer invoice edited past RD$250,000 must name its buyer (the type's rules hold on PATCH)", async () => {
    const { tenant, ids, service } = await salesSetup();
    const anonymous = await createContact(tenant.api, ANONYMOUS_BUYER);
    const created = await tenant.api.post("/invoices", {
      contact_id: anonymous.id,
      document_subtype_id: ids.b02,
      issue_date: "2026-11-20",
      items: [{ product_id: service.id, quantity: "1", unit_price: "1000.00", tax_ids: [] }],
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as number;
    const refused = await tenant.api.patch(`/invoices/${id}`, { items: [{ product_id: service.id, quantity: "1", unit_price: "250000.00", tax_ids: [] }] });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(["contact_id"]);
    expect((await tenant.api.get(`/invoices/${id}`)).body.data.total_amount).toBe("1000.00");
  });
});
