import { afterEach, describe, expect, it } from "vitest";
import type { QuotationDetail, QuotationSummary } from "../../src/modules/quotations/schemas";
import type { Data, Page } from "../support/api";
import { createContact, expectInvoiceCounts } from "../support/sales";
import { seedTenant, seedUser, seedWorkspace } from "../support/seed";
import { expectStockInvariant, levelOf } from "../support/stock";
import { quotationSetup, walk } from "./helpers";

const touched: number[] = [];
afterEach(async () => {
  for (const tenantId of touched.splice(0)) {
    await expectStockInvariant(tenantId);
    await expectInvoiceCounts(tenantId);
  }
});

describe("quotations: create, read, list", () => {
  it("creates drafts numbered COT00000001, COT00000002 with the invoices' line math, and never touches stock", async () => {
    const { tenant, ids, contact, a, b, body } = await quotationSetup();
    touched.push(tenant.tenantId);
    // What the server sets is refused, naming each field (issue 44): nothing is numbered by it.
    const forged = await tenant.api.post("/quotations", { ...body(), status: "approved", total_amount: "1.00", document_number: "X", workspace_id: 999 });
    expect(forged.status).toBe(422);
    expect(Object.keys(forged.body.errors).sort()).toEqual(["document_number", "status", "total_amount", "workspace_id"]);
    const first = await tenant.api.post("/quotations", body());
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.message).toBe("Quotation created.");
    expect(first.body.data).toEqual({
      id: expect.any(Number),
      workspace_id: tenant.workspaceId,
      contact_id: contact.id,
      document_subtype_id: ids.cot,
      document_number: "COT00000001",
      issue_date: "2026-11-20",
      due_date: "2026-12-20",
      status: "draft",
      total_amount: "1366.18",
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
    const second = await tenant.api.post("/quotations", body({ items: [{ product_id: a.id, quantity: "20", unit_price: "10" }] }));
    expect(second.body.data.document_number).toBe("COT00000002");
    // 20 units of a product with 10 in stock: quotations do not check or move stock.
    expect(second.body.data.total_amount).toBe("236.00");
    expect(await levelOf(a.id, tenant.workspaceId)).toBe("10.00");

    const got = await tenant.api.get<Data<QuotationDetail>>(`/quotations/${first.body.data.id}`);
    expect(got.status).toBe(200);
    expect(got.body.data).toMatchObject({
      document_number: "COT00000001",
      status: "draft",
      subtotal_amount: "1099.98",
      discount_amount: "10.00",
      tax_amount: "276.20",
      total_amount: "1366.18",
      notes: "Válida 30 días",
      invoice_id: null,
      contact: { id: contact.id, name: contact.name, email: contact.email },
    });
    expect(Object.keys(got.body.data.contact).sort()).toEqual(["email", "id", "name"]);
    expect(
      got.body.data.items.map((i) => [i.product_id, i.description, i.quantity, i.unit_price, i.discount, i.subtotal, i.discount_amount, i.tax_amount, i.total]),
    ).toEqual([
      [a.id, a.name, "2.00", "49.99", "10.00", "99.98", "10.00", "16.20", "106.18"],
      [b.id, "Instalación", "1.00", "1000.00", "0.00", "1000.00", "0.00", "260.00", "1260.00"],
    ]);
    expect(got.body.data.items[0]!.product).toEqual({ id: a.id, name: a.name, sku: a.sku });
    expect(got.body.data.items[1]!.taxes.map((t) => [t.id, t.name, t.rate, t.amount])).toEqual([
      [ids.itbis16, "ITBIS 16%", "16.00", "160.00"],
      [ids.propina, "Propina Legal 10%", "10.00", "100.00"],
    ]);
  });

  it("lists without items, filtered by status and contact, sorted by -issue_date by default, paginated", async () => {
    const { tenant, create, body } = await quotationSetup();
    const other = await createContact(tenant.api);
    const q1 = await create(tenant.api, { issue_date: "2026-11-01" });
    const q2 = await create(tenant.api, { issue_date: "2026-11-03" });
    const q3 = await create(tenant.api, {
      issue_date: "2026-11-02",
      contact_id: other.id,
      items: [{ product_id: body().items[0]!.product_id, quantity: "1", unit_price: "5" }],
    });
    await walk(tenant.api, q2.id, ["send"]);

    const all = await tenant.api.get<Page<QuotationSummary>>("/quotations");
    expect(all.status).toBe(200);
    expect(all.body.data.map((q) => q.document_number)).toEqual([q2.document_number, q3.document_number, q1.document_number]);
    expect(all.body.data[0]).not.toHaveProperty("items");
    expect(all.body.meta).toEqual({ current_page: 1, last_page: 1, per_page: 15, total: 3 });

    const sent = await tenant.api.get<Page<QuotationSummary>>("/quotations?filter[status]=sent");
    expect(sent.body.data.map((q) => q.id)).toEqual([q2.id]);
    const byContact = await tenant.api.get<Page<QuotationSummary>>(`/quotations?filter[contact_id]=${other.id}`);
    expect(byContact.body.data.map((q) => [q.id, q.total_amount])).toEqual([[q3.id, "5.90"]]);
    const byTotal = await tenant.api.get<Page<QuotationSummary>>("/quotations?sort=total_amount&per_page=2&page=1");
    expect(byTotal.body.data.map((q) => q.total_amount)).toEqual(["5.90", "1366.18"]);
    expect(byTotal.body.meta).toEqual({ current_page: 1, last_page: 2, per_page: 2, total: 3 });
    expect(byTotal.body.links.next).toContain("page=2");

    expect((await tenant.api.get<Page<QuotationSummary>>("/quotations?filter[status]=open")).status).toBe(422);
    expect((await tenant.api.get<Page<QuotationSummary>>("/quotations?filter[contact_id]=99999999999")).status).toBe(422);
    expect((await tenant.api.get<Page<QuotationSummary>>("/quotations?filter[contact_id]=9999999999")).status).toBe(422);
    expect((await tenant.api.get<Page<QuotationSummary>>("/quotations?sort=notes")).status).toBe(422);
    expect((await tenant.api.get<Page<QuotationSummary>>("/quotations?status=draft")).status).toBe(422);
  });

  it("validates the request: required fields, lines, subtype type, other tenants' records", async () => {
    const { tenant, ids, body } = await quotationSetup();
    const other = await seedTenant();
    const foreignContact = await createContact(other.api);
    const missing = await tenant.api.post("/quotations", { items: [] });
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.errors).sort()).toEqual(["contact_id", "document_subtype_id", "issue_date", "items"]);
    const invoiceSubtype = await tenant.api.post("/quotations", body({ document_subtype_id: ids.b01 }));
    expect(invoiceSubtype.status).toBe(422);
    expect(Object.keys(invoiceSubtype.body.errors)).toEqual(["document_subtype_id"]);
    const foreign = await tenant.api.post("/quotations", body({ contact_id: foreignContact.id }));
    expect(foreign.status).toBe(422);
    expect(Object.keys(foreign.body.errors)).toEqual(["contact_id"]);
    const badLine = await tenant.api.post(
      "/quotations",
      body({ items: [{ product_id: body().items[0]!.product_id, quantity: "0", unit_price: "1", discount: "101" }] }),
    );
    expect(Object.keys(badLine.body.errors).sort()).toEqual(["items.0.discount", "items.0.quantity"]);
    const exclusive = await tenant.api.post(
      "/quotations",
      body({ items: [{ product_id: body().items[0]!.product_id, quantity: "1", unit_price: "1", tax_ids: [ids.itbis18, ids.exento] }] }),
    );
    expect(Object.keys(exclusive.body.errors)).toEqual(["items.0.tax_ids"]);
    // Refusals give their number back: the next quotation is still the first.
    const ok = await tenant.api.post("/quotations", body());
    expect(ok.body.data.document_number).toBe("COT00000001");
  });
});

