import { and, eq, ilike, or } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { inUseOnForeignKey } from "../../db/errors";
import { findRow, firstReference, likePattern, orderBy, type Page, pageOf, referencedBy } from "../../db/queries";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import type { ListQuery } from "../../http/pagination";
import { AppError } from "../../lib/errors";
import { timestamp } from "../../lib/format";
import type { CreateSalesmanInput, UpdateSalesmanInput } from "./schemas";

const s = schema.salesmen;
type SalesmanRow = typeof s.$inferSelect;

export function serializeSalesman(row: SalesmanRow) {
  return {
    id: row.id,
    full_name: row.fullName,
    email: row.email,
    phone: row.phone,
    is_active: row.isActive,
    created_at: timestamp(row.createdAt),
    updated_at: timestamp(row.updatedAt),
  };
}

type SalesmanFilter = "search" | "is_active";
type SalesmanSort = "id" | "full_name" | "created_at";

export async function listSalesmen(db: AnyDb, tenantId: number, query: ListQuery<SalesmanFilter, SalesmanSort>): Promise<Page<SalesmanRow>> {
  const f = query.filters;
  const where = and(
    eq(s.tenantId, tenantId),
    f.search ? or(ilike(s.fullName, likePattern(f.search)), ilike(s.email, likePattern(f.search)), ilike(s.phone, likePattern(f.search))) : undefined,
    f.is_active ? eq(s.isActive, f.is_active === "true") : undefined,
  );
  const column = { id: s.id, full_name: s.fullName, created_at: s.createdAt, updated_at: s.updatedAt }[query.sort.field];
  return pageOf(db, s, where, orderBy(column, s.id, query.sort.descending), query);
}

export async function getSalesman(db: AnyDb, tenantId: number, id: number, lock = false): Promise<SalesmanRow> {
  return findRow(db, s, and(eq(s.tenantId, tenantId), eq(s.id, id)), "Salesman", lock);
}

export async function createSalesman(db: AnyDb, tenantId: number, input: CreateSalesmanInput): Promise<SalesmanRow> {
  const row = await db
    .insert(s)
    .values({ tenantId, fullName: input.full_name, email: input.email ?? null, phone: input.phone ?? null, isActive: input.is_active ?? true })
    .returning()
    .then(oneRow);
  return row;
}

export async function updateSalesman(db: AnyDb, tenantId: number, id: number, input: UpdateSalesmanInput): Promise<SalesmanRow> {
  await getSalesman(db, tenantId, id, true);
  const row = await db
    .update(s)
    .set({ fullName: input.full_name, email: input.email, phone: input.phone, isActive: input.is_active, updatedAt: new Date() })
    .where(and(eq(s.tenantId, tenantId), eq(s.id, id)))
    .returning()
    .then(oneRow);
  return row;
}

/** Why a salesman cannot be deleted because invoices name them. Returns a reason or null. */
async function salesmanDocumentReferences(db: AnyDb, tenantId: number, salesmanId: number): Promise<string | null> {
  const is = schema.invoiceSalesmen;
  return firstReference(db, [["invoices name them", referencedBy(is, is.tenantId, is.salesmanId, tenantId, salesmanId)]]);
}

export async function deleteSalesman(db: AnyDb, tenantId: number, id: number): Promise<void> {
  await getSalesman(db, tenantId, id, true);
  const reason = await salesmanDocumentReferences(db, tenantId, id);
  if (reason) throw new AppError("in_use", `This salesman cannot be deleted: ${reason}. Deactivate them instead (is_active: false).`);
  await db
    .delete(s)
    .where(and(eq(s.tenantId, tenantId), eq(s.id, id)))
    .catch(inUseOnForeignKey("salesman"));
}
