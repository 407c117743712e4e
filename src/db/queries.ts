import { and, type SQL, sql } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import { notFound } from "../lib/errors";
import type { AnyDb } from "./client";

/** Query pieces shared by the modules' services: search patterns, ordering, counts, references. */

/** `%`, `_` and `\` taken literally inside an ILIKE pattern. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

/** ORDER BY a column with a stable tiebreak on id. */
export function orderBy(column: PgColumn | SQL, id: PgColumn, descending: boolean): SQL {
  return descending ? sql`${column} DESC NULLS LAST, ${id} DESC` : sql`${column} ASC NULLS FIRST, ${id} ASC`;
}

/**
 * `filter[updated_since]` of a list (incremental sync): rows whose updated_at is at or after the
 * instant, inclusive so a client re-reading from the last updated_at it saw loses no tie.
 */
export function updatedSince(column: PgColumn | SQL, query: { updatedSince: Date | undefined }): SQL | undefined {
  return query.updatedSince ? sql`${column} >= ${query.updatedSince.toISOString()}::timestamptz` : undefined;
}

/** A page of rows and the number of rows of all pages. */
export interface Page<T> {
  rows: T[];
  total: number;
}

/**
 * The page query's `total` column: `count(*) over ()` counts every row the WHERE matches before
 * LIMIT/OFFSET, so a page and its total come back in one statement.
 */
export const pageTotal = (): SQL<number> => sql<number>`count(*) over ()`.mapWith(Number);

/** OFFSET of a page (pages count from 1). */
export const pageOffset = (query: { page: number; perPage: number }): number => (query.page - 1) * query.perPage;

/**
 * The total of a page read with `pageTotal()`: its first row's, or for an empty page past the end
 * one count query (an empty first page means no rows at all).
 */
export async function totalOfPage(db: AnyDb, rows: { total: number }[], page: number, table: PgTable, where: SQL | undefined): Promise<number> {
  return rows[0]?.total ?? (page > 1 ? await countWhere(db, table, where) : 0);
}

/**
 * A page of a table's rows and their total, in one statement (`pageTotal()`), for the lists that
 * read one table: `where` filters, `order` sorts (with a tiebreak on id), `query` picks the page.
 * The list's `filter[updated_since]` is applied here to the table's updated_at, once for all lists.
 */
export async function pageOf<T extends PgTable & { updatedAt: PgColumn }>(
  db: AnyDb,
  table: T,
  listWhere: SQL | undefined,
  order: SQL | SQL[],
  query: { page: number; perPage: number; updatedSince?: Date | undefined },
): Promise<Page<T["$inferSelect"]>> {
  return pageOfRows(db, table, table.updatedAt, listWhere, order, query);
}

/** pageOf for a table whose rows never change (an event log): `changedAt` is when a row last changed, its creation. */
export async function pageOfRows<T extends PgTable>(
  db: AnyDb,
  table: T,
  changedAt: PgColumn,
  listWhere: SQL | undefined,
  order: SQL | SQL[],
  query: { page: number; perPage: number; updatedSince?: Date | undefined },
): Promise<Page<T["$inferSelect"]>> {
  const since = updatedSince(changedAt, { updatedSince: query.updatedSince });
  const where = since ? and(listWhere, since) : listWhere;
  const rows = await db
    .select({ row: table as PgTable, total: pageTotal() })
    .from(table as PgTable)
    .where(where)
    .orderBy(...(Array.isArray(order) ? order : [order]))
    .limit(query.perPage)
    .offset(pageOffset(query));
  return { rows: rows.map((r) => r.row as T["$inferSelect"]), total: await totalOfPage(db, rows, query.page, table, where) };
}

/**
 * The one row of `table` that `where` selects, locked FOR UPDATE for the rest of the transaction
 * when `lock` (before a change); 404 naming `what` when there is none.
 */
export async function findRow<T extends PgTable>(db: AnyDb, table: T, where: SQL | undefined, what: string, lock = false): Promise<T["$inferSelect"]> {
  const query = db
    .select()
    .from(table as PgTable)
    .where(where);
  const [row] = lock ? await query.for("update") : await query;
  if (!row) throw notFound(what);
  return row as T["$inferSelect"];
}

/** The `total` of a page that came back empty (page past the end): one count query. */
async function countWhere(db: AnyDb, table: PgTable, where: SQL | undefined): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(table)
    .where(where);
  return row?.n ?? 0;
}

/** The first reason whose EXISTS condition holds, in one query; null when none does. */
export async function firstReference(db: AnyDb, checks: [reason: string, exists: SQL][]): Promise<string | null> {
  if (!checks.length) return null;
  const [row] = await db
    .select(Object.fromEntries(checks.map(([, condition], i) => [`c${i}`, sql<boolean>`${condition}`])) as Record<string, SQL<boolean>>)
    .from(sql`(SELECT 1) AS one`);
  const hit = checks.findIndex((_, i) => Boolean((row as Record<string, unknown>)[`c${i}`]));
  return hit === -1 ? null : checks[hit]![0];
}

/** `EXISTS (SELECT 1 FROM table WHERE tenant_id = t AND column = id)`. */
export function referencedBy(table: PgTable, tenantColumn: PgColumn, column: PgColumn, tenantId: number, id: number): SQL {
  return sql`EXISTS (SELECT 1 FROM ${table} WHERE ${tenantColumn} = ${tenantId} AND ${column} = ${id})`;
}
