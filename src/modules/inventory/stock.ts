import { and, asc, eq, lte, type SQL, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { oneRow, rowsOf } from "../../db/rows";
import * as schema from "../../db/schema";
import { Big } from "../../lib/decimal";
import { AppError } from "../../lib/errors";
import { decimal2 } from "../../lib/format";
import { recordEvent } from "../events/service";

/** `return`: goods a credit note takes back into the workspace that sold them (notes/service.ts). */
type MovementType = "sale" | "return" | "purchase" | "transfer_out" | "transfer_in" | "adjustment" | "initial_stock";

/** One movement to record; `quantity` is signed (negative leaves the workspace). */
export interface StockChange {
  productId: number;
  workspaceId: number;
  quantity: string;
  type: MovementType;
  /** The request field to name when this change cannot be made (`quantity`, `items.2.quantity`, …). */
  field: string;
  fromWorkspaceId?: number | null;
  toWorkspaceId?: number | null;
  reference?: string | null;
  notes?: string | null;
  reason?: string | null;
  unitCost?: string | null;
  transferId?: string | null;
  adjustmentId?: number | null;
  invoiceId?: number | null;
  purchaseId?: number | null;
}

interface MovementRow {
  id: number;
  product_id: number;
  workspace_id: number;
  type: MovementType;
  quantity: string;
  from_workspace_id: number | null;
  to_workspace_id: number | null;
  reference: string | null;
  created_at: string;
}

function stockInput(changes: StockChange[]) {
  return changes.map((c, idx) => ({
    idx,
    product_id: c.productId,
    workspace_id: c.workspaceId,
    quantity: c.quantity,
    type: c.type,
    from_workspace_id: c.fromWorkspaceId ?? null,
    to_workspace_id: c.toWorkspaceId ?? null,
    reference: c.reference ?? null,
    notes: c.notes ?? null,
    reason: c.reason ?? null,
    unit_cost: c.unitCost ?? null,
    transfer_id: c.transferId ?? null,
    adjustment_id: c.adjustmentId ?? null,
    invoice_id: c.invoiceId ?? null,
    purchase_id: c.purchaseId ?? null,
  }));
}

/**
 * The CTEs that apply stock changes and record their movements inside a larger statement (an
 * invoice insert passes `invoiceId` as `(SELECT id FROM inv)`, a purchase insert `purchaseId`): each (product, workspace) level is
 * upserted with its net change, rows taken in (product id, workspace id) order so that documents
 * moving the same levels in opposite directions cannot deadlock. The guard in `DO UPDATE … WHERE`
 * refuses a level that would go below zero unless the product allows negative stock; a refused
 * level is missing from `stock_done`, which `stockResultColumns` reports for `checkStockResult`.
 */
export function stockCtes(
  actor: { tenantId: number; userId: number },
  changes: StockChange[],
  invoiceId: SQL = sql`NULL::int`,
  reference: SQL = sql`NULL::text`,
  purchaseId: SQL = sql`NULL::int`,
): SQL {
  return sql`stock_input AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(stockInput(changes))}::jsonb) AS x(
        idx int, product_id int, workspace_id int, quantity numeric, type text, from_workspace_id int,
        to_workspace_id int, reference text, notes text, reason text, unit_cost numeric, transfer_id uuid,
        adjustment_id int, invoice_id int, purchase_id int)
    ), stock_net AS (
      SELECT product_id, workspace_id, sum(quantity) AS quantity FROM stock_input GROUP BY product_id, workspace_id
    ), stock_done AS (
      INSERT INTO stock_levels AS s (tenant_id, product_id, workspace_id, quantity)
      SELECT ${actor.tenantId}, n.product_id, n.workspace_id, n.quantity
      FROM stock_net n JOIN products p ON p.id = n.product_id AND p.tenant_id = ${actor.tenantId}
      WHERE n.quantity >= 0 OR p.allow_negative_stock
         OR EXISTS (SELECT 1 FROM stock_levels e WHERE e.product_id = n.product_id AND e.workspace_id = n.workspace_id)
      ORDER BY n.product_id, n.workspace_id
      ON CONFLICT (product_id, workspace_id) DO UPDATE
        SET quantity = s.quantity + EXCLUDED.quantity, updated_at = now()
        WHERE EXCLUDED.quantity >= 0 OR s.quantity + EXCLUDED.quantity >= 0
           OR EXISTS (SELECT 1 FROM products p2 WHERE p2.id = s.product_id AND p2.allow_negative_stock)
      RETURNING s.tenant_id, s.product_id, s.workspace_id, s.quantity, s.minimum_quantity
    ), stock_moved AS (
      INSERT INTO stock_movements (tenant_id, product_id, workspace_id, type, quantity, from_workspace_id, to_workspace_id,
        reference, notes, reason, unit_cost, transfer_id, adjustment_id, invoice_id, purchase_id, created_by)
      SELECT ${actor.tenantId}, product_id, workspace_id, type, quantity, from_workspace_id, to_workspace_id,
        coalesce(reference, ${reference}), notes, reason, unit_cost, transfer_id, adjustment_id, coalesce(invoice_id, ${invoiceId}),
        coalesce(purchase_id, ${purchaseId}), ${actor.userId}
      FROM stock_input ORDER BY idx
      RETURNING id, product_id, workspace_id, type, quantity, from_workspace_id, to_workspace_id, reference, created_at
    )`;
}

/**
 * `stock_low`: the levels this statement took from above their minimum to at or below it (a
 * minimum of 0 is none, as GET /inventory/low-stock reads it). The level before is the level after
 * less the net change, so a level already low that falls further, or one rising, is not a crossing:
 * product.stock_low is sent once per crossing.
 */
export const stockResultColumns = sql`(SELECT count(*) FROM stock_net)::int AS stock_wanted,
  (SELECT coalesce(json_agg(json_build_object('product_id', product_id, 'workspace_id', workspace_id)), '[]') FROM stock_done) AS stock_levels,
  (SELECT coalesce(json_agg(json_build_object('tenant_id', d.tenant_id, 'product_id', d.product_id, 'workspace_id', d.workspace_id)), '[]')
     FROM stock_done d JOIN stock_net n ON n.product_id = d.product_id AND n.workspace_id = d.workspace_id
     WHERE d.minimum_quantity > 0 AND d.quantity <= d.minimum_quantity AND d.quantity - n.quantity > d.minimum_quantity) AS stock_low,
  (SELECT coalesce(json_agg(stock_moved ORDER BY stock_moved.id), '[]') FROM stock_moved) AS stock_movements`;

export interface StockResult {
  stock_wanted: number;
  stock_levels: { product_id: number; workspace_id: number }[];
  stock_low: { tenant_id: number; product_id: number; workspace_id: number }[];
  stock_movements: MovementRow[];
}

/**
 * Refuses the request (422 insufficient_stock, naming the field) when a level was not changed;
 * otherwise records product.stock_low for each level the change took to or below its minimum (in
 * the same transaction: every movement of stock passes here — sales, purchases, adjustments,
 * transfers, notes, voids).
 */
export async function checkStockResult(db: AnyDb, changes: StockChange[], result: StockResult): Promise<MovementRow[]> {
  if (result.stock_levels.length < result.stock_wanted) await refuseInsufficient(db, changes, result.stock_levels);
  for (const level of result.stock_low) {
    await recordEvent(db, level.tenant_id, "product.stock_low", level.workspace_id, async () => {
      const [item] = await lowStockItems(db, level.tenant_id, level.workspace_id, level.product_id);
      return item;
    });
  }
  return result.stock_movements.map((m) => ({ ...m, quantity: decimal2(m.quantity) }));
}

/** Applies stock changes and records their movements in one statement (see stockCtes). */
export async function applyStockChanges(db: AnyDb, actor: { tenantId: number; userId: number }, changes: StockChange[]): Promise<MovementRow[]> {
  if (changes.length === 0) return [];
  const result = await db.execute(sql`WITH ${stockCtes(actor, changes)} SELECT ${stockResultColumns}`);
  return checkStockResult(db, changes, oneRow(rowsOf<StockResult>(result)));
}

async function refuseInsufficient(db: AnyDb, changes: StockChange[], applied: { product_id: number; workspace_id: number }[]): Promise<never> {
  const done = new Set(applied.map((l) => `${l.product_id}:${l.workspace_id}`));
  const failed = changes.find((c) => !done.has(`${c.productId}:${c.workspaceId}`) && new Big(c.quantity).lt(0))!;
  const [level] = await db
    .select({ quantity: schema.stockLevels.quantity })
    .from(schema.stockLevels)
    .where(and(eq(schema.stockLevels.productId, failed.productId), eq(schema.stockLevels.workspaceId, failed.workspaceId)));
  const [product] = await db.select({ name: schema.products.name }).from(schema.products).where(eq(schema.products.id, failed.productId));
  const available = decimal2(level?.quantity ?? "0");
  const message = `Insufficient stock of ${product?.name ?? `product ${failed.productId}`}: ${available} available.`;
  throw new AppError("insufficient_stock", message, { [failed.field]: [message] });
}

/**
 * The levels at or below their minimum (minimum > 0) of a workspace, as GET /inventory/low-stock
 * lists them, largest deficit first; with `productId`, that product's level (product.stock_low's
 * `data`, read right after the movement, whether or not the product is active).
 */
export async function lowStockItems(db: AnyDb, tenantId: number, workspaceId: number, productId?: number) {
  const l = schema.stockLevels;
  const rows = await db
    .select({
      productId: schema.products.id,
      productName: schema.products.name,
      sku: schema.products.sku,
      workspaceId: schema.workspaces.id,
      workspaceName: schema.workspaces.name,
      quantity: l.quantity,
      minimum: l.minimumQuantity,
    })
    .from(l)
    .innerJoin(schema.products, eq(schema.products.id, l.productId))
    .innerJoin(schema.workspaces, eq(schema.workspaces.id, l.workspaceId))
    .where(
      and(
        eq(l.tenantId, tenantId),
        eq(l.workspaceId, workspaceId),
        sql`${l.minimumQuantity} > 0`,
        lte(l.quantity, l.minimumQuantity),
        productId === undefined ? eq(schema.products.isActive, true) : eq(l.productId, productId),
      ),
    )
    .orderBy(sql`${l.minimumQuantity} - ${l.quantity} DESC`, asc(schema.products.id));
  return rows.map((r) => ({
    product_id: r.productId,
    product_name: r.productName,
    sku: r.sku,
    workspace_id: r.workspaceId,
    workspace_name: r.workspaceName,
    current_quantity: decimal2(r.quantity),
    minimum_quantity: decimal2(r.minimum),
    deficit: new Big(r.minimum).minus(r.quantity).toFixed(2),
  }));
}
