import { type SQL, sql } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
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
