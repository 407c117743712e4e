import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const APP_ROLE = "sucursal_app";

/**
 * Where Postgres is, for dev, tests and the CLI:
 * `ownerUrl` runs migrations and operator commands; `appUrl` is what the Worker uses, and
 * `setRole` is set when that login is privileged and each transaction must `SET LOCAL ROLE`.
 */
export interface DatabaseTarget {
  kind: "external" | "local" | "embedded";
  ownerUrl: string;
  appUrl: string;
  setRole?: string;
  /** host:port the WebSocket relay must reach. */
  tcpAddress: string;
  stop(): Promise<void>;
}

export async function portAnswers(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

function withUser(url: string, user: string): string {
  const parsed = new URL(url);
  parsed.username = user;
  parsed.password = "";
  return parsed.toString();
}

function tcpAddressOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || "5432"}`;
}

export async function runMigrations(ownerUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: ownerUrl });
  await client.connect();
  try {
    await migrate(drizzle(client), { migrationsFolder: path.join(ROOT, "drizzle") });
  } finally {
    await client.end();
  }
}

/** Starts PGlite behind a Postgres wire-protocol socket. `dataDir` undefined = in memory. */
export async function startEmbedded(dataDir?: string, requestedPort?: number): Promise<DatabaseTarget> {
  const port = requestedPort ?? (await freePort());
  const { PGlite } = await import("@electric-sql/pglite");
  const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket");
  // Extensions the migrations create must be loaded into PGlite at creation (RNC search: pg_trgm;
  // the NCF range exclusion constraint: btree_gist).
  const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm");
  const { btree_gist } = await import("@electric-sql/pglite/contrib/btree_gist");
  const db = await PGlite.create({ ...(dataDir ? { dataDir } : {}), extensions: { pg_trgm, btree_gist } });
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port, maxConnections: 1000 });
  await server.start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    kind: "embedded",
    ownerUrl: url,
    appUrl: url,
    setRole: APP_ROLE,
    tcpAddress: `127.0.0.1:${port}`,
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}

/**
 * A fresh, migrated database for one test (or bench) run: DATABASE_URL's server, else
 * 127.0.0.1:5432 when it answers, else an in-memory PGlite. Dropped by `stop()`.
 */
export async function createTestDatabase(prefix = "sucursal_test"): Promise<DatabaseTarget> {
  const given = process.env.DATABASE_URL;
  // SUCURSAL_TEST_DATABASE=embedded forces PGlite, to check the path of a machine without Postgres.
  const forceEmbedded = process.env.SUCURSAL_TEST_DATABASE === "embedded";
  const localAnswers = !given && !forceEmbedded && (await portAnswers("127.0.0.1", 5432));
  if (!given && !localAnswers) {
    const target = await startEmbedded();
    await runMigrations(target.ownerUrl);
    return target;
  }
  const serverUrl = given ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const name = `${prefix}_${Date.now()}_${process.pid}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const ownerUrl = withDatabase(serverUrl, name);
  await runMigrations(ownerUrl);
  let appUrl = ownerUrl;
  let setRole: string | undefined = APP_ROLE;
  if (!given) {
    // Local trust auth: log in as the restricted role itself, as production does.
    await admin.query(`ALTER ROLE ${APP_ROLE} LOGIN`);
    appUrl = withUser(ownerUrl, APP_ROLE);
    setRole = undefined;
  }
  return {
    kind: given ? "external" : "local",
    ownerUrl,
    appUrl,
    setRole,
    tcpAddress: tcpAddressOf(ownerUrl),
    stop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await admin.end();
    },
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
    server.once("error", reject);
  });
}
