/**
 * npm run bench:scale [-- --sizes 1000,10000,100000] [--backlog 20000] [--minutes 2]
 * (also `npm run bench -- --only scale`)
 *
 * Many companies on one deployment (issue 48): what each cron invocation costs as the number of
 * tenants grows, and whether one company's backlog delays another's e-CF.
 * 1. A fresh database on 127.0.0.1:5432 (migrated), the fake DGII, the WebSocket relay (which counts
 *    round trips and connections) and `wrangler dev` (bench/worker-host.ts) with its crons and
 *    queues, as `npm run dev` runs them.
 * 2. Two companies through the API, with e-CF on: "backlog" (a total contingency; one E31 issued and
 *    held, then copied in bulk to --backlog held e-CF) and "single" (one E31 held likewise).
 * 3. Bulk SQL, for the first size, then growing to each next one: tenants with 5 branches each,
 *    most idle; of the first 10,000, 1 in 20 has a due email, 1 in 50 an e-CF in process (open, not
 *    due), 1 in 10 e-CF turned on (the hourly alert sweep reads those), 1 in 100 an open alert.
 *    Beyond 10,000 every tenant is idle.
 * 4. Per size: EXPLAIN (ANALYZE, BUFFERS) of each sweep's query as the cron calls it (run inside a
 *    transaction rolled back: nothing is consumed), then each cron fired through the Worker
 *    (`/cdn-cgi/handler/scheduled`): wall time, the Worker's CPU (workerd's utime+stime over the
 *    invocation; the queue consumers run in the same process and overlap it), round trips and
 *    connections to Postgres (the relay), rows read (pg_stat_database tup_returned + tup_fetched),
 *    and the messages it enqueued (counted by the Worker's queue bindings, wrapped in
 *    bench/scale-entry.ts). Then the queue batches that follow it, until the queues are quiet (3 s
 *    without a batch, at most 45 s): each batch's wall time, messages and enqueues (the wrapper),
 *    and over the window the workerd CPU, round trips and rows read, per batch.
 * 5. Fairness, at the first size: both contingencies end at the same moment (every held e-CF due),
 *    the minute cron fires; how long until the fake DGII holds the single company's e-CF, and how
 *    many of the backlog's it holds after each minute (ECF_SENDS_PER_MINUTE of them).
 * Output: a table on stdout and bench/results/scale.json.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { type FakeDgii, startFakeDgii } from "../scripts/fake-dgii";
import { cliOptions } from "../scripts/lib/args";
import { makeCertificate } from "../scripts/lib/certificates";
import { createTestDatabase, type DatabaseTarget, freePort, ROOT } from "../scripts/lib/database";
import { inOwnerTransaction } from "../scripts/lib/tenants";
import { startWsRelay, type WsRelay } from "../scripts/lib/ws-relay";
import { normalizeIdentification } from "../src/lib/identification";
import { issueAccessToken } from "../src/modules/auth/service";
import { createTenant } from "../src/modules/tenants/service";
import type { Tally as EntryTally } from "./scale-entry";

const TMP = path.join(ROOT, "bench/results/tmp");
const RESULTS = path.join(ROOT, "bench/results/scale.json");
const options = cliOptions({ sizes: { type: "string" }, backlog: { type: "string" }, minutes: { type: "string" } });
const SIZES = String(options.sizes ?? "1000,10000,100000")
  .split(",")
  .map(Number)
  .sort((a, b) => a - b);
const BACKLOG = Number(options.backlog ?? 20_000);
const MINUTES = Number(options.minutes ?? 2);
const BRANCHES_PER_TENANT = 5;
/** The pace the bench's Worker runs with (the default of ECF_SENDS_PER_MINUTE). */
const PACE = 300;
const MINUTE_CRON = "* * * * *";
const HOURLY_CRON = "0 * * * *";
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const stack: { database?: DatabaseTarget; relay?: WsRelay; fakeDgii?: FakeDgii; wrangler?: ChildProcess | null } = {};

