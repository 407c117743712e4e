import { type SQL, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { rowsOf } from "../../db/rows";
import { dominicanToday } from "../../lib/dates";
import { AppError, fieldError } from "../../lib/errors";
import type { ReportQuery } from "./schemas";

/**
 * DGII's monthly reports (Norma General 07-2018, "Formatos de Envío de Datos"; docs/reports.md):
 * one row source per format (purchases606.ts, sales607.ts, annulments608.ts), one way to open and page them
 * (here) and one TXT/JSON writer (writer.ts). The 607 and the sales summary add their sources.
 */

/** The month reported: YYYYMM and its first and last days (YYYY-MM-DD). */
export interface Period {
  text: string;
  from: string;
  to: string;
}

export interface ReportContext {
  /** The company's RNC (or cédula), as the header and some rows (gastos menores, exterior) carry it. */
  rnc: string;
  period: Period;
}

/**
 * A report's row source: one statement yielding its rows in the file's order, with `total` (the
 * number of rows, `count(*) OVER ()`) on each, and the mapping of a database row to the format's row.
 */
export interface ReportSource<Row extends Record<string, string>, Query extends ReportQuery = ReportQuery> {
  format: string;
  columns: readonly (keyof Row & string)[];
  /**
   * The rows' statement; `query` carries a format's own options (the 607's include_ecf). Every
   * table it reads is filtered by `tenantId` as well as by row-level security (docs/security.md;
   * test/node/report-tenant-filter.test.ts checks the sources).
   */
  statement(tenantId: number, period: Period, workspaceId: number | undefined, query: Query): SQL;
  row(raw: Record<string, unknown>, context: ReportContext): Row;
  /**
   * Totals that are not rows of the file (the 607's consumer invoices under RD$250,000): one row
   * read by its own statement before the cursor, given in the JSON answer under `name`.
   */
  summary?: {
    name: string;
    statement(tenantId: number, period: Period, workspaceId: number | undefined, query: Query): SQL;
    of(raw: Record<string, unknown>): Record<string, string>;
  };
}

export interface OpenedReport<Row> {
  /** The TXT's header line; the JSON answer carries it too, with the source's summary if it has one. */
  header: { format: string; rnc: string; period: string; count: number; [summary: string]: unknown };
  /** The first page, read before the response starts (its errors are the request's). */
  first: Row[];
  /** The next page, empty once every row was read. */
  next(): Promise<Row[]>;
  /** Closes the cursor, so that another report may be opened in the same transaction (a period's close). */
  close(): Promise<void>;
}

/** Rows per FETCH: one round trip per page, a page at a time in the Worker's memory. */
export const PAGE_ROWS = 500;

/** The formats of Norma General 07-2018 start with the period May 2018 ("a partir del período mayo 2018"). */
const FIRST_PERIOD = "201805";

export function periodOf(text: string, today = dominicanToday()): Period {
  if (text < FIRST_PERIOD) throw fieldError("period", `DGII's formats of Norma General 07-2018 start with the period ${FIRST_PERIOD}.`);
  if (text > today.slice(0, 7).replace("-", "")) throw fieldError("period", "Must be a past month or the current one (Dominican time).");
  const year = Number(text.slice(0, 4));
  const month = Number(text.slice(4));
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return { text, from: `${text.slice(0, 4)}-${text.slice(4)}-01`, to: `${text.slice(0, 4)}-${text.slice(4)}-${String(lastDay).padStart(2, "0")}` };
}

/**
 * Opens a report in the request transaction: checks the period, the company's RNC and the
 * workspace, declares a cursor over the source's statement and reads its first page.
 *
 * A cursor rather than keyset pages: the header's count comes first in the file, and under READ
 * COMMITTED every statement has its own snapshot, so a purchase entered or voided between a count
 * and a later page would make the header disagree with the rows. A cursor's query runs on one
 * snapshot, taken when it is declared; each FETCH is still one statement per page.
 */
export async function openReport<Row extends Record<string, string>, Query extends ReportQuery>(
  db: AnyDb,
  tenantId: number,
  source: ReportSource<Row, Query>,
  query: Query,
): Promise<OpenedReport<Row>> {
  const period = periodOf(query.period);
  const workspaceId = query.workspace_id;
  const [checks] = rowsOf<{ rnc: string | null; workspace: boolean }>(
    await db.execute(sql`SELECT (SELECT cp.rnc FROM company_profiles cp WHERE cp.tenant_id = ${tenantId}) AS rnc,
      ${workspaceId === undefined ? sql`true` : sql`EXISTS (SELECT 1 FROM workspaces w WHERE w.id = ${workspaceId} AND w.tenant_id = ${tenantId})`} AS workspace`),
  );
  if (!checks?.workspace) throw fieldError("workspace_id", "Not a workspace of this company.");
  const rnc = checks.rnc;
  if (!rnc) {
    throw new AppError("fiscal_profile_incomplete", "The company's RNC is missing (PATCH /api/v1/company): DGII's reports carry it.", {
      rnc: ["Required to file DGII's reports."],
    });
  }
  const summary = source.summary;
  const summaryRow = summary ? rowsOf<Record<string, unknown>>(await db.execute(summary.statement(tenantId, period, workspaceId, query)))[0] : undefined;
  await db.execute(sql`DECLARE report_rows NO SCROLL CURSOR FOR ${source.statement(tenantId, period, workspaceId, query)}`);
  const context: ReportContext = { rnc, period };
  let done = false;
  const fetchPage = async () => {
    if (done) return { rows: [] as Row[], total: 0 };
    const raw = rowsOf<Record<string, unknown>>(await db.execute(sql.raw(`FETCH FORWARD ${PAGE_ROWS} FROM report_rows`)));
    if (raw.length < PAGE_ROWS) done = true;
    return { rows: raw.map((r) => source.row(r, context)), total: raw.length ? Number(raw[0]!.total) : 0 };
  };
  const first = await fetchPage();
  return {
    header: {
      format: source.format,
      rnc,
      period: period.text,
      count: first.total,
      ...(summary && summaryRow ? { [summary.name]: summary.of(summaryRow) } : {}),
    },
    first: first.rows,
    next: async () => (await fetchPage()).rows,
    close: async () => {
      await db.execute(sql.raw("CLOSE report_rows"));
    },
  };
}

/**
 * A report's header and every row, read whole in the request transaction (the cursor closed after):
 * for what is computed from a format's rows (the IT-1, the IR-17) and for the snapshots of a close.
 */
export async function readWhole<Row extends Record<string, string>, Query extends ReportQuery>(
  db: AnyDb,
  tenantId: number,
  source: ReportSource<Row, Query>,
  query: Query,
): Promise<{ header: OpenedReport<Row>["header"]; rows: Row[] }> {
  const opened = await openReport(db, tenantId, source, query);
  const rows = [...opened.first];
  for (let page = await opened.next(); page.length; page = await opened.next()) rows.push(...page);
  await opened.close();
  return { header: opened.header, rows };
}
