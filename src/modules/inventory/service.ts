import type { z } from "@hono/zod-openapi";
import { and, asc, desc, eq, exists, gte, inArray, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { AnyDb } from "../../db/client";
import { postgresError } from "../../db/errors";
import { memberWorkspacesHolding } from "../../db/grants";
import { type PageColumns, pageOfQuery, updatedSince } from "../../db/queries";
import { oneRow, rowsOf } from "../../db/rows";
import * as schema from "../../db/schema";
import type { ListQuery } from "../../http/pagination";
import type { RequestScope } from "../../http/scope";
import { Big } from "../../lib/decimal";
import { AppError, fieldError, notFound } from "../../lib/errors";
import { decimal2, timestamp } from "../../lib/format";
import { assertWritableIn } from "../products/ownership";
import type {
  AdjustmentItem,
  CreateAdjustmentInput,
  CreatedTransfer,
  CreateTransferInput,
  InitialStockInput,
  LowStockItem,
  MovementItem,
  MovementReportItem,
  ProductStock,
} from "./schemas";
import { applyStockChanges, checkStockResult, lowStockItems, type StockChange, type StockResult, stockCtes, stockResultColumns } from "./stock";

type Transfer = z.output<typeof MovementItem>;
type Adjustment = z.output<typeof AdjustmentItem>;

const m = schema.stockMovements;
const fromWs = alias(schema.workspaces, "from_ws");
const toWs = alias(schema.workspaces, "to_ws");

/** Workspaces the caller may act on or see: memberships, or every workspace with view_all_locations. */
function accessibleWorkspaceCondition(scope: RequestScope): SQL {
  const member = exists(sqlMembership(scope.userId));
  return scope.viewAll ? eq(schema.workspaces.tenantId, scope.tenantId) : and(eq(schema.workspaces.tenantId, scope.tenantId), member)!;
}

function sqlMembership(userId: number) {
  return sql`(SELECT 1 FROM ${schema.workspaceMembers} WHERE ${schema.workspaceMembers.workspaceId} = ${schema.workspaces.id} AND ${schema.workspaceMembers.userId} = ${userId})`;
}

async function accessibleWorkspaces(db: AnyDb, scope: RequestScope, ids?: number[]) {
  return db
    .select({ id: schema.workspaces.id, name: schema.workspaces.name })
    .from(schema.workspaces)
    .where(and(accessibleWorkspaceCondition(scope), ids ? inArray(schema.workspaces.id, ids) : undefined))
    .orderBy(asc(schema.workspaces.id));
}

/** A workspace named by a query parameter: reachable by the caller, else 403 (never revealing it). */
async function requireAccessibleWorkspace(db: AnyDb, scope: RequestScope, workspaceId: number) {
  if (workspaceId === scope.workspaceId) return;
  const [row] = await accessibleWorkspaces(db, scope, [workspaceId]);
  if (!row) throw new AppError("workspace_forbidden", "You do not have access to this workspace.");
}

/**
 * Products visible in the request's workspace that track inventory, by id; 422 naming the field
 * otherwise. A product of another workspace (visible through view_all_locations) needs
 * `permission` held there as well (403 forbidden): stock of W2's product is W2's business.
 */
async function stockedProducts(db: AnyDb, scope: RequestScope, wanted: { id: number; field: string }[], permission: string) {
  const ids = [...new Set(wanted.map((w) => w.id))];
  const rows = await db
    .select({
      id: schema.products.id,
      name: schema.products.name,
      cost: schema.products.cost,
      trackInventory: schema.products.trackInventory,
      workspaceId: schema.products.workspaceId,
    })
    .from(schema.products)
    .where(and(eq(schema.products.tenantId, scope.tenantId), inArray(schema.products.id, ids)));
  const byId = new Map(rows.filter((r) => r.workspaceId === null || r.workspaceId === scope.workspaceId || scope.viewAll).map((r) => [r.id, r]));
  for (const w of wanted) {
    const product = byId.get(w.id);
    if (!product) throw fieldError(w.field, "No such product.");
    if (!product.trackInventory) throw fieldError(w.field, "This product does not track inventory (a service).");
  }
  await assertWritableIn(
    db,
    scope,
    [...byId.values()].map((r) => r.workspaceId),
    permission,
    "change the stock of a product of another workspace",
  );
  return byId;
}

function serializeMovement(
  row: {
    movement: typeof m.$inferSelect;
    product: { id: number; name: string; sku: string | null };
    from: { id: number; name: string } | null;
    to: { id: number; name: string } | null;
    user: { id: number; name: string; email: string } | null;
  },
  withEmail = false,
) {
  const mv = row.movement;
  return {
    id: mv.id,
    product_id: mv.productId,
    type: mv.type,
    quantity: decimal2(mv.quantity),
    from_workspace_id: mv.fromWorkspaceId,
    to_workspace_id: mv.toWorkspaceId,
    reference: mv.reference,
    notes: mv.notes,
    created_by: row.user ? (withEmail ? row.user : { id: row.user.id, name: row.user.name }) : null,
    created_at: timestamp(mv.createdAt),
    product: row.product,
    from_workspace: row.from?.id ? row.from : null,
    to_workspace: row.to?.id ? row.to : null,
  };
}

const movementColumns = {
  movement: m,
  product: { id: schema.products.id, name: schema.products.name, sku: schema.products.sku },
  from: { id: fromWs.id, name: fromWs.name },
  to: { id: toWs.id, name: toWs.name },
  user: { id: schema.users.id, name: schema.users.name, email: schema.users.email },
};

/**
 * The stock level of a movement's product in the movement's workspace, read in the movement's own
 * statement (issue 46: a read takes one round trip, never a second statement for the level).
 */
const levelOfMovement = sql<string | null>`(SELECT ${schema.stockLevels.quantity} FROM ${schema.stockLevels}
  WHERE ${schema.stockLevels.tenantId} = ${m.tenantId} AND ${schema.stockLevels.productId} = ${m.productId} AND ${schema.stockLevels.workspaceId} = ${m.workspaceId})`;

/** Movements with their product, workspaces and author; `level` adds the product's stock level, `page` a list's page columns (pageOfQuery). */
function movementSelect(db: AnyDb, options: { level?: boolean; page?: PageColumns } = {}) {
  return db
    .select({ ...movementColumns, level: options.level ? levelOfMovement : sql<string | null>`NULL`, ...(options.page ?? {}) })
    .from(m)
    .innerJoin(schema.products, eq(schema.products.id, m.productId))
    .leftJoin(fromWs, eq(fromWs.id, m.fromWorkspaceId))
    .leftJoin(toWs, eq(toWs.id, m.toWorkspaceId))
    .leftJoin(schema.users, eq(schema.users.id, m.createdBy));
}

export async function listTransfers(
  db: AnyDb,
  scope: RequestScope,
  query: ListQuery<"product_id" | "type", "created_at" | "quantity">,
): Promise<{ data: Transfer[]; total: number }> {
  const types = query.filters.type ? [query.filters.type] : ["transfer_out", "transfer_in"];
  // Movements are append-only (never updated): their updated_at is their created_at.
  const column = query.sort.field === "quantity" ? m.quantity : m.createdAt;
  const where = and(
    eq(m.tenantId, scope.tenantId),
    eq(m.workspaceId, scope.workspaceId),
    inArray(m.type, types),
    query.filters.product_id ? eq(m.productId, Number(query.filters.product_id)) : undefined,
    updatedSince(m.createdAt, query),
  );
  const order = [query.sort.descending ? desc(column) : asc(column), query.sort.descending ? desc(m.id) : asc(m.id)];
  const { rows, total } = await pageOfQuery(db, { table: m, id: m.id, where, order, query }, (page) => movementSelect(db, { page }).$dynamic());
  return { data: rows.map((r) => serializeMovement(r)), total };
}

/** A transfer movement of the request's workspace (or any, with view_all_locations). */
export async function getTransfer(db: AnyDb, scope: RequestScope, id: number): Promise<Transfer> {
  const [row] = await movementSelect(db, { level: true }).where(
    and(
      eq(m.tenantId, scope.tenantId),
      eq(m.id, id),
      inArray(m.type, ["transfer_out", "transfer_in"]),
      scope.viewAll ? undefined : eq(m.workspaceId, scope.workspaceId),
    ),
  );
  if (!row) throw notFound("Stock transfer");
  const data = serializeMovement(row, true);
  return { ...data, product: { ...data.product, current_stock: decimal2(row.level ?? "0") } };
}

/**
 * A transfer in one statement: the stock moves and, in the same statement, the destination and the
 * product are checked; a failed check throws, and the transaction's rollback undoes the move. (One
 * round trip instead of three: the checks cannot change what a valid transfer writes.)
 */
export async function createTransfer(db: AnyDb, scope: RequestScope, input: CreateTransferInput): Promise<z.output<typeof CreatedTransfer>["data"]> {
  if (input.to_workspace_id === scope.workspaceId) throw fieldError("to_workspace_id", "The destination must be another workspace.");
  const transferId = crypto.randomUUID();
  const reference = input.reference || `TRF-${transferId.slice(0, 8).toUpperCase()}`;
  const common = {
    productId: input.product_id,
    fromWorkspaceId: scope.workspaceId,
    toWorkspaceId: input.to_workspace_id,
    reference,
    notes: input.notes ?? null,
    transferId,
    field: "quantity",
  };
  const changes: StockChange[] = [
    { ...common, workspaceId: scope.workspaceId, type: "transfer_out", quantity: new Big(input.quantity).neg().toFixed(2) },
    { ...common, workspaceId: input.to_workspace_id, type: "transfer_in", quantity: input.quantity },
  ];
  const destination = sql`SELECT 1 FROM ${schema.workspaces} WHERE ${and(accessibleWorkspaceCondition(scope), eq(schema.workspaces.id, input.to_workspace_id))}`;
  // The stock received is the destination's: inventory:transfer must be held there too, as a
  // member (or admin there); view_all_locations only makes it reachable. A product of a third
  // workspace likewise needs inventory:transfer in its own workspace.
  // A destination that does not exist (or is another tenant's, invisible under RLS) fails the
  // statement's own stock write on its foreign key before the checks below are read: the same answer.
  const noDestination = (error: unknown): never => {
    const refused = postgresError(error);
    if (refused?.code === "23503" && refused.constraint?.includes("workspace_id")) throw fieldError("to_workspace_id", "No such workspace that you can reach.");
    throw error;
  };
  const result = await db
    .execute(sql`
    WITH ${stockCtes(scope, changes)}
    SELECT EXISTS (${destination}) AS destination_ok,
      ${memberWorkspacesHolding(sql`${input.to_workspace_id}::int`, scope.userId, "inventory:transfer")} AS destination_writable,
      (SELECT json_build_object('track_inventory', track_inventory, 'workspace_id', workspace_id,
         'writable', workspace_id IS NULL OR workspace_id = ${scope.workspaceId} OR ${memberWorkspacesHolding(sql`products.workspace_id`, scope.userId, "inventory:transfer")})
       FROM products WHERE tenant_id = ${scope.tenantId} AND id = ${input.product_id}) AS product,
      ${stockResultColumns}`)
    .catch(noDestination);
  const row = oneRow(
    rowsOf<
      StockResult & {
        destination_ok: boolean;
        destination_writable: boolean;
        product: { track_inventory: boolean; workspace_id: number | null; writable: boolean } | null;
      }
    >(result),
  );
  if (!row.destination_ok) throw fieldError("to_workspace_id", "No such workspace that you can reach.");
  const product = row.product;
  if (!product || (product.workspace_id !== null && product.workspace_id !== scope.workspaceId && !scope.viewAll)) {
    throw fieldError("product_id", "No such product.");
  }
  if (!row.destination_writable) {
    throw new AppError(
      "forbidden",
      `You cannot transfer stock to workspace ${input.to_workspace_id}: it needs inventory:transfer there, which you do not hold.`,
    );
  }
  if (!product.writable) {
    throw new AppError(
      "forbidden",
      `You cannot transfer this product: it belongs to workspace ${product.workspace_id}, where you do not hold inventory:transfer.`,
    );
  }
  if (!product.track_inventory) throw fieldError("product_id", "This product does not track inventory (a service).");
  const out = oneRow(await checkStockResult(db, changes, row));
  return {
    id: out.id,
    product_id: out.product_id,
    type: "transfer_out" as const,
    quantity: out.quantity,
    from_workspace_id: scope.workspaceId,
    to_workspace_id: input.to_workspace_id,
    reference,
    created_at: timestamp(out.created_at),
  };
}

export async function createAdjustment(db: AnyDb, scope: RequestScope, input: CreateAdjustmentInput): Promise<Adjustment> {
  await stockedProducts(
    db,
    scope,
    input.items.map((item, i) => ({ id: item.product_id, field: `items.${i}.product_id` })),
    "inventory:adjust",
  );
  const adjustment = await db
    .insert(schema.inventoryAdjustments)
    .values({ tenantId: scope.tenantId, workspaceId: scope.workspaceId, reference: input.reference ?? null, createdBy: scope.userId })
    .returning()
    .then(oneRow);
  await applyStockChanges(
    db,
    scope,
    input.items.map((item, i) => ({
      productId: item.product_id,
      workspaceId: scope.workspaceId,
      quantity: item.quantity_adjustment,
      type: "adjustment" as const,
      reason: item.reason,
      notes: item.notes ?? null,
      reference: input.reference ?? null,
      adjustmentId: adjustment.id,
      field: `items.${i}.quantity_adjustment`,
    })),
  );
  return getAdjustment(db, scope, adjustment.id);
}

export async function getAdjustment(db: AnyDb, scope: RequestScope, id: number): Promise<Adjustment> {
  const [list] = (
    await adjustmentsWhere(
      db,
      and(eq(schema.inventoryAdjustments.id, id), scope.viewAll ? undefined : eq(schema.inventoryAdjustments.workspaceId, scope.workspaceId))!,
      scope,
      { page: 1, perPage: 1 },
    )
  ).data;
  if (!list) throw notFound("Inventory adjustment");
  return list;
}

async function adjustmentsWhere(db: AnyDb, where: SQL, scope: RequestScope, query: { page: number; perPage: number }, descending = true) {
  const a = schema.inventoryAdjustments;
  // Each adjustment's movements gathered as JSON in the adjustments' statement (issue 46: a read
  // takes one round trip, never a second statement for the items).
  const items = sql<{ product_id: number; quantity: string; reason: string | null; notes: string | null }[]>`(
    SELECT coalesce(json_agg(json_build_object('product_id', ${m.productId}, 'quantity', ${m.quantity}::text, 'reason', ${m.reason}, 'notes', ${m.notes})
      ORDER BY ${m.id}), '[]')
    FROM ${m} WHERE ${m.tenantId} = ${scope.tenantId} AND ${m.adjustmentId} = ${a.id})`;
  const { rows, total } = await pageOfQuery(
    db,
    {
      table: a,
      id: a.id,
      where: and(eq(a.tenantId, scope.tenantId), where),
      order: [descending ? desc(a.createdAt) : asc(a.createdAt), descending ? desc(a.id) : asc(a.id)],
      query,
    },
    (page) =>
      db
        .select({ adjustment: a, user: { id: schema.users.id, name: schema.users.name }, items, ...page })
        .from(a)
        .leftJoin(schema.users, eq(schema.users.id, a.createdBy))
        .$dynamic(),
  );
  return {
    total,
    data: rows.map((r) => ({
      id: r.adjustment.id,
      workspace_id: r.adjustment.workspaceId,
      reference: r.adjustment.reference,
      items: r.items.map((i) => ({ product_id: i.product_id, quantity_adjustment: decimal2(i.quantity), reason: i.reason ?? "other", notes: i.notes })),
      created_by: r.user?.id ? r.user : null,
      created_at: timestamp(r.adjustment.createdAt),
    })),
  };
}

export async function listAdjustments(
  db: AnyDb,
  scope: RequestScope,
  query: ListQuery<"product_id", "created_at">,
): Promise<{ data: Adjustment[]; total: number }> {
  const a = schema.inventoryAdjustments;
  const byProduct = query.filters.product_id
    ? exists(
        db
          .select({ one: sql`1` })
          .from(m)
          .where(and(eq(m.adjustmentId, a.id), eq(m.productId, Number(query.filters.product_id)))),
      )
    : undefined;
  const result = await adjustmentsWhere(
    db,
    // Adjustments are append-only: updated_at (filter and sort) is created_at.
    and(eq(a.workspaceId, scope.workspaceId), byProduct, updatedSince(a.createdAt, query))!,
    scope,
    query,
    query.sort.descending,
  );
  return result;
}

export async function setInitialStock(
  db: AnyDb,
  scope: RequestScope,
  input: InitialStockInput,
): Promise<{ total_products: number; total_quantity: string; total_value: string }> {
  const products = await stockedProducts(
    db,
    scope,
    input.items.map((item, i) => ({ id: item.product_id, field: `items.${i}.product_id` })),
    "inventory:adjust",
  );
  const seen = new Set<number>();
  input.items.forEach((item, i) => {
    if (seen.has(item.product_id)) throw fieldError(`items.${i}.product_id`, "This product is listed twice.");
    seen.add(item.product_id);
  });
  const already = await db
    .selectDistinct({ productId: m.productId })
    .from(m)
    .where(and(eq(m.tenantId, scope.tenantId), eq(m.workspaceId, scope.workspaceId), inArray(m.productId, [...seen])));
  if (already.length) {
    const index = input.items.findIndex((item) => item.product_id === already[0]!.productId);
    throw new AppError("stock_already_initialized", "This product already has stock movements in this workspace; use an inventory adjustment.", {
      [`items.${index}.product_id`]: ["Stock already initialized in this workspace."],
    });
  }
  let totalQuantity = new Big(0);
  let totalValue = new Big(0);
  const changes = input.items.map((item, i) => {
    const cost = item.cost ?? products.get(item.product_id)!.cost ?? "0";
    totalQuantity = totalQuantity.plus(item.quantity);
    totalValue = totalValue.plus(new Big(item.quantity).times(cost));
    return {
      productId: item.product_id,
      workspaceId: scope.workspaceId,
      quantity: item.quantity,
      type: "initial_stock" as const,
      unitCost: new Big(cost).toFixed(2),
      field: `items.${i}.quantity`,
    };
  });
  await applyStockChanges(db, scope, changes);
  return { total_products: input.items.length, total_quantity: totalQuantity.toFixed(2), total_value: totalValue.round(2).toFixed(2) };
}

async function visibleProduct(db: AnyDb, scope: RequestScope, id: number) {
  const [product] = await db
    .select({ id: schema.products.id, name: schema.products.name, workspaceId: schema.products.workspaceId })
    .from(schema.products)
    .where(and(eq(schema.products.tenantId, scope.tenantId), eq(schema.products.id, id)));
  if (!product || (product.workspaceId !== null && product.workspaceId !== scope.workspaceId && !scope.viewAll)) throw notFound("Product");
  return product;
}

export async function productStock(db: AnyDb, scope: RequestScope, productId: number): Promise<z.output<typeof ProductStock>> {
  const p = schema.products;
  // Where the product is stocked: every reachable workspace for a product of all workspaces, its
  // own for one of a workspace. Said in the levels' statement, so that it and the product's lookup
  // are issued together (issue 46: one round trip); the levels are answered only once the product
  // is found visible (404 otherwise).
  const stockedHere = exists(
    db
      .select({ one: sql`1` })
      .from(p)
      .where(and(eq(p.tenantId, scope.tenantId), eq(p.id, productId), or(isNull(p.workspaceId), eq(p.workspaceId, schema.workspaces.id)))),
  );
  const [product, rows] = await Promise.all([
    visibleProduct(db, scope, productId),
    db
      .select({
        workspaceId: schema.workspaces.id,
        workspaceName: schema.workspaces.name,
        quantity: sql<string>`coalesce(${schema.stockLevels.quantity}, 0)`,
        minimum: sql<string>`coalesce(${schema.stockLevels.minimumQuantity}, 0)`,
      })
      .from(schema.workspaces)
      .leftJoin(schema.stockLevels, and(eq(schema.stockLevels.workspaceId, schema.workspaces.id), eq(schema.stockLevels.productId, productId)))
      .where(and(accessibleWorkspaceCondition(scope), stockedHere))
      .orderBy(asc(schema.workspaces.id)),
  ]);
  let total = new Big(0);
  const workspaceStocks = rows.map((r) => {
    total = total.plus(r.quantity);
    const minimum = new Big(r.minimum);
    return {
      workspace_id: r.workspaceId,
      workspace_name: r.workspaceName,
      quantity: decimal2(r.quantity),
      minimum_quantity: decimal2(r.minimum),
      is_low_stock: minimum.gt(0) && new Big(r.quantity).lte(minimum),
    };
  });
  return { product_id: product.id, product_name: product.name, total_stock: total.toFixed(2), workspace_stocks: workspaceStocks };
}

export async function setMinimum(db: AnyDb, scope: RequestScope, productId: number, workspaceId: number, minimum: string): Promise<void> {
  const product = await visibleProduct(db, scope, productId);
  const [workspace] = await accessibleWorkspaces(db, scope, [workspaceId]);
  if (!workspace) throw fieldError("workspace_id", "No such workspace that you can reach.");
  // The minimum is the named workspace's stock row: inventory:adjust must be held there (and in
  // the product's own workspace when it belongs to a third one).
  await assertWritableIn(db, scope, [workspaceId, product.workspaceId], "inventory:adjust", "set this minimum");
  await db
    .insert(schema.stockLevels)
    .values({ tenantId: scope.tenantId, productId, workspaceId, minimumQuantity: minimum })
    .onConflictDoUpdate({ target: [schema.stockLevels.productId, schema.stockLevels.workspaceId], set: { minimumQuantity: minimum, updatedAt: sql`now()` } });
}

export async function lowStock(db: AnyDb, scope: RequestScope, workspaceId: number): Promise<z.output<typeof LowStockItem>[]> {
  await requireAccessibleWorkspace(db, scope, workspaceId);
  return lowStockItems(db, scope.tenantId, workspaceId);
}

export async function movementReport(
  db: AnyDb,
  scope: RequestScope,
  query: { page: number; per_page: number; product_id?: number; workspace_id?: number; type?: string; date_from?: string; date_to?: string },
): Promise<{ data: z.output<typeof MovementReportItem>[]; total: number }> {
  const workspaceId = query.workspace_id ?? scope.workspaceId;
  await requireAccessibleWorkspace(db, scope, workspaceId);
  const where = and(
    eq(m.tenantId, scope.tenantId),
    eq(m.workspaceId, workspaceId),
    query.product_id ? eq(m.productId, query.product_id) : undefined,
    query.type ? eq(m.type, query.type) : undefined,
    // Dates are calendar days in UTC, both ends included.
    query.date_from ? gte(m.createdAt, new Date(`${query.date_from}T00:00:00Z`)) : undefined,
    query.date_to ? lt(m.createdAt, new Date(Date.parse(`${query.date_to}T00:00:00Z`) + 86_400_000)) : undefined,
  );
  const { rows, total } = await pageOfQuery(
    db,
    { table: m, id: m.id, where, order: [desc(m.createdAt), desc(m.id)], query: { page: query.page, perPage: query.per_page } },
    (page) =>
      db
        .select({ movement: m, productName: schema.products.name, ...page })
        .from(m)
        .innerJoin(schema.products, eq(schema.products.id, m.productId))
        .$dynamic(),
  );
  return {
    total,
    data: rows.map((r) => ({
      id: r.movement.id,
      product_id: r.movement.productId,
      product_name: r.productName,
      type: r.movement.type,
      quantity: decimal2(r.movement.quantity),
      workspace_id: r.movement.workspaceId,
      reference: r.movement.reference,
      invoice_id: r.movement.invoiceId,
      created_at: timestamp(r.movement.createdAt),
    })),
  };
}
