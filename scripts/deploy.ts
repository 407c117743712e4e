/**
 * npm run deploy [-- --dry-run]: checks everything production needs, then migrates and deploys.
 *
 * Checks first, and acts only when all pass: wrangler is logged in, the queues wrangler.toml binds
 * exist, the Worker's secrets are set, wrangler.toml has the crons the Worker dispatches on, and
 * this shell's DATABASE_URL is the database's owner (the role that runs migrations, never
 * `sucursal_app`). Each missing thing is reported with the command that creates it, and nothing is
 * deployed. Then: the migrations of drizzle/ as that owner, then `wrangler deploy`. With
 * `--dry-run`: the checks and `wrangler deploy --dry-run` (a build, nothing uploaded, nothing
 * migrated) whatever they find; offline, what needs no account (wrangler.toml's queues, secrets and
 * crons, the database, the build) is still checked, and every problem is listed together.
 * docs/operations.md walks the whole production setup.
 */

import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { command, isMain, parseCommandLine } from "./lib/args";
import { APP_ROLE, ROOT, runMigrations } from "./lib/database";
import { type CommandResult, runCommand } from "./lib/run";

/**
 * The secrets the Worker needs in production (src/env.ts): the two it refuses to start without, and
 * those without which a feature is off or degraded in a way production must not be (rate limits per
 * isolate, emails never sent, integrations refusing, every supplier's e-CF refused).
 */
export const REQUIRED_SECRETS: { name: string; how: string }[] = [
  { name: "JWT_SECRET", how: "openssl rand -base64 48 | npx wrangler secret put JWT_SECRET" },
  { name: "DATABASE_URL", how: `npx wrangler secret put DATABASE_URL   # the ${APP_ROLE} role, on Neon's pooled (-pooler) host` },
  { name: "APP_ENCRYPTION_KEY", how: "openssl rand -base64 32 | npx wrangler secret put APP_ENCRYPTION_KEY" },
  { name: "UPSTASH_REDIS_REST_URL", how: "npx wrangler secret put UPSTASH_REDIS_REST_URL   # Upstash console, the database's REST URL" },
  { name: "UPSTASH_REDIS_REST_TOKEN", how: "npx wrangler secret put UPSTASH_REDIS_REST_TOKEN   # Upstash console, the REST token" },
  { name: "RESEND_API_KEY", how: "npx wrangler secret put RESEND_API_KEY   # Resend, API keys" },
  {
    name: "ECF_TRUSTED_CA_PEM",
    how: "cat indotel-accredited-cas.pem | npx wrangler secret put ECF_TRUSTED_CA_PEM   # the PEM bundle of INDOTEL's accredited CAs",
  },
];

/** The every-minute sweeps (src/jobs/outbox.ts OUTBOX_SWEEP_CRON), the hourly e-CF alerts (src/jobs/ecf-alerts.ts) and the weekly RNC sync (src/jobs/scheduled.ts). */
const REQUIRED_CRONS = ["* * * * *", "0 * * * *"];

/** How the script reaches the outside: replaced in tests. */
export interface DeployIO {
  /** Runs an external command; `inherit` streams its output to the user (the deploy itself). */
  run(command: string, args: string[], options?: { inherit?: boolean }): Promise<CommandResult>;
  /** The owner's database: its role and what it may do, or the connection error. */
  inspectDatabase(url: string): Promise<DatabaseFacts>;
  migrate(url: string): Promise<void>;
  env: Record<string, string | undefined>;
  out(line: string): void;
  /** A usage error, to stderr. */
  err(line: string): void;
  /** wrangler.toml's text. */
  wranglerToml: string;
}

export interface DatabaseFacts {
  role: string;
  superuser: boolean;
  createRole: boolean;
  /** Whether `sucursal_app` exists already (migration 0001 creates it, which needs CREATEROLE). */
  appRoleExists: boolean;
  /** Owner of the schema public: who may create and alter its tables. */
  schemaOwner: string;
  applied: number;
}

/** The queue bindings the Worker sends on (src/env.ts), each consumed by it too (src/jobs/queue.ts). */
const QUEUE_BINDINGS = ["OUTBOX_QUEUE", "RNC_SYNC_QUEUE", "ECF_QUEUE"];

