import { afterEach, describe, expect, it } from "vitest";
import type { MovementReportItem } from "../../src/modules/inventory/schemas";
import type { InvoiceSummary } from "../../src/modules/invoices/schemas";
import type { Page } from "../support/api";
import { catalogIds, createContact, expectInvoiceCounts } from "../support/sales";
import { asOwner, ownerRows, seedTenant, seedUser, sql } from "../support/seed";
import { createProduct, expectStockInvariant, initialStock, levelOf } from "../support/stock";

const touched: number[] = [];
afterEach(async () => {
  for (const tenantId of touched.splice(0)) {
    await expectStockInvariant(tenantId);
    await expectInvoiceCounts(tenantId);
  }
});

async function setup() {
  const tenant = await seedTenant();
  touched.push(tenant.tenantId);
  const ids = await catalogIds(tenant.api);
  const contact = await createContact(tenant.api);
  const product = await createProduct(tenant.api, { default_tax_ids: [ids.itbis18] });
  await initialStock(tenant.api, [{ product_id: product.id, quantity: "10" }]);
  const invoice = (items: unknown[] = [{ product_id: product.id, quantity: "2", unit_price: "100" }], extra: Record<string, unknown> = {}) => ({
    contact_id: contact.id,
    document_subtype_id: ids.b01,
    issue_date: "2026-11-20",
    items,
    ...extra,
  });
  return { tenant, ids, contact, product, invoice };
}

