import { describe, expect, it } from "vitest";
import type { Product } from "../../src/modules/products/schemas";
import type { Tax } from "../../src/modules/taxes/schemas";
import type { ApiResponse, Page } from "../support/api";
import { seedTenant, seedUser, seedWorkspace } from "../support/seed";

describe("products", () => {
  it("creates, gets, lists, updates and deletes a product with exact decimals and defaults", async () => {
    const t = await seedTenant();
    const taxes = (await t.api.get<Page<Tax>>("/taxes?sort=id")).body.data as { id: number; name: string }[];
    const created = await t.api.post("/products", { name: "Café molido 1lb", sku: "CAF-001", price: "350.5", cost: 200, unit: "lb" });
    expect(created.status).toBe(201);
    expect(created.body.message).toEqual(expect.any(String));
    const product = created.body.data;
    expect(product).toMatchObject({
      name: "Café molido 1lb",
      sku: "CAF-001",
      price: "350.50",
      cost: "200.00",
      unit: "lb",
      product_type: "product",
      track_inventory: true,
      allow_negative_stock: false,
      is_active: true,
      workspace_id: null,
      description: null,
    });
    // Omitted default_tax_ids: the tenant's default taxes (ITBIS 18%).
    expect(product.default_tax_ids).toEqual([taxes.find((x) => x.name === "ITBIS 18%")!.id]);
    expect(product.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);

    const got = await t.api.get(`/products/${product.id}`);
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(product);

    const service = await t.api.post("/products", { name: "Instalación", product_type: "service", price: 1000, default_tax_ids: [] });
    expect(service.status).toBe(201);
    expect(service.body.data).toMatchObject({ track_inventory: false, price: "1000.00", cost: null, default_tax_ids: [] });

    const list = await t.api.get<Page<Product>>("/products?sort=-price");
    expect(list.status).toBe(200);
    expect(list.body.meta).toEqual({ current_page: 1, last_page: 1, per_page: 15, total: 2 });
    expect(list.body.data.map((x) => x.name)).toEqual(["Instalación", "Café molido 1lb"]);

    const search = await t.api.get<Page<Product>>("/products?filter[search]=caf-0");
    expect(search.body.data.map((x) => x.id)).toEqual([product.id]);
    const services = await t.api.get<Page<Product>>("/products?filter[product_type]=service");
    expect(services.body.data.map((x) => x.id)).toEqual([service.body.data.id]);

    const updated = await t.api.patch(`/products/${product.id}`, {
      price: "99.99",
      default_tax_ids: [taxes[1]!.id, taxes[1]!.id],
      is_active: false,
      description: "Tostado",
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({
      price: "99.99",
      cost: "200.00",
      default_tax_ids: [taxes[1]!.id],
      is_active: false,
      description: "Tostado",
      sku: "CAF-001",
    });
    const inactive = await t.api.get<Page<Product>>("/products?filter[is_active]=false");
    expect(inactive.body.data.map((x) => x.id)).toEqual([product.id]);

    const deleted = await t.api.delete(`/products/${product.id}`);
    expect(deleted.status).toBe(200);
    expect((await t.api.get(`/products/${product.id}`)).status).toBe(404);
    expect((await t.api.delete(`/products/${product.id}`)).status).toBe(404);
  });

  it("validates input: decimals, SKU uniqueness, unknown taxes, services tracking stock", async () => {
    const t = await seedTenant();
    const cases: [unknown, string][] = [
      [{ price: "10" }, "name"],
      [{ name: "X", price: "1e3" }, "price"],
      [{ name: "X", price: "10.123" }, "price"],
      [{ name: "X", price: -5 }, "price"],
      [{ name: "X", price: "NaN" }, "price"],
      [{ name: "X", cost: "abc" }, "cost"],
      [{ name: "X", product_type: "thing" }, "product_type"],
      [{ name: "X", product_type: "service", track_inventory: true }, "track_inventory"],
      [{ name: "X", default_tax_ids: [999999] }, "default_tax_ids"],
      [{ name: "X", workspace_id: 999999 }, "workspace_id"],
    ];
    for (const [body, field] of cases) {
      const res = await t.api.post("/products", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.code).toBe("validation_failed");
      expect(Object.keys(res.body.errors)).toContain(field);
    }
    expect((await t.api.post("/products", { name: "A", sku: "SKU-1" })).status).toBe(201);
    const dup = await t.api.post("/products", { name: "B", sku: "SKU-1" });
    expect(dup.status).toBe(422);
    expect(dup.body.errors.sku).toEqual(["This SKU is already used by another product."]);
    const other = await t.api.post("/products", { name: "B", sku: "SKU-2" });
    const dupPatch = await t.api.patch(`/products/${other.body.data.id}`, { sku: "SKU-1" });
    expect(dupPatch.status).toBe(422);
    expect(Object.keys(dupPatch.body.errors)).toEqual(["sku"]);
    // Switching a product to a service stops tracking inventory.
    const switched = await t.api.patch(`/products/${other.body.data.id}`, { product_type: "service" });
    expect(switched.body.data).toMatchObject({ product_type: "service", track_inventory: false });
  });

  it("scopes products to workspaces: shared, own workspace, view_all_locations", async () => {
    const t = await seedTenant();
    const second = await seedWorkspace(t);
    const member = await seedUser(t, { role: "member", workspaceIds: [t.workspaceId] });
    const shared = await t.api.post("/products", { name: "Shared" });
    const inFirst = await t.api.post("/products", { name: "First", workspace_id: t.workspaceId });
    const inSecond = await t.api.post("/products", { name: "Second", workspace_id: second }, { headers: { "X-Workspace-ID": String(second) } });
    expect(inSecond.status).toBe(201);
    expect(inFirst.body.data.workspace_id).toBe(t.workspaceId);

    const names = (res: ApiResponse<Page<Product>>) => res.body.data.map((x) => x.name).sort();
    expect(names(await member.api.get<Page<Product>>("/products"))).toEqual(["First", "Shared"]);
    expect((await member.api.get(`/products/${inSecond.body.data.id}`)).status).toBe(404);
    expect((await member.api.patch(`/products/${inSecond.body.data.id}`, { name: "x" })).status).toBe(404);
    expect((await member.api.get(`/products/${shared.body.data.id}`)).status).toBe(200);
    // Members may not list or assign other workspaces.
    expect((await member.api.get<Page<Product>>("/products?filter[workspace_id]=all")).status).toBe(403);
    expect((await member.api.get<Page<Product>>(`/products?filter[workspace_id]=${second}`)).status).toBe(403);
    const assign = await member.api.post("/products", { name: "Elsewhere", workspace_id: second });
    expect(assign.status).toBe(422);
    expect(Object.keys(assign.body.errors)).toEqual(["workspace_id"]);
    expect(names(await member.api.get<Page<Product>>("/products?filter[workspace_id]=shared"))).toEqual(["Shared"]);

    // The admin role holds view_all_locations: by default the request's workspace, on demand all.
    expect(names(await t.api.get<Page<Product>>("/products"))).toEqual(["First", "Shared"]);
    expect(names(await t.api.get<Page<Product>>("/products?filter[workspace_id]=all"))).toEqual(["First", "Second", "Shared"]);
    expect(names(await t.api.get<Page<Product>>(`/products?filter[workspace_id]=${second}`))).toEqual(["Second"]);
    expect((await t.api.get(`/products/${inSecond.body.data.id}`)).status).toBe(200);
    expect(names(await t.api.get<Page<Product>>("/products", { headers: { "X-Workspace-ID": String(second) } }))).toEqual(["Second", "Shared"]);
  });

  it("enforces permissions and hides products from other tenants", async () => {
    const t = await seedTenant();
    const viewer = await seedUser(t, { role: "viewer", workspaceIds: [t.workspaceId] });
    const member = await seedUser(t, { role: "member", workspaceIds: [t.workspaceId] });
    const product = (await t.api.post("/products", { name: "P", sku: "P-1" })).body.data;
    expect((await viewer.api.get(`/products/${product.id}`)).status).toBe(200);
    const denied = await viewer.api.post("/products", { name: "Q" });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe("forbidden");
    expect((await viewer.api.patch(`/products/${product.id}`, { name: "Q" })).status).toBe(403);
    expect((await member.api.patch(`/products/${product.id}`, { name: "Q" })).status).toBe(200);
    expect((await member.api.delete(`/products/${product.id}`)).status).toBe(403);

    const other = await seedTenant();
    expect((await other.api.get(`/products/${product.id}`)).status).toBe(404);
    expect((await other.api.patch(`/products/${product.id}`, { name: "Z" })).status).toBe(404);
    expect((await other.api.delete(`/products/${product.id}`)).status).toBe(404);
    expect((await other.api.get<Page<Product>>("/products?filter[workspace_id]=all")).body.data).toEqual([]);
    // The SKU is unique per tenant, not globally.
    expect((await other.api.post("/products", { name: "P", sku: "P-1" })).status).toBe(201);
  });
});
