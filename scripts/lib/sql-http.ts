import http from "node:http";
import type net from "node:net";
import pg from "pg";

/**
 * The local stand-in for Neon's SQL-over-HTTP endpoint (`POST /sql`), as `@neondatabase/serverless`
 * speaks it (its `neon()` function): the connection string in `Neon-Connection-String`, a body
 * `{ query, params }` or `{ queries: [{ query, params }, …] }` (a batch, run as one transaction,
 * `Neon-Batch-Isolation-Level`, `Neon-Batch-Read-Only`, `Neon-Batch-Deferrable`), every value
 * answered as Postgres's text (`Neon-Raw-Text-Output: true`) in rows of arrays
 * (`Neon-Array-Mode: true`): `{ command, rowCount, rows, fields: [{ name, dataTypeID, … }], rowAsArray }`,
 * `{ results: [...] }` for a batch. A statement's error is a 400 with the Postgres error's fields
 * (`message`, `code`, `detail`, …); anything else a 5xx with a text body, as Neon's proxy answers.
 * Connections are kept (a pool per address), as Neon's proxy keeps its own. Loopback destinations
 * only. Each POST counts one round trip (`stats`), the bench's measure.
 */
export interface SqlHttp {
  port: number;
  /** The URL the Worker posts to (DB_HTTP_ENDPOINT). */
  url: string;
  stats(): { requests: number; statements: { text: string; params: unknown[] }[][] };
  resetStats(): void;
  /** Where a connection string's `host:port` is actually connected (the bench bypasses its sniffer for loads). */
  setRoute(route: ((address: string) => string) | null): void;
  /** Delays each direction by this much (simulated distance to the database, as the WebSocket relay's). */
  setDelayMs(oneWay: number): void;
  /** Answers every request with this HTTP status and text (fault tests), or normally again (null). */
  setFault(fault: { status: number; body: string } | null): void;
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

/** Values as Postgres's text: the Worker parses them itself (Neon-Raw-Text-Output). */
const RAW_TEXT = { getTypeParser: () => (value: string) => value };

const ERROR_FIELDS = [
  "severity",
  "code",
  "detail",
  "hint",
  "position",
  "internalPosition",
  "internalQuery",
  "where",
  "schema",
  "table",
  "column",
  "dataType",
  "constraint",
  "file",
  "line",
  "routine",
] as const;

interface Query {
  query: string;
  params?: unknown[];
}

const ISOLATION: Record<string, string> = {
  ReadUncommitted: "READ UNCOMMITTED",
  ReadCommitted: "READ COMMITTED",
  RepeatableRead: "REPEATABLE READ",
  Serializable: "SERIALIZABLE",
};

export async function startSqlHttp(options: { port?: number; poolSize?: number } = {}): Promise<SqlHttp> {
  let route: ((address: string) => string) | null = null;
  let fault: { status: number; body: string } | null = null;
  let delay = 0;
  const later = () => (delay > 0 ? new Promise((resolve) => setTimeout(resolve, delay)) : Promise.resolve());
  let requests = 0;
  let statements: { text: string; params: unknown[] }[][] = [];
  const pools = new Map<string, pg.Pool>();

  const poolFor = (connectionString: string): pg.Pool => {
    const url = new URL(connectionString);
    const requested = `${url.hostname}:${url.port || "5432"}`;
    const address = route ? route(requested) : requested;
    const separator = address.lastIndexOf(":");
    const host = address.slice(0, separator);
    const port = Number(address.slice(separator + 1));
    if (!LOOPBACK.has(host) || !Number.isInteger(port)) throw new Error("only loopback destinations");
    url.hostname = host;
    url.port = String(port);
    const key = url.toString();
    let pool = pools.get(key);
    if (!pool) {
      // A database that never answers is a 5xx in bounded time, as Neon's proxy gives up connecting.
      pool = new pg.Pool({ connectionString: key, max: options.poolSize ?? 10, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 10_000 });
      pool.on("error", () => undefined);
      pools.set(key, pool);
    }
    return pool;
  };

  const shape = (result: pg.QueryResult) => ({
    command: result.command,
    rowCount: result.rowCount,
    rows: result.rows,
    fields: result.fields.map((f) => ({ ...f })),
    rowAsArray: true,
  });
  const run = async (client: pg.PoolClient, q: Query) => {
    const result = await client.query({ text: q.query, values: q.params ?? [], rowMode: "array", types: RAW_TEXT });
    return {
      command: result.command,
      rowCount: result.rowCount,
      rows: result.rows,
      fields: result.fields.map((f) => ({ ...f })),
      rowAsArray: true,
    };
  };

  const answer = async (req: http.IncomingMessage, body: string): Promise<{ status: number; json?: unknown; text?: string }> => {
    if (fault) return { status: fault.status, text: fault.body };
    const connectionString = req.headers["neon-connection-string"];
    if (typeof connectionString !== "string") return { status: 400, json: { message: "missing Neon-Connection-String header" } };
    let parsed: Query | { queries: Query[] };
    try {
      parsed = JSON.parse(body) as Query | { queries: Query[] };
    } catch {
      return { status: 400, json: { message: "request body is not valid JSON" } };
    }
    let pool: pg.Pool;
    try {
      pool = poolFor(connectionString);
    } catch (error) {
      return { status: 400, json: { message: String((error as Error).message) } };
    }
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      return { status: 500, text: `Couldn't connect to compute node: ${String(error)}` };
    }
    let broken = false;
    try {
      if ("queries" in parsed) {
        statements.push(parsed.queries.map((q) => ({ text: q.query, params: q.params ?? [] })));
        const level = ISOLATION[String(req.headers["neon-batch-isolation-level"] ?? "")];
        const readOnly = req.headers["neon-batch-read-only"] === "true";
        const deferrable = req.headers["neon-batch-deferrable"] === "true";
        let begin = `BEGIN${level ? ` ISOLATION LEVEL ${level}` : ""}${readOnly ? " READ ONLY" : ""}${deferrable ? " DEFERRABLE" : ""}`;
        try {
          const results = [];
          // BEGIN and the statements without parameters before the next with some go in one
          // simple-query message (one round trip to Postgres instead of one each), run in order
          // as the batch says: the local stand-in's own economy, its answers the same.
          let waiting: Query[] = [];
          const sendWaiting = async () => {
            if (!begin && !waiting.length) return;
            const text = [...(begin ? [begin] : []), ...waiting.map((q) => q.query)].join(";\n");
            const out = (await client.query({ text, rowMode: "array", types: RAW_TEXT })) as unknown as pg.QueryResult | pg.QueryResult[];
            const sets = Array.isArray(out) ? out : [out];
            for (const set of sets.slice(begin ? 1 : 0)) results.push(shape(set));
            begin = "";
            waiting = [];
          };
          for (const q of parsed.queries) {
            if (!q.params?.length && !q.query.includes(";")) waiting.push(q);
            else {
              await sendWaiting();
              results.push(await run(client, q));
            }
          }
          await sendWaiting();
          await client.query("COMMIT");
          return { status: 200, json: { results } };
        } catch (error) {
          await client.query("ROLLBACK").catch(() => {
            broken = true;
          });
          throw error;
        }
      }
      statements.push([{ text: parsed.query, params: parsed.params ?? [] }]);
      return { status: 200, json: await run(client, parsed) };
    } catch (error) {
      const e = error as Error & Record<string, unknown>;
      if (typeof e.code !== "string" || !/^[0-9A-Z]{5}$/.test(e.code)) {
        broken = true;
        return { status: 500, text: String(e.message) };
      }
      const json: Record<string, unknown> = { message: e.message };
      for (const field of ERROR_FIELDS) if (e[field] !== undefined) json[field] = e[field];
      return { status: 400, json };
    } finally {
      client.release(broken);
    }
  };

  const server = http.createServer((req, res) => {
    if (req.method !== "POST" || !req.url?.startsWith("/sql")) {
      res.writeHead(404).end();
      return;
    }
    requests++;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      later()
        .then(() => answer(req, Buffer.concat(chunks).toString("utf8")))
        .then(async (out) => {
          await later();
          return out;
        })
        .then(
          (out) => {
            if (out.json !== undefined) res.writeHead(out.status, { "content-type": "application/json" }).end(JSON.stringify(out.json));
            else res.writeHead(out.status, { "content-type": "text/plain" }).end(out.text ?? "");
          },
          (error) => res.writeHead(500, { "content-type": "text/plain" }).end(String(error)),
        );
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1");
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}/sql`,
    stats: () => ({ requests, statements }),
    resetStats: () => {
      requests = 0;
      statements = [];
    },
    setRoute: (next) => {
      route = next;
    },
    setDelayMs: (oneWay) => {
      delay = oneWay;
    },
    setFault: (next) => {
      fault = next;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([...pools.values()].map((pool) => pool.end().catch(() => undefined)));
    },
  };
}
