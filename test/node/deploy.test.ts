import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { offlineProblems, readWranglerToml } from "../../scripts/deploy";
import { APP_ROLE, ROOT, withDatabase } from "../../scripts/lib/database";
import { runCommand } from "../../scripts/lib/run";

/**
 * `npm run deploy` (scripts/deploy.ts) driven as a user runs it, with a fake `wrangler` first on
 * PATH (answering `whoami --json`, `queues list`, `secret list` and `deploy` as wrangler 4 does,
 * from a state file, and logging each call) and a real local Postgres database for the migrations.
 */
const SERVER = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const ALL_SECRETS = [
  "JWT_SECRET",
  "DATABASE_URL",
  "APP_ENCRYPTION_KEY",
  "UPSTASH_REDIS_REST_URL",
  "UPSTASH_REDIS_REST_TOKEN",
  "RESEND_API_KEY",
  "ECF_TRUSTED_CA_PEM",
];
const MIGRATIONS = (JSON.parse(fs.readFileSync(path.join(ROOT, "drizzle/meta/_journal.json"), "utf8")) as { entries: unknown[] }).entries.length;

// The fake: a Node script named `wrangler`. Its `deploy` records how many migrations the database
// had at that moment, so the test sees the order (migrations, then deploy).
const FAKE_WRANGLER = `#!/usr/bin/env node
const fs = require("node:fs");
const { createRequire } = require("node:module");
const state = JSON.parse(fs.readFileSync(process.env.FAKE_WRANGLER_STATE, "utf8"));
const args = process.argv.slice(2);
const record = (entry) => fs.appendFileSync(process.env.FAKE_WRANGLER_LOG, JSON.stringify({ args, ...entry }) + "\\n");
function table(rows) {
  const head = ["id", "name", "created_on", "modified_on", "producers", "consumers"];
  if (!rows.length) return "┌┐\\n└┘";
  const cells = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...cells.map((r) => r[i].length)) + 2);
  const line = (l, m, r) => l + widths.map((w) => "─".repeat(w)).join(m) + r;
  const row = (r) => "│" + r.map((c, i) => (" " + c).padEnd(widths[i])).join("│") + "│";
  return [line("┌", "┬", "┐"), row(head), line("├", "┼", "┤"), ...rows.map(row), line("└", "┴", "┘")].join("\\n");
}
async function main() {
  const command = args.join(" ");
  if (command === "whoami --json") {
    if (!state.loggedIn) { console.log(JSON.stringify({ loggedIn: false })); process.exit(1); }
    console.log(JSON.stringify({ loggedIn: true, authType: "OAuth Token", email: "ops@example.do", accounts: [{ id: "abc", name: "Ops" }] }));
  } else if (args[0] === "queues" && args[1] === "list") {
    const page = Number(args[args.indexOf("--page") + 1] || 1);
    const rows = page === 1 ? state.queues.map((name, i) => ["q" + i, name, "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "1", "1"]) : [];
    console.log(table(rows));
  } else if (command === "secret list --format json") {
    console.log(JSON.stringify(state.secrets.map((name) => ({ name, type: "secret_text" })), null, "  "));
  } else if (args[0] === "deploy") {
    const pg = createRequire(process.env.FAKE_WRANGLER_ROOT + "/package.json")("pg");
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    const { rows } = await client.query("SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations").catch(() => ({ rows: [{ n: 0 }] }));
    await client.end();
    console.log("Total Upload: 1234.56 KiB / gzip: 345.67 KiB");
    record({ migrationsAtDeploy: rows[0].n });
    return;
  } else {
    console.error("fake wrangler: unexpected " + command);
    process.exit(2);
  }
  record({});
}
main().catch((e) => { console.error(e); process.exit(1); });
`;

let dir: string;
let admin: pg.Client;
const databases: string[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "sucursal-deploy-"));
  fs.mkdirSync(path.join(dir, "bin"));
  fs.writeFileSync(path.join(dir, "bin", "wrangler"), FAKE_WRANGLER, { mode: 0o755 });
  admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
});

afterAll(async () => {
  for (const name of databases) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function freshDatabase(): Promise<string> {
  const name = `sucursal_deploy_${Date.now()}_${databases.length}`;
  await admin.query(`CREATE DATABASE ${name}`);
  databases.push(name);
  return withDatabase(SERVER, name);
}

async function appliedMigrations(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ n: number }>("SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations").catch(() => ({ rows: [{ n: 0 }] }))).rows[0]!.n;
  } finally {
    await client.end();
  }
}

interface Run {
  code: number;
  output: string;
  calls: { args: string[]; migrationsAtDeploy?: number }[];
}

