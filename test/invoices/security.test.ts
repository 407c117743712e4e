import { extractText, getDocumentProxy } from "unpdf";
import { describe, expect, it } from "vitest";
import { workerFetch } from "../support/api";
import { catalogIds, createContact } from "../support/sales";
import { seedTenant, seedUser, seedWorkspace } from "../support/seed";
import { createProduct, initialStock } from "../support/stock";

async function setup() {
  const tenant = await seedTenant();
  const ids = await catalogIds(tenant.api);
  const contact = await createContact(tenant.api, { name: "Comercial Peña & Asociados", identification_type: "rnc", identification: "1-01-00001-5" });
  const product = await createProduct(tenant.api, { name: "Café Santo Domingo 1 lb", default_tax_ids: [ids.itbis18] });
  await initialStock(tenant.api, [{ product_id: product.id, quantity: "50" }]);
  const body = {
    contact_id: contact.id,
    document_subtype_id: ids.b01,
    issue_date: "2026-11-20",
    due_date: "2026-12-20",
    items: [{ product_id: product.id, quantity: "3", unit_price: "250.00", discount: "5" }],
  };
  return { tenant, ids, contact, product, body };
}

describe("invoices: idempotency, PDF, isolation", () => {
  it("an Idempotency-Key replays the invoice and creates nothing more", async () => {
    const { tenant, body } = await setup();
    const headers = { "idempotency-key": "factura-abc-1" };
    const first = await tenant.api.post("/invoices", body, { headers });
    const replay = await tenant.api.post("/invoices", body, { headers });
    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    expect((await tenant.api.get("/invoices")).body.meta.total).toBe(1);
    const other = await tenant.api.post("/invoices", { ...body, notes: "otra" }, { headers });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe("idempotency_key_reused");
    const tooLong = await tenant.api.post("/invoices", body, { headers: { "idempotency-key": "k".repeat(256) } });
    expect(tooLong.status).toBe(422);
  });

  it("renders a PDF with the NCF, the customer, the lines and the totals", async () => {
    const { tenant, body } = await setup();
    const created = await tenant.api.post("/invoices", body);
    const res = await tenant.api.get(`/invoices/${created.body.data.id}/pdf`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="B0100000001.pdf"');
    const pdf = await getDocumentProxy(new Uint8Array(await (await fetchPdf(tenant, created.body.data.id)).arrayBuffer()));
    const { text } = await extractText(pdf, { mergePages: true });
    expect(text).toContain("Factura");
    expect(text).toContain("B0100000001");
    expect(text).toContain("Comercial Peña & Asociados");
    expect(text).toContain("RNC: 101000015");
    expect(text).toContain("Café Santo Domingo 1 lb");
    // 3 × 250 = 750; 5% = 37.50; ITBIS 18% of 712.50 = 128.25; total 840.75
    expect(text).toContain("840.75");
    expect(text).toContain("128.25");
    expect(text).toContain("Crédito Fiscal");
  });

  it("replaces text a PDF font cannot draw instead of failing", async () => {
    const { tenant, body, contact } = await setup();
    await tenant.api.patch(`/contacts/${contact.id}`, { name: "客户 Ünïcødé ✓" });
    const created = await tenant.api.post("/invoices", body);
    const res = await fetchPdf(tenant, created.body.data.id);
    expect(res.status).toBe(200);
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(await res.arrayBuffer())), { mergePages: true });
    expect(text).toContain("?? Ünïcødé ?");
  });

  it("another tenant's token and ids reach nothing; another workspace's member sees 404; a viewer cannot write", async () => {
    const { tenant, body } = await setup();
    const created = await tenant.api.post("/invoices", body);
    const id = created.body.data.id;
    const other = await seedTenant();
    for (const path of [`/invoices/${id}`, `/invoices/${id}/pdf`]) expect((await other.api.get(path)).status).toBe(404);
    expect((await other.api.patch(`/invoices/${id}`, { notes: "x" })).status).toBe(404);
    expect((await other.api.delete(`/invoices/${id}`)).status).toBe(404);
    expect((await other.api.post(`/invoices/${id}/payments`, { amount: "1", payment_date: "2026-11-21", payment_method: "cash" })).status).toBe(404);
    expect((await other.api.get("/invoices")).body.meta.total).toBe(0);
    const hugeId = await other.api.get("/invoices?filter[contact_id]=9999999999");
    expect(hugeId.status).toBe(422);
    expect(Object.keys(hugeId.body.errors)).toEqual(["filter[contact_id]"]);

    const branch = await seedWorkspace(tenant);
    const branchClerk = await seedUser(tenant, { role: "member", workspaceIds: [branch] });
    expect((await branchClerk.api.get(`/invoices/${id}`)).status).toBe(404);
    expect((await branchClerk.api.get("/invoices")).body.meta.total).toBe(0);

    const viewer = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    expect((await viewer.api.get(`/invoices/${id}`)).status).toBe(200);
    for (const res of [
      await viewer.api.post("/invoices", body),
      await viewer.api.patch(`/invoices/${id}`, { notes: "x" }),
      await viewer.api.delete(`/invoices/${id}`),
      await viewer.api.post(`/invoices/${id}/cancel`),
      await viewer.api.post(`/invoices/${id}/payments`, { amount: "1", payment_date: "2026-11-21", payment_method: "cash" }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("forbidden");
    }
  });
});

async function fetchPdf(tenant: { subdomain: string; admin: { token: string } }, id: number) {
  return workerFetch(
    new Request(`http://${tenant.subdomain}.sucursal.test/api/v1/invoices/${id}/pdf`, {
      headers: { authorization: `Bearer ${tenant.admin.token}`, "cf-connecting-ip": "10.9.9.9" },
    }),
  );
}