/** What wrangler.toml names: the Worker, its queues (producers and consumers), its crons, its plain vars. Only the keys this script reads. */
export function readWranglerToml(text: string): {
  name: string | null;
  queues: string[];
  producers: { binding: string; queue: string }[];
  consumers: string[];
  crons: string[];
  vars: string[];
} {
  const body = text.replace(/#.*$/gm, "");
  const name = /^\s*name\s*=\s*"([^"]+)"/m.exec(body)?.[1] ?? null;
  const queues = [...new Set([...body.matchAll(/^\s*queue\s*=\s*"([^"]+)"/gm)].map((m) => m[1]!))];
  const cronList = /^\s*crons\s*=\s*\[([^\]]*)\]/m.exec(body)?.[1] ?? "";
  const crons = [...cronList.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
  // Each table up to the next header: [[queues.producers]] binding + queue, [[queues.consumers]] queue, [vars] keys.
  const tables = body.split(/^(?=\s*\[)/m).map((table) => ({ header: /^\s*(\[\[?[^\]]+\]\]?)/.exec(table)?.[1] ?? "", table }));
  const value = (table: string, key: string) => new RegExp(`^\\s*${key}\\s*=\\s*"([^"]+)"`, "m").exec(table)?.[1];
  const producers = tables
    .filter((t) => t.header === "[[queues.producers]]")
    .map((t) => ({ binding: value(t.table, "binding") ?? "", queue: value(t.table, "queue") ?? "" }));
  const consumers = tables.filter((t) => t.header === "[[queues.consumers]]").map((t) => value(t.table, "queue") ?? "");
  const varsTable = tables.find((t) => t.header === "[vars]")?.table ?? "";
  const vars = [...varsTable.matchAll(/^\s*([A-Z][A-Z0-9_]*)\s*=/gm)].map((m) => m[1]!);
  return { name, queues, producers, consumers, crons, vars };
}

/**
 * What wrangler.toml must say of queues and secrets, read offline: a producer for each binding the
 * Worker sends on, a consumer for each of those queues, and no secret written as a plain var (it
 * would be uploaded in clear and shadow the secret).
 */
export function offlineProblems(toml: ReturnType<typeof readWranglerToml>): string[] {
  const problems: string[] = [];
  for (const binding of QUEUE_BINDINGS) {
    const producer = toml.producers.find((p) => p.binding === binding);
    if (!producer) problems.push(`wrangler.toml binds no queue as ${binding} ([[queues.producers]] binding = "${binding}"): the Worker sends on it`);
    else if (!toml.consumers.includes(producer.queue))
      problems.push(`wrangler.toml has no [[queues.consumers]] for queue "${producer.queue}" (${binding}): what is sent on it would never be taken`);
  }
  for (const secret of REQUIRED_SECRETS)
    if (toml.vars.includes(secret.name)) problems.push(`wrangler.toml's [vars] has ${secret.name}, a secret: remove it and run ${secret.how}`);
  return problems;
}

/** Queue names in `wrangler queues list`'s table (its second column, "name"). */
export function queueNamesOf(table: string): string[] {
  const names: string[] = [];
  for (const line of table.split("\n")) {
    const cells = line.split("│").map((cell) => cell.trim());
    // A data row: "│ id │ name │ created_on │ …": the border character first and last.
    if (cells.length < 4 || cells[2] === "name") continue;
    if (cells[2]) names.push(cells[2]);
  }
  return names;
}

function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "****";
    return `${parsed.username}@${parsed.host}${parsed.pathname}`;
  } catch {
    return "(not a URL)";
  }
}

