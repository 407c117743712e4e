import { and, eq, ilike, inArray, or, type SQL } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { inUseOnForeignKey, isUniqueViolation } from "../../db/errors";
import { findRow, firstReference, likePattern, orderBy, type Page, pageOf, referencedBy } from "../../db/queries";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import type { ListQuery } from "../../http/pagination";
import { listWorkspaceCondition, type RequestScope, visibleByIdCondition } from "../../http/scope";
import { AppError, fieldError } from "../../lib/errors";
import { decimal2, timestamp } from "../../lib/format";
import { assertAssignableWorkspace, assertWritableIn, productUsers } from "./ownership";
import type { CreateProductInput, UpdateProductInput } from "./schemas";

const p = schema.products;
type ProductRow = typeof p.$inferSelect;

export function serializeProduct(row: ProductRow) {
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    name: row.name,
    sku: row.sku,
    description: row.description,
    product_type: row.productType as "product" | "service",
    unit: row.unit,
    price: decimal2(row.price),
    cost: decimal2(row.cost),
    track_inventory: row.trackInventory,
    allow_negative_stock: row.allowNegativeStock,
    default_tax_ids: row.defaultTaxIds,
    is_active: row.isActive,
    created_at: timestamp(row.createdAt),
    updated_at: timestamp(row.updatedAt),
  };
}

type ProductFilter = "search" | "product_type" | "is_active" | "workspace_id";
type ProductSort = "name" | "sku" | "price" | "created_at";

export async function listProducts(db: AnyDb, scope: RequestScope, query: ListQuery<ProductFilter, ProductSort>): Promise<Page<ProductRow>> {
  const f = query.filters;
  const where = and(
    eq(p.tenantId, scope.tenantId),
    listWorkspaceCondition(p.workspaceId, scope, f.workspace_id),
    f.search ? or(ilike(p.name, likePattern(f.search)), ilike(p.sku, likePattern(f.search))) : undefined,
    f.product_type ? eq(p.productType, f.product_type) : undefined,
    f.is_active ? eq(p.isActive, f.is_active === "true") : undefined,
  );
  const column = { name: p.name, sku: p.sku, price: p.price, created_at: p.createdAt, updated_at: p.updatedAt }[query.sort.field];
  return pageOf(db, p, where, orderBy(column, p.id, query.sort.descending), query);
}

export async function getProduct(db: AnyDb, scope: RequestScope, id: number, lock = false): Promise<ProductRow> {
  return findRow(db, p, and(eq(p.tenantId, scope.tenantId), eq(p.id, id), visibleByIdCondition(p.workspaceId, scope)), "Product", lock);
}

/** Every id must be a tax of the tenant; returns them deduplicated, in the given order. */
async function checkTaxIds(db: AnyDb, tenantId: number, ids: number[]): Promise<number[]> {
  const unique = [...new Set(ids)];
  if (!unique.length) return [];
  const found = await db
    .select({ id: schema.taxes.id })
    .from(schema.taxes)
    .where(and(eq(schema.taxes.tenantId, tenantId), inArray(schema.taxes.id, unique)));
  const known = new Set(found.map((t) => t.id));
  const missing = unique.filter((id) => !known.has(id));
  if (missing.length) throw fieldError("default_tax_ids", `Unknown tax id(s): ${missing.join(", ")}.`);
  return unique;
}

async function defaultTaxIds(db: AnyDb, tenantId: number): Promise<number[]> {
  const rows = await db
    .select({ id: schema.taxes.id })
    .from(schema.taxes)
    .where(and(eq(schema.taxes.tenantId, tenantId), eq(schema.taxes.isDefault, true), eq(schema.taxes.isActive, true)))
    .orderBy(schema.taxes.id);
  return rows.map((r) => r.id);
}

function skuTaken(error: unknown): never {
  if (isUniqueViolation(error, "products_tenant_sku_key")) throw fieldError("sku", "This SKU is already used by another product.");
  throw error;
}

function checkInventoryFlags(productType: string, trackInventory: boolean) {
  if (productType === "service" && trackInventory) throw fieldError("track_inventory", "Services do not track inventory.");
}

export async function createProduct(db: AnyDb, scope: RequestScope, input: CreateProductInput): Promise<ProductRow> {
  const productType = input.product_type ?? "product";
  const trackInventory = input.track_inventory ?? productType === "product";
  checkInventoryFlags(productType, trackInventory);
  // Products are shared by every workspace unless a workspace is named.
  const workspaceId = input.workspace_id ?? null;
  await assertAssignableWorkspace(db, scope, workspaceId, "products:create");
  const taxIds = input.default_tax_ids ? await checkTaxIds(db, scope.tenantId, input.default_tax_ids) : await defaultTaxIds(db, scope.tenantId);
  const row = await db
    .insert(p)
    .values({
      tenantId: scope.tenantId,
      workspaceId,
      name: input.name,
      sku: input.sku ?? null,
      description: input.description ?? null,
      productType,
      unit: input.unit ?? null,
      price: input.price ?? "0.00",
      cost: input.cost ?? null,
      trackInventory,
      allowNegativeStock: input.allow_negative_stock ?? false,
      defaultTaxIds: taxIds,
      isActive: input.is_active ?? true,
    })
    .returning()
    .catch(skuTaken)
    .then(oneRow);
  return row;
}

