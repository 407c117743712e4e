import { and, eq, ilike, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { inUseOnForeignKey } from "../../db/errors";
import { findRow, firstReference, likePattern, orderBy, type Page, pageOf, referencedBy } from "../../db/queries";
import * as schema from "../../db/schema";
import { AppError, fieldError } from "../../http/errors";
import type { ListQuery } from "../../http/pagination";
import { Big } from "../../lib/decimal";
import { decimal2, timestamp } from "../../lib/format";
import type { CreateTaxInput, TAX_TYPES, UpdateTaxInput } from "./schemas";

const t = schema.taxes;
type TaxRow = typeof t.$inferSelect;

export function serializeTax(row: TaxRow) {
  return {
    id: row.id,
    name: row.name,
    type: row.type as (typeof TAX_TYPES)[number],
    rate: decimal2(row.rate)!,
    is_default: row.isDefault,
    is_active: row.isActive,
    created_at: timestamp(row.createdAt)!,
    updated_at: timestamp(row.updatedAt)!,
  };
}

type TaxFilter = "search" | "type" | "is_active" | "is_default";
type TaxSort = "id" | "name" | "rate" | "created_at";

export async function listTaxes(db: AnyDb, tenantId: number, query: ListQuery<TaxFilter, TaxSort>): Promise<Page<TaxRow>> {
  const f = query.filters;
  const where = and(
    eq(t.tenantId, tenantId),
    f.search ? ilike(t.name, likePattern(f.search)) : undefined,
    f.type ? eq(t.type, f.type) : undefined,
    f.is_active ? eq(t.isActive, f.is_active === "true") : undefined,
    f.is_default ? eq(t.isDefault, f.is_default === "true") : undefined,
  );
  const column = { id: t.id, name: t.name, rate: t.rate, created_at: t.createdAt }[query.sort.field];
  return pageOf(db, t, where, orderBy(column, t.id, query.sort.descending), query);
}

export async function getTax(db: AnyDb, tenantId: number, id: number, lock = false): Promise<TaxRow> {
  return findRow(db, t, and(eq(t.tenantId, tenantId), eq(t.id, id)), "Tax", lock);
}

/** Exempt and non-billable taxes have a rate of 0. */
function checkRate(type: string, rate: string) {
  if ((type === "exento" || type === "no_facturable") && !new Big(rate).eq(0)) {
    throw fieldError("rate", `A tax of type ${type} has a rate of 0.`);
  }
}

/** A default tax is active (the default set is applied to new products). */
function checkDefault(isDefault: boolean, isActive: boolean) {
  if (isDefault && !isActive) throw fieldError("is_default", "An inactive tax cannot be a default tax.");
}

export async function createTax(db: AnyDb, tenantId: number, input: CreateTaxInput): Promise<TaxRow> {
  checkRate(input.type, input.rate);
  checkDefault(input.is_default ?? false, input.is_active ?? true);
  const [row] = await db
    .insert(t)
    .values({ tenantId, name: input.name, type: input.type, rate: input.rate, isDefault: input.is_default ?? false, isActive: input.is_active ?? true })
    .returning();
  return row!;
}

export async function updateTax(db: AnyDb, tenantId: number, id: number, input: UpdateTaxInput): Promise<TaxRow> {
  const current = await getTax(db, tenantId, id, true);
  const type = input.type ?? current.type;
  const rate = input.rate ?? current.rate;
  checkRate(type, rate);
  checkDefault(input.is_default ?? current.isDefault, input.is_active ?? current.isActive);
  const [row] = await db
    .update(t)
    .set({ name: input.name, type, rate, isDefault: input.is_default, isActive: input.is_active, updatedAt: new Date() })
    .where(and(eq(t.tenantId, tenantId), eq(t.id, id)))
    .returning();
  return row!;
}

/**
 * Why a tax cannot be deleted because document lines applied it: invoice lines (invoice_item_taxes)
 * or quotation lines (their taxes snapshot). Returns a reason or null.
 */
async function taxDocumentReferences(db: AnyDb, tenantId: number, taxId: number): Promise<string | null> {
  const qi = schema.quotationItems;
  return firstReference(db, [
    ["invoice lines apply it", referencedBy(schema.invoiceItemTaxes, schema.invoiceItemTaxes.tenantId, schema.invoiceItemTaxes.taxId, tenantId, taxId)],
    [
      "quotation lines apply it",
      sql`EXISTS (SELECT 1 FROM ${qi} WHERE ${qi.tenantId} = ${tenantId} AND ${qi.taxes} @> ${JSON.stringify([{ id: taxId }])}::jsonb)`,
    ],
  ]);
}

export async function deleteTax(db: AnyDb, tenantId: number, id: number): Promise<void> {
  await getTax(db, tenantId, id, true);
  const [product] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(schema.products)
    .where(and(eq(schema.products.tenantId, tenantId), sql`${id} = ANY(${schema.products.defaultTaxIds})`));
  const reason = product!.n > 0 ? `${product!.n} product(s) use it as a default tax` : await taxDocumentReferences(db, tenantId, id);
  if (reason) throw new AppError("in_use", `This tax cannot be deleted: ${reason}. Deactivate it instead (is_active: false).`);
  await db
    .delete(t)
    .where(and(eq(t.tenantId, tenantId), eq(t.id, id)))
    .catch(inUseOnForeignKey("tax"));
}
