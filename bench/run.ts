/**
 * npm run bench [-- --rtt-ms 20] [--duration 8] [--warmup 2] [--rt-samples 20] [--invoices 100000] [--no-readme]
 * npm run bench -- --readme-only   (regenerates docs/performance.md's generated block from bench/results/latest.json)
 * npm run bench -- --only invoices_list,health   (those scenarios; results in bench/results/tmp/partial.json; the
 *   Node-side figures — bundle, upload, ecf_signing, hostile_xml, test_set — and reports only when named)
 * npm run bench -- --only scale   (many companies: bench/scale.ts, its own stack; = npm run bench:scale)
 * npm run bench -- --hold   (starts the stack, prints how to call it, waits: for profiling by hand)
 * npm run bench -- --cpu-only [--only …]   (round trips and the Worker's CPU per request only: no loads,
 *   no added RTT, no pgbench, no reports; results in bench/results/tmp/partial.json)
 * npm run bench -- --compare <another checkout> [--only …]   (the Worker's CPU per request of this tree and of
 *   the other, both served at once on the same database, requests alternated: bench/worker-cpu.ts measurePairedCpu)
 * npm run bench -- --profile [--only …]   (the Worker's inspector on: a CPU profile of each scenario
 *   with a CPU budget, summed by package and source file (bench/worker-profile.ts); nothing else measured)
 *
 * The API bench (issue 10). Everything on 127.0.0.1, every loop bounded in count and time:
 * 1. a fresh database `sucursal_bench_<ts>` on DATABASE_URL's server, else 127.0.0.1:5432, else an
 *    embedded PGlite; migrated, then seeded in bulk (bench/seed.ts) — dropped at the end;
 * 2. the Worker's path to Postgres: neon driver → WebSocket relay (scripts/lib/ws-relay.ts, which
 *    counts round trips and adds the --rtt-ms delay) → protocol sniffer (bench/pg-sniffer.ts: round
 *    trips per connection, setup apart, and the statements of each) → Postgres;
 * 3. `wrangler dev` on a free port with a bench env file (bench/results/tmp/bench.env; rate limits
 *    raised to 100,000,000/min: the limiter is not what is measured; in-memory limiter, no Redis);
 * 4. round trips: each scenario sequentially, one request at a time, per-connection counts;
 * 5. throughput: autocannon at 1 and 16 connections, warm-up then a measured window, each load
 *    followed at once by its limit: pgbench (simple protocol, persistent connections, and -C: a new
 *    connection per transaction, as the Worker does) running the captured statements at the same
 *    concurrency;
 * 6. p50 at one connection with the relay delaying each direction by rtt/2;
 * 7. the Worker bundle (wrangler deploy --dry-run --outdir), gzip size, and what a deploy uploads
 *    against Cloudflare's limits (bench/upload-size.ts).
 * Output: a table on stdout, bench/results/latest.json, and the generated block of docs/performance.md
 * (between the bench markers; `--no-readme` leaves it alone — the flag names predate the docs/ split).
 */

import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import zlib from "node:zlib";
import pg from "pg";
import { type FakeDgii, startFakeDgii } from "../scripts/fake-dgii";
import { cliOptions } from "../scripts/lib/args";
import { makeCertificate } from "../scripts/lib/certificates";
import { APP_ROLE, createTestDatabase, type DatabaseTarget, freePort, ROOT } from "../scripts/lib/database";
import { type SqlHttp, startSqlHttp } from "../scripts/lib/sql-http";
import { startWsRelay, type WsRelay } from "../scripts/lib/ws-relay";
import { splitStatements } from "../src/db/inline";
import { normalizeIdentification } from "../src/lib/identification";
import { PAGE_ROWS } from "../src/modules/reports/service";
import { describeEcfSigning, measureEcfSigning } from "./ecf";
import { describeHostileXml, measureHostileXml } from "./hostile-xml";
import { type ConnectionRecord, type Sniffer, type Statement, startSniffer } from "./pg-sniffer";
import { type Pooler, startPooler } from "./pooler";
import { type BenchResults, type Load, type RoundTrips, renderPerformance, type ScenarioResult } from "./report";
import { measureReport, previousMonth, type ReportBenchResult, seedSalesMonth } from "./reports";
import { prng } from "./rnc-generator";
import { type Seeded, seed } from "./seed";
import { describeHostileTestSets, describeTestSet, measureHostileTestSets, measureTestSet } from "./testset";
import { describeUploadSize, measureUploadSize } from "./upload-size";
import { measurePairedCpu, measureWorkerCpu, type PairedCpu, type WorkerCpu } from "./worker-cpu";
import { type ProfileSummary, profileRequests } from "./worker-profile";

const exec = promisify(execFile);
const TMP = path.join(ROOT, "bench/results/tmp");
const RESULTS = path.join(ROOT, "bench/results/latest.json");
/** Where the generated "Performance" block lives (between the bench markers of bench/report.ts). */
const PERFORMANCE_DOC = path.join(ROOT, "docs/performance.md");
/** A run of some scenarios (`--only`) writes here and leaves latest.json and docs/performance.md alone. */
const PARTIAL_RESULTS = path.join(TMP, "partial.json");
const WATCHDOG_MS = 15 * 60_000;
/**
 * wrangler.toml without its queue consumers, beside it (its paths are relative to it), for the
 * E31's CPU: the request alone, as the invocation Cloudflare's CPU limit applies to. With the
 * consumers, the same workerd also runs the e-CF queue's sends and result queries (another
 * invocation, with a limit of its own), which the mean, and even the median, then carry.
 */
const NO_CONSUMERS_CONFIG = path.join(ROOT, ".bench-no-consumers.wrangler.toml");

const options = cliOptions({
  "rtt-ms": { type: "string" },
  duration: { type: "string" },
  warmup: { type: "string" },
  "rt-samples": { type: "string" },
  invoices: { type: "string" },
  "no-readme": { type: "boolean" },
  "readme-only": { type: "boolean" },
  only: { type: "string" },
  "report-rows": { type: "string" },
  "report-runs": { type: "string" },
  hold: { type: "boolean" },
  profile: { type: "boolean" },
  "cpu-only": { type: "boolean" },
  compare: { type: "string" },
});
const RTT_MS = Number(options["rtt-ms"] ?? 20);
const DURATION = Math.min(Number(options.duration ?? 8), 60);
const WARMUP = Math.min(Number(options.warmup ?? 2), 30);
const RT_SAMPLES = Math.min(Number(options["rt-samples"] ?? 20), 200);
const SIZES = { products: 1000, contacts: 10_000, invoices: Number(options.invoices ?? 100_000), rncRecords: 5000 };
/** Invoices of the month the reports bench downloads as a 607 (bench/reports.ts). */
const REPORT_ROWS = Number(options["report-rows"] ?? 100_000);
/**
 * Downloads of the same 607 in a row, in one workerd: resident memory that grows on the first and
 * not on the next is garbage the isolate collects when it needs the room; growth on every run would
 * be memory kept (bench/reports.ts).
 */
const REPORT_RUNS = Number(options["report-runs"] ?? 3);
const CONCURRENCY = [1, 16];
if (![RTT_MS, DURATION, WARMUP, RT_SAMPLES, SIZES.invoices].every((n) => Number.isFinite(n) && n >= 0)) throw new Error("bad option");

const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Stack

