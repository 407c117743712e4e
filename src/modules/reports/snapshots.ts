import { sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { rowsOf } from "../../db/rows";
import { annulments608 } from "./annulments608";
import { ir17Report } from "./ir17";
import { it1Report } from "./it1";
import { purchases606 } from "./purchases606";
import { sales607 } from "./sales607";
import { IR17_READING_DEFAULTS, IT1_READING_DEFAULTS, type Report607Query, type ReportQuery } from "./schemas";
import { type ReportSource, readWhole } from "./service";
import { jsonChunks, type ReportChunks, txtChunks } from "./writer";

/**
 * A closed period's reports as filed (issue 47; docs/reports.md, "Closing the month"): the close
 * renders each one whole, TXT and JSON, with the very writers the report routes stream with, and
 * keeps the bytes (fiscal_period_snapshots); while the period stays closed its reports are served
 * from them, so a change made after the close cannot reach what was filed.
 */

export type SnapshotFormat = "txt" | "json";

/** What a close keeps: `607-ecf` is the 607 with include_ecf=true (the e-CF listed too). */
export const SNAPSHOT_REPORTS = ["606", "607", "607-ecf", "608", "it1", "ir17"] as const;
export type SnapshotReport = (typeof SNAPSHOT_REPORTS)[number];

export interface RenderedReport {
  report: SnapshotReport;
  format: SnapshotFormat;
  contentType: string;
  body: string;
}

async function drain(chunks: ReportChunks): Promise<string> {
  let body = chunks.first;
  for (let chunk = await chunks.next(); chunk !== null; chunk = await chunks.next()) body += chunk;
  return body;
}

/** One report of the period, whole, in both formats: the bytes its route answers, page after page. */
async function render<Row extends Record<string, string>, Query extends ReportQuery>(
  db: AnyDb,
  tenantId: number,
  report: SnapshotReport,
  source: ReportSource<Row, Query>,
  query: Query,
): Promise<RenderedReport[]> {
  const { header, rows } = await readWhole(db, tenantId, source, query);
  const whole = { header, first: rows, next: async () => [] as Row[], close: async () => undefined };
  const txt = txtChunks(whole, source.columns);
  const json = jsonChunks(whole);
  return [
    { report, format: "txt", contentType: txt.contentType, body: await drain(txt) },
    { report, format: "json", contentType: json.contentType, body: await drain(json) },
  ];
}

const json = (report: SnapshotReport, value: unknown): RenderedReport => ({
  report,
  format: "json",
  contentType: "application/json",
  body: JSON.stringify(value),
});

/** The 606, the 607 (without and with e-CF), the 608, the IT-1 and the IR-17 of a period, for the whole company. */
export async function renderFormats(db: AnyDb, tenantId: number, period: string): Promise<RenderedReport[]> {
  const query: ReportQuery = { period, format: "txt", workspace_id: undefined };
  const query607 = (include_ecf: boolean): Report607Query => ({ ...query, include_ecf });
  return [
    ...(await render(db, tenantId, "606", purchases606, query)),
    ...(await render(db, tenantId, "607", sales607, query607(false))),
    ...(await render(db, tenantId, "607-ecf", sales607, query607(true))),
    ...(await render(db, tenantId, "608", annulments608, query)),
    // The IT-1 and the IR-17 as computed without the figures the books cannot know: what the
    // accountant keyed in is theirs to keep; these are the books' part, as they stood at the close.
    json("it1", await it1Report(db, tenantId, { period, deductible_as: "goods", ...IT1_READING_DEFAULTS })),
    json("ir17", await ir17Report(db, tenantId, { period, ...IR17_READING_DEFAULTS })),
  ];
}

export interface StoredSnapshot {
  body: string;
  contentType: string;
  sha256: string;
  version: number;
}

/**
 * The snapshot of a report kept by a close of the period: the standing close's (the period is
 * closed) by default, or the given version's (a re-opened close's, as it was filed). Null when
 * there is none.
 */
export async function storedSnapshot(
  db: AnyDb,
  tenantId: number,
  period: string,
  report: SnapshotReport,
  format: SnapshotFormat,
  version?: number,
): Promise<StoredSnapshot | null> {
  const [row] = rowsOf<{ body: string; content_type: string; sha256: string; version: number }>(
    await db.execute(sql`SELECT s.body, s.content_type, s.sha256, c.version
      FROM fiscal_period_closes c JOIN fiscal_period_snapshots s ON s.close_id = c.id AND s.tenant_id = ${tenantId}
      WHERE c.tenant_id = ${tenantId} AND c.period = ${period} AND s.report = ${report} AND s.format = ${format}
        AND ${version === undefined ? sql`c.reopened_at IS NULL` : sql`c.version = ${version}`}`),
  );
  return row ? { body: row.body, contentType: row.content_type, sha256: row.sha256, version: Number(row.version) } : null;
}
