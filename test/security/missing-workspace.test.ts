import { describe, expect, it } from "vitest";
import { createContact } from "../support/sales";
import { seedTenant } from "../support/seed";
import { createProduct, initialStock } from "../support/stock";

/**
 * A workspace id in a body that names no workspace (never existed, or another tenant's) is a 422 on
 * that field, before any write: never a foreign-key error surfacing as a 500, never a row left behind.
 */
describe("a body naming a workspace that does not exist", () => {
  it("is 422 on the field for products, contacts, stock transfers and stock minimums, and nothing is written", async () => {
    const tenant = await seedTenant();
    const other = await seedTenant();
    for (const missing of [2_000_000_000, other.workspaceId]) {
      const product = await tenant.api.post("/products", { name: `Fantasma ${missing}`, price: "10.00", workspace_id: missing });
      expect(product.status, product.text).toBe(422);
      expect(Object.keys(product.body.errors)).toEqual(["workspace_id"]);

      const contact = await tenant.api.post("/contacts", { name: `Cliente ${missing}`, workspace_id: missing });
      expect(contact.status, contact.text).toBe(422);
      expect(Object.keys(contact.body.errors)).toEqual(["workspace_id"]);
    }
    expect((await tenant.api.get("/products?filter[search]=Fantasma")).body.data).toEqual([]);
    expect((await tenant.api.get("/contacts?filter[search]=Cliente")).body.data).toEqual([]);

    const shared = await createProduct(tenant.api, { workspace_id: null });
    await initialStock(tenant.api, [{ product_id: shared.id, quantity: "5", cost: "1" }]);
    for (const missing of [2_000_000_000, other.workspaceId]) {
      const transfer = await tenant.api.post("/stock-transfers", { product_id: shared.id, to_workspace_id: missing, quantity: "1" });
      expect(transfer.status, transfer.text).toBe(422);
      expect(transfer.body.errors).toEqual({ to_workspace_id: ["No such workspace that you can reach."] });
    }
    for (const missing of [2_000_000_000, other.workspaceId]) {
      const minimum = await tenant.api.put(`/products/${shared.id}/stock/minimum`, { workspace_id: missing, minimum_quantity: "2" });
      expect(minimum.status, minimum.text).toBe(422);
      expect(minimum.body.errors).toEqual({ workspace_id: ["No such workspace that you can reach."] });
    }
    const stock = await tenant.api.get(`/products/${shared.id}/stock`);
    expect(stock.status, stock.text).toBe(200);
    expect(JSON.stringify(stock.body)).toContain('"5.00"');
    // A contact is still creatable afterwards (the refusals rolled back cleanly).
    expect((await createContact(tenant.api)).id).toBeGreaterThan(0);
  });
});