describe("quotations: transitions", () => {
  it("draft → sent → approved, sent → rejected, and cancel from draft, sent and approved", async () => {
    const { tenant, create } = await quotationSetup();
    const a = await create();
    const sent = await tenant.api.post(`/quotations/${a.id}/send`);
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ message: "Quotation sent.", data: { id: a.id, status: "sent" } });
    const approved = await tenant.api.post(`/quotations/${a.id}/approve`);
    expect(approved.body.data.status).toBe("approved");
    const cancelledApproved = await tenant.api.post(`/quotations/${a.id}/cancel`);
    expect(cancelledApproved.body.data.status).toBe("cancelled");

    const b = await create();
    await walk(tenant.api, b.id, ["send"]);
    const rejected = await tenant.api.post(`/quotations/${b.id}/reject`);
    expect(rejected.body).toMatchObject({ message: "Quotation rejected.", data: { status: "rejected" } });

    const c = await create();
    expect((await tenant.api.post(`/quotations/${c.id}/cancel`)).body.data.status).toBe("cancelled");
    const d = await create();
    await walk(tenant.api, d.id, ["send", "cancel"]);
    expect((await tenant.api.get(`/quotations/${d.id}`)).body.data.status).toBe("cancelled");
  });

  it("refuses every other transition with 409 invalid_transition naming the current status", async () => {
    const { tenant, create } = await quotationSetup();
    const draft = await create();
    const sent = await create();
    const approved = await create();
    const rejected = await create();
    const cancelled = await create();
    await walk(tenant.api, sent.id, ["send"]);
    await walk(tenant.api, approved.id, ["send", "approve"]);
    await walk(tenant.api, rejected.id, ["send", "reject"]);
    await walk(tenant.api, cancelled.id, ["cancel"]);
    const refusals: [number, string, string][] = [
      [draft.id, "approve", "draft"],
      [draft.id, "reject", "draft"],
      [sent.id, "send", "sent"],
      [approved.id, "send", "approved"],
      [approved.id, "approve", "approved"],
      [approved.id, "reject", "approved"],
      [rejected.id, "send", "rejected"],
      [rejected.id, "approve", "rejected"],
      [rejected.id, "cancel", "rejected"],
      [cancelled.id, "send", "cancelled"],
      [cancelled.id, "approve", "cancelled"],
      [cancelled.id, "reject", "cancelled"],
      [cancelled.id, "cancel", "cancelled"],
    ];
    for (const [id, action, status] of refusals) {
      const res = await tenant.api.post(`/quotations/${id}/${action}`);
      expect(res.status, `${action} on ${status}`).toBe(409);
      expect(res.body.code).toBe("invalid_transition");
      expect(res.body.message).toContain(`is ${status}`);
    }
    const states = await tenant.api.get<Page<QuotationSummary>>("/quotations?sort=document_number&per_page=100");
    expect(states.body.data.map((q) => q.status)).toEqual(["draft", "sent", "approved", "rejected", "cancelled"]);
    expect((await tenant.api.post("/quotations/999999/send")).status).toBe(404);
  });
});