describe("invoices: create, stock and numbering", () => {
  it("creates with the next NCF, sells stock, lists and shows it, and writes the email to the outbox", async () => {
    const { tenant, contact, product, invoice } = await setup();
    const first = await tenant.api.post("/invoices", invoice());
    const second = await tenant.api.post(
      "/invoices",
      invoice([{ product_id: product.id, quantity: "1", unit_price: "50" }], { due_date: "2026-12-20", payment_term: "30 días" }),
    );
    expect(first.status).toBe(201);
    expect(first.body.message).toBe("Invoice created.");
    expect(first.body.data.document_number).toBe("B0100000001");
    expect(second.body.data.document_number).toBe("B0100000002");
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("7.00");

    const list = await tenant.api.get<Page<InvoiceSummary>>("/invoices?sort=document_number");
    expect(list.body.meta.total).toBe(2);
    expect(list.body.data.map((i) => i.document_number)).toEqual(["B0100000001", "B0100000002"]);
    expect(list.body.data[0]).not.toHaveProperty("items");
    const pastTheEnd = await tenant.api.get<Page<InvoiceSummary>>("/invoices?page=5");
    expect(pastTheEnd.body.data).toEqual([]);
    expect(pastTheEnd.body.meta).toEqual({ current_page: 5, last_page: 1, per_page: 15, total: 2 });
    const byTotal = await tenant.api.get<Page<InvoiceSummary>>("/invoices?sort=-total_amount&filter[status]=pending_payment");
    expect(byTotal.body.data.map((i) => i.total_amount)).toEqual(["236.00", "59.00"]);

    const got = await tenant.api.get(`/invoices/${second.body.data.id}`);
    expect(got.body.data).toMatchObject({
      document_number: "B0100000002",
      due_date: "2026-12-20",
      payment_term: "30 días",
      contact: { id: contact.id, name: contact.name, email: contact.email, phone: "809-555-0101" },
      payments: [],
      salesmen: [],
    });
    expect(got.body.data.items[0].product).toEqual({ id: product.id, name: product.name, sku: product.sku });

    const movements = await tenant.api.get<Page<MovementReportItem>>(`/inventory/movements?product_id=${product.id}&type=sale`);
    expect(movements.body.data.map((m) => [m.quantity, m.invoice_id, m.reference])).toEqual([
      ["-1.00", second.body.data.id, "B0100000002"],
      ["-2.00", first.body.data.id, "B0100000001"],
    ]);
    const outbox = await ownerRows<{ payload: { subject: string; text: string } }>(
      sql`SELECT payload FROM outbox_messages WHERE tenant_id = ${tenant.tenantId} ORDER BY id`,
    );
    expect(outbox).toHaveLength(2);
    expect(outbox[0]!.payload).toMatchObject({
      template: "invoice_created",
      to: contact.email,
      document_number: "B0100000001",
      total_amount: "236.00",
      link: `https://app.sucursal.test/invoices/${first.body.data.id}`,
    });
    expect(outbox[0]!.payload.subject).toContain("B0100000001");
    expect(outbox[0]!.payload.text).toContain(`https://app.sucursal.test/invoices/${first.body.data.id}`);
  });

  it("refuses insufficient stock on the line's quantity and consumes no number", async () => {
    const { tenant, product, invoice } = await setup();
    const res = await tenant.api.post("/invoices", invoice([{ product_id: product.id, quantity: "10.5", unit_price: "1" }]));
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("insufficient_stock");
    expect(res.body.errors["items.0.quantity"][0]).toContain("10.00 available");
    expect((await tenant.api.get<Page<InvoiceSummary>>("/invoices")).body.meta.total).toBe(0);
    const ok = await tenant.api.post("/invoices", invoice());
    expect(ok.body.data.document_number).toBe("B0100000001");
  });

  it("refuses exhausted and expired sequences with their codes, on document_subtype_id", async () => {
    const { tenant, ids, invoice } = await setup();
    await asOwner((db) => db.execute(sql`UPDATE document_subtypes SET next_number = end_number + 1 WHERE id = ${ids.b01}`));
    const exhausted = await tenant.api.post("/invoices", invoice());
    expect(exhausted.status).toBe(422);
    expect(exhausted.body.code).toBe("ncf_sequence_exhausted");
    expect(Object.keys(exhausted.body.errors)).toEqual(["document_subtype_id"]);
    await asOwner((db) => db.execute(sql`UPDATE document_subtypes SET next_number = 5, valid_until = '2020-01-01' WHERE id = ${ids.b01}`));
    const expired = await tenant.api.post("/invoices", invoice());
    expect(expired.status).toBe(422);
    expect(expired.body.code).toBe("ncf_sequence_expired");
    expect(Object.keys(expired.body.errors)).toEqual(["document_subtype_id"]);
    const quotationSubtype = await tenant.api.post("/invoices", { ...invoice(), document_subtype_id: ids.cot });
    expect(quotationSubtype.status).toBe(422);
  });

  it("validates lines: quantities, prices, decimals, exclusive taxes, 500 lines, other tenants' records", async () => {
    const { tenant, ids, product, invoice } = await setup();
    const other = await seedTenant();
    const foreignContact = await createContact(other.api);
    const bad = await tenant.api.post(
      "/invoices",
      invoice([
        { product_id: product.id, quantity: "0", unit_price: "1" },
        { product_id: product.id, quantity: "1", unit_price: "-1" },
        { product_id: product.id, quantity: "1.001", unit_price: "1" },
        { product_id: product.id, quantity: "1", unit_price: "1", discount: "101" },
      ]),
    );
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(["items.0.quantity", "items.1.unit_price", "items.2.quantity", "items.3.discount"]);
    const exclusive = await tenant.api.post(
      "/invoices",
      invoice([{ product_id: product.id, quantity: "1", unit_price: "1", tax_ids: [ids.itbis18, ids.exento] }]),
    );
    expect(exclusive.status).toBe(422);
    expect(Object.keys(exclusive.body.errors)).toEqual(["items.0.tax_ids"]);
    const tooMany = await tenant.api.post(
      "/invoices",
      invoice(Array.from({ length: 501 }, () => ({ product_id: product.id, quantity: "1", unit_price: "1" }))),
    );
    expect(tooMany.status).toBe(422);
    expect(Object.keys(tooMany.body.errors)).toEqual(["items"]);
    const missing = await tenant.api.post("/invoices", { items: [] });
    expect(Object.keys(missing.body.errors).sort()).toEqual(["contact_id", "document_subtype_id", "issue_date", "items"]);
    const foreign = await tenant.api.post("/invoices", invoice(undefined, { contact_id: foreignContact.id }));
    expect(foreign.status).toBe(422);
    expect(Object.keys(foreign.body.errors)).toEqual(["contact_id"]);
  });

  it("numbers 50 parallel creates on one sequence with 50 distinct consecutive NCFs and no 5xx", async () => {
    const { tenant, ids, contact, invoice } = await setup();
    const service = await createProduct(tenant.api, { product_type: "service", track_inventory: false });
    const users = await Promise.all([0, 1, 2, 3].map(() => seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] })));
    const { inParallel } = await import("../support/parallel");
    const results = await inParallel(
      Array.from({ length: 50 }, (_, i) => () => users[i % 4]!.api.post("/invoices", invoice([{ product_id: service.id, quantity: "1", unit_price: "10" }]))),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    const numbers = results.map((r) => r.body.data.document_number).sort();
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => `B01${String(i + 1).padStart(8, "0")}`));
    void ids;
    void contact;
  });
});