async function stopAll() {
  const w = stack.wrangler;
  if (w?.pid && w.exitCode === null) {
    try {
      process.kill(-w.pid, "SIGTERM");
    } catch {
      /* gone */
    }
    for (let i = 0; i < 40 && w.exitCode === null; i++) await sleep(100);
    if (w.exitCode === null) {
      try {
        process.kill(-w.pid, "SIGKILL");
      } catch {
        /* gone */
      }
    }
  }
  await stack.relay?.close().catch(() => undefined);
  await stack.fakeDgii?.close().catch(() => undefined);
  await stack.database?.stop().catch(() => undefined);
}

function request(port: number, host: string, method: string, urlPath: string, token?: string, body?: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { host };
    if (token) headers.authorization = `Bearer ${token}`;
    if (data) {
      headers["content-type"] = "application/json";
      headers["content-length"] = String(Buffer.byteLength(data));
    }
    const req = http.request({ host: "127.0.0.1", port, method, path: urlPath, headers, timeout: 900_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(data);
  });
}

/** utime + stime (ms) of the workerd processes under the wrangler child. */
function workerdCpuMs(rootPid: number): number {
  const children = (pid: number): number[] => {
    try {
      return fs
        .readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
        .split(/\s+/)
        .filter(Boolean)
        .map(Number)
        .flatMap((child) => [child, ...children(child)]);
    } catch {
      return [];
    }
  };
  const tick = 1000 / 100; // USER_HZ
  let total = 0;
  for (const pid of children(rootPid)) {
    try {
      const comm = fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim();
      if (!comm.startsWith("workerd")) continue;
      const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      total += (Number(fields[11]) + Number(fields[12])) * tick;
    } catch {
      /* exited */
    }
  }
  return total;
}

async function dbRowsRead(client: pg.Client): Promise<number> {
  await client.query("SELECT pg_stat_clear_snapshot()");
  const { rows } = await client.query("SELECT tup_returned + tup_fetched AS n FROM pg_stat_database WHERE datname = current_database()");
  return Number(rows[0].n);
}

interface Invocation {
  cron: string;
  wallMs: number;
  workerCpuMs: number;
  roundTrips: number;
  connections: number;
  rowsRead: number;
  status: number;
  /** Messages the cron put on the queues (its sweeps), and the send/sendBatch calls. */
  enqueued: number | null;
  sendCalls: number | null;
  /** The queue batches that followed, until the queues were quiet. */
  batches?: Batches;
}

/** One finished invocation as the Worker's wrapper (bench/scale-entry.ts) counted it. */
type Tally = EntryTally & { wallMs: number };

interface Batches {
  /** Batches per queue. */
  count: Record<string, number>;
  messages: number;
  enqueued: number;
  /** Per batch: mean and max wall time (the wrapper's clock), mean messages and enqueues. */
  wallMsMean: number;
  wallMsMax: number;
  messagesMean: number;
  enqueuedMean: number;
  enqueuedMax: number;
  /** Over the window, divided by the batches: workerd CPU, round trips, rows read. */
  workerCpuMsPerBatch: number;
  roundTripsPerBatch: number;
  rowsReadPerBatch: number;
  windowMs: number;
}

async function tallies(port: number): Promise<{ done: Tally[]; running: number }> {
  const res = await fetch(`http://127.0.0.1:${port}/__bench/tallies`);
  return (await res.json()) as { done: Tally[]; running: number };
}

