import { afterEach, describe, expect, it } from "vitest";
import { seedTenant, seedUser, seedWorkspace } from "../support/seed";
import { createProduct, expectStockInvariant, initialStock, levelOf } from "../support/stock";

const touched: number[] = [];
afterEach(async () => {
  for (const tenantId of touched.splice(0)) await expectStockInvariant(tenantId);
});

async function tenantWithProducts() {
  const tenant = await seedTenant();
  touched.push(tenant.tenantId);
  const a = await createProduct(tenant.api, { cost: "12.50" });
  const b = await createProduct(tenant.api, { cost: null });
  return { tenant, a, b };
}

describe("initial stock", () => {
  it("sets opening quantities and sums quantity and value (cost given, else the product's cost)", async () => {
    const { tenant, a, b } = await tenantWithProducts();
    const res = await tenant.api.post("/inventory/initial-stock", {
      items: [
        { product_id: a.id, quantity: "4" },
        { product_id: b.id, quantity: 2.5, cost: "3.33" },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.summary).toEqual({ total_products: 2, total_quantity: "6.50", total_value: "58.33" });
    expect(await levelOf(a.id, tenant.workspaceId)).toBe("4.00");
    expect(await levelOf(b.id, tenant.workspaceId)).toBe("2.50");
  });

  it("is refused with 409 where the product already has movements in the workspace, allowed in another", async () => {
    const { tenant, a } = await tenantWithProducts();
    await initialStock(tenant.api, [{ product_id: a.id, quantity: "1" }]);
    const again = await tenant.api.post("/inventory/initial-stock", { items: [{ product_id: a.id, quantity: "5" }] });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("stock_already_initialized");
    expect(again.body.errors).toEqual({ "items.0.product_id": ["Stock already initialized in this workspace."] });
    const branch = await seedWorkspace(tenant);
    await initialStock(tenant.api, [{ product_id: a.id, quantity: "5" }], { "x-workspace-id": String(branch) });
    expect(await levelOf(a.id, branch)).toBe("5.00");
    expect(await levelOf(a.id, tenant.workspaceId)).toBe("1.00");
  });

  it("validates every item", async () => {
    const { tenant, a } = await tenantWithProducts();
    const res = await tenant.api.post("/inventory/initial-stock", {
      items: [{ product_id: a.id, quantity: "-1" }, { product_id: a.id }, { quantity: "1" }],
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(["items.0.quantity", "items.1.quantity", "items.2.product_id"]);
    const empty = await tenant.api.post("/inventory/initial-stock", { items: [] });
    expect(empty.status).toBe(422);
    expect(Object.keys(empty.body.errors)).toEqual(["items"]);
  });
});

describe("inventory adjustments", () => {
  it("adjusts up and down with reasons and lists and shows the adjustment", async () => {
    const { tenant, a, b } = await tenantWithProducts();
    await initialStock(tenant.api, [{ product_id: a.id, quantity: "10" }]);
    const res = await tenant.api.post("/inventory-adjustments", {
      reference: "CONTEO-01",
      items: [
        { product_id: a.id, quantity_adjustment: "-2.25", reason: "damaged", notes: "mojado" },
        { product_id: b.id, quantity_adjustment: 3, reason: "found" },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      workspace_id: tenant.workspaceId,
      reference: "CONTEO-01",
      items: [
        { product_id: a.id, quantity_adjustment: "-2.25", reason: "damaged", notes: "mojado" },
        { product_id: b.id, quantity_adjustment: "3.00", reason: "found", notes: null },
      ],
      created_by: { id: tenant.admin.id },
    });
    expect(await levelOf(a.id, tenant.workspaceId)).toBe("7.75");
    expect(await levelOf(b.id, tenant.workspaceId)).toBe("3.00");
    const list = await tenant.api.get("/inventory-adjustments");
    expect(list.body.meta.total).toBe(1);
    expect(list.body.data[0].id).toBe(res.body.data.id);
    const filtered = await tenant.api.get(`/inventory-adjustments?filter[product_id]=${b.id}`);
    expect(filtered.body.meta.total).toBe(1);
    const one = await tenant.api.get(`/inventory-adjustments/${res.body.data.id}`);
    expect(one.body.data.items).toHaveLength(2);
  });

  it("lists and shows each adjustment with its own items as created; none of another workspace or tenant", async () => {
    // The items are gathered in the adjustments' own statement (issue 46: a read in one round trip).
    const { tenant, a, b } = await tenantWithProducts();
    await initialStock(tenant.api, [{ product_id: a.id, quantity: "10" }]);
    const first = await tenant.api.post("/inventory-adjustments", {
      reference: "C-1",
      items: [
        { product_id: a.id, quantity_adjustment: "-1.5", reason: "damaged", notes: "roto" },
        { product_id: b.id, quantity_adjustment: "2", reason: "found" },
      ],
    });
    const second = await tenant.api.post("/inventory-adjustments", { items: [{ product_id: b.id, quantity_adjustment: "-0.25", reason: "lost" }] });
    expect(second.body.data).toMatchObject({ reference: null, items: [{ product_id: b.id, quantity_adjustment: "-0.25", reason: "lost", notes: null }] });
    const list = await tenant.api.get("/inventory-adjustments");
    expect(list.body.data).toEqual([second.body.data, first.body.data]);
    expect((await tenant.api.get(`/inventory-adjustments/${first.body.data.id}`)).body.data).toEqual(first.body.data);
    expect((await tenant.api.get(`/inventory-adjustments?filter[product_id]=${a.id}`)).body.data).toEqual([first.body.data]);

    const branch = await seedWorkspace(tenant, "Higüey");
    const clerk = await seedUser(tenant, { role: "member", workspaceIds: [branch] });
    expect((await clerk.api.get(`/inventory-adjustments/${first.body.data.id}`)).status).toBe(404);
    expect((await clerk.api.get("/inventory-adjustments")).body.data).toEqual([]);
    const other = await seedTenant();
    expect((await other.api.get(`/inventory-adjustments/${first.body.data.id}`)).status).toBe(404);
  });

  it("refuses an adjustment below zero with the item's field, and writes nothing", async () => {
    const { tenant, a, b } = await tenantWithProducts();
    await initialStock(tenant.api, [{ product_id: a.id, quantity: "1" }]);
    const res = await tenant.api.post("/inventory-adjustments", {
      items: [
        { product_id: b.id, quantity_adjustment: "5", reason: "found" },
        { product_id: a.id, quantity_adjustment: "-1.5", reason: "lost" },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("insufficient_stock");
    expect(res.body.errors["items.1.quantity_adjustment"][0]).toContain("1.00 available");
    expect(await levelOf(b.id, tenant.workspaceId)).toBe("0.00");
    expect((await tenant.api.get("/inventory-adjustments")).body.meta.total).toBe(0);
  });

  it("refuses bad reasons, zero, services and products of other tenants; a viewer cannot adjust", async () => {
    const { tenant, a } = await tenantWithProducts();
    const other = await seedTenant();
    const foreign = await createProduct(other.api);
    const bad = await tenant.api.post("/inventory-adjustments", {
      items: [
        { product_id: a.id, quantity_adjustment: "1", reason: "stolen" },
        { product_id: a.id, quantity_adjustment: "0", reason: "other" },
      ],
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(["items.0.reason", "items.1.quantity_adjustment"]);
    const foreignRes = await tenant.api.post("/inventory-adjustments", { items: [{ product_id: foreign.id, quantity_adjustment: "1", reason: "found" }] });
    expect(foreignRes.status).toBe(422);
    expect(foreignRes.body.errors).toEqual({ "items.0.product_id": ["No such product."] });
    const viewer = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    const denied = await viewer.api.post("/inventory-adjustments", { items: [{ product_id: a.id, quantity_adjustment: "1", reason: "found" }] });
    expect(denied.status).toBe(403);
    expect((await viewer.api.get("/inventory-adjustments")).status).toBe(200);
  });
});

describe("stock by workspace, minimums and low stock", () => {
  it("reports stock per visible workspace and flags low stock", async () => {
    const { tenant, a } = await tenantWithProducts();
    const branch = await seedWorkspace(tenant, "La Romana");
    await initialStock(tenant.api, [{ product_id: a.id, quantity: "3" }]);
    await initialStock(tenant.api, [{ product_id: a.id, quantity: "20" }], { "x-workspace-id": String(branch) });
    const minimum = await tenant.api.put(`/products/${a.id}/stock/minimum`, { workspace_id: tenant.workspaceId, minimum_quantity: "5" });
    expect(minimum.status).toBe(200);
    const stock = await tenant.api.get(`/products/${a.id}/stock`);
    expect(stock.status).toBe(200);
    expect(stock.body.data).toEqual({
      product_id: a.id,
      product_name: a.name,
      total_stock: "23.00",
      workspace_stocks: [
        { workspace_id: tenant.workspaceId, workspace_name: "Principal", quantity: "3.00", minimum_quantity: "5.00", is_low_stock: true },
        { workspace_id: branch, workspace_name: "La Romana", quantity: "20.00", minimum_quantity: "0.00", is_low_stock: false },
      ],
    });
    const low = await tenant.api.get("/inventory/low-stock");
    expect(low.body.data).toEqual([
      {
        product_id: a.id,
        product_name: a.name,
        sku: a.sku,
        workspace_id: tenant.workspaceId,
        workspace_name: "Principal",
        current_quantity: "3.00",
        minimum_quantity: "5.00",
        deficit: "2.00",
      },
    ]);
    expect((await tenant.api.get(`/inventory/low-stock?workspace_id=${branch}`)).body.data).toEqual([]);

    // A member of the branch only sees the branch's stock, and cannot ask for the main workspace.
    const clerk = await seedUser(tenant, { role: "member", workspaceIds: [branch] });
    const clerkView = await clerk.api.get(`/products/${a.id}/stock`);
    expect(clerkView.body.data.total_stock).toBe("20.00");
    expect(clerkView.body.data.workspace_stocks.map((w: { workspace_id: number }) => w.workspace_id)).toEqual([branch]);
    expect((await clerk.api.get(`/inventory/low-stock?workspace_id=${tenant.workspaceId}`)).status).toBe(403);
  });

  it("shows a product of one workspace in that workspace only, and 404 to a caller who cannot see it", async () => {
    // The levels are read together with the product (issue 46): they must say no more than it does.
    const { tenant } = await tenantWithProducts();
    const branch = await seedWorkspace(tenant, "Bávaro");
    const inBranch = { "x-workspace-id": String(branch) };
    const own = await createProduct(tenant.api, { workspace_id: branch });
    await initialStock(tenant.api, [{ product_id: own.id, quantity: "4" }], inBranch);
    const stock = await tenant.api.get(`/products/${own.id}/stock`, { headers: inBranch });
    expect(stock.status).toBe(200);
    expect(stock.body.data).toEqual({
      product_id: own.id,
      product_name: own.name,
      total_stock: "4.00",
      workspace_stocks: [{ workspace_id: branch, workspace_name: "Bávaro", quantity: "4.00", minimum_quantity: "0.00", is_low_stock: false }],
    });
    // The admin sees every workspace (view_all_locations): from the main one, still only the branch's row.
    expect((await tenant.api.get(`/products/${own.id}/stock`)).body.data).toEqual(stock.body.data);

    const clerk = await seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] });
    const hidden = await clerk.api.get(`/products/${own.id}/stock`);
    expect(hidden.status).toBe(404);
    expect(hidden.body.data).toBeUndefined();
    const other = await seedTenant();
    expect((await other.api.get(`/products/${own.id}/stock`)).status).toBe(404);
    expect((await tenant.api.get("/products/999999999/stock")).status).toBe(404);
  });

  it("reports movements filtered by product, type and dates", async () => {
    const { tenant, a, b } = await tenantWithProducts();
    await initialStock(tenant.api, [
      { product_id: a.id, quantity: "3" },
      { product_id: b.id, quantity: "1" },
    ]);
    await tenant.api.post("/inventory-adjustments", { items: [{ product_id: a.id, quantity_adjustment: "-1", reason: "lost" }] });
    const all = await tenant.api.get("/inventory/movements");
    expect(all.body.meta.total).toBe(3);
    const ofA = await tenant.api.get(`/inventory/movements?product_id=${a.id}&type=adjustment`);
    expect(ofA.body.data).toEqual([
      expect.objectContaining({
        product_id: a.id,
        product_name: a.name,
        type: "adjustment",
        quantity: "-1.00",
        workspace_id: tenant.workspaceId,
        invoice_id: null,
      }),
    ]);
    const today = new Date().toISOString().slice(0, 10);
    expect((await tenant.api.get(`/inventory/movements?date_from=${today}&date_to=${today}`)).body.meta.total).toBe(3);
    expect((await tenant.api.get(`/inventory/movements?date_to=2000-01-01`)).body.meta.total).toBe(0);
    const bad = await tenant.api.get(`/inventory/movements?date_from=2024-13-01&type=gift`);
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(["date_from", "type"]);
  });
});