interface Stack {
  database: DatabaseTarget & { pgbench: { host: string; port: number; user: string; db: string } | null };
  sniffer: Sniffer;
  relay: WsRelay;
  /** Neon's SQL-over-HTTP endpoint's stand-in (reads' batches, db/http.ts): each POST one round trip. */
  sqlHttp: SqlHttp;
  pooler: Pooler | null;
  wrangler: ChildProcess | null;
  /** `--compare`'s other checkout, the E31's Worker without queue consumers. */
  others: ChildProcess[];
  port: number;
  /** DGII's stand-in: the e-CF the e-CF scenario issues are sent there by the Worker's queue. */
  fakeDgii: FakeDgii;
}
const stack: Partial<Stack> & Pick<Stack, "others"> = { others: [] };

async function openDatabase(): Promise<Stack["database"]> {
  const target = await createTestDatabase("sucursal_bench");
  if (target.kind === "embedded") {
    console.log("No Postgres at DATABASE_URL or 127.0.0.1:5432: embedded PGlite (pgbench skipped).");
    return { ...target, pgbench: null };
  }
  const app = new URL(target.appUrl);
  return {
    ...target,
    pgbench: { host: app.hostname, port: Number(app.port || 5432), user: decodeURIComponent(app.username), db: new URL(target.ownerUrl).pathname.slice(1) },
  };
}

function envFile(values: Record<string, string | undefined>): string {
  return `${Object.entries(values)
    .filter(([, v]) => v !== undefined && v !== "")
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join("\n")}\n`;
}

const toolEnv = () => ({
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_HIDE_BANNER: "true",
  XDG_CONFIG_HOME: path.join(ROOT, ".config"),
});

/** `wrangler dev` (bench/worker-host.ts): its public URL and the Worker's own socket. */
async function startWrangler(
  envPath: string,
  port: number,
  host: string,
  inspectorPort?: number,
  root = ROOT,
  config?: string,
): Promise<{ url: string; direct: string | null; child: ChildProcess }> {
  const tmp = config ? path.join(TMP, "no-consumers") : root === ROOT ? TMP : path.join(TMP, "compare");
  fs.mkdirSync(tmp, { recursive: true });
  const log = fs.openSync(path.join(tmp, "wrangler.log"), "w");
  const child = spawn(
    path.join(ROOT, "node_modules", ".bin", "tsx"),
    [path.join(root, "bench/worker-host.ts"), envPath, String(port), path.join(tmp, "wrangler-state"), host, ...(inspectorPort ? [String(inspectorPort)] : [])],
    { cwd: root, stdio: ["ignore", "pipe", log], env: { ...toolEnv(), ...(config ? { BENCH_WRANGLER_CONFIG: config } : {}) }, detached: true },
  );
  // So that a stop during start-up still ends it.
  if (root === ROOT && !config) stack.wrangler = child;
  else stack.others.push(child);
  let out = "";
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`wrangler dev did not start within 120 s; see ${path.join(TMP, "wrangler.log")}`)), 120_000);
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const first = out.split("\n").find((l) => l.startsWith("{"));
      if (first) {
        clearTimeout(timer);
        resolve(first);
      }
    });
    child.on("exit", () => reject(new Error(`wrangler dev exited; see ${path.join(TMP, "wrangler.log")}`)));
  });
  return { ...(JSON.parse(line) as { url: string; direct: string | null }), child };
}

async function stopAll(): Promise<void> {
  // The whole process group each time, even when its host (tsx) has exited: a workerd with its
  // inspector on (--profile) outlived SIGTERM and its host, and kept spinning a CPU.
  for (const other of stack.others.splice(0)) {
    if (!other.pid) continue;
    try {
      process.kill(-other.pid, "SIGKILL");
    } catch {
      /* gone */
    }
  }
  fs.rmSync(NO_CONSUMERS_CONFIG, { force: true });
  const w = stack.wrangler;
  if (w && w.exitCode === null && w.pid) {
    try {
      process.kill(-w.pid, "SIGTERM");
    } catch {
      /* gone */
    }
    for (let i = 0; i < 40 && w.exitCode === null; i++) await sleep(100);
  }
  if (w?.pid) {
    try {
      process.kill(-w.pid, "SIGKILL");
    } catch {
      /* gone */
    }
  }
  stack.wrangler = null;
  await stack.relay?.close().catch(() => undefined);
  await stack.sqlHttp?.close().catch(() => undefined);
  stack.sqlHttp = undefined;
  await stack.fakeDgii?.close().catch(() => undefined);
  await stack.sniffer?.close().catch(() => undefined);
  await stack.pooler?.stop().catch(() => undefined);
  stack.pooler = undefined;
  await stack.database?.stop().catch(() => undefined);
  stack.relay = undefined;
  stack.sniffer = undefined;
  stack.database = undefined;
}

// ---------------------------------------------------------------------------------------------
// Scenarios

interface Req {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  body?: string;
}

interface Scenario {
  key: string;
  label: string;
  budget: number | null;
  make: () => Req;
  /**
   * Count only the request's own connection: an e-CF is sent after the response by the queue
   * consumer, whose connection (for this or a previous request) would otherwise be counted with it.
   */
  requestConnectionOnly?: boolean;
  /**
   * The Worker's CPU per request (bench/worker-cpu.ts): how many requests to average over (none:
   * not measured) and the budget of issue 46 in ms (after the /health floor), if any.
   */
  cpu?: { requests: number; budgetMs: number | null };
}

/** The e-CF fixture (setUpEcf): an E31 subtype and a buyer with a valid RNC. */
const ecfFixture = { subtypeId: 0, contactId: 0 };