async function runDeploy(args: string[], state: { loggedIn: boolean; queues: string[]; secrets: string[] }, databaseUrl: string | undefined): Promise<Run> {
  const stateFile = path.join(dir, `state-${Date.now()}-${Math.random()}.json`);
  const logFile = `${stateFile}.log`;
  fs.writeFileSync(stateFile, JSON.stringify(state));
  fs.writeFileSync(logFile, "");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${path.join(dir, "bin")}${path.delimiter}${process.env.PATH}`,
    FAKE_WRANGLER_STATE: stateFile,
    FAKE_WRANGLER_LOG: logFile,
    FAKE_WRANGLER_ROOT: ROOT,
    // Blank is unset, for the script as for the Worker.
    DATABASE_URL: databaseUrl ?? "",
  };
  const result = await runCommand(path.join(ROOT, "node_modules", ".bin", "tsx"), ["scripts/deploy.ts", ...args], { cwd: ROOT, env });
  const calls = fs
    .readFileSync(logFile, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Run["calls"][number]);
  return { code: result.code, output: result.stdout + result.stderr, calls };
}

describe("npm run deploy", () => {
  it("a missing queue: says which and how to create it, exits 1, migrates and deploys nothing", async () => {
    const url = await freshDatabase();
    const run = await runDeploy([], { loggedIn: true, queues: ["outbox", "rnc-sync"], secrets: ALL_SECRETS }, url);
    expect(run.code, run.output).toBe(1);
    expect(run.output).toContain("Not deployed: 1 thing to fix first.");
    expect(run.output).toContain('✗ queue "ecf" does not exist: run `npx wrangler queues create ecf`');
    expect(run.output).toContain("✓ secrets: JWT_SECRET, DATABASE_URL");
    // The list is paged: page 2 (empty) was read before concluding the queue is missing.
    expect(run.calls.map((call) => call.args.join(" "))).toEqual([
      "whoami --json",
      "queues list --page 1",
      "queues list --page 2",
      "secret list --format json",
    ]);
    expect(await appliedMigrations(url)).toBe(0);
  });

  it("every missing thing at once, each with its command: login, secrets, the owner's DATABASE_URL", async () => {
    const loggedOut = await runDeploy([], { loggedIn: false, queues: [], secrets: [] }, undefined);
    expect(loggedOut.code).toBe(1);
    expect(loggedOut.output).toContain("Not deployed: 2 things to fix first.");
    expect(loggedOut.output).toContain("✗ wrangler is not logged in: run `npx wrangler login`");
    expect(loggedOut.output).toContain("✗ DATABASE_URL is not set in this shell: export the database owner's connection string");

    const noSecrets = await runDeploy([], { loggedIn: true, queues: ["outbox", "ecf", "rnc-sync"], secrets: ["JWT_SECRET", "DATABASE_URL"] }, undefined);
    expect(noSecrets.code).toBe(1);
    expect(noSecrets.output).toContain("Not deployed: 6 things to fix first.");
    expect(noSecrets.output).toContain("✗ secret APP_ENCRYPTION_KEY is not set: openssl rand -base64 32 | npx wrangler secret put APP_ENCRYPTION_KEY");
    expect(noSecrets.output).toContain("✗ secret ECF_TRUSTED_CA_PEM is not set: cat indotel-accredited-cas.pem | npx wrangler secret put ECF_TRUSTED_CA_PEM");
    for (const name of ["UPSTASH_REDIS_REST_URL", "UPSTASH_REDIS_REST_TOKEN", "RESEND_API_KEY"]) {
      expect(noSecrets.output).toContain(`✗ secret ${name} is not set: npx wrangler secret put ${name}`);
    }
    expect(noSecrets.output).toContain("✓ queues: outbox, rnc-sync, ecf");
    expect(noSecrets.calls.some((call) => call.args[0] === "deploy")).toBe(false);
  });

  it("refuses the Worker's own role as the migrations' DATABASE_URL", async () => {
    const url = await freshDatabase();
    await admin.query(
      `DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${APP_ROLE}') THEN CREATE ROLE ${APP_ROLE} NOLOGIN NOBYPASSRLS; END IF; END $$`,
    );
    await admin.query(`ALTER ROLE ${APP_ROLE} LOGIN`);
    const asApp = new URL(url);
    asApp.username = APP_ROLE;
    const run = await runDeploy([], { loggedIn: true, queues: ["outbox", "ecf", "rnc-sync"], secrets: ALL_SECRETS }, asApp.toString());
    expect(run.code).toBe(1);
    expect(run.output).toContain(`logs in as ${APP_ROLE}, the Worker's role, which may not change the schema`);
    expect(await appliedMigrations(url)).toBe(0);
  });

  it("everything present: the migrations are applied as the owner, then wrangler deploy runs", async () => {
    const url = await freshDatabase();
    const run = await runDeploy([], { loggedIn: true, queues: ["outbox", "ecf", "rnc-sync"], secrets: ALL_SECRETS }, url);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain(`as postgres (the owner, for migrations); 0 migrations applied`);
    expect(run.output).toContain("✓ migrations applied");
    expect(await appliedMigrations(url)).toBe(MIGRATIONS);
    const deployCall = run.calls.find((call) => call.args[0] === "deploy");
    expect(deployCall?.args).toEqual(["deploy"]);
    // When wrangler deploy ran, every migration was already there.
    expect(deployCall?.migrationsAtDeploy).toBe(MIGRATIONS);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const invoices = await client.query<{ t: string | null }>("SELECT to_regclass('public.invoices')::text AS t");
    await client.end();
    expect(invoices.rows[0]!.t).toBe("invoices");

    // Again: nothing left to migrate, deploy again.
    const again = await runDeploy([], { loggedIn: true, queues: ["outbox", "ecf", "rnc-sync"], secrets: ALL_SECRETS }, url);
    expect(again.code).toBe(0);
    expect(again.output).toContain(`${MIGRATIONS} migrations applied`);
  });

  it("--help prints the usage and exits 0; an unknown option is one line and exit 2, nothing run (issue 44)", async () => {
    const help = await runDeploy(["--help"], { loggedIn: true, queues: [], secrets: [] }, undefined);
    expect(help.code).toBe(0);
    expect(help.output).toMatch(/^Usage: npm run deploy \[-- --dry-run\]\n/);
    const unknown = await runDeploy(["--dryrun"], { loggedIn: true, queues: [], secrets: [] }, undefined);
    expect(unknown.code).toBe(2);
    expect(unknown.output).toBe("Unknown option '--dryrun' (--help for the usage)\n");
    expect([...help.calls, ...unknown.calls]).toEqual([]);
  });

  it("--dry-run offline (not logged in): still checks wrangler.toml, the database and the build, and lists every problem at once (issue 44)", async () => {
    const url = await freshDatabase();
    const run = await runDeploy(["--dry-run"], { loggedIn: false, queues: [], secrets: [] }, url);
    expect(run.code, run.output).toBe(1);
    expect(run.output).toContain(
      "✓ wrangler.toml: queues outbox (OUTBOX_QUEUE), rnc-sync (RNC_SYNC_QUEUE), ecf (ECF_QUEUE) produced and consumed; no secret among its vars",
    );
    expect(run.output).toContain('✓ crons: "0 6 * * SUN", "* * * * *", "0 * * * *"');
    expect(run.output).toContain("(the owner, for migrations); 0 migrations applied");
    expect(run.output).toContain("✓ build: the Worker builds as a deploy would upload it");
    expect(run.output).toContain("Not deployed: 1 thing to fix first.");
    expect(run.output).toContain(
      "✗ wrangler is not logged in: run `npx wrangler login` (or set CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID); until then whether the queues (outbox, rnc-sync, ecf) exist and the secrets (JWT_SECRET, DATABASE_URL,",
    );
    // (The fake records whoami only when logged in.)
    expect(run.calls.map((call) => call.args.join(" "))).toEqual(["deploy --dry-run"]);
    expect(await appliedMigrations(url)).toBe(0);
  });

  it("--dry-run: the checks, then wrangler deploy --dry-run, nothing migrated", async () => {
    const url = await freshDatabase();
    const run = await runDeploy(["--dry-run"], { loggedIn: true, queues: ["outbox", "ecf", "rnc-sync"], secrets: ALL_SECRETS }, url);
    expect(run.code, run.output).toBe(0);
    expect(run.calls.filter((call) => call.args[0] === "deploy").map((call) => call.args)).toEqual([["deploy", "--dry-run"]]);
    expect(await appliedMigrations(url)).toBe(0);
  });
});