/** The queue batches after a cron, until 3 s pass without one (at most 45 s), measured as a window. */
async function drain(port: number, stats: pg.Client, carried: Tally[]): Promise<Batches> {
  const relay = stack.relay!;
  relay.resetStats();
  const rowsBefore = await dbRowsRead(stats);
  const cpuBefore = workerdCpuMs(stack.wrangler!.pid!);
  const started = performance.now();
  const seen: Tally[] = carried.filter((t) => t.kind === "queue");
  let lastBatchAt = performance.now();
  while (performance.now() - started < 45_000) {
    await sleep(500);
    const { done, running } = await tallies(port);
    const batches = done.filter((t) => t.kind === "queue");
    seen.push(...batches);
    if (batches.length || running) lastBatchAt = performance.now();
    else if (performance.now() - lastBatchAt >= 3000) break;
  }
  const windowMs = performance.now() - started;
  const cpu = workerdCpuMs(stack.wrangler!.pid!) - cpuBefore;
  const s = relay.stats() as { roundTrips: number };
  const rows = (await dbRowsRead(stats)) - rowsBefore;
  const n = Math.max(seen.length, 1);
  const count: Record<string, number> = {};
  for (const t of seen) count[t.name] = (count[t.name] ?? 0) + 1;
  const sum = (f: (t: Tally) => number) => seen.reduce((a, t) => a + f(t), 0);
  return {
    count,
    messages: sum((t) => t.messages),
    enqueued: sum((t) => t.enqueued),
    wallMsMean: round(sum((t) => t.wallMs) / n),
    wallMsMax: Math.max(0, ...seen.map((t) => t.wallMs)),
    messagesMean: round(sum((t) => t.messages) / n),
    enqueuedMean: round(sum((t) => t.enqueued) / n),
    enqueuedMax: Math.max(0, ...seen.map((t) => t.enqueued)),
    workerCpuMsPerBatch: round(cpu / n),
    roundTripsPerBatch: round(s.roundTrips / n),
    rowsReadPerBatch: Math.round(rows / n),
    windowMs: Math.round(windowMs),
  };
}

/** Queue batches read with a cron's tally, handed to the drain that follows it. */
let carried: Tally[] = [];

async function fire(port: number, host: string, cron: string, stats: pg.Client): Promise<Invocation> {
  const relay = stack.relay!;
  carried = (await tallies(port)).done;
  relay.resetStats();
  const rowsBefore = await dbRowsRead(stats);
  const cpuBefore = workerdCpuMs(stack.wrangler!.pid!);
  const started = performance.now();
  const res = await request(port, host, "GET", `/cdn-cgi/handler/scheduled?cron=${encodeURIComponent(cron)}`);
  const wallMs = performance.now() - started;
  // Backends report their counters when their connection ends: the Worker's end after the invocation.
  await sleep(600);
  const cpu = workerdCpuMs(stack.wrangler!.pid!) - cpuBefore;
  const s = relay.stats() as { roundTrips: number; connections?: number };
  const rowsRead = (await dbRowsRead(stats)) - rowsBefore;
  // The cron's own tally (its waitUntil settled), and the batches already done since.
  let cronTally: Tally | undefined;
  carried = [];
  for (let i = 0; i < 100 && !cronTally; i++) {
    const { done } = await tallies(port);
    cronTally = done.find((t) => t.kind === "cron" && t.name === cron);
    carried.push(...done.filter((t) => t.kind === "queue"));
    if (!cronTally) await sleep(100);
  }
  return {
    cron,
    wallMs: round(wallMs),
    workerCpuMs: round(cpu),
    roundTrips: s.roundTrips,
    connections: s.connections ?? 0,
    rowsRead,
    status: res.status,
    enqueued: cronTally?.enqueued ?? null,
    sendCalls: cronTally?.sendCalls ?? null,
  };
}

