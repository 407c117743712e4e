/**
 * npm run dev: Postgres (DATABASE_URL, else embedded PGlite with data in .dev-data/), the local
 * relays, migrations, the demo tenant, then `wrangler dev` with wrangler.toml's crons fired on
 * their minutes (`--no-cron` turns them off); prints a curl to try. Ctrl-C stops all.
 */

import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { eq } from "drizzle-orm";
import pg from "pg";
import * as schema from "../src/db/schema";
import { dominicanToday } from "../src/lib/dates";
import { issueAccessToken } from "../src/modules/auth/service";
import { createTenant } from "../src/modules/tenants/service";
import { readWranglerToml } from "./deploy";
import { startFakeDgii } from "./fake-dgii";
import { command, commandLine, isMain } from "./lib/args";
import { type Authority, makeCertificate } from "./lib/certificates";
import { type CronRunner, fireThroughWranglerDev, startCronRunner } from "./lib/crons";
import { type DatabaseTarget, freePort, portAnswers, ROOT, runMigrations, startEmbedded } from "./lib/database";
import { seedDemoData } from "./lib/demo-data";
import { DEV_DATA_DIR, DEV_STATE_FILE } from "./lib/local-database";
import { localAuthority, localEncryptionKey, localJwtSecret } from "./lib/secrets";
import { type SqlHttp, startSqlHttp } from "./lib/sql-http";
import { inOwnerTransaction } from "./lib/tenants";
import { startUpstashRelay, type UpstashRelay } from "./lib/upstash-relay";
import { startWsRelay, type WsRelay } from "./lib/ws-relay";

export const COMMAND = command({
  usage: `Usage: npm run dev [-- --port N] [--no-cron]

The API on wrangler dev (port --port, else PORT, else 8787) with a migrated, seeded database
(DATABASE_URL, else an embedded Postgres kept in .dev-data/), the local relays, the DGII stand-in
(unless DGII_ECF_BASE_URL is set) and the demo tenant; prints curl commands with a fresh token.
--no-cron: wrangler.toml's crons do not fire on their minutes. Every setting of README's
Configuration set in the shell reaches the Worker for this run only. Ctrl-C stops everything.`,
  options: { port: { type: "string" }, "no-cron": { type: "boolean" } },
});

/** `npm run dev -- --port 8790` (or `--port=8790`), else PORT, else 8787. */
export function devPort(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): number {
  const at = argv.findIndex((arg) => arg === "--port" || arg.startsWith("--port="));
  const given = at === -1 ? env.PORT : argv[at]!.includes("=") ? argv[at]!.slice("--port=".length) : argv[at + 1];
  const port = Number(given ?? 8787);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error(`Not a port: ${given}`);
  return port;
}

/** `npm run dev -- --no-cron`: wrangler dev fires no cron, as before issue 43 (a sweep is then run by hand). */
export function devCrons(argv: readonly string[]): boolean {
  return !argv.includes("--no-cron");
}

const PORT = devPort(process.argv.slice(2), process.env);
const CRONS = devCrons(process.argv.slice(2));
const DEMO = {
  subdomain: "demo",
  name: "Demo SRL",
  adminEmail: "admin@demo.do",
  adminPassword: "demo-password",
  adminName: "Demo Admin",
  // A complete fiscal profile (made up; the RNC only has a valid check digit) and demo NCF ranges.
  rnc: "131246796",
  legalName: "Demo SRL",
  address: "Av. Winston Churchill 1099, Santo Domingo",
  demoSequences: true,
};

async function openDatabase(): Promise<DatabaseTarget> {
  if (process.env.DATABASE_URL) {
    const url = process.env.DATABASE_URL;
    const parsed = new URL(url);
    await runMigrations(url);
    return {
      kind: "external",
      ownerUrl: url,
      appUrl: url,
      setRole: "sucursal_app",
      tcpAddress: `${parsed.hostname}:${parsed.port || 5432}`,
      stop: async () => undefined,
    };
  }
  fs.mkdirSync(DEV_DATA_DIR, { recursive: true });
  const target = await startEmbedded(DEV_DATA_DIR, await freePort());
  fs.writeFileSync(DEV_STATE_FILE, JSON.stringify({ embeddedPort: Number(target.tcpAddress.split(":")[1]), pid: process.pid }));
  await runMigrations(target.ownerUrl);
  return target;
}

