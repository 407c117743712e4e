import { config, type Env } from "../env";

/**
 * Neon's SQL-over-HTTP protocol, as `@neondatabase/serverless`'s `neon()` speaks it, for a read's one
 * batch (RequestTransaction.openLater): one fetch, the statements run by the endpoint as one
 * transaction on a connection it keeps, the answer JSON. No WebSocket, no startup exchange, no
 * protocol parsing in the Worker: a read's CPU. The driver's own `neon()` is not used: it parses
 * every value with its own type parsers, where the batch hands each caller Postgres's text to parse
 * as drizzle asked (client.ts `shaped`), and it resolves the connection string per call.
 */

/** One statement of a batch. */
export interface HttpStatement {
  query: string;
  params: (string | null)[];
}

/** One statement's answer (Neon-Array-Mode, Neon-Raw-Text-Output): what client.ts shapes. */
export interface HttpResult {
  command: string;
  rowCount: number | null;
  oid: number | null;
  fields: { name: string; dataTypeID: number }[];
  rows: (string | null)[][];
}

/** A statement of the batch failed (HTTP 400): Postgres's error fields, its SQLSTATE as `code`. */
export class HttpStatementError extends Error {
  code?: string;
  detail?: string;
  constraint?: string;
  [field: string]: unknown;
}

/** The endpoint could not run the batch (unreachable, a 5xx, an answer of another shape). */
export class HttpBatchFailed extends Error {}

/** Neon's endpoint for a host: the first label replaced by `api` (the driver's `fetchEndpoint`). */
const neonHost = /^[^.]+\.(.+\.neon\.tech)$/;

const endpoints = new Map<string, string | null>();

/**
 * Where a read's batch is posted: DB_HTTP_ENDPOINT, or Neon's for a Neon DATABASE_URL; null (the
 * WebSocket for everything) for another Postgres or `off`.
 */
export function httpEndpoint(env: Env): string | null {
  const { DB_HTTP_ENDPOINT: set, DATABASE_URL: url } = config(env);
  const key = `${set ?? ""} ${url}`;
  let endpoint = endpoints.get(key);
  if (endpoint === undefined) {
    const host = neonHost.exec(new URL(url).hostname);
    endpoint = set === "off" ? null : (set ?? (host ? `https://api.${host[1]}/sql` : null));
    endpoints.set(key, endpoint);
  }
  return endpoint;
}

/**
 * A statement's parameters as the endpoint takes them (the text node-postgres would send), or null
 * when one is not a plain value (a Date, a buffer, an array): that batch goes over the WebSocket.
 */
export function httpParams(values: readonly unknown[]): (string | null)[] | null {
  const out: (string | null)[] = [];
  for (const value of values) {
    if (value === null || value === undefined) out.push(null);
    else if (typeof value === "string") {
      if (value.includes("\0")) return null;
      out.push(value);
    } else if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") out.push(String(value));
    else return null;
  }
  return out;
}

const BATCH_TIMEOUT_MS = 45_000;

/** Posts `statements` as one transaction; their results in order. */
export async function sendBatch(endpoint: string, connectionString: string, statements: HttpStatement[]): Promise<HttpResult[]> {
  let response: Response;
  try {
    response = await fetch(endpoint, {
      method: "POST",
      headers: {
        "Neon-Connection-String": connectionString,
        "Neon-Raw-Text-Output": "true",
        "Neon-Array-Mode": "true",
        "Neon-Batch-Isolation-Level": "ReadCommitted",
        "content-type": "application/json",
      },
      body: JSON.stringify({ queries: statements }),
      // The application role's statement_timeout (30 s, drizzle/0048) and a connection's 10 s.
      signal: AbortSignal.timeout(BATCH_TIMEOUT_MS),
    });
  } catch (error) {
    throw new HttpBatchFailed(`the database's HTTP endpoint cannot be reached: ${String(error)}`, { cause: error });
  }
  if (response.status === 400) {
    const body = (await response.json().catch(() => null)) as Record<string, unknown> | null;
    if (body && typeof body.message === "string") {
      const error = new HttpStatementError(body.message);
      for (const [field, value] of Object.entries(body)) if (field !== "message") error[field] = value;
      throw error;
    }
  }
  if (!response.ok)
    throw new HttpBatchFailed(`the database's HTTP endpoint answered ${response.status}: ${(await response.text().catch(() => "")).slice(0, 200)}`);
  const body = (await response.json().catch(() => null)) as { results?: HttpResult[] } | null;
  const results = body?.results;
  if (!Array.isArray(results) || results.length !== statements.length)
    throw new HttpBatchFailed("the database's HTTP endpoint answered in an unexpected shape");
  return results;
}