/** EXPLAIN (ANALYZE, BUFFERS) of each sweep's statement, as the minute and hourly crons run them, rolled back. */
async function explainSweeps(owner: pg.Client): Promise<Record<string, { ms: number; buffers: number; rows: number }>> {
  const due = `now() - interval '15 seconds'`;
  const statements: Record<string, string> = {
    ecf: `SELECT * FROM sweep_due('ecf', 1000, ${PACE}, ${due}, now(), now() + interval '5 minutes')`,
    outbox: `SELECT * FROM sweep_due('outbox', 1000, 50, ${due}, now(), now() + interval '5 minutes')`,
    webhooks: `SELECT * FROM sweep_due('webhooks', 1000, 50, ${due}, now(), now() + interval '5 minutes')`,
    ecf_approvals: `SELECT * FROM sweep_due('ecf_approvals', 1000, 50, ${due}, now(), now() + interval '5 minutes')`,
    ecf_deliveries: `SELECT * FROM sweep_due('ecf_deliveries', 1000, 50, ${due}, now(), now() + interval '5 minutes')`,
    ecf_certification_runs: `SELECT * FROM sweep_due('ecf_certification_runs', 1000, 50, ${due}, now(), now() + interval '5 minutes')`,
    invoice_counts_fold: `SELECT compact_invoice_status_counts()`,
    webhook_purge: `SELECT webhook_purge_events(now() - interval '31 days', 1000)`,
    alert_tenants_first_page: `SELECT * FROM ecf_alert_tenants(0, 500)`,
  };
  const out: Record<string, { ms: number; buffers: number; rows: number }> = {};
  for (const [name, text] of Object.entries(statements)) {
    await owner.query("BEGIN");
    try {
      const { rows } = await owner.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`);
      const plan = rows[0]["QUERY PLAN"][0];
      const top = plan.Plan;
      out[name] = {
        ms: round(plan["Execution Time"], 2),
        buffers: Number(top["Shared Hit Blocks"] ?? 0) + Number(top["Shared Read Blocks"] ?? 0),
        rows: Number(top["Actual Rows"] ?? 0),
      };
    } finally {
      await owner.query("ROLLBACK");
    }
  }
  return out;
}

/** The RNC of 8 given digits and the check digit that makes it valid. */
function validRnc(first8: string): string {
  for (let digit = 0; digit < 10; digit++) if (normalizeIdentification("rnc", `${first8}${digit}`).ok) return `${first8}${digit}`;
  throw new Error(`no valid RNC starts ${first8}`);
}

/** A company through the API, e-CF on (a certificate of its RNC, testecf, an E31 range), in a total contingency, with one E31 issued and held. */
async function ecfCompany(ownerUrl: string, jwtSecret: string, port: number, subdomain: string, rnc: string) {
  const created = await inOwnerTransaction(ownerUrl, async (db) => {
    const c = await createTenant(db, {
      subdomain,
      name: `${subdomain} SRL`,
      adminEmail: `admin@${subdomain}.test`,
      adminPassword: "bench-password",
      adminName: "Admin",
      rnc,
      legalName: `${subdomain} SRL`,
      address: "Calle El Conde 1, Santo Domingo",
      demoSequences: true,
    });
    const { token } = await issueAccessToken(db, jwtSecret, { tenantId: c.tenant.id, userId: c.user.id, name: "bench" });
    return { tenantId: c.tenant.id, token };
  });
  const host = `${subdomain}.localhost:${port}`;
  const ok = async (method: string, url: string, body: unknown) => {
    const res = await request(port, host, method, `/api/v1${url}`, created.token, body);
    if (res.status >= 300) throw new Error(`${subdomain}: ${method} ${url} answered ${res.status} ${res.body.slice(0, 300)}`);
    return JSON.parse(res.body) as { data: { id: number; document_number?: string } };
  };
  const signer = `EMISOR ${subdomain.toUpperCase()}`;
  const cert = await makeCertificate({ commonName: signer, holderId: rnc, authority: null });
  await ok("PUT", "/ecf/certificate", { p12_base64: cert.p12Base64, password: cert.password });
  await ok("PUT", "/ecf/settings", { environment: "testecf", enabled: true });
  const subtype = await ok("POST", "/document-subtypes", {
    name: "E31",
    type: "invoice",
    prefix: "E31",
    start_number: 1,
    end_number: 9_000_000,
    valid_until: "2099-12-31",
  });
  const buyer = validRnc("10100012");
  const contact = await ok("POST", "/contacts", { name: "Comprador", identification_type: "rnc", identification: buyer });
  const product = await ok("POST", "/products", { name: "Servicio", price: "100", product_type: "service", track_inventory: false });
  await ok("POST", "/ecf/contingency", { scope: "total", reason: "Bench" });
  const today = new Date(Date.now() - 4 * 3_600_000).toISOString().slice(0, 10);
  const invoice = await ok("POST", "/invoices", {
    contact_id: contact.data.id,
    document_subtype_id: subtype.data.id,
    issue_date: today,
    items: [{ product_id: product.data.id, quantity: "1", unit_price: "100" }],
  });
  return { tenantId: created.tenantId, signer, invoiceId: invoice.data.id, encf: invoice.data.document_number! };
}

/** Copies the company's one held E31 (invoice and e-CF rows) into `count` more, numbered after it. */
async function copyBacklog(owner: pg.Client, tenantId: number, invoiceId: number, count: number) {
  const columns = async (table: string, skip: string[]) =>
    (
      await owner.query(
        `SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position) AS cols FROM information_schema.columns
         WHERE table_schema = 'public' AND table_name = $1 AND is_generated = 'NEVER' AND is_identity = 'NO' AND NOT (column_name = ANY ($2))`,
        [table, skip],
      )
    ).rows[0].cols as string;
  const invoiceCols = await columns("invoices", ["id", "document_number"]);
  await owner.query(
    `INSERT INTO invoices (${invoiceCols}, document_number)
     SELECT ${invoiceCols}, 'E31' || lpad(g::text, 10, '0') FROM invoices, generate_series(2, $3::int + 1 + ${SPREAD_OPEN_ECF}) g WHERE tenant_id = $1 AND id = $2`,
    [tenantId, invoiceId, count],
  );
  const ecfCols = await columns("ecf_documents", ["id", "invoice_id", "encf"]);
  await owner.query(
    `INSERT INTO ecf_documents (${ecfCols}, invoice_id, encf)
     SELECT ${ecfCols.replace(/(^|, )/g, "$1e.")}, i.id, i.document_number
     FROM ecf_documents e JOIN invoices i ON i.tenant_id = e.tenant_id AND i.id > $2 AND i.document_number <= 'E31' || lpad(($3::int + 1)::text, 10, '0')
     WHERE e.tenant_id = $1 AND e.invoice_id = $2`,
    [tenantId, invoiceId, count],
  );
}

/** Idle tenants up to `total` (5 branches each); of the first 10,000, the spread of due work described above. */
async function growTenants(owner: pg.Client, from: number, total: number) {
  if (total <= from) return;
  const t0 = performance.now();
  await owner.query("BEGIN");
  await owner.query(`CREATE TEMP TABLE grown ON COMMIT DROP AS SELECT g AS n FROM generate_series($1::int + 1, $2::int) g`, [from, total]);
  await owner.query(
    `CREATE TEMP TABLE grown_tenants ON COMMIT DROP AS
     WITH t AS (INSERT INTO tenants (subdomain, name) SELECT 'scale' || n, 'Empresa ' || n FROM grown RETURNING id, subdomain)
     SELECT id, substr(subdomain, 6)::int AS n FROM t`,
  );
  await owner.query(
    `CREATE TEMP TABLE grown_users ON COMMIT DROP AS
     WITH u AS (INSERT INTO users (tenant_id, name, email, password_hash) SELECT id, 'Admin', 'admin' || n || '@scale.test', 'x' FROM grown_tenants RETURNING id, tenant_id)
     SELECT * FROM u`,
  );
  await owner.query(
    `INSERT INTO workspaces (tenant_id, name, owner_id) SELECT u.tenant_id, 'Sucursal ' || b, u.id FROM grown_users u, generate_series(1, ${BRANCHES_PER_TENANT}) b`,
  );
  // The spread of work, among the first 10,000 only.
  await owner.query(`INSERT INTO ecf_settings (tenant_id, environment, enabled) SELECT id, 'testecf', true FROM grown_tenants WHERE n <= 10000 AND n % 10 = 0`);
  await owner.query(
    `INSERT INTO outbox_messages (tenant_id, kind, payload, status, next_attempt_at)
     SELECT id, 'email', jsonb_build_object('to', 'x' || n || '@scale.test', 'subject', 'Factura', 'text', 'Hola', 'template', 'invoice_created'), 'pending', now() - interval '1 minute'
     FROM grown_tenants WHERE n <= 10000 AND n % 20 = 0`,
  );
  await owner.query(
    `INSERT INTO ecf_alerts (tenant_id, kind, subject, message, raised_at)
     SELECT id, 'certificate_expiring', 'bench:' || n, 'Bench alert', now() FROM grown_tenants WHERE n <= 10000 AND n % 100 = 0`,
  );
  await owner.query("COMMIT");
  await owner.query("ANALYZE");
  console.log(`  tenants ${from} → ${total} in ${round((performance.now() - t0) / 1000)} s`);
}

/** Invoices copied beyond the backlog, for the open e-CF of the spread (1 in 50 of the first 10,000). */
const SPREAD_OPEN_ECF = 200;

/**
 * e-CF in process (open, not due for an hour) for 1 in 50 of the first 10,000 tenants: copies of
 * the backlog's e-CF row, each on a spare invoice copy (the sweep reads no invoice; it walks past
 * these tenants, whose work is open but not due).
 */
async function openEcfSpread(owner: pg.Client, backlogTenant: number, backlogInvoice: number, upTo: number) {
  const cols = (
    await owner.query(
      `SELECT string_agg('e.' || quote_ident(column_name), ', ' ORDER BY ordinal_position) AS cols FROM information_schema.columns
       WHERE table_schema = 'public' AND table_name = 'ecf_documents' AND is_generated = 'NEVER' AND is_identity = 'NO'
         AND column_name NOT IN ('id', 'tenant_id', 'workspace_id', 'invoice_id', 'encf', 'status', 'next_attempt_at', 'track_id')`,
    )
  ).rows[0].cols as string;
  await owner.query(
    `WITH spread AS (
       SELECT t.id AS tenant_id, (SELECT min(w.id) FROM workspaces w WHERE w.tenant_id = t.id) AS workspace_id, row_number() OVER (ORDER BY t.id) AS k
       FROM tenants t
       WHERE t.subdomain LIKE 'scale%' AND substr(t.subdomain, 6)::int <= $3 AND substr(t.subdomain, 6)::int % 50 = 0
         AND NOT EXISTS (SELECT 1 FROM ecf_documents d WHERE d.tenant_id = t.id)
     ), spare AS (
       SELECT i.id, row_number() OVER (ORDER BY i.id) AS k FROM invoices i
       WHERE i.tenant_id = $1 AND i.id > $2 AND NOT EXISTS (SELECT 1 FROM ecf_documents d WHERE d.invoice_id = i.id)
     )
     INSERT INTO ecf_documents (${cols.replace(/e\./g, "")}, tenant_id, workspace_id, invoice_id, encf, status, next_attempt_at, track_id)
     SELECT ${cols}, spread.tenant_id, spread.workspace_id, spare.id, 'E310000000001', 'in_process', now() + interval '1 hour', 'bench-' || spare.id
     FROM spread JOIN spare USING (k), ecf_documents e WHERE e.tenant_id = $1 AND e.invoice_id = $2`,
    [backlogTenant, backlogInvoice, upTo],
  );
}

async function main() {
  fs.mkdirSync(TMP, { recursive: true });
  const started = Date.now();
  console.log("database …");
  stack.database = await createTestDatabase("sucursal_scale");
  if (stack.database.kind === "embedded") throw new Error("the scale bench needs Postgres (127.0.0.1:5432 or DATABASE_URL)");
  const owner = new pg.Client({ connectionString: stack.database.ownerUrl });
  await owner.connect();
  owner.on("error", () => undefined);
  const stats = new pg.Client({ connectionString: stack.database.ownerUrl });
  await stats.connect();
  stats.on("error", () => undefined);
  stack.relay = await startWsRelay();
  stack.fakeDgii = await startFakeDgii();
  const jwtSecret = randomBytes(32).toString("hex");
  const port = await freePort();
  const app = new URL(stack.database.appUrl);
  app.hostname = "127.0.0.1";
  const envPath = path.join(TMP, "scale.env");
  const values: Record<string, string | undefined> = {
    DATABASE_URL: app.toString(),
    DB_SET_ROLE: stack.database.setRole,
    DB_WS_PROXY: stack.relay.url,
    JWT_SECRET: jwtSecret,
    RATE_LIMIT_AUTHENTICATED_PER_MINUTE: "100000000",
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: "100000000",
    RATE_LIMIT_NAMESPACE: "scale",
    APP_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    DGII_ECF_BASE_URL: stack.fakeDgii.url,
    DGII_FC_BASE_URL: stack.fakeDgii.url,
    ECF_SENDS_PER_MINUTE: String(PACE),
  };
  fs.writeFileSync(
    envPath,
    `${Object.entries(values)
      .filter(([, v]) => v)
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join("\n")}\n`,
  );
  console.log("wrangler dev …");
  const log = fs.openSync(path.join(TMP, "scale-wrangler.log"), "w");
  const child = spawn(
    path.join(ROOT, "node_modules", ".bin", "tsx"),
    [path.join(ROOT, "bench/worker-host.ts"), envPath, String(port), path.join(TMP, "scale-wrangler-state"), `scale.localhost:${port}`],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", log],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", XDG_CONFIG_HOME: path.join(ROOT, ".config"), BENCH_WORKER_ENTRY: "bench/scale-entry.ts" },
      detached: true,
    },
  );
  stack.wrangler = child;
  await new Promise<void>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error("wrangler dev did not start in 120 s")), 120_000);
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("{")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on("exit", () => reject(new Error("wrangler dev exited")));
  });

  console.log("two e-CF companies through the API …");
  const backlog = await ecfCompany(stack.database.ownerUrl, jwtSecret, port, "backlog", validRnc("13124679"));
  const single = await ecfCompany(stack.database.ownerUrl, jwtSecret, port, "single", validRnc("13124680"));
  // The queue's first step finds each held.
  for (let i = 0; i < 100; i++) {
    const { rows } = await owner.query(`SELECT count(*)::int AS n FROM ecf_documents WHERE last_error LIKE 'Paused:%' AND tenant_id IN ($1, $2)`, [
      backlog.tenantId,
      single.tenantId,
    ]);
    if (rows[0].n === 2) break;
    await sleep(200);
  }
  console.log(`copying the backlog company's held E31 into ${BACKLOG} …`);
  await copyBacklog(owner, backlog.tenantId, backlog.invoiceId, BACKLOG - 1);

  const results: {
    size: number;
    tenants: number;
    branches: number;
    /** Companies the hourly cron sweeps (e-CF on, or an alert open): one queue message each. */
    alertTenants: number;
    explain: Awaited<ReturnType<typeof explainSweeps>>;
    minute: Invocation[];
    hourly: Invocation;
  }[] = [];
  let fairness: Record<string, unknown> | null = null;
  let have = 0;
  for (const size of SIZES) {
    console.log(`${size} tenants …`);
    await growTenants(owner, have, size);
    have = size;
    await openEcfSpread(owner, backlog.tenantId, backlog.invoiceId, Math.min(size, 10_000));
    const { rows: counts } = await owner.query(
      `SELECT (SELECT count(*) FROM tenants)::int AS t, (SELECT count(*) FROM workspaces)::int AS w,
              (SELECT count(*) FROM (SELECT tenant_id FROM ecf_settings WHERE enabled UNION SELECT tenant_id FROM ecf_alerts WHERE resolved_at IS NULL) a)::int AS alert_tenants`,
    );
    const explain = await explainSweeps(owner);
    const minute: Invocation[] = [];
    if (!fairness) {
      // Every held e-CF becomes due at the same moment, as when DGII's reception comes back.
      await owner.query(`UPDATE ecf_contingencies SET closed_at = now(), closed_how = 'dgii' WHERE tenant_id IN ($1, $2) AND closed_at IS NULL`, [
        backlog.tenantId,
        single.tenantId,
      ]);
      await owner.query(`UPDATE ecf_documents SET next_attempt_at = now() - interval '1 minute' WHERE tenant_id IN ($1, $2)`, [
        backlog.tenantId,
        single.tenantId,
      ]);
      const t0 = performance.now();
      const first = await fire(port, `127.0.0.1:${port}`, MINUTE_CRON, stats);
      minute.push(first);
      let singleAt: number | null = null;
      const single$ = (async () => {
        for (let i = 0; i < 600 && singleAt === null; i++) {
          const got = (await (await fetch(`${stack.fakeDgii!.url}/_control/received?signer=${encodeURIComponent(single.signer)}`)).json()) as unknown[];
          if (got.length) singleAt = performance.now() - t0;
          else await sleep(100);
        }
      })();
      // The first minute's share drains (until the queues are quiet, bounded), then the count.
      first.batches = await drain(port, stats, carried);
      await single$;
      const backlogSent: number[] = [];
      const sentOf = async () =>
        ((await (await fetch(`${stack.fakeDgii!.url}/_control/received?signer=${encodeURIComponent(backlog.signer)}`)).json()) as unknown[]).length;
      backlogSent.push(await sentOf());
      for (let m = 1; m < MINUTES; m++) {
        const next = await fire(port, `127.0.0.1:${port}`, MINUTE_CRON, stats);
        next.batches = await drain(port, stats, carried);
        minute.push(next);
        backlogSent.push(await sentOf());
      }
      fairness = {
        backlog: BACKLOG,
        pacePerMinute: PACE,
        singleReceivedByDgiiAfterMs: singleAt === null ? null : round(singleAt),
        backlogReceivedAfterEachMinute: backlogSent,
      };
      console.log(`  fairness: ${JSON.stringify(fairness)}`);
    } else {
      for (let m = 0; m < MINUTES; m++) {
        const next = await fire(port, `127.0.0.1:${port}`, MINUTE_CRON, stats);
        next.batches = await drain(port, stats, carried);
        minute.push(next);
      }
    }
    const hourly = await fire(port, `127.0.0.1:${port}`, HOURLY_CRON, stats);
    hourly.batches = await drain(port, stats, carried);
    results.push({ size, tenants: counts[0].t, branches: counts[0].w, alertTenants: counts[0].alert_tenants, explain, minute, hourly });
    const m = minute.at(-1)!;
    console.log(
      `  minute cron: ${m.wallMs} ms wall, ${m.workerCpuMs} ms workerd CPU, ${m.roundTrips} RT, ${m.connections} connections, ${m.rowsRead} rows read, ${m.enqueued} enqueued in ${m.sendCalls} sends; hourly: ${hourly.wallMs} ms, ${hourly.workerCpuMs} ms CPU, ${hourly.roundTrips} RT, ${hourly.connections} connections, ${hourly.rowsRead} rows read, ${hourly.enqueued} enqueued in ${hourly.sendCalls} sends`,
    );
    for (const [label, inv] of [...minute.map((x, i) => [`minute ${i + 1}`, x] as const), ["hourly", hourly] as const]) {
      const b = inv.batches;
      if (b)
        console.log(
          `    batches after ${label}: ${JSON.stringify(b.count)}, ${b.messages} messages, ${b.enqueued} enqueued; per batch ${b.wallMsMean} ms wall (max ${b.wallMsMax}), ${b.workerCpuMsPerBatch} ms CPU, ${b.roundTripsPerBatch} RT, ${b.rowsReadPerBatch} rows, ${b.messagesMean} messages, ${b.enqueuedMean} enqueued (max ${b.enqueuedMax})`,
        );
    }
    for (const [name, e] of Object.entries(explain)) console.log(`    ${name}: ${e.ms} ms, ${e.buffers} buffers, ${e.rows} rows`);
  }
  await owner.end();
  await stats.end();
  await stopAll();
  const out = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? "unknown", node: process.version },
    options: { sizes: SIZES, backlog: BACKLOG, minutes: MINUTES, branchesPerTenant: BRANCHES_PER_TENANT, pace: PACE },
    fairness,
    results,
    seconds: Math.round((Date.now() - started) / 1000),
  };
  fs.writeFileSync(RESULTS, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`Results: ${path.relative(ROOT, RESULTS)} (${out.seconds} s).`);
}

process.on("SIGINT", () => void stopAll().finally(() => process.exit(130)));
const watchdog = setTimeout(() => {
  console.error("bench:scale: over 40 minutes, stopping");
  void stopAll().finally(() => process.exit(1));
}, 40 * 60_000);
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