function scenarios(s: Seeded, today: string): Scenario[] {
  const r = prng(42);
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const product = () => int(s.productIds[0], s.productIds[1]);
  const invoice = (lines: number): Req => {
    const start = int(0, 1000 - lines);
    const items = Array.from({ length: lines }, (_, k) => ({
      product_id: s.productIds[0] + ((start + k * 7) % 1000),
      quantity: String(1 + (k % 3)),
      unit_price: "150.00",
      discount: "0",
    }));
    return {
      method: "POST",
      path: "/api/v1/invoices",
      body: JSON.stringify({ contact_id: int(s.contactIds[0], s.contactIds[1]), document_subtype_id: s.b02SubtypeId, issue_date: today, items }),
    };
  };
  const ecf = (lines: number, key: string, label: string, cpuBudgetMs: number | null): Scenario => ({
    key,
    label,
    budget: 3,
    requestConnectionOnly: true,
    // The e-CF queue's send to DGII, after each response, is counted in: it is this request's work.
    cpu: { requests: 100, budgetMs: cpuBudgetMs },
    make: () => {
      const req = invoice(lines);
      const body = { ...JSON.parse(req.body!), contact_id: ecfFixture.contactId, document_subtype_id: ecfFixture.subtypeId };
      return { ...req, body: JSON.stringify(body) };
    },
  });
  return [
    {
      key: "health",
      label: "GET /health (no database: the floor of wrangler dev here)",
      budget: null,
      cpu: { requests: 1000, budgetMs: null },
      make: () => ({ method: "GET", path: "/health" }),
    },
    {
      key: "invoices_list",
      label: "GET /invoices?filter[status]=pending_payment&sort=-issue_date",
      budget: 1,
      cpu: { requests: 400, budgetMs: 1 },
      make: () => ({ method: "GET", path: "/api/v1/invoices?filter%5Bstatus%5D=pending_payment&sort=-issue_date" }),
    },
    {
      key: "invoice_get",
      label: "GET /invoices/{id}",
      budget: 1,
      cpu: { requests: 400, budgetMs: 1 },
      make: () => ({ method: "GET", path: `/api/v1/invoices/${s.sampleInvoiceIds[int(0, s.sampleInvoiceIds.length - 1)]}` }),
    },
    { key: "invoice_create", label: "POST /invoices (3 lines, B02)", budget: 3, cpu: { requests: 200, budgetMs: 5 }, make: () => invoice(3) },
    {
      key: "stock_transfer",
      label: "POST /stock-transfers",
      budget: 3,
      cpu: { requests: 200, budgetMs: null },
      make: () => ({
        method: "POST",
        path: "/api/v1/stock-transfers",
        body: JSON.stringify({ product_id: product(), to_workspace_id: s.workspaceIds[int(1, 3)], quantity: "1" }),
      }),
    },
    {
      key: "rnc_search",
      label: "GET /rnc?search=",
      budget: 1,
      cpu: { requests: 400, budgetMs: 1 },
      make: () => ({ method: "GET", path: `/api/v1/rnc?search=${encodeURIComponent(s.rncTerms[int(0, s.rncTerms.length - 1)]!)}` }),
    },
    {
      key: "company_members",
      label: "GET /company/members (a company-level route)",
      budget: 1,
      cpu: { requests: 400, budgetMs: 1 },
      make: () => ({ method: "GET", path: "/api/v1/company/members" }),
    },
    {
      key: "quotation_pdf",
      label: "GET /quotations/{id}/pdf",
      budget: 1,
      make: () => ({ method: "GET", path: `/api/v1/quotations/${s.sampleQuotationIds[int(0, s.sampleQuotationIds.length - 1)]}/pdf` }),
    },
    {
      key: "invoice_payment",
      label: "POST /invoices/{id}/payments",
      budget: 3,
      // A cent on an invoice pending payment: never more than is due, so every request is a 201.
      make: () => ({
        method: "POST",
        path: `/api/v1/invoices/${s.payableInvoiceIds[int(0, s.payableInvoiceIds.length - 1)]}/payments`,
        body: JSON.stringify({ amount: "0.01", payment_date: today, payment_method: "cash" }),
      }),
    },
    {
      key: "invoice_payment_remove",
      label: "DELETE /invoices/{id}/payments/{payment_id}",
      budget: 3,
      // Each request removes another seeded cent (bench/seed.ts), so every request is a 200.
      make: () => {
        const next = s.removablePayments.shift();
        if (!next) throw new Error("bench: out of seeded payments to remove");
        return { method: "DELETE", path: `/api/v1/invoices/${next.invoiceId}/payments/${next.paymentId}` };
      },
    },
    {
      key: "invoice_withholdings",
      label: "PUT /invoices/{id}/withholdings",
      budget: 3,
      // A cent of ISR withheld on an invoice pending payment (replaces what was recorded; the seeded
      // invoices store no tax breakdown, so no ITBIS can be withheld of them).
      make: () => ({
        method: "PUT",
        path: `/api/v1/invoices/${s.payableInvoiceIds[int(0, s.payableInvoiceIds.length - 1)]}/withholdings`,
        body: JSON.stringify({ itbis_withheld: "0", isr_withheld: "0.01", withholding_date: today }),
      }),
    },
    { key: "invoice_create_1_line", label: "POST /invoices (1 line)", budget: 3, make: () => invoice(1) },
    { key: "invoice_create_50_lines", label: "POST /invoices (50 lines)", budget: 3, make: () => invoice(50) },
    // Last: the e-CF they issue are sent to the fake DGII after each response.
    ecf(3, "invoice_create_ecf", "POST /invoices (3 lines, E31: built and signed in the transaction)", null),
    // Issue 46's CPU goal: an E31 of 10 lines signed within the free plan's 10 ms cap.
    ecf(10, "invoice_create_ecf_10_lines", "POST /invoices (10 lines, E31: built and signed in the transaction)", 10),
  ];
}

/** Scenarios driven for throughput (the 1- and 50-line variants are for round trips only). */
const THROUGHPUT = ["health", "invoices_list", "invoice_get", "invoice_create", "stock_transfer", "rnc_search", "quotation_pdf"];

// ---------------------------------------------------------------------------------------------
// Round trips: one request at a time, counted per connection by the sniffer

type RoundTripResult = RoundTrips & { afterResponseRoundTrips: number; statements: Statement[] };

