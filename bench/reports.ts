/**
 * The DGII reports bench (issue 20, part of `npm run bench`; `--only reports` runs it alone): a
 * month of `--report-rows` (100,000) credit-fiscal invoices in one tenant, then its Formato 607
 * downloaded through the Worker as a client would, the body read as it streams. Measured: the time
 * to the last byte, rows per second, the database round trips per page of rows (the relay's count,
 * over the pages), and the Worker's memory (workerd's resident set, sampled every 100 ms during the
 * download: flat means no array of all rows). Budget: 100k rows under 10 s on this machine.
 */

import { execFile } from "node:child_process";
import http from "node:http";
import { promisify } from "node:util";
import pg from "pg";
import type { WsRelay } from "../scripts/lib/ws-relay";
import { PAGE_ROWS } from "../src/modules/reports/service";

const exec = promisify(execFile);

export interface ReportBenchResult {
  format: string;
  /** Which download of the same report in the same workerd (1 = the first). */
  run: number;
  period: string;
  rows: number;
  bytes: number;
  seconds: number;
  rowsPerSecond: number;
  pages: number;
  roundTrips: number;
  roundTripsPerPage: number;
  /** workerd's resident set (MiB): before the request, the highest while it streamed, and the first and last quarter's highs. */
  memoryMiB: { before: number; peak: number; firstQuarterPeak: number; lastQuarterPeak: number };
  status: number;
}

export const REPORT_BUDGET_SECONDS = 10;

/** The month before `today` (YYYY-MM-DD) as YYYYMM and its first day. */
export function previousMonth(today: string): { period: string; first: string } {
  const [year, month] = today.split("-").map(Number) as [number, number];
  const y = month === 1 ? year - 1 : year;
  const m = month === 1 ? 12 : month - 1;
  const mm = String(m).padStart(2, "0");
  return { period: `${y}${mm}`, first: `${y}-${mm}-01` };
}

/**
 * `rows` B01 invoices spread over the month starting `first`, to the seeded customers (RNCs), each
 * 1,000.00 + ITBIS 18 % with its tax breakdown and DOP amounts, two in three paid in cash or by
 * card on their day; numbered from the tenant's B01 sequence.
 */
export async function seedSalesMonth(
  ownerUrl: string,
  seeded: { tenantId: number; workspaceIds: number[]; contactIds: [number, number]; userId: number },
  rows: number,
  first: string,
): Promise<number> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: ownerUrl });
  await client.connect();
  try {
    const T = seeded.tenantId;
    await client.query("BEGIN");
    // The tenant's demo B01 range, widened to the whole prefix (as the bench does for its B02).
    const subtype = await client.query(
      `UPDATE document_subtypes SET next_number = $2::int + 1, end_number = 99999999 WHERE tenant_id = $1 AND prefix = 'B01' RETURNING id`,
      [T, rows],
    );
    const breakdown = `jsonb_build_object('itbis', jsonb_build_array(jsonb_build_object('rate', '18.00', 'base', '1000.00', 'amount', '180.00')),
      'exempt_base', '0.00', 'non_billable', '0.00', 'additional', '[]'::jsonb, 'isc_specific', '0.00', 'isc_ad_valorem', '0.00',
      'propina', '0.00', 'other_additional', '0.00')`;
    const days = `(date_trunc('month', $6::date) + interval '1 month' - interval '1 day')::date - $6::date + 1`;
    await client.query(
      `INSERT INTO invoices (tenant_id, workspace_id, contact_id, document_subtype_id, document_number, issue_date, due_date, status,
         subtotal_amount, discount_amount, tax_amount, total_amount, amount_paid, exchange_rate, subtotal_amount_dop, discount_amount_dop,
         tax_amount_dop, total_amount_dop, tax_breakdown, currency_id, created_by)
       SELECT $1, $2, $3::int + (n % $4::int), $5, 'B01' || lpad(n::text, 8, '0'), $6::date + (n % (${days})), $6::date + 30,
         CASE WHEN n % 3 = 0 THEN 'pending_payment' ELSE 'paid' END,
         1000, 0, 180, 1180, CASE WHEN n % 3 = 0 THEN 0 ELSE 1180 END, 1, 1000, 0, 180, 1180, ${breakdown},
         (SELECT id FROM currencies WHERE tenant_id = $1 AND is_default), $7
       FROM generate_series(1, $8::int) n`,
      [T, seeded.workspaceIds[0], seeded.contactIds[0], seeded.contactIds[1] - seeded.contactIds[0] + 1, subtype.rows[0].id, first, seeded.userId, rows],
    );
    await client.query(
      `INSERT INTO invoice_payments (tenant_id, invoice_id, amount, payment_date, payment_method)
       SELECT $1, i.id, 1180, i.issue_date, CASE WHEN i.id % 2 = 0 THEN 'cash' ELSE 'credit_card' END
       FROM invoices i WHERE i.tenant_id = $1 AND i.document_subtype_id = $2 AND i.status = 'paid'`,
      [T, subtype.rows[0].id],
    );
    await client.query("COMMIT");
    await client.query("ANALYZE invoices");
    await client.query("ANALYZE invoice_payments");
  } finally {
    await client.end();
  }
  return (performance.now() - started) / 1000;
}