async function demoToken(ownerUrl: string, jwtSecret: string): Promise<string> {
  return inOwnerTransaction(ownerUrl, async (db) => {
    let [tenant] = await db.select().from(schema.tenants).where(eq(schema.tenants.subdomain, DEMO.subdomain));
    let userId: number;
    if (!tenant) {
      const created = await createTenant(db, DEMO);
      userId = created.user.id;
      console.log(`Created the demo tenant "${DEMO.subdomain}" (admin ${DEMO.adminEmail} / ${DEMO.adminPassword}).`);
    } else {
      const [admin] = await db.select().from(schema.users).where(eq(schema.users.email, DEMO.adminEmail));
      if (!admin) throw new Error("the demo tenant exists but its admin is missing");
      userId = admin.id;
    }
    [tenant] = await db.select().from(schema.tenants).where(eq(schema.tenants.subdomain, DEMO.subdomain));
    const { token } = await issueAccessToken(db, jwtSecret, { tenantId: tenant!.id, userId, name: "npm run dev" });
    return token;
  });
}

/** KEY="value" lines as wrangler's dotenv reads them: quoted, newlines as \n, and `$` escaped (it expands `$NAME` in an env file). */
function devVars(values: Record<string, string | undefined>): string {
  return Object.entries(values)
    .filter(([, v]) => v !== undefined && v !== "")
    .map(([k, v]) => `${k}=${JSON.stringify(v).replaceAll("$", "\\$")}`)
    .join("\n");
}