function summarize(text: string): string {
  const t = text.replace(/\s+/g, " ").trim();
  const short = (x: string) => (x.length > 90 ? `${x.slice(0, 90)}…` : x);
  // A read's batch over HTTP (its statements joined by measureRoundTrips): labelled as the WebSocket's opening is.
  if (/^HTTP /.test(t)) return `one HTTP request: ${summarize(`BEGIN;\n${text.slice(5)}`).replace(/^BEGIN\+/, "")}`;
  if (/^BEGIN/.test(t)) {
    // BEGIN, the tenant, the context query, and the handler's first statements sent with them
    // (RequestTransaction.openLater), each a statement of one simple-query message.
    const parts = splitStatements(text).map((x) => x.replace(/\s+/g, " "));
    const context = parts.findIndex((x) => /request_context\(/.test(x));
    const opening = (context < 0 ? parts : parts.slice(0, context)).map((x) => x.split(" ")[0]).join("+");
    const label = context < 0 ? opening : `${opening}+context query (token, user, workspace, permissions)`;
    const rest = context < 0 ? [] : parts.slice(context + 1).map(short);
    return [label, ...rest].join(" + ");
  }
  return short(t);
}

async function measureRoundTrips(port: number, host: string, token: string, scenario: Scenario, samples: number): Promise<RoundTripResult> {
  const sniffer = stack.sniffer!;
  const relay = stack.relay!;
  const perRequest: { conns: ConnectionRecord[]; relay: number; method: string }[] = [];
  const statuses: Record<string, number> = {};
  let method = "GET";
  for (let i = 0; i < samples + 2; i++) {
    const req = scenario.make();
    method = req.method;
    sniffer.reset();
    relay.resetStats();
    stack.sqlHttp!.resetStats();
    const res = await send(port, host, token, req);
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    // The pool is ended after the response (waitUntil): wait for its connection to close.
    for (let k = 0; k < 100 && sniffer.connections().some((c) => !c.closed); k++) await sleep(20);
    const conns = sniffer.connections();
    // The request's own connection is the one that read the request context (auth); the e-CF
    // consumer's (a previous request's send, after its response) never does.
    // A read's batch over HTTP is one round trip, its statements one transaction (db/http.ts).
    for (const batch of stack.sqlHttp!.stats().statements)
      conns.push({
        id: 0,
        setupRoundTrips: 0,
        roundTrips: 1,
        terminated: true,
        closed: true,
        statements: [{ rt: 1, kind: "http", text: `HTTP ${batch.map((b) => b.text).join(";\n")}`, params: [], batch }],
      });
    const own = scenario.requestConnectionOnly ? conns.filter((c) => c.statements.some((st) => /request_context\(/.test(st.text))) : [...conns];
    if (i >= 2) perRequest.push({ conns: own, relay: relay.stats().roundTrips, method });
  }
  const n = perRequest.length;
  const median = (f: (p: (typeof perRequest)[number]) => number) => {
    const v = perRequest.map(f).sort((a, b) => a - b);
    return v[Math.floor(v.length / 2)]!;
  };
  // A read sends its COMMIT after the response (src/http/database.ts): that round trip is on the
  // wire but not on the request's latency path, so it is reported apart.
  const afterResponse = (p: (typeof perRequest)[number]) =>
    p.method === "GET" && p.conns.some((c) => /^\s*COMMIT\s*$/i.test(c.statements.at(-1)?.text ?? "")) ? 1 : 0;
  const rts = (p: (typeof perRequest)[number]) => p.conns.reduce((a, c) => a + c.roundTrips, 0) - afterResponse(p);
  const typical = median(rts);
  const last = [...perRequest].reverse().find((p) => rts(p) === typical)!;
  const worst = perRequest.find((p) => rts(p) > typical);
  const statements = last.conns.flatMap((c) => c.statements);
  const describe = (sts: Statement[]) => {
    const byRt = new Map<number, string[]>();
    for (const st of sts) byRt.set(st.rt, [...(byRt.get(st.rt) ?? []), summarize(st.text)]);
    return [...byRt.entries()].sort((a, b) => a[0] - b[0]).map(([rt, parts]) => `${rt}: ${parts.join(" | ")}`);
  };
  return {
    samples: n,
    statuses,
    connectionsPerRequest: median((p) => p.conns.length),
    setupRoundTrips: median((p) => p.conns.reduce((a, c) => a + c.setupRoundTrips, 0)),
    roundTrips: typical,
    roundTripsMax: Math.max(...perRequest.map(rts)),
    samplesAboveTypical: perRequest.filter((p) => rts(p) > typical).length,
    relayRoundTrips: median((p) => p.relay),
    afterResponseRoundTrips: median(afterResponse),
    breakdown: describe(statements),
    worstBreakdown: worst ? describe(worst.conns.flatMap((c) => c.statements)) : [],
    statements,
  };
}

/**
 * e-CF for the bench tenant, through the API: a certificate made now (as the tests make theirs), e-CF
 * on in testecf (the fake DGII), an E31 sequence, and a buyer with a valid RNC.
 */
async function setUpEcf(port: number, host: string, token: string): Promise<void> {
  const ok = async (req: Req, what: string) => {
    const res = await send(port, host, token, req);
    if (res.status >= 300) throw new Error(`e-CF setup: ${what} answered ${res.status} ${res.body.slice(0, 200)}`);
    return JSON.parse(res.body) as { data: { id: number } };
  };
  const cert = await makeCertificate({ holderId: "131246796", authority: null });
  await ok({ method: "PUT", path: "/api/v1/ecf/certificate", body: JSON.stringify({ p12_base64: cert.p12Base64, password: cert.password }) }, "certificate");
  await ok({ method: "PUT", path: "/api/v1/ecf/settings", body: JSON.stringify({ environment: "testecf", enabled: true }) }, "settings");
  const subtype = await ok(
    {
      method: "POST",
      path: "/api/v1/document-subtypes",
      body: JSON.stringify({
        name: "Crédito fiscal electrónico",
        type: "invoice",
        prefix: "E31",
        start_number: 1,
        end_number: 1_000_000,
        valid_until: "2099-12-31",
      }),
    },
    "E31 subtype",
  );
  let rnc = "";
  for (let digit = 0; digit < 10 && !rnc; digit++) if (normalizeIdentification("rnc", `10100012${digit}`).ok) rnc = `10100012${digit}`;
  const contact = await ok(
    { method: "POST", path: "/api/v1/contacts", body: JSON.stringify({ name: "Comprador e-CF", identification_type: "rnc", identification: rnc }) },
    "buyer",
  );
  ecfFixture.subtypeId = subtype.data.id;
  ecfFixture.contactId = contact.data.id;
}

/** One request with node:http (fetch would not send our Host header). */
function send(port: number, host: string, token: string, req: Req): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host, authorization: `Bearer ${token}` };
    if (req.body) {
      headers["content-type"] = "application/json";
      headers["content-length"] = String(Buffer.byteLength(req.body));
    }
    const request = http.request({ host: "127.0.0.1", port, method: req.method, path: req.path, headers, timeout: 15_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    request.on("timeout", () => request.destroy(new Error("request timed out")));
    request.on("error", reject);
    request.end(req.body);
  });
}

// ---------------------------------------------------------------------------------------------
// Throughput with autocannon

/** One autocannon load in a child process (bench/load.ts), over requests generated beforehand. */
async function drive(url: string, host: string, token: string, scenario: Scenario, connections: number, seconds: number): Promise<Load> {
  const job = path.join(TMP, `load-${scenario.key}-${connections}.json`);
  const requests = Array.from({ length: 5000 }, () => scenario.make());
  fs.writeFileSync(job, JSON.stringify({ url, host, token, connections, seconds, requests }));
  const { stdout } = await exec(path.join(ROOT, "node_modules", ".bin", "tsx"), [path.join(ROOT, "bench/load.ts"), job], {
    cwd: ROOT,
    timeout: (seconds + 60) * 1000,
    maxBuffer: 16 << 20,
  });
  const result = JSON.parse(stdout.trim().split("\n").pop()!) as { total: number; p50: number; p99: number; errors: number };
  return {
    connections,
    requestsPerSecond: round(result.total / seconds, 1),
    p50: result.p50,
    p99: result.p99,
    requests: result.total,
    errors: result.errors,
  };
}

/**
 * The SQL-over-HTTP stand-in alone (scripts/lib/sql-http.ts, through the same PgBouncer), loaded
 * with the batch a read posted, as the Worker posts it (db/http.ts sendBatch's headers): the
 * database's side of a read as the Worker sees it. API ÷ pgbench is then (API ÷ this) × (this ÷
 * pgbench): what the Worker adds, and what the local stand-in for Neon's endpoint does.
 */
async function driveStandIn(
  endpoint: string,
  connectionString: string,
  batch: { text: string; params: unknown[] }[],
  key: string,
  connections: number,
  seconds: number,
): Promise<Load> {
  const job = path.join(TMP, `load-${key}-stand-in-${connections}.json`);
  const body = JSON.stringify({ queries: batch.map((b) => ({ query: b.text, params: b.params })) });
  const headers = {
    "Neon-Connection-String": connectionString,
    "Neon-Raw-Text-Output": "true",
    "Neon-Array-Mode": "true",
    "Neon-Batch-Isolation-Level": "ReadCommitted",
    "content-type": "application/json",
  };
  const url = new URL(endpoint);
  fs.writeFileSync(
    job,
    JSON.stringify({ url: url.origin, host: url.host, token: "", connections, seconds, headers, requests: [{ method: "POST", path: url.pathname, body }] }),
  );
  const { stdout } = await exec(path.join(ROOT, "node_modules", ".bin", "tsx"), [path.join(ROOT, "bench/load.ts"), job], {
    cwd: ROOT,
    timeout: (seconds + 60) * 1000,
    maxBuffer: 16 << 20,
  });
  const result = JSON.parse(stdout.trim().split("\n").pop()!) as { total: number; p50: number; p99: number; errors: number };
  return { connections, requestsPerSecond: round(result.total / seconds, 1), p50: result.p50, p99: result.p99, requests: result.total, errors: result.errors };
}

// ---------------------------------------------------------------------------------------------
// pgbench with the captured statements

function quote(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

async function parameterTypes(ownerUrl: string, text: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: ownerUrl });
  await client.connect();
  try {
    await client.query(`PREPARE bench_probe AS ${text}`);
    const { rows } = await client.query(`SELECT parameter_types::text[] AS types FROM pg_prepared_statements WHERE name = 'bench_probe'`);
    return rows[0].types as string[];
  } finally {
    await client.end();
  }
}

/** A statement with its parameters inlined as typed literals, on one line. */
async function inlined(ownerUrl: string, text: string, params: (string | null)[]): Promise<string> {
  const types = params.length ? await parameterTypes(ownerUrl, text) : [];
  return text
    .replace(/--[^\n]*(\n|$)/g, "\n")
    .replace(/\$(\d+)/g, (_, n: string) => {
      const value = params[Number(n) - 1];
      return value === null || value === undefined ? "NULL" : `${quote(value)}::${types[Number(n) - 1]}`;
    })
    .replace(/\s*\n\s*/g, " ")
    .trim();
}

