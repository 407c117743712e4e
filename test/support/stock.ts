import { sql } from "drizzle-orm";
import { expect } from "vitest";
import type { Client } from "./api";
import { asOwner, uniqueName } from "./seed";

export async function createProduct(api: Client, overrides: Record<string, unknown> = {}) {
  const res = await api.post("/products", { name: uniqueName("Producto "), sku: uniqueName("SKU-"), price: "100.00", cost: "60.00", ...overrides });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as { id: number; name: string; sku: string };
}

export async function initialStock(api: Client, items: { product_id: number; quantity: string; cost?: string }[], headers: Record<string, string> = {}) {
  const res = await api.post("/inventory/initial-stock", { items }, { headers });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** level = Σ movements for every (product, workspace) of the tenant, and no level without movements. */
export async function expectStockInvariant(tenantId: number) {
  const broken = await asOwner(async (db) => {
    const result = await db.execute(sql`
      SELECT coalesce(l.product_id, mv.product_id) AS product_id, coalesce(l.workspace_id, mv.workspace_id) AS workspace_id,
             coalesce(l.quantity, 0) AS level, coalesce(mv.total, 0) AS movements
      FROM (SELECT * FROM stock_levels WHERE tenant_id = ${tenantId}) l
      FULL JOIN (SELECT product_id, workspace_id, sum(quantity) AS total FROM stock_movements WHERE tenant_id = ${tenantId} GROUP BY 1, 2) mv
        ON mv.product_id = l.product_id AND mv.workspace_id = l.workspace_id
      WHERE coalesce(l.quantity, 0) <> coalesce(mv.total, 0)`);
    return (result as unknown as { rows: unknown[] }).rows;
  });
  expect(broken).toEqual([]);
}

/** The level of a product in a workspace, straight from the database. */
export async function levelOf(productId: number, workspaceId: number): Promise<string> {
  return asOwner(async (db) => {
    const result = await db.execute(sql`SELECT quantity::text AS q FROM stock_levels WHERE product_id = ${productId} AND workspace_id = ${workspaceId}`);
    const rows = (result as unknown as { rows: { q: string }[] }).rows;
    return rows[0]?.q ?? "0.00";
  });
}
