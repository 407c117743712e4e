import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { asOwner, seedTenant, sql } from "../support/seed";

/**
 * Deleting what documents or stock refer to → 409 in_use, nothing cascades. The invoice rows are
 * seeded directly (this file tests the catalog's refusals, not invoicing).
 */
describe("catalog references from documents and stock", () => {
  it("refuses to delete a product with stock movements; a product with only a minimum goes", async () => {
    const t = await seedTenant();
    const stocked = (await t.api.post("/products", { name: "Con stock" })).body.data;
    const minimumOnly = (await t.api.post("/products", { name: "Solo mínimo" })).body.data;
    expect((await t.api.post("/inventory/initial-stock", { items: [{ product_id: stocked.id, quantity: "5" }] })).status).toBeLessThan(300);
    expect((await t.api.put(`/products/${minimumOnly.id}/stock/minimum`, { workspace_id: t.workspaceId, minimum_quantity: "2" })).status).toBe(200);
    const refused = await t.api.delete(`/products/${stocked.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: "in_use",
      message: "This product cannot be deleted: it has stock movements. Deactivate it instead (is_active: false).",
    });
    expect((await t.api.get(`/products/${stocked.id}`)).status).toBe(200);
    expect((await t.api.delete(`/products/${minimumOnly.id}`)).status).toBe(200);
  });

  it("refuses to delete the product, tax, contact, subtype, currency, salesman and bank account of an invoice; validate-ncf sees the NCF used", async () => {
    const t = await seedTenant();
    const tax = (await t.api.post("/taxes", { name: "ISC", type: "isc", rate: 10, dgii_code: "023" })).body.data;
    const product = (await t.api.post("/products", { name: "Ron", default_tax_ids: [] })).body.data;
    const contact = (await t.api.post("/contacts", { name: "Cliente" })).body.data;
    const subtype = (
      await t.api.post("/document-subtypes", { name: "Exportaciones", type: "invoice", prefix: "B16", end_number: 100, valid_until: "2099-12-31" })
    ).body.data;
    const currency = (await t.api.post("/currencies", { code: "EUR", name: "Euro", symbol: "€", exchange_rate: 64 })).body.data;
    const salesman = (await t.api.post("/salesmen", { full_name: "Vendedor" })).body.data;
    const account = (await t.api.post("/bank-accounts", { name: "Cuenta" })).body.data;
    await asOwner(async (db) => {
      await db.execute(sql`SELECT set_config('app.tenant_id', ${String(t.tenantId)}, true)`);
      const [invoice] = await db
        .insert(schema.invoices)
        .values({
          tenantId: t.tenantId,
          workspaceId: t.workspaceId,
          contactId: contact.id,
          documentSubtypeId: subtype.id,
          documentNumber: "B1600000007",
          issueDate: "2026-01-15",
          subtotalAmount: "100.00",
          discountAmount: "0.00",
          taxAmount: "10.00",
          totalAmount: "110.00",
          currencyId: currency.id,
        })
        .returning();
      const money = { quantity: "1.00", unitPrice: "100.00", discountAmount: "0.00", subtotal: "100.00", taxAmount: "10.00", total: "110.00" };
      const [item] = await db
        .insert(schema.invoiceItems)
        .values({ tenantId: t.tenantId, invoiceId: invoice!.id, position: 1, productId: product.id, description: "Ron", ...money })
        .returning();
      await db.insert(schema.invoiceItemTaxes).values({ tenantId: t.tenantId, invoiceItemId: item!.id, taxId: tax.id });
      await db.insert(schema.invoiceSalesmen).values({ tenantId: t.tenantId, invoiceId: invoice!.id, salesmanId: salesman.id });
      await db.insert(schema.invoicePayments).values({
        tenantId: t.tenantId,
        invoiceId: invoice!.id,
        amount: "50.00",
        paymentDate: "2026-01-16",
        paymentMethod: "transfer",
        bankAccountId: account.id,
      });
    });

    const refusals: [string, string][] = [
      [`/products/${product.id}`, "This product cannot be deleted: invoices list it."],
      [`/taxes/${tax.id}`, "This tax cannot be deleted: invoice lines apply it."],
      [`/contacts/${contact.id}`, "This contact cannot be deleted: invoices were issued to it."],
      [`/document-subtypes/${subtype.id}`, "This document subtype cannot be deleted: invoices were numbered from it."],
      [`/currencies/${currency.id}`, "This currency cannot be deleted: invoices are in this currency."],
      [`/salesmen/${salesman.id}`, "This salesman cannot be deleted: invoices name them."],
      [`/bank-accounts/${account.id}`, "This bank account cannot be deleted: payments were recorded to it."],
    ];
    for (const [path, message] of refusals) {
      const res = await t.api.delete(path);
      expect(res.status, path).toBe(409);
      expect(res.body.code, path).toBe("in_use");
      expect(res.body.message, path).toContain(message);
    }
    // Numbers were issued: the prefix is fixed now (409 ncf_range_in_use, docs/fiscal.md).
    const reprefix = await t.api.patch(`/document-subtypes/${subtype.id}`, { prefix: "B01" });
    expect(reprefix.status).toBe(409);
    expect(reprefix.body.code).toBe("ncf_range_in_use");
    expect(Object.keys(reprefix.body.errors)).toEqual(["prefix"]);
    const used = await t.api.post("/invoices/validate-ncf", { ncf: "B1600000007", document_subtype_id: subtype.id });
    expect(used.body).toEqual({ valid: false, message: "The NCF B1600000007 is already used by a document." });
    expect((await t.api.post("/invoices/validate-ncf", { ncf: "B1600000008", document_subtype_id: subtype.id })).body.valid).toBe(true);
    // Deactivating stays possible.
    expect((await t.api.patch(`/products/${product.id}`, { is_active: false })).body.data.is_active).toBe(false);
  });
});