/** A pgbench script issuing the statements, each round trip one pgbench command. */
async function pgbenchScript(ownerUrl: string, statements: Statement[]): Promise<string> {
  const lines: string[] = [];
  for (const st of statements) {
    if (st.kind === "http") {
      // One HTTP batch, one transaction: its statements with their values inlined, sent together.
      const parts: string[] = [];
      for (const b of st.batch ?? []) parts.push(await inlined(ownerUrl, b.text, b.params as (string | null)[]));
      lines.push(`${["BEGIN", ...parts].join(" \\; ")};`, "COMMIT;");
      continue;
    }
    if (st.kind === "simple") {
      // One message, one round trip: its statements joined with \; so pgbench sends them together.
      const parts = splitStatements(st.text).map((p) => p.replace(/--[^\n]*(\n|$)/g, "\n"));
      lines.push(`${parts.map((p) => p.replace(/\s*\n\s*/g, " ").trim()).join(" \\; ")};`);
      continue;
    }
    const types = await parameterTypes(ownerUrl, st.text);
    const takesNumber = /UPDATE document_subtypes SET next_number/.test(st.text);
    // One line per command: SQL comments would swallow the rest of the joined line.
    let text = st.text.replace(/--[^\n]*(\n|$)/g, "\n").replace(/\$(\d+)/g, (_, n: string) => {
      const value = st.params[Number(n) - 1];
      if (value === null || value === undefined) return "NULL";
      // The NCF taken under the subtype's row lock is unique per transaction: use what the resolve
      // statement returned (its `taken` json, unique too) instead of the captured number.
      if (/^B\d{10}$/.test(value)) return `':r_taken'::${types[Number(n) - 1]}`;
      return `${quote(value)}::${types[Number(n) - 1]}`;
    });
    text = text.replace(/\s*\n\s*/g, " ").trim();
    lines.push(takesNumber ? `${text} \\gset r_` : `${text};`);
  }
  return `${lines.join("\n")}\n`;
}

interface PgbenchResult {
  connections: number;
  tps: number;
  tpsNewConnection: number;
  failed: number;
}

async function runPgbench(target: NonNullable<Stack["database"]["pgbench"]>, script: string, connections: number, seconds: number): Promise<PgbenchResult> {
  const file = path.join(TMP, `pgbench-${Date.now()}.sql`);
  fs.writeFileSync(file, script);
  const once = async (extra: string[]) => {
    const args = [
      "-n",
      "-M",
      "simple",
      "-h",
      target.host,
      "-p",
      String(target.port),
      "-U",
      target.user,
      "-c",
      String(connections),
      "-j",
      String(Math.min(connections, 2)),
      "-T",
      String(seconds),
      ...extra,
      "-f",
      file,
      target.db,
    ];
    const { stdout, stderr } = await exec("pgbench", args, { timeout: (seconds + 30) * 1000, maxBuffer: 16 << 20 }).catch(
      (e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? "", stderr: e.stderr ?? "" }),
    );
    const tps = Number(/tps = ([\d.]+)/.exec(stdout)?.[1] ?? NaN);
    const failed = Number(/number of failed transactions: (\d+)/.exec(stdout)?.[1] ?? 0);
    if (!Number.isFinite(tps)) throw new Error(`pgbench failed: ${stderr.slice(0, 800)}`);
    return { tps, failed: failed + (/aborted/.test(stderr) ? 1 : 0) };
  };
  const persistent = await once([]);
  const reconnect = await once(["-C"]);
  return { connections, tps: round(persistent.tps, 1), tpsNewConnection: round(reconnect.tps, 1), failed: persistent.failed + reconnect.failed };
}

// ---------------------------------------------------------------------------------------------
// Bundle

async function bundleSize(): Promise<{ files: number; bytes: number; gzipBytes: number }> {
  const out = path.join(TMP, "bundle");
  fs.rmSync(out, { recursive: true, force: true });
  await exec(path.join(ROOT, "node_modules", ".bin", "wrangler"), ["deploy", "--dry-run", "--outdir", out], {
    cwd: ROOT,
    env: toolEnv(),
    timeout: 180_000,
    maxBuffer: 16 << 20,
  });
  let bytes = 0;
  let gzipBytes = 0;
  let files = 0;
  for (const name of fs.readdirSync(out, { recursive: true }) as string[]) {
    const file = path.join(out, name);
    if (!fs.statSync(file).isFile() || name.endsWith(".map") || name.endsWith(".json")) continue;
    const data = fs.readFileSync(file);
    files++;
    bytes += data.length;
    gzipBytes += zlib.gzipSync(data, { level: 9 }).length;
  }
  return { files, bytes, gzipBytes };
}

