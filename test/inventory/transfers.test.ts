import { afterEach, describe, expect, it } from "vitest";
import { inParallel } from "../support/parallel";
import { type SeededTenant, seedTenant, seedUser, seedWorkspace } from "../support/seed";
import { createProduct, expectStockInvariant, initialStock, levelOf } from "../support/stock";

const touched: number[] = [];
afterEach(async () => {
  for (const tenantId of touched.splice(0)) await expectStockInvariant(tenantId);
});

async function setup() {
  const tenant = await seedTenant();
  touched.push(tenant.tenantId);
  const branch = await seedWorkspace(tenant, "Santiago");
  const product = await createProduct(tenant.api, { workspace_id: null });
  await initialStock(tenant.api, [{ product_id: product.id, quantity: "10", cost: "50" }]);
  return { tenant, branch, product };
}

describe("stock transfers", () => {
  it("moves stock out of the request's workspace into another, as two movements sharing a reference", async () => {
    const { tenant, branch, product } = await setup();
    const res = await tenant.api.post("/stock-transfers", { product_id: product.id, to_workspace_id: branch, quantity: "3.5", notes: "para la feria" });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      product_id: product.id,
      type: "transfer_out",
      quantity: "-3.50",
      from_workspace_id: tenant.workspaceId,
      to_workspace_id: branch,
    });
    expect(res.body.data.reference).toMatch(/^TRF-[0-9A-F]{8}$/);
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("6.50");
    expect(await levelOf(product.id, branch)).toBe("3.50");

    const one = await tenant.api.get(`/stock-transfers/${res.body.data.id}`);
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({
      id: res.body.data.id,
      type: "transfer_out",
      quantity: "-3.50",
      notes: "para la feria",
      product: { id: product.id, name: product.name, sku: product.sku, current_stock: "6.50" },
      from_workspace: { id: tenant.workspaceId, name: "Principal" },
      to_workspace: { id: branch, name: "Santiago" },
      created_by: { id: tenant.admin.id, email: tenant.admin.email },
    });

    const inBranch = await tenant.api.get("/stock-transfers", { headers: { "x-workspace-id": String(branch) } });
    expect(inBranch.body.meta.total).toBe(1);
    expect(inBranch.body.data[0]).toMatchObject({ type: "transfer_in", quantity: "3.50", reference: res.body.data.reference });
    // The incoming half shows the product's stock in its own workspace, as it is now (read in the
    // movement's statement, issue 46).
    await tenant.api.post("/stock-transfers", { product_id: product.id, to_workspace_id: branch, quantity: "1" });
    const incoming = await tenant.api.get(`/stock-transfers/${inBranch.body.data[0].id}`, { headers: { "x-workspace-id": String(branch) } });
    expect(incoming.status).toBe(200);
    expect(incoming.body.data).toMatchObject({ type: "transfer_in", quantity: "3.50", product: { id: product.id, current_stock: "4.50" } });
    expect((await tenant.api.get(`/stock-transfers/${res.body.data.id}`)).body.data.product.current_stock).toBe("5.50");
    const outs = await tenant.api.get(`/stock-transfers?filter[type]=transfer_in`);
    expect(outs.body.meta.total).toBe(0);
  });

  it("refuses to take stock below zero, naming quantity and the available amount", async () => {
    const { tenant, branch, product } = await setup();
    const res = await tenant.api.post("/stock-transfers", { product_id: product.id, to_workspace_id: branch, quantity: "10.01" });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("insufficient_stock");
    expect(res.body.errors.quantity[0]).toContain("10.00 available");
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("10.00");
    expect(await levelOf(product.id, branch)).toBe("0.00");
  });

  it("lets a product that allows negative stock go below zero", async () => {
    const tenant = await seedTenant();
    touched.push(tenant.tenantId);
    const branch = await seedWorkspace(tenant);
    const product = await createProduct(tenant.api, { allow_negative_stock: true });
    const res = await tenant.api.post("/stock-transfers", { product_id: product.id, to_workspace_id: branch, quantity: "2" });
    expect(res.status).toBe(201);
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("-2.00");
  });

  it("refuses the same workspace, another tenant's workspace, services and bad quantities", async () => {
    const { tenant, product } = await setup();
    const other = await seedTenant();
    const service = await createProduct(tenant.api, { product_type: "service", track_inventory: false });
    const cases: [unknown, string][] = [
      [{ product_id: product.id, to_workspace_id: tenant.workspaceId, quantity: "1" }, "to_workspace_id"],
      [{ product_id: product.id, to_workspace_id: other.workspaceId, quantity: "1" }, "to_workspace_id"],
      [{ product_id: service.id, to_workspace_id: other.workspaceId + 0, quantity: "1" }, "to_workspace_id"],
      [{ product_id: product.id, to_workspace_id: 999999, quantity: "0" }, "quantity"],
      [{ product_id: product.id, to_workspace_id: 999999, quantity: "-1" }, "quantity"],
      [{ product_id: product.id, to_workspace_id: 999999, quantity: "1.005" }, "quantity"],
      [{ product_id: product.id, to_workspace_id: 999999, quantity: "1e3" }, "quantity"],
    ];
    for (const [body, field] of cases) {
      const res = await tenant.api.post("/stock-transfers", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(res.body.errors), JSON.stringify(body)).toContain(field);
    }
    const branch = await seedWorkspace(tenant);
    const serviceTransfer = await tenant.api.post("/stock-transfers", { product_id: service.id, to_workspace_id: branch, quantity: "1" });
    expect(serviceTransfer.status).toBe(422);
    expect(Object.keys(serviceTransfer.body.errors)).toEqual(["product_id"]);
    const foreignProduct = await createProduct(other.api);
    const res = await tenant.api.post("/stock-transfers", { product_id: foreignProduct.id, to_workspace_id: branch, quantity: "1" });
    expect(res.status).toBe(422);
    expect(res.body.errors.product_id).toEqual(["No such product."]);
  });

  it("a viewer cannot transfer, and a member of one workspace cannot see another's transfers", async () => {
    const { tenant, branch, product } = await setup();
    const viewer = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    const res = await viewer.api.post("/stock-transfers", { product_id: product.id, to_workspace_id: branch, quantity: "1" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: "This action requires the inventory:transfer permission.", code: "forbidden" });

    const made = await tenant.api.post("/stock-transfers", { product_id: product.id, to_workspace_id: branch, quantity: "1" });
    const branchClerk = await seedUser(tenant, { role: "member", workspaceIds: [branch] });
    const hidden = await branchClerk.api.get(`/stock-transfers/${made.body.data.id}`);
    expect(hidden.status).toBe(404);
    const other = await seedTenant();
    expect((await other.api.get(`/stock-transfers/${made.body.data.id}`)).status).toBe(404);
  });

  it("50 transfers A→B and 50 B→A in parallel keep A+B constant, never negative, without deadlocks", async () => {
    const tenant: SeededTenant = await seedTenant();
    touched.push(tenant.tenantId);
    const b = await seedWorkspace(tenant, "B");
    const product = await createProduct(tenant.api);
    await initialStock(tenant.api, [{ product_id: product.id, quantity: "30" }]);
    await initialStock(tenant.api, [{ product_id: product.id, quantity: "30" }], { "x-workspace-id": String(b) });
    // Spread over several users: each has 60 requests a minute.
    const users = await Promise.all([0, 1, 2, 3].map(() => seedUser(tenant, { role: "admin", workspaceIds: [tenant.workspaceId, b] })));
    const calls = Array.from({ length: 100 }, (_, i) => () => {
      const user = users[i % users.length]!;
      const fromA = i % 2 === 0;
      return user.api.post(
        "/stock-transfers",
        { product_id: product.id, to_workspace_id: fromA ? b : tenant.workspaceId, quantity: "1.25" },
        { headers: { "x-workspace-id": String(fromA ? tenant.workspaceId : b) } },
      );
    });
    const results = await inParallel(calls);
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s !== 201 && s !== 422)).toEqual([]);
    for (const r of results.filter((r) => r.status === 422)) expect(r.body.code).toBe("insufficient_stock");
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(50);
    const a = Number(await levelOf(product.id, tenant.workspaceId));
    const bLevel = Number(await levelOf(product.id, b));
    expect(a + bLevel).toBe(60);
    expect(a).toBeGreaterThanOrEqual(0);
    expect(bLevel).toBeGreaterThanOrEqual(0);
  });
});