/** The checks; each problem is a line saying what is missing and the command that fixes it. */
export async function check(io: DeployIO): Promise<{ problems: string[]; ownerUrl: string | null }> {
  const problems: string[] = [];
  const toml = readWranglerToml(io.wranglerToml);

  // What needs no account first: a dry run offline still reaches these (issue 44).
  const offline = offlineProblems(toml);
  problems.push(...offline);
  if (!offline.length)
    io.out(`✓ wrangler.toml: queues ${toml.producers.map((p) => `${p.queue} (${p.binding})`).join(", ")} produced and consumed; no secret among its vars`);

  const whoami = await io.run("wrangler", ["whoami", "--json"]);
  let loggedIn = false;
  try {
    loggedIn = whoami.code === 0 && (JSON.parse(whoami.stdout) as { loggedIn?: boolean }).loggedIn === true;
  } catch {
    loggedIn = false;
  }
  if (!loggedIn) {
    problems.push(
      `wrangler is not logged in: run \`npx wrangler login\` (or set CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID); until then whether the queues (${toml.queues.join(", ")}) exist and the secrets (${REQUIRED_SECRETS.map((secret) => secret.name).join(", ")}) are set cannot be checked`,
    );
  } else {
    io.out("✓ wrangler is logged in");
    // The queues list is paged: read pages until every queue is found or a page comes back empty.
    const existing = new Set<string>();
    let listed = true;
    for (let page = 1; page <= 50 && toml.queues.some((queue) => !existing.has(queue)); page++) {
      const result = await io.run("wrangler", ["queues", "list", "--page", String(page)]);
      if (result.code !== 0) {
        problems.push(`\`wrangler queues list\` failed: ${(result.stderr || result.stdout).trim().split("\n").slice(-3).join(" ")}`);
        listed = false;
        break;
      }
      const names = queueNamesOf(result.stdout);
      if (!names.length) break;
      for (const name of names) existing.add(name);
    }
    if (listed) {
      const missing = toml.queues.filter((queue) => !existing.has(queue));
      for (const queue of missing) problems.push(`queue "${queue}" does not exist: run \`npx wrangler queues create ${queue}\``);
      if (!missing.length) io.out(`✓ queues: ${toml.queues.join(", ")}`);
    }

    const secrets = await io.run("wrangler", ["secret", "list", "--format", "json"]);
    let names: Set<string> | null = null;
    if (secrets.code === 0) {
      try {
        names = new Set((JSON.parse(secrets.stdout) as { name: string }[]).map((secret) => secret.name));
      } catch {
        problems.push(`\`wrangler secret list\` did not answer JSON: ${secrets.stdout.trim().slice(0, 200)}`);
      }
    } else if (/not found/i.test(secrets.stderr + secrets.stdout)) {
      // A Worker never deployed has no secrets yet; `wrangler secret put` creates it.
      names = new Set();
    } else {
      problems.push(`\`wrangler secret list\` failed: ${(secrets.stderr || secrets.stdout).trim().split("\n").slice(-3).join(" ")}`);
    }
    if (names) {
      const missing = REQUIRED_SECRETS.filter((secret) => !names.has(secret.name));
      for (const secret of missing) problems.push(`secret ${secret.name} is not set: ${secret.how}`);
      if (!missing.length) io.out(`✓ secrets: ${REQUIRED_SECRETS.map((secret) => secret.name).join(", ")}`);
    }
  }

  // Crons are created by the deploy itself from wrangler.toml; what can be missing is the line.
  const missingCrons = REQUIRED_CRONS.filter((cron) => !toml.crons.includes(cron));
  for (const cron of missingCrons)
    problems.push(
      `wrangler.toml's [triggers] crons lacks "${cron}" (${cron === "0 * * * *" ? "the e-CF alert sweep" : "the outbox, webhook and e-CF sweeps"}): add it`,
    );
  if (toml.crons.length < REQUIRED_CRONS.length + 1) problems.push('wrangler.toml\'s [triggers] crons lacks the weekly RNC sync: add "0 6 * * SUN"');
  if (!missingCrons.length && toml.crons.length >= REQUIRED_CRONS.length + 1) io.out(`✓ crons: ${toml.crons.map((cron) => `"${cron}"`).join(", ")}`);

  const ownerUrl = io.env.DATABASE_URL?.trim() || null;
  if (!ownerUrl) {
    problems.push(
      "DATABASE_URL is not set in this shell: export the database owner's connection string for the migrations (on Neon, the project's owner role, e.g. neondb_owner, on the direct, non-pooled host): export DATABASE_URL='postgres://neondb_owner:…@ep-….neon.tech/neondb?sslmode=require'",
    );
  } else {
    try {
      const facts = await io.inspectDatabase(ownerUrl);
      const where = withoutPassword(ownerUrl);
      if (facts.role === APP_ROLE) {
        problems.push(
          `DATABASE_URL (${where}) logs in as ${APP_ROLE}, the Worker's role, which may not change the schema: give this shell the owner's connection string (the Worker keeps ${APP_ROLE}'s, as its DATABASE_URL secret)`,
        );
      } else if (!facts.superuser && facts.schemaOwner !== facts.role && facts.applied === 0) {
        problems.push(
          `DATABASE_URL (${where}) logs in as ${facts.role}, who does not own the schema public (${facts.schemaOwner} does): use the owner's connection string`,
        );
      } else if (!facts.superuser && !facts.createRole && !facts.appRoleExists) {
        problems.push(
          `DATABASE_URL (${where}) logs in as ${facts.role}, who may not create the role ${APP_ROLE} (migration drizzle/0001_app_role.sql): grant it CREATEROLE or create the role first: CREATE ROLE ${APP_ROLE} NOLOGIN NOSUPERUSER NOBYPASSRLS`,
        );
      } else {
        io.out(`✓ database: ${where} as ${facts.role} (the owner, for migrations); ${facts.applied} migrations applied`);
      }
    } catch (error) {
      problems.push(`DATABASE_URL (${withoutPassword(ownerUrl)}) does not answer: ${(error as Error).message}`);
    }
  }
  return { problems, ownerUrl };
}