async function serverVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return String((await client.query("SHOW server_version")).rows[0].server_version).split(" ")[0]!;
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const started = Date.now();
  fs.mkdirSync(TMP, { recursive: true });
  const today = new Date(Date.now() - 4 * 3_600_000).toISOString().slice(0, 10);

  // A run with --only measures the Node-side figures only when named (bundle, upload, ecf_signing,
  // hostile_xml, test_set): they take minutes and do not depend on the scenarios.
  const only = options.only ? new Set(String(options.only).split(",")) : null;
  const wants = (key: string) => !only || only.has(key);
  let bundle = { files: 0, bytes: 0, gzipBytes: 0 };
  if (wants("bundle")) {
    console.log("bundle: wrangler deploy --dry-run …");
    bundle = await bundleSize();
  }
  let upload: Awaited<ReturnType<typeof measureUploadSize>> | undefined;
  if (wants("upload")) {
    console.log("upload size against Cloudflare's limits (bench/upload-size.ts) …");
    upload = await measureUploadSize();
    for (const line of describeUploadSize(upload)) console.log(`  ${line}`);
  }
  let ecfSigning: Awaited<ReturnType<typeof measureEcfSigning>> | undefined;
  if (wants("ecf_signing")) {
    console.log("e-CF build and sign (bench/ecf.ts) …");
    ecfSigning = await measureEcfSigning();
    for (const line of describeEcfSigning(ecfSigning)) console.log(`  ${line}`);
  }
  let hostileXml: Awaited<ReturnType<typeof measureHostileXml>> | undefined;
  if (wants("hostile_xml")) {
    console.log("hostile XML at the receiver (bench/hostile-xml.ts) …");
    hostileXml = await measureHostileXml();
    for (const line of describeHostileXml(hostileXml)) console.log(`  ${line}`);
  }
  let testSet: Awaited<ReturnType<typeof measureTestSet>> | undefined;
  let testSetHostile: Awaited<ReturnType<typeof measureHostileTestSets>> | undefined;
  if (wants("test_set")) {
    console.log("importing DGII's test set (bench/testset.ts) …");
    testSet = await measureTestSet();
    for (const line of describeTestSet(testSet)) console.log(`  ${line}`);
    testSetHostile = await measureHostileTestSets();
    for (const line of describeHostileTestSets(testSetHostile)) console.log(`  ${line}`);
  }

  console.log("database …");
  stack.database = await openDatabase();
  const databaseKind =
    stack.database.kind === "embedded" ? "embedded PGlite" : `Postgres ${await serverVersion(stack.database.ownerUrl)} (${stack.database.kind})`;
  const jwtSecret = randomBytes(32).toString("hex");
  console.log(`seeding ${SIZES.invoices} invoices …`);
  const seeded = await seed(stack.database.ownerUrl, jwtSecret, SIZES);
  console.log(`seeded in ${round(seeded.seconds, 1)} s`);

  const [dbHost, dbPort] = [stack.database.tcpAddress.slice(0, stack.database.tcpAddress.lastIndexOf(":")), Number(stack.database.tcpAddress.split(":").pop())];
  // PgBouncer (transaction mode) in front of the machine's Postgres, as Neon's pooled endpoint is
  // in front of production's; not for an external DATABASE_URL (its own business) nor for PGlite.
  stack.pooler =
    stack.database.kind === "local"
      ? await startPooler({
          dir: TMP,
          target: { host: dbHost, port: dbPort },
          users: [APP_ROLE, new URL(stack.database.ownerUrl).username || "postgres"],
          poolSize: 20,
          log: console.log,
        })
      : null;
  if (stack.database.kind === "local" && !stack.pooler) console.log("PgBouncer not available: each request's connection forks a Postgres backend.");
  const backend = stack.pooler ? { host: "127.0.0.1", port: stack.pooler.port } : { host: dbHost, port: dbPort };
  // Round trips are counted by the sniffer (relay → sniffer → pooler); loads bypass it (relay →
  // pooler), so that its protocol parsing costs nothing to the figures.
  stack.sniffer = await startSniffer(backend);
  stack.relay = await startWsRelay();
  // Its connections skip the sniffer: each of its POSTs is counted as one round trip (measureRoundTrips).
  stack.sqlHttp = await startSqlHttp();
  stack.sqlHttp.setRoute((address) => (address.endsWith(`:${stack.sniffer!.port}`) ? `${backend.host}:${backend.port}` : address));
  const bypassSniffer = (on: boolean) =>
    stack.relay!.setRoute(on ? (address) => (address.endsWith(`:${stack.sniffer!.port}`) ? `${backend.host}:${backend.port}` : address) : null);
  const app = new URL(stack.database.appUrl);
  app.hostname = "127.0.0.1";
  app.port = String(stack.sniffer.port);
  const port = await freePort();
  stack.fakeDgii = await startFakeDgii();
  const envPath = path.join(TMP, "bench.env");
  fs.writeFileSync(
    envPath,
    envFile({
      DATABASE_URL: app.toString(),
      DB_SET_ROLE: stack.database.setRole,
      DB_WS_PROXY: stack.relay.url,
      DB_HTTP_ENDPOINT: stack.sqlHttp.url,
      JWT_SECRET: jwtSecret,
      // The limiter is not what is measured: limits far above what the bench sends.
      RATE_LIMIT_AUTHENTICATED_PER_MINUTE: "100000000",
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: "100000000",
      RATE_LIMIT_NAMESPACE: "bench",
      APP_URL: `http://${seeded.subdomain}.localhost:${port}`,
      APP_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      DGII_ECF_BASE_URL: stack.fakeDgii.url,
      DGII_FC_BASE_URL: stack.fakeDgii.url,
    }),
  );
  console.log("wrangler dev …");
  const host = `${seeded.subdomain}.localhost:${port}`;
  const inspectorPort = options.profile ? await freePort() : undefined;
  const served = await startWrangler(envPath, port, host, inspectorPort);
  // Loads go to the Worker's own socket (no dev proxy hop; it does not exist in production) when
  // found; GET /invoices at 16 connections is also measured through wrangler's public port.
  const target = served.direct ?? served.url;
  const list = scenarios(seeded, today);
  if (options.hold) {
    // For investigating by hand: the stack stays up until Ctrl-C (no watchdog), as loads see it.
    clearTimeout(watchdog);
    bypassSniffer(true);
    console.log(`holding: curl -H 'host: ${host}' -H 'authorization: Bearer ${seeded.token}' http://127.0.0.1:${port}/api/v1/invoices`);
    fs.writeFileSync(
      path.join(TMP, "hold.json"),
      JSON.stringify(
        { port, served, host, token: seeded.token, ownerUrl: stack.database.ownerUrl, relay: stack.relay.url, sniffer: stack.sniffer.port, seeded },
        null,
        2,
      ),
    );
    await new Promise(() => undefined);
  }
  const runReports = !options.only || String(options.only).split(",").includes("reports");
  if (options.only) {
    const keep = new Set(String(options.only).split(","));
    list.splice(0, list.length, ...list.filter((s) => keep.has(s.key)));
  }

  // Is the quotation PDF route there (another engineer was building it)?
  const skipped: string[] = [];
  const quotation = await send(port, host, seeded.token, { method: "GET", path: `/api/v1/quotations/${seeded.sampleQuotationIds[0]}/pdf` });
  if (quotation.status !== 200) {
    skipped.push(`GET /quotations/{id}/pdf: answered ${quotation.status} ${quotation.body.slice(0, 80)}`);
    list.splice(
      list.findIndex((s) => s.key === "quotation_pdf"),
      1,
    );
  }

  // Sanity: the Worker talks to our database through our relays.
  stack.sniffer.reset();
  stack.sqlHttp.resetStats();
  const probe = await send(
    port,
    host,
    seeded.token,
    scenarios(seeded, today)
      .find((s) => s.key === "invoices_list")!
      .make(),
  );
  if (probe.status !== 200 || stack.sniffer.connections().length + stack.sqlHttp.stats().requests === 0) {
    throw new Error(`the Worker does not reach the bench database (status ${probe.status}: ${probe.body.slice(0, 300)})`);
  }

  await setUpEcf(port, host, seeded.token);

  console.log("round trips (one request at a time) …");
  const roundTrips: Record<string, RoundTripResult> = {};
  for (const scenario of list) {
    roundTrips[scenario.key] = await measureRoundTrips(port, host, seeded.token, scenario, RT_SAMPLES);
    const r = roundTrips[scenario.key]!;
    console.log(`  ${scenario.label}: ${r.roundTrips} RT after connecting (+${r.setupRoundTrips} setup), statuses ${JSON.stringify(r.statuses)}`);
  }

  if (inspectorPort) {
    console.log("CPU profiles of the Worker (bench/worker-profile.ts) …");
    bypassSniffer(true);
    const profiles: Record<string, ProfileSummary> = {};
    for (const scenario of list.filter((s) => s.cpu)) {
      const requests = Math.min(scenario.cpu!.requests, 200);
      for (let i = 0; i < 20; i++) await send(Number(new URL(target).port), host, seeded.token, scenario.make());
      const summary = await profileRequests({
        inspectorPort,
        out: path.join(TMP, `profile-${scenario.key}.cpuprofile`),
        run: async () => {
          for (let i = 0; i < requests; i++) await send(Number(new URL(target).port), host, seeded.token, scenario.make());
          return requests;
        },
      });
      profiles[scenario.key] = summary;
      console.log(`  ${scenario.label}: ${summary.msPerRequest} ms sampled per request (+${summary.gcMsPerRequest} ms GC)`);
      for (const o of summary.byOrigin) console.log(`    ${o.ms.toFixed(3)} ms  ${o.origin}`);
      console.log("    top functions:");
      for (const f of summary.byFunction.slice(0, 10)) console.log(`    ${f.ms.toFixed(3)} ms  ${f.fn} (${f.origin})`);
    }
    fs.writeFileSync(path.join(TMP, "profile.json"), `${JSON.stringify(profiles, null, 2)}\n`);
    await stopAll();
    return;
  }

  if (options.compare) {
    const root = path.resolve(String(options.compare));
    const otherPort = await freePort();
    console.log(`the other checkout's Worker (${root}) …`);
    const other = await startWrangler(envPath, otherPort, host, undefined, root);
    bypassSniffer(true);
    const compared: Record<string, PairedCpu> = {};
    for (const scenario of list) {
      if (!scenario.cpu) continue;
      const paired = await measurePairedCpu({
        own: { target, processGroup: stack.wrangler!.pid! },
        other: { target: other.direct ?? other.url, processGroup: other.child.pid! },
        host,
        token: seeded.token,
        make: scenario.make,
        requests: Math.min(scenario.cpu.requests, 400),
      });
      if (!paired) break;
      compared[scenario.key] = paired;
      console.log(
        `  ${scenario.label}: this tree mean ${paired.own.meanMs} / median ${paired.own.medianMs} ms; ${root}: mean ${paired.other.meanMs} / median ${paired.other.medianMs} ms; statuses ${JSON.stringify(paired.statuses)}`,
      );
    }
    fs.writeFileSync(PARTIAL_RESULTS, `${JSON.stringify({ date: new Date().toISOString(), other: root, roundTrips, compared }, null, 2)}\n`);
    console.log(`Results: ${path.relative(ROOT, PARTIAL_RESULTS)}.`);
    await stopAll();
    return;
  }

  console.log("Worker CPU per request (bench/worker-cpu.ts: workerd's process CPU over N requests at one connection) …");
  bypassSniffer(true);
  const cpu: Record<string, WorkerCpu> = {};
  let floorMs: number | null = null;
  let floorMedianMs: number | null = null;
  for (const scenario of [...list].sort((a, b) => (a.key === "health" ? -1 : b.key === "health" ? 1 : 0))) {
    if (!scenario.cpu) continue;
    const requests = scenario.cpu.requests;
    const measure = () =>
      measureWorkerCpu({
        target,
        host,
        token: seeded.token,
        processGroup: stack.wrangler!.pid!,
        make: scenario.make,
        requests,
        settleMs: scenario.requestConnectionOnly ? 2000 : 300,
      });
    // A runtime process that ended during the run (wrangler restarts one now and then): once more.
    const measured = (await measure()) ?? (await measure());
    if (!measured) break;
    if (scenario.key === "health") {
      floorMs = measured.rawMs;
      floorMedianMs = measured.rawMedianMs;
    }
    const ms = scenario.key === "health" || floorMs === null ? null : round(measured.rawMs - floorMs, 3);
    const medianMs =
      scenario.key === "health" || floorMedianMs === null || measured.rawMedianMs === null ? null : round(measured.rawMedianMs - floorMedianMs, 3);
    const budgetMs = scenario.cpu.budgetMs;
    cpu[scenario.key] = { ...measured, ms, medianMs, budgetMs, withinBudget: budgetMs === null || ms === null ? null : ms <= budgetMs };
    console.log(
      `  ${scenario.label}: mean ${measured.rawMs} ms, median ${measured.rawMedianMs} ms per request${ms === null ? "" : ` (${ms} / ${medianMs} ms above /health)`}, statuses ${JSON.stringify(measured.statuses)}`,
    );
  }
  // The E31: the request alone, on a Worker of the same tree without queue consumers.
  const alone = list.filter((s) => s.cpu && s.requestConnectionOnly && cpu[s.key]);
  if (alone.length && floorMs !== null) {
    const toml = fs.readFileSync(path.join(ROOT, "wrangler.toml"), "utf8").replace(/\[\[queues\.consumers\]\]\n(?:[a-z_]+ = [^\n]*\n)*/g, "");
    fs.writeFileSync(NO_CONSUMERS_CONFIG, toml);
    console.log("  the same without queue consumers (the request alone) …");
    const bare = await startWrangler(envPath, await freePort(), host, undefined, ROOT, NO_CONSUMERS_CONFIG);
    for (const scenario of alone) {
      const measured = await measureWorkerCpu({
        target: bare.direct ?? bare.url,
        host,
        token: seeded.token,
        processGroup: bare.child.pid!,
        make: scenario.make,
        requests: scenario.cpu!.requests,
        settleMs: 300,
      });
      const entry = cpu[scenario.key]!;
      if (!measured) continue;
      const ms = round(measured.rawMs - floorMs, 3);
      const medianMs = floorMedianMs === null || measured.rawMedianMs === null ? null : round(measured.rawMedianMs - floorMedianMs, 3);
      entry.alone = { rawMs: measured.rawMs, rawMedianMs: measured.rawMedianMs, ms, medianMs };
      entry.withinBudget = entry.budgetMs === null ? null : ms <= entry.budgetMs;
      console.log(
        `  ${scenario.label}, the request alone: mean ${measured.rawMs} ms, median ${measured.rawMedianMs} ms (${ms} / ${medianMs} ms above /health)`,
      );
    }
    fs.rmSync(NO_CONSUMERS_CONFIG, { force: true });
  }
  bypassSniffer(false);
  if (options["cpu-only"]) {
    fs.writeFileSync(PARTIAL_RESULTS, `${JSON.stringify({ date: new Date().toISOString(), roundTrips, cpu }, null, 2)}\n`);
    console.log(`Results: ${path.relative(ROOT, PARTIAL_RESULTS)}.`);
    await stopAll();
    return;
  }

  console.log(`throughput (autocannon, at ${served.direct ? "the Worker's socket" : "wrangler's public port"}) …`);
  bypassSniffer(true);
  const loads: Record<string, Load[]> = {};
  // pgbench runs the same statements right after each load, at the same concurrency: the ratio of
  // two throughputs measured minutes apart on a shared machine carried the machine's drift (the
  // same statements gave pgbench 465-886 tps in runs of one day).
  const pgbench: Record<string, PgbenchResult[] | { error: string }> = {};
  const standIn: Record<string, Load> = {};
  for (const scenario of list.filter((s) => THROUGHPUT.includes(s.key))) {
    loads[scenario.key] = [];
    let script: string | null = null;
    if (stack.database.pgbench && roundTrips[scenario.key]!.statements.length) {
      try {
        script = await pgbenchScript(stack.database.ownerUrl, roundTrips[scenario.key]!.statements);
        fs.writeFileSync(path.join(TMP, `pgbench-${scenario.key}.sql`), script);
        pgbench[scenario.key] = [];
      } catch (error) {
        pgbench[scenario.key] = { error: String(error).slice(0, 500) };
      }
    }
    for (const c of CONCURRENCY) {
      await drive(target, host, seeded.token, scenario, c, WARMUP);
      const load = await drive(target, host, seeded.token, scenario, c, DURATION);
      loads[scenario.key]!.push(load);
      let against = "";
      const rows = pgbench[scenario.key];
      if (script && Array.isArray(rows)) {
        try {
          const row = await runPgbench(stack.database.pgbench!, script, c, Math.min(DURATION, 6));
          rows.push(row);
          against = `; pgbench ${row.tps} tps (new conn. ${row.tpsNewConnection})`;
        } catch (error) {
          pgbench[scenario.key] = { error: String(error).slice(0, 500) };
        }
      }
      // A read whose request is one HTTP batch: the stand-in alone with that batch, at one connection.
      const batches = roundTrips[scenario.key]!.statements.filter((st) => st.kind === "http");
      if (c === 1 && batches.length === 1 && roundTrips[scenario.key]!.statements.length === 1) {
        const alone = await driveStandIn(stack.sqlHttp.url, app.toString(), batches[0]!.batch!, scenario.key, c, Math.min(DURATION, 6));
        standIn[scenario.key] = alone;
        against += `; the SQL-over-HTTP stand-in alone ${alone.requestsPerSecond} req/s (p50 ${alone.p50} ms, errors ${alone.errors})`;
      }
      console.log(`  ${scenario.label} c=${c}: ${load.requestsPerSecond} req/s, p50 ${load.p50} ms, p99 ${load.p99} ms, errors ${load.errors}${against}`);
    }
  }
  let listViaProxy: Load | null = null;
  const listScenario = list.find((s) => s.key === "invoices_list");
  if (served.direct && listScenario) {
    await drive(served.url, host, seeded.token, listScenario, 16, WARMUP);
    listViaProxy = await drive(served.url, host, seeded.token, listScenario, 16, DURATION);
    console.log(
      `  ${listScenario.label} c=16 through wrangler's public port: ${listViaProxy.requestsPerSecond} req/s, p50 ${listViaProxy.p50} ms, p99 ${listViaProxy.p99} ms`,
    );
  }

  console.log(`latency with ${RTT_MS} ms added RTT …`);
  const rtt: Record<string, { p50: number; errors: number }> = {};
  stack.relay.setDelayMs(RTT_MS / 2);
  stack.sqlHttp.setDelayMs(RTT_MS / 2);
  for (const scenario of list.filter((s) => THROUGHPUT.includes(s.key))) {
    await drive(target, host, seeded.token, scenario, 1, 1);
    const load = await drive(target, host, seeded.token, scenario, 1, Math.min(DURATION, 5));
    rtt[scenario.key] = { p50: load.p50, errors: load.errors };
  }
  stack.relay.setDelayMs(0);
  stack.sqlHttp.setDelayMs(0);
  bypassSniffer(false);

  const reports: ReportBenchResult[] = [];
  if (runReports) {
    const month = previousMonth(today);
    console.log(`reports: seeding ${REPORT_ROWS} B01 invoices in ${month.period} …`);
    const seconds = await seedSalesMonth(stack.database.ownerUrl, seeded, REPORT_ROWS, month.first);
    console.log(`  seeded in ${round(seconds, 1)} s`);
    bypassSniffer(true);
    // The e-CF the E31 scenarios issued are sent, and their status read, by the Worker's queue
    // after each response: the 607 waits until that work is over (no database round trip for 3 s,
    // at most 120 s), or it would share the isolate's thread and the relay's count with it.
    const quietSince = Date.now();
    for (let last = -1; Date.now() - quietSince < 120_000; await sleep(3000)) {
      const now = stack.relay.stats().roundTrips;
      if (now === last) break;
      last = now;
    }
    console.log(`  the Worker's background work settled in ${round((Date.now() - quietSince) / 1000, 0)} s`);
    for (const format of ["607"]) {
      for (let run = 1; run <= REPORT_RUNS; run++) {
        const result = await measureReport(target, host, seeded.token, format, month.period, stack.relay, stack.wrangler!.pid!, run);
        reports.push(result);
        console.log(
          `  GET /reports/${format}?period=${month.period} (run ${run}): ${result.status}, ${result.rows} rows, ${(result.bytes / 2 ** 20).toFixed(1)} MiB in ${result.seconds} s (${result.rowsPerSecond} rows/s), ${result.roundTripsPerPage} round trips per page of ${PAGE_ROWS} rows (${result.pages} pages), workerd RSS ${result.memoryMiB.before} → peak ${result.memoryMiB.peak} MiB (first quarter ${result.memoryMiB.firstQuarterPeak}, last ${result.memoryMiB.lastQuarterPeak})`,
        );
      }
    }
  }

  const poolerLabel = stack.pooler ? `${stack.pooler.version} (transaction mode, pool of 20)` : null;
  await stopAll();

  const results: BenchResults = {
    date: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? "unknown",
      memoryGiB: round(os.totalmem() / 2 ** 30, 1),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
    },
    database: databaseKind,
    pooler: poolerLabel,
    loadTarget: served.direct ? "direct" : "proxy",
    listViaProxy,
    options: { rttMs: RTT_MS, durationSeconds: DURATION, warmupSeconds: WARMUP, roundTripSamples: RT_SAMPLES, sizes: SIZES },
    seedSeconds: round(seeded.seconds, 1),
    bundle,
    upload,
    skipped,
    ecfSigning,
    hostileXml,
    testSet,
    testSetHostile,
    reports,
    scenarios: list.map((s): ScenarioResult => {
      const rtr = roundTrips[s.key]!;
      const pgb = pgbench[s.key];
      const ld = loads[s.key] ?? [];
      return {
        key: s.key,
        label: s.label,
        budget: s.budget,
        roundTrips: (({ statements: _statements, ...counted }) => counted)(rtr),
        cpu: cpu[s.key] ?? null,
        loads: ld,
        rtt: rtt[s.key]
          ? { rttMs: RTT_MS, p50: rtt[s.key]!.p50, p50AtZero: ld.find((l) => l.connections === 1)?.p50 ?? null, errors: rtt[s.key]!.errors }
          : null,
        standIn: standIn[s.key]
          ? { ...standIn[s.key]!, ratio: round((ld.find((l) => l.connections === 1)?.requestsPerSecond ?? 0) / standIn[s.key]!.requestsPerSecond, 3) }
          : null,
        pgbench: Array.isArray(pgb)
          ? pgb.map((p) => {
              const api = ld.find((l) => l.connections === p.connections)?.requestsPerSecond ?? 0;
              return { ...p, ratio: round(api / p.tps, 3), ratioNewConnection: round(api / p.tpsNewConnection, 3) };
            })
          : pgb
            ? pgb
            : null,
      };
    }),
    seconds: round((Date.now() - started) / 1000, 0),
  };
  const resultsFile = options.only ? PARTIAL_RESULTS : RESULTS;
  fs.writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
  const { table, page } = renderPerformance(results);
  console.log(`\n${table}`);
  if (!options["no-readme"] && !options.only) {
    fs.writeFileSync(PERFORMANCE_DOC, page(fs.readFileSync(PERFORMANCE_DOC, "utf8")));
    console.log("docs/performance.md: the bench block regenerated.");
  }
  console.log(`Results: ${path.relative(ROOT, resultsFile)} (${results.seconds} s).`);
}