describe("invoices: update, cancel, delete", () => {
  it("updates lines and moves stock by the difference, then refuses changes once paid", async () => {
    const { tenant, product, invoice } = await setup();
    const created = await tenant.api.post("/invoices", invoice([{ product_id: product.id, quantity: "4", unit_price: "10" }]));
    const id = created.body.data.id;
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("6.00");
    const updated = await tenant.api.patch(`/invoices/${id}`, { items: [{ product_id: product.id, quantity: "1.5", unit_price: "10" }], notes: "menos" });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ id, document_number: "B0100000001", total_amount: "17.70" });
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("8.50");
    const more = await tenant.api.patch(`/invoices/${id}`, { items: [{ product_id: product.id, quantity: "9", unit_price: "10" }] });
    expect(more.status).toBe(200);
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("1.00");
    const tooMuch = await tenant.api.patch(`/invoices/${id}`, { items: [{ product_id: product.id, quantity: "10.5", unit_price: "10" }] });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.code).toBe("insufficient_stock");
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("1.00");
    const subtype = await tenant.api.patch(`/invoices/${id}`, { document_subtype_id: 999999 });
    expect(subtype.status).toBe(422);
    expect(Object.keys(subtype.body.errors)).toEqual(["document_subtype_id"]);

    const paid = await tenant.api.post(`/invoices/${id}/payments`, { amount: "106.20", payment_date: "2026-11-21", payment_method: "cash" });
    expect(paid.status).toBe(201);
    expect(paid.body.data.invoice.status).toBe("paid");
    const refused = await tenant.api.patch(`/invoices/${id}`, { notes: "x" });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("invoice_not_editable");
    const notDeletable = await tenant.api.delete(`/invoices/${id}`);
    expect(notDeletable.status).toBe(409);
    expect(notDeletable.body.code).toBe("invoice_not_deletable");
  });

  it("cancel and delete return stock, keep the number used, and hide deleted invoices", async () => {
    const { tenant, ids, product, invoice } = await setup();
    const a = await tenant.api.post("/invoices", invoice([{ product_id: product.id, quantity: "3", unit_price: "10" }]));
    const b = await tenant.api.post("/invoices", invoice([{ product_id: product.id, quantity: "2", unit_price: "10" }]));
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("5.00");
    const cancelled = await tenant.api.post(`/invoices/${a.body.data.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data.status).toBe("cancelled");
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("8.00");
    expect((await tenant.api.post(`/invoices/${a.body.data.id}/cancel`)).status).toBe(409);
    const payCancelled = await tenant.api.post(`/invoices/${a.body.data.id}/payments`, { amount: "1", payment_date: "2026-11-21", payment_method: "cash" });
    expect(payCancelled.status).toBe(409);
    expect(payCancelled.body.code).toBe("invoice_not_payable");

    const deleted = await tenant.api.delete(`/invoices/${b.body.data.id}`);
    expect(deleted.status).toBe(200);
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("10.00");
    expect((await tenant.api.get(`/invoices/${b.body.data.id}`)).status).toBe(404);
    expect((await tenant.api.get<Page<InvoiceSummary>>("/invoices")).body.meta.total).toBe(1);
    const next = await tenant.api.post("/invoices", invoice());
    expect(next.body.data.document_number).toBe("B0100000003");
    const reused = await tenant.api.post("/invoices/validate-ncf", { ncf: "B0100000002", document_subtype_id: ids.b01 });
    expect(reused.body.valid).toBe(false);
  });
});

describe("invoices: the issue date of an NCF", () => {
  it("an issued invoice keeps the date its NCF was issued on (Norma General 06-2018): another date is 422 on issue_date, nothing changes; the same date and a draft's date change as before", async () => {
    const { tenant, invoice } = await setup();
    const issued = (await tenant.api.post("/invoices", invoice())).body.data;
    for (const date of ["2025-11-20", "2028-01-01", "2026-11-21"]) {
      const moved = await tenant.api.patch(`/invoices/${issued.id}`, { issue_date: date });
      expect(moved.status, date).toBe(422);
      expect(moved.body.errors, date).toEqual({ issue_date: ["The issue date of an issued invoice cannot change: its NCF was issued on that date."] });
    }
    expect((await tenant.api.get(`/invoices/${issued.id}`)).body.data.issue_date).toBe("2026-11-20");
    const same = await tenant.api.patch(`/invoices/${issued.id}`, { issue_date: "2026-11-20", notes: "Entregar en la tarde" });
    expect(same.status, same.text).toBe(200);

    const draft = (await tenant.api.post("/invoices", invoice(undefined, { draft: true }))).body.data;
    const redated = await tenant.api.patch(`/invoices/${draft.id}`, { issue_date: "2026-11-22" });
    expect(redated.status, redated.text).toBe(200);
    expect((await tenant.api.get(`/invoices/${draft.id}`)).body.data.issue_date).toBe("2026-11-22");
  });
});