export async function updateProduct(db: AnyDb, scope: RequestScope, id: number, input: UpdateProductInput): Promise<ProductRow> {
  const current = await getProduct(db, scope, id, true);
  // A row of another workspace (visible through view_all_locations) is written only under
  // products:edit held there.
  await assertWritableIn(db, scope, [current.workspaceId], "products:edit", "change this product");
  const productType = input.product_type ?? current.productType;
  const trackInventory = input.track_inventory ?? (productType === "service" ? false : current.trackInventory);
  checkInventoryFlags(productType, trackInventory);
  const moving = input.workspace_id !== undefined && input.workspace_id !== current.workspaceId;
  if (moving) await assertAssignableWorkspace(db, scope, input.workspace_id!);
  // Moving the row into a workspace takes it away from every other workspace that uses it, and
  // the stock flags change how every using workspace's stock behaves: both need products:edit in
  // each of them (and in the target).
  const flagsChange =
    trackInventory !== current.trackInventory || (input.allow_negative_stock !== undefined && input.allow_negative_stock !== current.allowNegativeStock);
  const intoWorkspace = moving && input.workspace_id !== null;
  if (intoWorkspace || flagsChange) {
    const users = await productUsers(db, scope.tenantId, id);
    const what = intoWorkspace ? "move this product into a workspace" : "change track_inventory or allow_negative_stock of this product";
    await assertWritableIn(db, scope, [...users, intoWorkspace ? input.workspace_id! : null], "products:edit", what);
  }
  const changes: Partial<typeof p.$inferInsert> = { productType, trackInventory, updatedAt: new Date() };
  if (input.name !== undefined) changes.name = input.name;
  if (input.sku !== undefined) changes.sku = input.sku;
  if (input.description !== undefined) changes.description = input.description;
  if (input.unit !== undefined) changes.unit = input.unit;
  if (input.price !== undefined) changes.price = input.price;
  if (input.cost !== undefined) changes.cost = input.cost;
  if (input.allow_negative_stock !== undefined) changes.allowNegativeStock = input.allow_negative_stock;
  if (input.is_active !== undefined) changes.isActive = input.is_active;
  if (moving) changes.workspaceId = input.workspace_id;
  if (input.default_tax_ids !== undefined) changes.defaultTaxIds = await checkTaxIds(db, scope.tenantId, input.default_tax_ids);
  const row = await db
    .update(p)
    .set(changes)
    .where(and(eq(p.tenantId, scope.tenantId), eq(p.id, id)))
    .returning()
    .catch(skuTaken)
    .then(oneRow);
  return row;
}

/**
 * Why a product cannot be deleted: invoice or quotation lines, or stock movements refer to it.
 * Returns a reason, or null when nothing does. New referencing tables add their check here.
 */
async function productDocumentReferences(db: AnyDb, tenantId: number, productId: number): Promise<string | null> {
  return firstReference(db, [
    ["invoices list it", referencedBy(schema.invoiceItems, schema.invoiceItems.tenantId, schema.invoiceItems.productId, tenantId, productId)],
    ["quotations list it", referencedBy(schema.quotationItems, schema.quotationItems.tenantId, schema.quotationItems.productId, tenantId, productId)],
    ["it has stock movements", referencedBy(schema.stockMovements, schema.stockMovements.tenantId, schema.stockMovements.productId, tenantId, productId)],
  ]);
}

/** Deletes the row; returns its workspace (null: shared), which the `.deleted` event names. */
export async function deleteProduct(db: AnyDb, scope: RequestScope, id: number): Promise<{ workspaceId: number | null }> {
  const current = await getProduct(db, scope, id, true);
  await assertWritableIn(db, scope, [current.workspaceId], "products:delete", "delete this product");
  const reason = await productDocumentReferences(db, scope.tenantId, id);
  if (reason) throw new AppError("in_use", `This product cannot be deleted: ${reason}. Deactivate it instead (is_active: false).`);
  // Without movements, stock rows only hold low-stock minimums: they go with the product.
  await db.delete(schema.stockLevels).where(and(eq(schema.stockLevels.tenantId, scope.tenantId), eq(schema.stockLevels.productId, id)));
  await db
    .delete(p)
    .where(and(eq(p.tenantId, scope.tenantId), eq(p.id, id)))
    .catch(inUseOnForeignKey("product"));
  return { workspaceId: current.workspaceId };
}

export type { SQL };