// The many-companies scenario is its own stack and database (bench/scale.ts): `--only scale` runs it alone.
if (options.only === "scale") {
  const child = spawn(path.join(ROOT, "node_modules", ".bin", "tsx"), [path.join(ROOT, "bench/scale.ts")], { cwd: ROOT, stdio: "inherit" });
  child.on("exit", (code) => process.exit(code ?? 1));
} else if (options["readme-only"]) {
  const { page } = renderPerformance(JSON.parse(fs.readFileSync(RESULTS, "utf8")) as BenchResults);
  fs.writeFileSync(PERFORMANCE_DOC, page(fs.readFileSync(PERFORMANCE_DOC, "utf8")));
  console.log("docs/performance.md: the bench block regenerated from bench/results/latest.json.");
  process.exit(0);
}

const watchdog = setTimeout(() => {
  console.error(`bench: over ${WATCHDOG_MS / 60000} minutes, stopping`);
  void stopAll().finally(() => process.exit(1));
}, WATCHDOG_MS);
if (options.only !== "scale") {
  process.on("SIGINT", () => void stopAll().finally(() => process.exit(130)));
  process.on("SIGTERM", () => void stopAll().finally(() => process.exit(143)));
  main()
    .then(() => {
      clearTimeout(watchdog);
      process.exit(0);
    })
    .catch(async (error) => {
      console.error(error);
      await stopAll();
      process.exit(1);
    });
} else clearTimeout(watchdog);