export const COMMAND = command({
  usage: `Usage: npm run deploy [-- --dry-run]

Checks what production needs (wrangler's login, the queues, the Worker's secrets, the crons, this
shell's DATABASE_URL as the database's owner), then applies the migrations and runs wrangler deploy.
--dry-run: the checks that need no account offline too, and the build (wrangler deploy --dry-run),
every problem listed at once; nothing migrated, nothing uploaded. docs/operations.md walks the whole
production setup.`,
  options: { "dry-run": { type: "boolean" } },
});

export async function deploy(argv: string[], io: DeployIO): Promise<number> {
  const parsed = parseCommandLine(COMMAND, argv);
  if ("help" in parsed) {
    io.out(COMMAND.usage.trim());
    return 0;
  }
  if ("error" in parsed) {
    io.err(`${parsed.error} (--help for the usage)`);
    return 2;
  }
  const dryRun = parsed.values["dry-run"] === true;
  io.out(dryRun ? "Checking (dry run: nothing will be migrated or uploaded)…" : "Checking…");
  const { problems, ownerUrl } = await check(io);
  if (dryRun) {
    // The build needs no account: a dry run makes it whatever the checks found, and lists its failure with them.
    io.out("Building (wrangler deploy --dry-run)…");
    const build = await io.run("wrangler", ["deploy", "--dry-run"], { inherit: true });
    if (build.code !== 0) problems.push(`the build failed (wrangler deploy --dry-run exited ${build.code}): its errors are above`);
    else io.out("✓ build: the Worker builds as a deploy would upload it");
  }
  if (problems.length) {
    io.out(`\nNot deployed: ${problems.length} thing${problems.length === 1 ? "" : "s"} to fix first.`);
    for (const problem of problems) io.out(`✗ ${problem}`);
    return 1;
  }
  if (dryRun) {
    io.out("\nDry run: everything checked; nothing migrated, nothing uploaded.");
    return 0;
  }
  io.out("Applying the migrations as the owner…");
  await io.migrate(ownerUrl!);
  io.out("✓ migrations applied");
  const result = await io.run("wrangler", ["deploy"], { inherit: true });
  if (result.code !== 0)
    io.out("wrangler deploy failed: the migrations are applied (they are made to run before the code that needs them); fix and run again.");
  return result.code;
}

/** `wrangler` from PATH (a fake one first, in tests), else the project's own. */
function runWrangler(command: string, args: string[], options: { inherit?: boolean } = {}): Promise<CommandResult> {
  const PATH = [process.env.PATH, path.join(ROOT, "node_modules", ".bin")].filter(Boolean).join(path.delimiter);
  return runCommand(command, args, { cwd: ROOT, env: { ...process.env, PATH }, inherit: options.inherit });
}

async function inspectDatabase(url: string): Promise<DatabaseFacts> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const { rows } = await client.query<Omit<DatabaseFacts, "applied">>(
      `SELECT current_user AS role, r.rolsuper AS superuser, r.rolcreaterole AS "createRole",
              EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1) AS "appRoleExists",
              pg_get_userbyid(n.nspowner) AS "schemaOwner"
         FROM pg_roles r, pg_namespace n
        WHERE r.rolname = current_user AND n.nspname = 'public'`,
      [APP_ROLE],
    );
    const applied = await client
      .query<{ n: number }>("SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations")
      .then((result) => result.rows[0]!.n)
      .catch(() => 0);
    return { ...rows[0]!, applied };
  } finally {
    await client.end();
  }
}

export const defaultIO = (): DeployIO => ({
  run: runWrangler,
  inspectDatabase,
  migrate: runMigrations,
  env: process.env,
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  wranglerToml: fs.readFileSync(path.join(ROOT, "wrangler.toml"), "utf8"),
});

if (isMain(import.meta.url)) {
  deploy(process.argv.slice(2), defaultIO()).then(
    (code) => process.exit(code),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