async function waitForHealth(child: ChildProcess): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error("wrangler dev exited");
    try {
      const res = await fetch(`http://127.0.0.1:${PORT}/health`);
      if (res.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("wrangler dev did not answer /health within 150 s");
}

/**
 * The demo tenant's API as its admin, through wrangler dev. The tenant is picked by the Host header,
 * which fetch does not let a caller set, hence node:http.
 */
function demoApi(
  token: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: { data?: unknown; meta?: { total?: number }; code?: string } }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port: PORT,
        method,
        path: `/api/v1${path}`,
        headers: { Host: `${DEMO.subdomain}.localhost:${PORT}`, Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** The demo's e-CF sequences: made-up ranges like its B-series ones, authorized for the local DGII. */
const DEMO_ECF_SEQUENCES = [
  { prefix: "E31", name: "Crédito Fiscal Electrónico", type: "invoice" },
  { prefix: "E32", name: "Consumo Electrónico", type: "invoice" },
  { prefix: "E34", name: "Nota de Crédito Electrónica", type: "credit_note" },
  { prefix: "E33", name: "Nota de Débito Electrónica", type: "debit_note" },
] as const;

/**
 * Since May 2026 a business that cannot issue e-CF cannot invoice, so the demo can: with the local
 * DGII stand-in only, the demo tenant gets a certificate in its RNC's name from the local
 * certification authority (kept in .dev-data/, trusted by the Worker as ECF_TRUSTED_CA_PEM and by
 * the stand-in), e-CF on in DGII's test environment, and E31/E32/E33/E34 sequences. Done once: a
 * later start finds them.
 */
async function demoEcf(token: string, authority: Authority): Promise<void> {
  const expect = (what: string, res: { status: number; body: unknown }, status: number) => {
    if (res.status !== status) throw new Error(`demo e-CF: ${what} answered ${res.status}: ${JSON.stringify(res.body)}`);
  };
  const current = await demoApi(token, "GET", "/ecf/certificate");
  if (current.status === 404) {
    const cert = await makeCertificate({ commonName: DEMO.legalName.toUpperCase(), holderId: DEMO.rnc, authority });
    expect("PUT /ecf/certificate", await demoApi(token, "PUT", "/ecf/certificate", { p12_base64: cert.p12Base64, password: cert.password }), 200);
    expect("PUT /ecf/settings", await demoApi(token, "PUT", "/ecf/settings", { environment: "testecf", enabled: true }), 200);
    console.log("Gave the demo tenant an e-CF certificate of the local certification authority (trusted locally only) and turned e-CF on.");
  } else expect("GET /ecf/certificate", current, 200);
  const listed = await demoApi(token, "GET", "/document-subtypes?per_page=100");
  expect("GET /document-subtypes", listed, 200);
  const prefixes = new Set((listed.body.data as { prefix: string }[]).map((subtype) => subtype.prefix));
  for (const sequence of DEMO_ECF_SEQUENCES) {
    if (prefixes.has(sequence.prefix)) continue;
    const created = await demoApi(token, "POST", "/document-subtypes", {
      ...sequence,
      start_number: 1,
      end_number: 99_999_999,
      valid_until: `${new Date().getUTCFullYear() + 1}-12-31`,
      authorization_number: "DEMO-ECF",
      // DGII's dates are Dominican (UTC−4): from 20:00 there, the UTC date is already tomorrow and
      // the demo's invoices of today would predate their sequence's authorization.
      authorized_at: dominicanToday(),
    });
    expect(`POST /document-subtypes ${sequence.prefix}`, created, 201);
  }
}

/**
 * Every setting README's "Configuration" table lists (its bindings aside): set in this shell, it
 * reaches the Worker as given, for this run only. wrangler gives the Worker the values of an env
 * file, never the shell's, so each is written to this run's file (devVarsPath);
 * test/node/dev-vars.test.ts holds this list to the README.
 */
export const CONFIGURATION_VARIABLES = [
  "DATABASE_URL",
  "DB_SET_ROLE",
  "DB_WS_PROXY",
  "DB_HTTP_ENDPOINT",
  "JWT_SECRET",
  "ACCESS_TOKEN_TTL_DAYS",
  "UPSTASH_REDIS_REST_URL",
  "UPSTASH_REDIS_REST_TOKEN",
  "RATE_LIMIT_AUTHENTICATED_PER_MINUTE",
  "RATE_LIMIT_ANONYMOUS_PER_MINUTE",
  "RATE_LIMIT_WEBHOOK_PER_MINUTE",
  "RATE_LIMIT_RECEIVER_PER_IP_PER_MINUTE",
  "RATE_LIMIT_NAMESPACE",
  "RESEND_API_KEY",
  "RESEND_BASE_URL",
  "EMAIL_FROM",
  "APP_URL",
  "APP_ENCRYPTION_KEY",
  "TELEGRAM_API_BASE",
  "GRAPH_API_BASE",
  "TAX_AUTHORITY_DATA_URL",
  "DGII_ECF_BASE_URL",
  "DGII_FC_BASE_URL",
  "DGII_STATUS_BASE_URL",
  "DGII_STATUS_API_KEY",
  "WEBHOOKS_ALLOW_HTTP_LOOPBACK",
  "WEBHOOKS_DNS_RESOLVER_URL",
  "ECF_TRUSTED_CA_PEM",
  "ALERT_DEFERRED_HOURS_LEFT",
  "ALERT_DGII_DOWN_HOURS",
  "CONTINGENCY_LIMIT_HOURS",
  "ALERT_CONTINGENCY_HOURS_LEFT",
  "ECF_SENDS_PER_MINUTE",
] as const;

/** This run's vars: what `npm run dev` set up (the local database, relays, secrets, DGII stand-in), overridden by whatever this shell sets. */
export function devVarsFile(local: Record<string, string | undefined>, env: Readonly<Record<string, string | undefined>>): string {
  const fromShell = Object.fromEntries(CONFIGURATION_VARIABLES.map((name) => [name, env[name]]).filter(([, value]) => value !== undefined && value !== ""));
  return `${devVars({ ...local, ...fromShell })}\n`;
}

/** This run's vars file, under .dev-data/ (git-ignored), named by the run's process so two runs never share one. */
export function devVarsPath(pid: number): string {
  return path.join(ROOT, ".dev-data", `run-${pid}.vars`);
}

/** The vars files of earlier runs whose process is gone (one killed before it could remove its own). */
function removeStaleVarsFiles(): void {
  const dir = path.dirname(devVarsPath(0));
  for (const name of fs.readdirSync(dir)) {
    const pid = /^run-(\d+)\.vars$/.exec(name)?.[1];
    if (pid && !processAlive(Number(pid))) fs.rmSync(path.join(dir, name), { force: true });
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * `wrangler dev` reading only this run's file: given --env-file, wrangler skips .dev.vars (and
 * .env), so neither a developer's own file nor an older run's leaks in.
 */
export function wranglerDevArgs(port: number, varsFile: string): string[] {
  return ["dev", "--port", String(port), "--ip", "127.0.0.1", "--env-file", varsFile];
}

/** The env file is read as given: not skipped (…_FROM_DOT_ENV), and not topped up with the whole shell (…_PROCESS_ENV: PATH, HOME…). */
export const WRANGLER_DEV_ENV = { CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV: "true", CLOUDFLARE_INCLUDE_PROCESS_ENV: "false" } as const;

async function main() {
  const database = await openDatabase();
  const wsRelay: WsRelay = await startWsRelay();
  const sqlHttp: SqlHttp = await startSqlHttp();
  const upstash: UpstashRelay | null = (await portAnswers("127.0.0.1", 6379)) ? await startUpstashRelay() : null;
  // DGII's e-CF services: the local stand-in unless this shell points at real ones.
  // Its certification authority stands in for INDOTEL's accredited ones: the stand-in's other
  // taxpayers sign with certificates it issues, and the Worker trusts it (unless this shell names its own).
  const authority = process.env.DGII_ECF_BASE_URL ? null : await localAuthority();
  const fakeDgii = authority ? await startFakeDgii({ authority }) : null;
  const jwtSecret = localJwtSecret();
  const token = await demoToken(database.ownerUrl, jwtSecret);

  // This run's values, in a file of its own that ends with it: never .dev.vars, which the next run
  // (whose shell may set nothing) would read, and a test run too if it read that file (issue 44).
  const varsFile = devVarsPath(process.pid);
  fs.mkdirSync(path.dirname(varsFile), { recursive: true });
  removeStaleVarsFiles();
  fs.writeFileSync(
    varsFile,
    devVarsFile(
      {
        DATABASE_URL: database.appUrl,
        DB_SET_ROLE: database.setRole,
        DB_WS_PROXY: wsRelay.url,
        DB_HTTP_ENDPOINT: sqlHttp.url,
        JWT_SECRET: jwtSecret,
        UPSTASH_REDIS_REST_URL: upstash?.url,
        UPSTASH_REDIS_REST_TOKEN: upstash?.token,
        APP_URL: `http://demo.localhost:${PORT}`,
        APP_ENCRYPTION_KEY: localEncryptionKey(),
        DGII_ECF_BASE_URL: fakeDgii?.url,
        DGII_FC_BASE_URL: fakeDgii?.url,
        // DGII's status service: the stand-in's, with a key of its own, so the minute sweep runs locally.
        DGII_STATUS_BASE_URL: fakeDgii?.url,
        DGII_STATUS_API_KEY: fakeDgii ? "local-dev-key" : undefined,
        ECF_TRUSTED_CA_PEM: authority?.certificatePem,
        // The stand-in's receivers of other taxpayers are on loopback, over http.
        WEBHOOKS_ALLOW_HTTP_LOOPBACK: fakeDgii ? "true" : undefined,
      },
      process.env,
    ),
    { mode: 0o600 },
  );

  const wrangler = spawn(path.join(ROOT, "node_modules", ".bin", "wrangler"), wranglerDevArgs(PORT, varsFile), {
    cwd: ROOT,
    stdio: ["ignore", "inherit", "inherit"],
    env: {
      ...process.env,
      ...WRANGLER_DEV_ENV,
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      WRANGLER_HIDE_BANNER: "true",
      XDG_CONFIG_HOME: path.join(ROOT, ".config"),
    },
  });

  let stopping = false;
  let crons: CronRunner | null = null;
  const stop = async (code = 0) => {
    if (stopping) return;
    stopping = true;
    crons?.stop();
    wrangler.kill("SIGTERM");
    // First: a second Ctrl-C may end this process before the awaits below do.
    fs.rmSync(varsFile, { force: true });
    await upstash?.close().catch(() => undefined);
    await wsRelay.close().catch(() => undefined);
    await sqlHttp.close().catch(() => undefined);
    await fakeDgii?.close().catch(() => undefined);
    await database.stop().catch(() => undefined);
    fs.rmSync(DEV_STATE_FILE, { force: true });
    process.exit(code);
  };
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
  wrangler.on("exit", (code) => void stop(code ?? 0));

  // A failure from here on stops wrangler and the relays too, rather than leaving them running.
  try {
    await waitForHealth(wrangler);
    // Production's clock (issue 43): every schedule of wrangler.toml on its minute, so held e-CF go
    // out, DGII's status is read, alerts are raised, as they would be once deployed.
    const schedules = readWranglerToml(fs.readFileSync(path.join(ROOT, "wrangler.toml"), "utf8")).crons;
    const cronNote = CRONS
      ? `Crons: wrangler.toml's ${schedules.map((cron) => `"${cron}"`).join(", ")} fire on their minute (UTC) through /cdn-cgi/handler/scheduled; --no-cron turns them off.`
      : `Crons: off (--no-cron); a sweep runs with curl 'http://127.0.0.1:${PORT}/cdn-cgi/handler/scheduled?cron=*+*+*+*+*'.`;
    if (CRONS) {
      crons = startCronRunner({
        crons: schedules,
        fire: (cron, time) => fireThroughWranglerDev(`http://127.0.0.1:${PORT}`, cron, time),
        onError: (cron, error) => console.error(`cron "${cron}" failed: ${error instanceof Error ? error.message : String(error)}`),
      });
    }
    console.log(cronNote);
    if (authority) {
      await demoEcf(token, authority);
      const seeded = await seedDemoData(
        (method, apiPath, body, headers) => demoApi(token, method, apiPath, body, headers),
        (invoiceId) => ecfOutcome(database.ownerUrl, invoiceId),
      );
      if (seeded)
        console.log(
          "Gave the demo tenant products with stock in two branches, customers, a supplier, an E31 (accepted by the local DGII), an E32 (its consumer lookup page: /consulta), a B02, a quotation and a purchase.",
        );
    }
    const e31 = await demoE31(database.ownerUrl);
    const curl = `curl -s -H 'Host: demo.localhost:${PORT}' -H 'Authorization: Bearer ${token}'`;
    console.log(`
Sucursal is running on http://127.0.0.1:${PORT} (database: ${database.kind}; rate limits: ${upstash ? "Redis" : "in memory"}; DGII: ${fakeDgii ? `local stand-in at ${fakeDgii.url}` : process.env.DGII_ECF_BASE_URL}).
Try:

  ${curl} http://127.0.0.1:${PORT}/api/v1/me
  ${curl} 'http://127.0.0.1:${PORT}/api/v1/invoices?sort=-created_at'
${e31 ? `  ${curl} -o factura-e31.pdf http://127.0.0.1:${PORT}/api/v1/invoices/${e31}/pdf\n` : ""}
OpenAPI: http://127.0.0.1:${PORT}/api/v1/openapi.json (send Host: demo.localhost:${PORT}).
${cronNote}
Ctrl-C stops everything.
`);
  } catch (error) {
    console.error(error);
    await stop(1);
  }
}

/** Reads the owner's database once, then ends the connection. */
async function ownerQuery<T extends pg.QueryResultRow>(ownerUrl: string, text: string, values: unknown[]): Promise<T[]> {
  const client = new pg.Client({ connectionString: ownerUrl });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** The status the invoice's e-CF ends in at the local DGII (the Worker's queue sends it, then queries the result), within a minute. */
async function ecfOutcome(ownerUrl: string, invoiceId: number): Promise<string> {
  let status = "missing";
  for (let i = 0; i < 120; i++) {
    const [row] = await ownerQuery<{ status: string }>(ownerUrl, "SELECT status FROM ecf_documents WHERE invoice_id = $1", [invoiceId]);
    status = row?.status ?? "missing";
    if (!["missing", "pending", "in_process"].includes(status)) return status;
    await new Promise((r) => setTimeout(r, 500));
  }
  return status;
}

/** The demo tenant's first E31 invoice, whose PDF the printed curl fetches. */
async function demoE31(ownerUrl: string): Promise<number | null> {
  const [row] = await ownerQuery<{ id: number }>(
    ownerUrl,
    "SELECT e.invoice_id AS id FROM ecf_documents e JOIN tenants t ON t.id = e.tenant_id WHERE t.subdomain = $1 AND e.encf LIKE 'E31%' AND e.invoice_id IS NOT NULL ORDER BY e.id LIMIT 1",
    [DEMO.subdomain],
  );
  return row?.id ?? null;
}

// Run as a script (npm run dev); imported by its test, it only lends its functions.
if (isMain(import.meta.url)) {
  commandLine(COMMAND);
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
