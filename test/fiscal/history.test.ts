import { describe, expect, it } from "vitest";
import { ANONYMOUS_BUYER, catalogIds, createContact } from "../support/sales";
import { ownerRows, type SeededTenant, seedTenant, sql } from "../support/seed";
import { createProduct } from "../support/stock";

/**
 * An issued invoice is a record (issue 17): its issue, each PATCH, payment, cancel or delete is kept in
 * invoice_history with who, when and the changed fields before and after; GET …/history lists them.
 */
async function issued(tenant: SeededTenant) {
  const ids = await catalogIds(tenant.api);
  const contact = await createContact(tenant.api, ANONYMOUS_BUYER);
  const product = await createProduct(tenant.api, { product_type: "service", track_inventory: false });
  const line = { product_id: product.id, quantity: "1", unit_price: "100", tax_ids: [ids.itbis18] };
  const res = await tenant.api.post("/invoices", {
    contact_id: contact.id,
    document_subtype_id: ids.b02,
    issue_date: "2026-11-20",
    notes: "primera",
    items: [line],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { invoice: res.body.data as { id: number; document_number: string }, product, ids, contact };
}

type Entry = { action: string; user: { id: number; name: string }; before: Record<string, unknown>; after: Record<string, unknown>; created_at: string };

describe("invoice history", () => {
  it("records an update with only the changed fields before and after, and who made it", async () => {
    const tenant = await seedTenant();
    const { invoice, product, ids } = await issued(tenant);
    const empty = await tenant.api.get(`/invoices/${invoice.id}/history`);
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual([]);

    const patch = await tenant.api.patch(`/invoices/${invoice.id}`, {
      notes: "corregida",
      items: [{ product_id: product.id, quantity: "2.5", unit_price: "100.20", tax_ids: [ids.itbis18] }],
    });
    expect(patch.status, JSON.stringify(patch.body)).toBe(200);
    // Resending what the invoice already says changes nothing and records nothing.
    expect((await tenant.api.patch(`/invoices/${invoice.id}`, { notes: "corregida" })).status).toBe(200);

    const res = await tenant.api.get(`/invoices/${invoice.id}/history`);
    expect(res.status).toBe(200);
    const entries = res.body.data as Entry[];
    expect(entries).toHaveLength(1);
    const [entry] = entries;
    expect(entry!.action).toBe("updated");
    expect(entry!.user.id).toBe(tenant.admin.id);
    expect(typeof entry!.user.name).toBe("string");
    expect(entry!.before).toEqual({ notes: "primera", subtotal_amount: "100.00", tax_amount: "18.00", total_amount: "118.00" });
    // 2.5 × 100.20 = 250.50; ITBIS 18 %: 45.09; 295.59 in all.
    expect(entry!.after).toEqual({ notes: "corregida", subtotal_amount: "250.50", tax_amount: "45.09", total_amount: "295.59" });
    expect(Number.isNaN(Date.parse(entry!.created_at))).toBe(false);
  });

  it("records a draft's issue and each payment added or removed, with the amount paid and status before and after", async () => {
    const tenant = await seedTenant();
    const ids = await catalogIds(tenant.api);
    const contact = await createContact(tenant.api, ANONYMOUS_BUYER);
    const product = await createProduct(tenant.api, { product_type: "service", track_inventory: false });
    const draft = await tenant.api.post("/invoices", {
      draft: true,
      contact_id: contact.id,
      document_subtype_id: ids.b02,
      issue_date: "2026-11-20",
      items: [{ product_id: product.id, quantity: "1", unit_price: "100", tax_ids: [] }],
    });
    const id = draft.body.data.id as number;
    expect((await tenant.api.patch(`/invoices/${id}`, { notes: "borrador" })).status).toBe(200);
    expect((await tenant.api.post(`/invoices/${id}/issue`, { issue_date: "2026-11-21" })).status).toBe(200);
    const payment = await tenant.api.post(`/invoices/${id}/payments`, { amount: "40.00", payment_date: "2026-11-21", payment_method: "cash" });
    expect(payment.status).toBe(201);
    expect((await tenant.api.delete(`/invoices/${id}/payments/${payment.body.data.payment.id}`)).status).toBe(200);

    const entries = (await tenant.api.get(`/invoices/${id}/history`)).body.data as Entry[];
    expect(entries.map((e) => [e.action, e.before, e.after])).toEqual([
      [
        "issued",
        { status: "draft", document_number: null, issue_date: "2026-11-20" },
        { status: "pending_payment", document_number: "B0200000001", issue_date: "2026-11-21" },
      ],
      ["payment_added", { status: "pending_payment", amount_paid: "0.00" }, { status: "partially_paid", amount_paid: "40.00" }],
      ["payment_removed", { status: "partially_paid", amount_paid: "40.00" }, { status: "pending_payment", amount_paid: "0.00" }],
    ]);
  });

  it("records a cancel; another tenant's or a deleted invoice's history is 404", async () => {
    const tenant = await seedTenant();
    const { invoice } = await issued(tenant);
    expect((await tenant.api.post(`/invoices/${invoice.id}/cancel`, {})).status).toBe(200);
    const entries = (await tenant.api.get(`/invoices/${invoice.id}/history`)).body.data as Entry[];
    expect(entries.map((e) => [e.action, e.before, e.after])).toEqual([["cancelled", { status: "pending_payment" }, { status: "cancelled" }]]);

    const other = await seedTenant();
    expect((await other.api.get(`/invoices/${invoice.id}/history`)).status).toBe(404);

    const second = await issued(tenant);
    expect((await tenant.api.delete(`/invoices/${second.invoice.id}`)).status).toBe(200);
    expect((await tenant.api.get(`/invoices/${second.invoice.id}/history`)).status).toBe(404);
    // The deletion is kept all the same, for the record.
    const kept = await ownerRows<{ action: string; before: Record<string, unknown>; user_id: number }>(
      sql`SELECT action, before, user_id FROM invoice_history WHERE invoice_id = ${second.invoice.id}`,
    );
    expect(kept).toEqual([{ action: "deleted", before: { deleted_at: null }, user_id: tenant.admin.id }]);
  });

  it("refuses to change the currency, the subtype or the buyer's id type of an issued invoice, naming the field", async () => {
    const tenant = await seedTenant();
    const { invoice, ids, contact } = await issued(tenant);
    const eur = await tenant.api.post("/currencies", { code: "eur", name: "Euro", symbol: "€", exchange_rate: "64.123456" });
    expect(eur.status).toBe(201);
    const currency = await tenant.api.patch(`/invoices/${invoice.id}`, { currency_id: eur.body.data.id });
    expect(currency.status).toBe(422);
    expect(JSON.stringify(currency.body)).toContain("currency_id");
    const subtype = await tenant.api.patch(`/invoices/${invoice.id}`, { document_subtype_id: ids.b01 });
    expect(subtype.status).toBe(422);
    expect(JSON.stringify(subtype.body)).toContain("document_subtype_id");
    // The invoice's buyer has no id; one with an RNC is another kind of buyer.
    const withRnc = await createContact(tenant.api, { identification_type: "rnc", identification: "101010632" });
    const buyer = await tenant.api.patch(`/invoices/${invoice.id}`, { contact_id: withRnc.id });
    expect(buyer.status).toBe(422);
    expect(JSON.stringify(buyer.body)).toContain("contact_id");
    expect((await tenant.api.get(`/invoices/${invoice.id}/history`)).body.data).toEqual([]);
    // Another buyer of the same kind is accepted, and recorded.
    const sameKind = await createContact(tenant.api, ANONYMOUS_BUYER);
    expect((await tenant.api.patch(`/invoices/${invoice.id}`, { contact_id: sameKind.id })).status).toBe(200);
    const entries = (await tenant.api.get(`/invoices/${invoice.id}/history`)).body.data as Entry[];
    expect(entries.map((e) => [e.before, e.after])).toEqual([[{ contact_id: contact.id }, { contact_id: sameKind.id }]]);
  });
});
