import { and, inArray, type SQL, sql } from "drizzle-orm";
import type { PgColumn, PgSelect, PgTable, SelectedFields } from "drizzle-orm/pg-core";
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

/** OFFSET of a page (pages count from 1). */
export const pageOffset = (query: { page: number; perPage: number }): number => (query.page - 1) * query.perPage;

/** What a page query selects besides its rows' columns (pageOfQuery). */
export interface PageColumns {
  /** How many rows all pages hold. */
  pageTotal: SQL<number>;
  /** The listed row's id: null on the one row an empty page answers with. */
  pageRow: SQL<number | null>;
}

/** The count's subquery in a page query (pageOfQuery); the name its total column is read by. */
const PAGE_TOTAL = "page_total";

/**
 * A page of a list and its total in ONE statement, past the end too (issue 46: one round trip per
 * read; a count sent after an empty page waited for its answer, a second round trip). `list` says
 * which rows are listed — the table, the joins its WHERE or ORDER BY reads, WHERE, ORDER BY (with a
 * tiebreak on `id`, unique among them) — and `select` what each row shows: the table and the joins
 * its columns read, selecting `...page`. The statement is
 *
 *   SELECT <select's columns>, page_total.total, <id>
 *   FROM <select's tables> RIGHT JOIN (SELECT count(*) AS total FROM <list> WHERE …) page_total
 *     ON <WHERE> AND <id> IN (SELECT <id> FROM <list> WHERE … ORDER BY … LIMIT … OFFSET …)
 *   ORDER BY …
 *
 * The count is one row, kept by the RIGHT JOIN: joined to each row of the page, or alone, with
 * nulls, when the page is empty (past the end, or no rows at all) — the one answer with a null id.
 * The page's rows are picked by id under the same WHERE and ORDER BY as the count's, then ordered
 * at the top: no reliance on a subquery's order. WHERE and ORDER BY may read only `list`'s tables
 * (in the subqueries a name of `select`'s alone would be the outer row's), and `select`'s tables
 * must hold them too (WHERE is the RIGHT JOIN's condition). Against `count(*) over ()` on the page
 * (which sorted every matching row): the count and the page's top-N read the rows once each; a
 * first page of 25 of 4,800 contacts took 1.5 ms instead of 3.8 (EXPLAIN ANALYZE, PostgreSQL 15).
 */
export async function pageOfQuery<Q extends PgSelect>(
  db: AnyDb,
  list: {
    table: PgTable;
    id: PgColumn;
    joins?: (query: PgSelect) => PgSelect;
    where: SQL | undefined;
    order: SQL[];
    query: { page: number; perPage: number };
  },
  select: (page: PageColumns) => Q,
): Promise<Page<Omit<Awaited<Q>[number], keyof PageColumns>>> {
  const from = (fields: SelectedFields) => {
    const query = db
      .select(fields)
      .from(list.table as PgTable)
      .$dynamic();
    return (list.joins ? list.joins(query) : query).where(list.where);
  };
  const counted = from({ total: sql<number>`count(*)`.as("total") }).as(PAGE_TOTAL);
  const ids = from({ id: list.id })
    .orderBy(...list.order)
    .limit(list.query.perPage)
    .offset(pageOffset(list.query));
  const page: PageColumns = {
    // Qualified: a listed table may have a `total` column of its own.
    pageTotal: sql<number>`${sql.identifier(PAGE_TOTAL)}.${sql.identifier("total")}`.mapWith(Number),
    pageRow: sql<number | null>`${list.id}`,
  };
  const rows = (await (select(page) as PgSelect).rightJoin(counted, and(list.where, inArray(list.id, ids))).orderBy(...list.order)) as (Awaited<Q>[number] &
    Record<keyof PageColumns, unknown>)[];
  const total = Number(rows[0]?.pageTotal ?? 0);
  return { rows: rows.filter((row) => row.pageRow !== null).map(({ pageTotal: _total, pageRow: _id, ...row }) => row), total };
}

/**
 * A page of a table's rows and their total, in one statement (pageOfQuery), for the lists that
 * read one table: `where` filters, `order` sorts (with a tiebreak on id), `query` picks the page.
 * The list's `filter[updated_since]` is applied here to the table's updated_at, once for all lists.
 */
export async function pageOf<T extends PgTable & { updatedAt: PgColumn; id: PgColumn }>(
  db: AnyDb,
  table: T,
  listWhere: SQL | undefined,
  order: SQL | SQL[],
  query: { page: number; perPage: number; updatedSince?: Date | undefined },
): Promise<Page<T["$inferSelect"]>> {
  return pageOfRows(db, table, table.updatedAt, listWhere, order, query);
}

/** pageOf for a table whose rows never change (an event log): `changedAt` is when a row last changed, its creation. */
export async function pageOfRows<T extends PgTable & { id: PgColumn }>(
  db: AnyDb,
  table: T,
  changedAt: PgColumn,
  listWhere: SQL | undefined,
  order: SQL | SQL[],
  query: { page: number; perPage: number; updatedSince?: Date | undefined },
): Promise<Page<T["$inferSelect"]>> {
  const since = updatedSince(changedAt, { updatedSince: query.updatedSince });
  const page = await pageOfQuery(
    db,
    { table, id: table.id, where: since ? and(listWhere, since) : listWhere, order: Array.isArray(order) ? order : [order], query },
    (columns) =>
      db
        .select({ row: table as PgTable, ...columns })
        .from(table as PgTable)
        .$dynamic(),
  );
  return { rows: page.rows.map((r) => r.row as T["$inferSelect"]), total: page.total };
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