describe("npm run deploy's offline checks of wrangler.toml (issue 44)", () => {
  const toml = fs.readFileSync(path.join(ROOT, "wrangler.toml"), "utf8");

  it("the project's wrangler.toml passes", () => {
    expect(offlineProblems(readWranglerToml(toml))).toEqual([]);
  });

  it("a queue without its consumer, a binding missing and a secret among the vars are each a problem", () => {
    const broken = toml
      .replace(/\[\[queues\.consumers\]\]\nqueue = "ecf"/, '[[queues.consumers]]\nqueue = "ecf-old"')
      .replace('binding = "RNC_SYNC_QUEUE"', 'binding = "RNC_QUEUE"')
      .replace("[vars]\n", '[vars]\nJWT_SECRET = "in-clear"\n');
    expect(offlineProblems(readWranglerToml(broken))).toEqual([
      'wrangler.toml binds no queue as RNC_SYNC_QUEUE ([[queues.producers]] binding = "RNC_SYNC_QUEUE"): the Worker sends on it',
      'wrangler.toml has no [[queues.consumers]] for queue "ecf" (ECF_QUEUE): what is sent on it would never be taken',
      "wrangler.toml's [vars] has JWT_SECRET, a secret: remove it and run openssl rand -base64 48 | npx wrangler secret put JWT_SECRET",
    ]);
  });
});
