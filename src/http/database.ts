import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { routePath } from "hono/route";
import { createClient, type Database, type HttpRead, RequestTransaction, type VerifyOpening } from "../db/client";
import { errorLogFields } from "../db/errors";
import { httpEndpoint } from "../db/http";
import { config } from "../env";
import { AppError } from "../lib/errors";
import { log } from "../lib/log";
import type { AppEnv } from "./context";

const RETRY_AFTER_SECONDS = 5;

/** The database cannot serve the request: 503 with Retry-After (logged). */
export function unavailable(cause: unknown, requestId: string): AppError {
  // The cause's class, SQLSTATE and message without the statement's parameters (request data).
  const { stack: _stack, ...fields } = errorLogFields(cause);
  log.error("database unavailable", { requestId, ...fields });
  return new AppError("service_unavailable", "The database is unavailable; try again shortly.", undefined, RETRY_AFTER_SECONDS);
}

/** Methods that never write (bar the token's last_used_at, at most once a minute). */
const READ_ONLY = new Set(["GET", "HEAD"]);
export const isRead = (method: string) => READ_ONLY.has(method);

/**
 * One connection per request (a Client, not a Pool: createClient), connected lazily. After the
 * handler the request transaction is committed when the response is a success and rolled back
 * otherwise; the connection is closed after the response, its close bounded (RequestTransaction.close).
 * A successful read sends its COMMIT after the response instead of before it: its answer came from
 * the transaction's snapshot, so waiting for the commit would only add a round trip to its latency.
 * A read whose body is streamed from the transaction (`c.var.streaming`, http/stream.ts) keeps it
 * open, and its connection, until the body is written.
 */
export const databaseSession = createMiddleware<AppEnv>(async (c, next) => {
  let deferred: Promise<void> | null = null;
  try {
    await next();
    const tx = c.get("tx");
    if (tx?.isOpen) {
      // A rollback that fails means the connection is gone, and Postgres aborts the transaction
      // itself: the answer already given (an error) stands.
      const streaming = c.get("streaming");
      if (c.error || c.res.status >= 400) await tx.rollback().catch(() => undefined);
      // A streamed body still reads from the transaction: it commits once the body is written.
      else if (READ_ONLY.has(c.req.method)) deferred = streaming ? streaming.then(() => tx.commit()) : tx.commit();
      else {
        try {
          await tx.commit();
        } catch (error) {
          throw unavailable(error, c.get("requestId"));
        }
      }
    }
  } finally {
    const tx = c.get("tx");
    if (tx) {
      const close = async () => {
        if (deferred) await deferred.catch((error) => log.warn("deferred commit of a read failed", { requestId: c.get("requestId"), cause: String(error) }));
        await tx.rollback().catch(() => undefined);
        await tx.close();
      };
      if (deferred) c.executionCtx.waitUntil(close());
      else {
        await tx.rollback().catch(() => undefined);
        c.executionCtx.waitUntil(tx.close());
      }
    }
  }
});

/**
 * The request's connection, opened now (once): a caller may start it while it looks something up.
 * Not for a read that may go over HTTP (httpRead): it may need no connection at all.
 */
export async function connectRequestTransaction(c: Context<AppEnv>): Promise<void> {
  const tx = await requestTransaction(c);
  if (httpRead(c)) return;
  try {
    await tx.connect();
  } catch (error) {
    throw unavailable(error, c.get("requestId"));
  }
}

async function requestTransaction(c: Context<AppEnv>): Promise<RequestTransaction> {
  let tx = c.get("tx");
  if (tx) return tx;
  tx = new RequestTransaction(() => createClient(c.env), c.env);
  c.set("tx", tx);
  return tx;
}

/**
 * A statement outside the tenant transaction (tenant resolution), on the request's connection, as
 * one simple-query message (no parameters: the caller inlines validated values). Outside a
 * transaction, a pooler that multiplexes connections onto one backend — pglite-socket, behind
 * `npm run dev` and the embedded tests — may interleave another connection's messages between a
 * Parse and its Bind ("unnamed prepared statement does not exist"); a single message stays whole.
 */
export async function queryWithoutTenant<T extends Record<string, unknown>>(c: Context<AppEnv>, text: string): Promise<T[]> {
  const tx = await requestTransaction(c);
  try {
    await tx.connect();
    const result = (await tx.driverQuery(text)) as { rows: T[] };
    return result.rows;
  } catch (error) {
    throw unavailable(error, c.get("requestId"));
  }
}

/** Opens the tenant transaction, sending `alsoRun` in the same round trip; returns its rows. */
export async function beginTenantTransaction(c: Context<AppEnv>, alsoRun?: string): Promise<Record<string, unknown>[]> {
  const tx = await requestTransaction(c);
  if (tx.isOpen) throw new Error("the request transaction is already open");
  try {
    return await tx.begin(c.get("tenant").id, alsoRun);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw unavailable(error, c.get("requestId"));
  }
}

/**
 * The request context (`statement`) read alone over the HTTP endpoint, for a read whose statements
 * go there (httpRead); null for a request whose statements take the WebSocket, which reads the
 * context with BEGIN instead (beginTenantTransaction).
 */
export async function readContextOverHttp(c: Context<AppEnv>, statement: string): Promise<Record<string, unknown>[] | null> {
  const http = httpRead(c);
  if (!http) return null;
  const tx = await requestTransaction(c);
  try {
    return await tx.readOverHttp(c.get("tenant").id, statement, http);
  } catch (error) {
    throw unavailable(error, c.get("requestId"));
  }
}

/**
 * Opens the tenant transaction with no round trip of its own: BEGIN, the tenant and `alsoRun` leave
 * with the handler's first statements, `verify` judging `alsoRun`'s rows before the handler sees
 * any result (RequestTransaction.openLater). `tx.confirm()` must settle before the response leaves.
 */
export async function openTenantTransactionLater(c: Context<AppEnv>, alsoRun?: string, verify?: VerifyOpening): Promise<RequestTransaction> {
  const tx = await requestTransaction(c);
  tx.openLater(c.get("tenant").id, alsoRun, verify, httpRead(c));
  return tx;
}

/**
 * Routes (endpoint, method and path) of this isolate that issued a statement after their opening
 * batch (a statement depending on another's result, a report's cursor): they read over the WebSocket.
 */
const needsSocket = new Set<string>();

/**
 * A read (GET/HEAD) sends its opening batch over Neon's HTTP endpoint when there is one (db/http.ts):
 * one fetch, no connection, no startup exchange. A route that issued a later statement here once
 * reads over the WebSocket from then on (that statement itself ran in a transaction opened again,
 * its context checked again: RequestTransaction.reopen). Writes always take the WebSocket.
 */
function httpRead(c: Context<AppEnv>): HttpRead | null {
  if (!READ_ONLY.has(c.req.method)) return null;
  const endpoint = httpEndpoint(c.env);
  if (!endpoint) return null;
  const route = `${endpoint} ${c.req.method} ${routePath(c, -1)}`;
  if (needsSocket.has(route)) return null;
  return { endpoint, connectionString: config(c.env).DATABASE_URL, onLateStatement: () => needsSocket.add(route) };
}

/**
 * The drizzle handle of the request's tenant transaction, opening it when a public route needs it
 * (lazily: BEGIN leaves with the first statement). Its one caller is `publicSession` (http/auth.ts):
 * handlers read `c.var.db`, set by the route guards.
 */
export async function tenantDb(c: Context<AppEnv>): Promise<Database> {
  const tx = c.get("tx");
  if (tx?.isOpen) return tx.db;
  return (await openTenantTransactionLater(c)).db;
}
