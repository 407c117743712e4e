import { sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { oneRow, rowsOf } from "../../db/rows";
import { sha256Hex } from "../../lib/crypto";
import { dominicanToday } from "../../lib/dates";
import { AppError, fieldError, notFound } from "../../lib/errors";
import { periodOf } from "../reports/service";
import { type RenderedReport, renderFormats, type SnapshotFormat, type SnapshotReport, storedSnapshot } from "../reports/snapshots";
import type { FiscalPeriod, FiscalPeriodsQuery } from "./schemas";

/**
 * The monthly close (issue 47; docs/reports.md, "Closing the month"). A month whose returns were
 * filed is closed: the database refuses from then on every write dated in it
 * (drizzle/0058_period_lock.sql, 409 period_closed), and its reports are kept as they were at the
 * close, TXT and JSON byte for byte with their SHA-256, and served from there. The owner alone
 * re-opens it, with a reason; the next close keeps a new version beside the old one.
 */

/** The months listed by default: a year, the current one included. */
const DEFAULT_MONTHS = 12;
/** The longest list: three years. */
const MAX_MONTHS = 36;

const DEADLINE_NOTE =
  "DGII's due dates (IR-17 the 10th, 606/607/608 the 15th under Norma General 07-2018, IT-1 the 20th of the next month). When one falls on a weekend or a holiday DGII moves it to the next business day (its yearly calendar): the accountant confirms the date.";

const monthIndex = (period: string) => Number(period.slice(0, 4)) * 12 + Number(period.slice(4)) - 1;
const periodOfIndex = (index: number) => `${Math.floor(index / 12)}${String((index % 12) + 1).padStart(2, "0")}`;
const currentPeriod = (today = dominicanToday()) => today.slice(0, 7).replace("-", "");

function deadlines(period: string): FiscalPeriod["deadlines"] {
  const next = periodOfIndex(monthIndex(period) + 1);
  const day = (d: string) => `${next.slice(0, 4)}-${next.slice(4)}-${d}`;
  return { ir17: day("10"), formats_606_607_608: day("15"), it1: day("20"), note: DEADLINE_NOTE };
}

/** The close's advisory lock: exclusive here, shared by every write the period lock checks (0058). */
const lockPeriod = (db: AnyDb, tenantId: number, period: string) =>
  db.execute(sql`SELECT pg_advisory_xact_lock(${tenantId}::integer, hashtext(${`fiscal-period:${period}`}))`);

interface CloseRow {
  id: number;
  period: string;
  version: number;
  closed_at: string;
  closed_by_id: number;
  closed_by_name: string;
  reopened_at: string | null;
  reopened_by_id: number | null;
  reopened_by_name: string | null;
  reopen_reason: string | null;
  snapshots: { report: string; format: SnapshotFormat; sha256: string; bytes: number }[];
}

async function closesOf(db: AnyDb, tenantId: number, from: string, to: string): Promise<CloseRow[]> {
  return rowsOf<CloseRow>(
    await db.execute(sql`
      SELECT c.id, c.period, c.version, to_json(c.closed_at)#>>'{}' AS closed_at, c.closed_by AS closed_by_id, cu.name AS closed_by_name,
        to_json(c.reopened_at)#>>'{}' AS reopened_at, c.reopened_by AS reopened_by_id, ru.name AS reopened_by_name, c.reopen_reason,
        coalesce((SELECT json_agg(json_build_object('report', s.report, 'format', s.format, 'sha256', s.sha256, 'bytes', octet_length(s.body))
          ORDER BY s.id) FROM fiscal_period_snapshots s WHERE s.close_id = c.id AND s.tenant_id = ${tenantId}), '[]') AS snapshots
      FROM fiscal_period_closes c
      JOIN users cu ON cu.id = c.closed_by
      LEFT JOIN users ru ON ru.id = c.reopened_by
      WHERE c.tenant_id = ${tenantId} AND c.period BETWEEN ${from} AND ${to}
      ORDER BY c.period DESC, c.version DESC`),
  );
}

function periodView(period: string, closes: CloseRow[]): FiscalPeriod {
  const standing = closes.find((close) => close.reopened_at === null);
  return {
    period,
    status: standing ? "closed" : "open",
    closed_at: standing?.closed_at ?? null,
    closed_by: standing ? { id: standing.closed_by_id, name: standing.closed_by_name } : null,
    deadlines: deadlines(period),
    closes: closes.map((close) => ({
      version: close.version,
      closed_at: close.closed_at,
      closed_by: { id: close.closed_by_id, name: close.closed_by_name },
      reopened_at: close.reopened_at,
      reopened_by: close.reopened_by_id === null ? null : { id: close.reopened_by_id, name: close.reopened_by_name ?? "" },
      reopen_reason: close.reopen_reason,
      snapshots: close.snapshots,
    })),
  };
}

/** GET /fiscal-periods: each month of the range, newest first, with its state, closes and deadlines. */
export async function listPeriods(db: AnyDb, tenantId: number, query: FiscalPeriodsQuery): Promise<FiscalPeriod[]> {
  const to = query.to ?? currentPeriod();
  const from = query.from ?? periodOfIndex(monthIndex(to) - (DEFAULT_MONTHS - 1));
  if (from > to) throw fieldError("from", "Must be on or before to.");
  if (monthIndex(to) - monthIndex(from) >= MAX_MONTHS) throw fieldError("from", `At most ${MAX_MONTHS} months are listed at a time.`);
  const closes = await closesOf(db, tenantId, from, to);
  const periods: FiscalPeriod[] = [];
  for (let index = monthIndex(to); index >= monthIndex(from); index--) {
    const period = periodOfIndex(index);
    periods.push(
      periodView(
        period,
        closes.filter((close) => close.period === period),
      ),
    );
  }
  return periods;
}

export async function getPeriod(db: AnyDb, tenantId: number, period: string): Promise<FiscalPeriod> {
  return periodView(period, await closesOf(db, tenantId, period, period));
}

/**
 * Closes a month that has ended. The exclusive lock waits for the writes into the month under way
 * and holds back the next ones until the close commits, so what is kept is exactly what the month
 * holds once it is locked. Refused (409 period_closed) when it is closed already.
 */
export async function closePeriod(db: AnyDb, tenantId: number, userId: number, periodText: string): Promise<FiscalPeriod> {
  const period = periodOf(periodText).text;
  if (period >= currentPeriod()) throw fieldError("period", "A month is closed once it has ended (Dominican time): its returns are filed the next month.");
  await lockPeriod(db, tenantId, period);
  const [last] = rowsOf<{ version: number; standing: boolean }>(
    await db.execute(sql`SELECT version, reopened_at IS NULL AS standing FROM fiscal_period_closes
      WHERE tenant_id = ${tenantId} AND period = ${period} ORDER BY version DESC LIMIT 1`),
  );
  if (last?.standing) throw new AppError("period_closed", `The fiscal period ${period} is closed already.`, { period: [period] });
  // An e-CF of the month DGII has not answered yet may still be rejected, and its invoice then
  // cancelled (a change the lock would refuse): the month closes once DGII has answered them all.
  const [waiting] = rowsOf<{ count: number }>(
    await db.execute(sql`SELECT count(*)::int AS count FROM ecf_documents e WHERE e.tenant_id = ${tenantId}
      AND e.issue_date BETWEEN ${`${period.slice(0, 4)}-${period.slice(4)}-01`}::date AND (${`${period.slice(0, 4)}-${period.slice(4)}-01`}::date + interval '1 month - 1 day')::date
      AND e.status IN ('pending', 'in_process', 'failed')`),
  );
  if (waiting && waiting.count > 0) {
    throw new AppError(
      "conflict",
      `${waiting.count} e-CF of ${period} still await DGII's answer (pending, in process or failed: GET /api/v1/ecf/submissions): close the month once DGII has answered them.`,
    );
  }
  const close = oneRow(
    rowsOf<{ id: number }>(
      await db.execute(sql`INSERT INTO fiscal_period_closes (tenant_id, period, version, closed_by)
      VALUES (${tenantId}, ${period}, ${(last?.version ?? 0) + 1}, ${userId}) RETURNING id`),
    ),
  );
  await keepSnapshots(db, tenantId, close.id, await renderFormats(db, tenantId, period));
  return getPeriod(db, tenantId, period);
}

async function keepSnapshots(db: AnyDb, tenantId: number, closeId: number, reports: RenderedReport[]): Promise<void> {
  for (const report of reports) {
    await db.execute(sql`INSERT INTO fiscal_period_snapshots (tenant_id, close_id, report, format, content_type, body, sha256)
      VALUES (${tenantId}, ${closeId}, ${report.report}, ${report.format}, ${report.contentType}, ${report.body}, ${await sha256Hex(report.body)})`);
  }
}

/** Re-opens a closed month: the owner's alone (403 company_forbidden), with the reason recorded. */
export async function reopenPeriod(db: AnyDb, tenantId: number, userId: number, periodText: string, reason: string): Promise<FiscalPeriod> {
  const period = periodOf(periodText).text;
  const [owner] = rowsOf<{ user_id: number }>(await db.execute(sql`SELECT user_id FROM company_members WHERE tenant_id = ${tenantId} AND is_owner FOR SHARE`));
  if (owner?.user_id !== userId) throw new AppError("company_forbidden", "Only the company's owner re-opens a closed month.");
  const reopened = rowsOf<{ id: number }>(
    await db.execute(sql`UPDATE fiscal_period_closes SET reopened_at = now(), reopened_by = ${userId}, reopen_reason = ${reason}
      WHERE tenant_id = ${tenantId} AND period = ${period} AND reopened_at IS NULL RETURNING id`),
  );
  if (!reopened.length) throw new AppError("conflict", `The period ${period} is not closed.`);
  return getPeriod(db, tenantId, period);
}

/** A report as a close kept it (the latest close's, or the given version's); 404 when there is none. */
export async function periodSnapshot(db: AnyDb, tenantId: number, period: string, report: SnapshotReport, format: SnapshotFormat, version?: number) {
  let wanted = version;
  if (wanted === undefined) {
    const [last] = rowsOf<{ version: number }>(
      await db.execute(sql`SELECT max(version) AS version FROM fiscal_period_closes WHERE tenant_id = ${tenantId} AND period = ${period}`),
    );
    if (last?.version == null) throw notFound("Snapshot");
    wanted = Number(last.version);
  }
  const kept = await storedSnapshot(db, tenantId, period, report, format, wanted);
  if (!kept) throw notFound("Snapshot");
  return kept;
}