describe("quotations: update and delete", () => {
  it("updates lines and totals in draft and sent, keeps the number, and refuses afterwards", async () => {
    const { tenant, ids, a, create } = await quotationSetup();
    const q = await create();
    const updated = await tenant.api.patch(`/quotations/${q.id}`, {
      items: [{ product_id: a.id, quantity: "1.5", unit_price: "10" }],
      notes: "Nuevo precio",
      due_date: null,
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toEqual({ data: { id: q.id, total_amount: "17.70", updated_at: expect.any(String) }, message: "Quotation updated." });
    const got = (await tenant.api.get<Data<QuotationDetail>>(`/quotations/${q.id}`)).body.data;
    expect(got).toMatchObject({
      document_number: "COT00000001",
      subtotal_amount: "15.00",
      tax_amount: "2.70",
      total_amount: "17.70",
      notes: "Nuevo precio",
      due_date: null,
    });
    expect(got.items.map((i) => [i.quantity, i.total])).toEqual([["1.50", "17.70"]]);

    await walk(tenant.api, q.id, ["send"]);
    const inSent = await tenant.api.patch(`/quotations/${q.id}`, { issue_date: "2026-11-25" });
    expect(inSent.status).toBe(200);
    expect(inSent.body.data.total_amount).toBe("17.70");
    const subtype = await tenant.api.patch(`/quotations/${q.id}`, { document_subtype_id: ids.b01 });
    expect(subtype.status).toBe(422);
    expect(Object.keys(subtype.body.errors)).toEqual(["document_subtype_id"]);

    await walk(tenant.api, q.id, ["approve"]);
    const refused = await tenant.api.patch(`/quotations/${q.id}`, { notes: "x" });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("invalid_transition");
    expect(refused.body.message).toContain("approved");
    const notDeleted = await tenant.api.delete(`/quotations/${q.id}`);
    expect(notDeleted.status).toBe(409);
    expect(notDeleted.body.code).toBe("invalid_transition");
    expect((await tenant.api.get(`/quotations/${q.id}`)).body.data).toMatchObject({ status: "approved", notes: "Nuevo precio", issue_date: "2026-11-25" });
  });

  it("deletes drafts and sent quotations with their lines; refuses cancelled ones; 404 for missing", async () => {
    const { tenant, create } = await quotationSetup();
    const draft = await create();
    const sent = await create();
    const cancelled = await create();
    await walk(tenant.api, sent.id, ["send"]);
    await walk(tenant.api, cancelled.id, ["cancel"]);
    expect(await tenant.api.delete(`/quotations/${draft.id}`)).toMatchObject({ status: 200, body: { message: "Quotation deleted." } });
    expect((await tenant.api.delete(`/quotations/${sent.id}`)).status).toBe(200);
    expect((await tenant.api.get(`/quotations/${draft.id}`)).status).toBe(404);
    const refused = await tenant.api.delete(`/quotations/${cancelled.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain("cancelled");
    expect((await tenant.api.delete(`/quotations/${draft.id}`)).status).toBe(404);
    expect((await tenant.api.get<Page<QuotationSummary>>("/quotations")).body.data.map((q) => q.id)).toEqual([cancelled.id]);
  });
});

describe("quotations: security", () => {
  it("hides other tenants' and other workspaces' quotations (404) and guards each action by permission", async () => {
    const { tenant, create } = await quotationSetup();
    const q = await create();
    const other = await seedTenant();
    for (const res of [
      await other.api.get(`/quotations/${q.id}`),
      await other.api.patch(`/quotations/${q.id}`, { notes: "x" }),
      await other.api.post(`/quotations/${q.id}/send`),
      await other.api.delete(`/quotations/${q.id}`),
      await other.api.get(`/quotations/${q.id}/pdf`),
    ]) {
      expect(res.status).toBe(404);
    }
    expect((await other.api.get<Page<QuotationSummary>>("/quotations")).body.meta.total).toBe(0);

    const branch = await seedWorkspace(tenant);
    const inBranch = tenant.api.as(tenant.admin.token, { headers: { "X-Workspace-ID": String(branch) } });
    expect((await inBranch.get(`/quotations/${q.id}`)).status).toBe(404);
    expect((await inBranch.post(`/quotations/${q.id}/send`)).status).toBe(404);
    expect((await inBranch.get<Page<QuotationSummary>>("/quotations")).body.meta.total).toBe(0);

    const viewer = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    expect((await viewer.api.get(`/quotations/${q.id}`)).status).toBe(200);
    expect((await viewer.api.get(`/quotations/${q.id}/pdf`)).status).toBe(200);
    for (const [res, permission] of [
      [await viewer.api.post("/quotations", {}), "quotations:create"],
      [await viewer.api.patch(`/quotations/${q.id}`, { notes: "x" }), "quotations:edit"],
      [await viewer.api.post(`/quotations/${q.id}/send`), "quotations:edit"],
      [await viewer.api.post(`/quotations/${q.id}/convert-to-invoice`), "quotations:edit"],
      [await viewer.api.delete(`/quotations/${q.id}`), "quotations:delete"],
    ] as const) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("forbidden");
      expect(res.body.message).toContain(permission);
    }
    const member = await seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] });
    expect((await member.api.post(`/quotations/${q.id}/send`)).status).toBe(200);
    expect((await member.api.delete(`/quotations/${q.id}`)).status).toBe(403);
    expect((await tenant.api.get(`/quotations/${q.id}`)).body.data.status).toBe("sent");
    expect((await tenant.api.as(undefined).get<Page<QuotationSummary>>("/quotations")).status).toBe(401);
  });
});