/** workerd's resident set in MiB: the processes named workerd in the Worker host's process group. */
async function workerdRssMiB(processGroup: number): Promise<number> {
  const { stdout } = await exec("ps", ["-o", "rss=,comm=", "-g", String(processGroup)]).catch(() => ({ stdout: "" }));
  const kib = stdout
    .split("\n")
    .filter((line) => /workerd/.test(line))
    .reduce((sum, line) => sum + Number(line.trim().split(/\s+/)[0] ?? 0), 0);
  return Math.round((kib / 1024) * 10) / 10;
}

/**
 * GET the report at `target` (the Worker's own workerd socket, as the loads: wrangler dev's proxy
 * in front of it is a dev-only hop), reading the body as it streams; counts lines and bytes.
 */
export async function measureReport(
  target: string,
  host: string,
  token: string,
  format: string,
  period: string,
  relay: WsRelay,
  processGroup: number,
  run = 1,
): Promise<ReportBenchResult> {
  const before = await workerdRssMiB(processGroup);
  const samples: { at: number; mib: number }[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      samples.push({ at: performance.now(), mib: await workerdRssMiB(processGroup) });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  relay.resetStats();
  const started = performance.now();
  const { status, lines, bytes } = await new Promise<{ status: number; lines: number; bytes: number }>((resolve, reject) => {
    const req = http.request(
      {
        host: new URL(target).hostname,
        port: new URL(target).port,
        path: `/api/v1/reports/${format}?period=${period}`,
        headers: { host, authorization: `Bearer ${token}` },
      },
      (res) => {
        let count = 0;
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          for (const byte of chunk) if (byte === 10) count++;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, lines: count, bytes: size }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
  const seconds = (performance.now() - started) / 1000;
  sampling = false;
  await sampler;
  const ended = started + seconds * 1000;
  const quarter = (from: number, to: number) =>
    Math.max(0, ...samples.filter((s) => s.at >= started + (ended - started) * from && s.at <= started + (ended - started) * to).map((s) => s.mib));
  const rows = Math.max(0, lines - 1); // the header line
  const pages = Math.max(1, Math.ceil(rows / PAGE_ROWS));
  const { roundTrips } = relay.stats();
  return {
    format,
    run,
    period,
    rows,
    bytes,
    seconds: Math.round(seconds * 100) / 100,
    rowsPerSecond: Math.round(rows / seconds),
    pages,
    roundTrips,
    roundTripsPerPage: Math.round((roundTrips / pages) * 100) / 100,
    memoryMiB: { before, peak: Math.max(before, ...samples.map((s) => s.mib)), firstQuarterPeak: quarter(0, 0.25), lastQuarterPeak: quarter(0.75, 1) },
    status,
  };
}
