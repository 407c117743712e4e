import { Client, neonConfig, Pool, type PoolClient, types } from "@neondatabase/serverless";
import type { SQL } from "drizzle-orm";
import { drizzle } from "drizzle-orm/neon-serverless";
import { type PgDatabase, PgDialect, type PgQueryResultHKT } from "drizzle-orm/pg-core";
import { config, type Env } from "../env";
import { log } from "../lib/log";
import { type HttpStatement, HttpStatementError, httpParams, sendBatch } from "./http";
import { inlineStatement, NotInlinable } from "./inline";
import { setLocalRole } from "./transaction";

/**
 * Built without `schema`: we use the query builder, not drizzle's relational `db.query` API, and
 * passing the schema makes every `drizzle()` call (one per request) rebuild the relational config
 * of every table, one of the top items of a request's CPU profile in `npm run bench`.
 */
export type Database = ReturnType<typeof drizzle<Record<string, never>, PoolClient>>;

/**
 * Any drizzle Postgres handle over our schema: the Worker's (neon) or a Node script's (node-postgres).
 * Services take this, so the operator CLI and test seeding run the same rules as the Worker.
 */
export type AnyDb = PgDatabase<PgQueryResultHKT, Record<string, never>>;

let localProxyConfigured: string | undefined;

/**
 * Locally there is no Neon proxy: DB_WS_PROXY names our WebSocket-to-TCP relay. Production leaves
 * neonConfig at Neon's defaults (TLS, pipelined connect).
 */
function configureDriver(env: Env): void {
  const proxy = config(env).DB_WS_PROXY;
  if (!proxy || localProxyConfigured === proxy) return;
  neonConfig.wsProxy = (host, port) => `${proxy}/v2?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineConnect = false;
  neonConfig.pipelineTLS = false;
  neonConfig.coalesceWrites = false;
  localProxyConfigured = proxy;
}

/** A database that accepts the connection and never answers must not hang the request. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * One connection, for one request or one job: what a Worker can keep (nothing outlives the
 * request). A `Pool` per request cost 0.5-0.9 ms of a read's CPU in `npm run bench` (its
 * bookkeeping, idle timers, the client's release and the pool's end) for the one connection it ever held.
 */
export function createClient(env: Env, connectionString = config(env).DATABASE_URL): Client {
  configureDriver(env);
  return new Client({ connectionString, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
}

/**
 * How long closing a connection may take: a Terminate that no one reads (a relay that stopped
 * answering) must not keep the request's `waitUntil` open.
 */
const CLOSE_TIMEOUT_MS = 2_000;

/**
 * A driver's failure as an Error. pg rejects a connection's statements with what its socket
 * emitted, and a WebSocket's failure arrives as its error event (an ErrorEvent, not an Error:
 * workerd dispatches one when a write to a connection the peer reset fails). Thrown on as it is,
 * it escapes the request: hono's onError takes only Errors, so the answer would be the runtime's
 * 500 instead of 503 with Retry-After (test/http/connection-errors.test.ts).
 */
export function driverError(reason: unknown): Error {
  if (reason instanceof Error) return reason;
  const inner = (reason as { error?: unknown } | null)?.error;
  const message = inner instanceof Error ? inner.message : (reason as { message?: unknown } | null)?.message;
  return new DatabaseConnectionError(`database connection failed: ${typeof message === "string" && message ? message : String(reason)}`, { cause: reason });
}

/** The connection to the database failed (its socket's error event, made an Error by driverError). */
export class DatabaseConnectionError extends Error {
  override name = "DatabaseConnectionError";
}

const rejectAsError = (reason: unknown): never => {
  throw driverError(reason);
};

/** For scripts and the test seed, which run many statements at once; the Worker uses `createClient`. */
export function createPool(env: Env, connectionString = config(env).DATABASE_URL): Pool {
  configureDriver(env);
  const pool = new Pool({ connectionString, max: 4, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // A connection lost while idle in the pool is emitted here; unheard, it is an uncaught exception.
  pool.on("error", (error: Error) => log.warn("database connection lost", { cause: String(error) }));
  return pool;
}

/**
 * Statements that open a request transaction: one simple-query message, one round trip.
 * `standard_conforming_strings` is forced on here, in a message before the COMMIT's: the deferred
 * statements inline their strings as '...' literals (deferUntilCommit), where a server, database
 * or role running with it off would read a backslash as an escape. A SET in the COMMIT's own
 * message would be too late, Postgres parsing a whole simple-query message before running it.
 */
function beginStatements(env: Env, tenantId: number | null): string[] {
  const parts = ["BEGIN", "SET LOCAL standard_conforming_strings = on"];
  const role = config(env).DB_SET_ROLE;
  if (role) parts.push(setLocalRole(role));
  if (tenantId !== null) {
    if (!Number.isSafeInteger(tenantId)) throw new Error("tenant id must be an integer");
    parts.push(`SELECT set_config('app.tenant_id', '${tenantId}', true)`);
  }
  return parts;
}

/**
 * An opening (beginStatements and what follows) as statements of an HTTP batch, which is a
 * transaction of its own: without BEGIN and standard_conforming_strings (for inlined literals,
 * which an HTTP batch does not use), its first two statements.
 */
function httpOpening(statements: string[]): HttpStatement[] {
  return statements.slice(2).map((query) => ({ query, params: [] }));
}

/** Checks the rows of the statement sent with BEGIN (the request context); throws to refuse the request. */
export type VerifyOpening = (rows: Record<string, unknown>[]) => void;

/** What drizzle hands the driver: node-postgres's query config. */
interface QueryConfig {
  text: string;
  rowMode?: "array";
  types?: { getTypeParser: (id: number, format?: "text" | "binary") => (value: string) => unknown };
}

interface Field {
  name: string;
  dataTypeID: number;
}

interface RawResult {
  command: string;
  rowCount: number | null;
  oid: number | null;
  fields: Field[];
  rows: (string | null)[][];
}

/** Sent in an HTTP read's batch after the context query: the handler's statements may not write. */
const READ_ONLY_FROM_HERE = "SET LOCAL transaction_read_only = on";
/** Postgres's SQLSTATE for a write in a read-only transaction. */
const READ_ONLY_VIOLATION = "25006";

/** Every column as the text Postgres sent: the rows of a batch are parsed for each statement's caller (`shaped`). */
const RAW_TEXT = { getTypeParser: () => (value: string) => value };

/** One statement's result set of a batch, as the driver would have given it to the caller of `config`. */
function shaped(set: RawResult, config: Pick<QueryConfig, "rowMode" | "types">) {
  const parsers = set.fields.map((field) => (config.types ?? types).getTypeParser(field.dataTypeID, "text") as (value: string) => unknown);
  const rows = set.rows.map((raw) => {
    const values = raw.map((value, i) => (value === null ? null : parsers[i]!(value)));
    if (config.rowMode === "array") return values;
    const row: Record<string, unknown> = {};
    for (const [i, field] of set.fields.entries()) row[field.name] = values[i];
    return row;
  });
  return { command: set.command, rowCount: set.rowCount, oid: set.oid, fields: set.fields, rows, rowAsArray: config.rowMode === "array" };
}

interface Queued {
  config: QueryConfig;
  values: unknown[] | undefined;
  resolve: (result: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * The connection as drizzle sees it: every statement goes through the transaction, which sends the
 * first ones with BEGIN (RequestTransaction.openLater). A class, so that drizzle does not take it
 * for a config object.
 */
class TransactionConnection {
  constructor(private readonly tx: RequestTransaction) {}
  query(config: string | QueryConfig, values?: unknown[]): Promise<unknown> {
    return this.tx.query(typeof config === "string" ? { text: config } : config, values);
  }
}

/**
 * A read's opening batch over Neon's SQL-over-HTTP endpoint (db/http.ts) instead of the WebSocket:
 * `onLateStatement` is told when a statement comes after it (the route then needs the WebSocket).
 */
export interface HttpRead {
  endpoint: string;
  connectionString: string;
  onLateStatement?: () => void;
}

/**
 * A transaction bound to one connection, connected at its first use (a read sent over HTTP never
 * connects). `begin` may carry extra statements to send in the same round trip as BEGIN (the
 * request context query); their last result set is returned.
 */
export class RequestTransaction {
  readonly db: Database;
  private state: "idle" | "open" | "done" = "idle";
  /** The connection's socket has ended (closed by us, cut, or failed). */
  private ended = false;
  private connecting: Promise<void> | null = null;
  private connectFailed = false;

  private made: Client | null = null;

  /**
   * `makeClient` is called at the first use of the connection: a read whose batch goes over HTTP
   * never builds the WebSocket driver's Client (its constructor parses the connection string and
   * sets up the connection's machinery, ~0.1 ms of a read's CPU for nothing).
   */
  constructor(
    private readonly makeClient: () => Client,
    private readonly env: Env,
  ) {
    // A class instance, not `{ client }`: drizzle's config-object sniffing (isConfig) showed as a
    // hot spot of the request's CPU profile.
    this.db = drizzle(new TransactionConnection(this) as unknown as PoolClient);
  }

  get client(): Client {
    if (this.made) return this.made;
    const client = this.makeClient();
    // A connection lost between statements: the next query fails, and the request answers 503
    // (connectionLost); the socket's error event itself must not become an uncaught exception.
    client.on("error", (error) => {
      this.connectionLost = true;
      log.warn("database connection lost", { cause: String(driverError(error)) });
    });
    client.on("end", () => {
      this.ended = true;
      if (this.state !== "done") this.connectionLost = true;
    });
    this.made = client;
    return client;
  }

  /**
   * Closes the connection (Terminate), bounded: the driver's `end()` waits for the socket's end
   * event, which never comes again for a socket that already ended (a cut), and may not come from a
   * relay that stopped answering. Never throws.
   */
  async close(): Promise<void> {
    if (this.ended || !this.connecting || this.connectFailed) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ended = this.client.end().catch(() => undefined);
    await Promise.race([ended, new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_TIMEOUT_MS)))]);
    clearTimeout(timer);
  }

  /** The connection closed or failed while the transaction was open (not a statement's own error). */
  connectionLost = false;

  /** Connects the client once; a failure to connect is a lost connection (503). */
  connect(): Promise<void> {
    this.connecting ??= this.client.connect().catch((error: unknown) => {
      this.connectFailed = true;
      this.connectionLost = true;
      throw driverError(error);
    });
    return this.connecting;
  }

  /** A statement on the connection as the driver runs it, a failure rejected as an Error (driverError). */
  driverQuery(config: string | QueryConfig, values?: unknown[]): Promise<unknown> {
    return (this.client.query(config as never, values as never) as Promise<unknown>).catch(rejectAsError);
  }

  get isOpen(): boolean {
    return this.state === "open";
  }

  async begin(tenantId: number | null, alsoRun?: string): Promise<Record<string, unknown>[]> {
    await this.connect();
    const text = [...beginStatements(this.env, tenantId), ...(alsoRun ? [alsoRun] : [])].join("; ");
    const result = (await this.driverQuery(text)) as unknown;
    this.state = "open";
    const results = Array.isArray(result) ? result : [result];
    const last = results[results.length - 1] as { rows?: Record<string, unknown>[] };
    return alsoRun ? (last.rows ?? []) : [];
  }

  /**
   * The request context read alone over Neon's HTTP endpoint (db/http.ts), apart from this
   * transaction: the tenant (and role) set and `alsoRun` in one HTTP transaction; its rows, parsed
   * as `begin`'s. For a read whose caller no isolate could predict (http/auth.ts): the context it
   * returns becomes the prediction the read's statements are sent with (openLater), which checks
   * it again in their own batch. No WebSocket and no startup exchange: two HTTP round trips, where
   * `begin` took a connection and two.
   */
  async readOverHttp(tenantId: number | null, alsoRun: string, http: HttpRead): Promise<Record<string, unknown>[]> {
    const statements = httpOpening([...beginStatements(this.env, tenantId), alsoRun]);
    const results = (await sendBatch(http.endpoint, http.connectionString, statements)) as RawResult[];
    return shaped(results[results.length - 1]!, {}).rows as Record<string, unknown>[];
  }

  /** BEGIN and what goes with it, not sent yet: it leaves with the first statements (openLater). */
  private opening: { statements: string[]; verify?: VerifyOpening } | null = null;
  /** The opening's statements and check, kept to open the transaction again after an HTTP read (reopen). */
  private reopenWith: { statements: string[]; verify?: VerifyOpening } | null = null;
  private http: HttpRead | null = null;
  /** The opening batch went over HTTP and is committed: a later statement needs a WebSocket transaction. */
  private httpDone = false;
  private reopening: Promise<void> | null = null;
  /** What the context's second check refused (reopen), for `confirm` to throw. */
  private refusedLater: unknown = null;
  private queued: Queued[] = [];
  /** The opening's batch, sent and not yet answered or verified: later statements wait for it. */
  private sent: Promise<void> | null = null;

  /**
   * Opens the transaction without a round trip of its own: BEGIN, the tenant, `alsoRun` (the request
   * context) and the statements the handler issues before its first await (drizzle's, or several
   * issued together) leave in one simple-query message, their parameters inlined (db/inline.ts).
   * `verify` sees `alsoRun`'s rows before any caller sees its statement's result, and refuses by
   * throwing: the callers then get its error and nothing of what was read, and the transaction
   * is rolled back (databaseSession, for an error answer). `confirm()` sends the opening alone
   * when no statement took it. A statement that cannot be inlined (a Date, a buffer, an array)
   * goes the usual way, after the opening.
   * With `http` (a read, http/database.ts httpRead) the batch is one HTTP transaction instead
   * (sendOverHttp): no connection is made, and nothing is left to commit; a statement issued after
   * it opens a transaction on the WebSocket, context checked again (reopen).
   */
  openLater(tenantId: number | null, alsoRun?: string, verify?: VerifyOpening, http?: HttpRead | null): void {
    if (this.state !== "idle") throw new Error("the request transaction is already open");
    this.opening = { statements: [...beginStatements(this.env, tenantId), ...(alsoRun ? [alsoRun] : [])], verify };
    this.reopenWith = this.opening;
    this.http = http ?? null;
    this.state = "open";
  }

  /** The opening sent (alone if nothing took it) and verified; throws what `verify` threw. */
  async confirm(): Promise<void> {
    if (this.opening) this.flush();
    await this.sent;
    if (this.refusedLater) throw this.refusedLater;
  }

  /** A statement of the transaction (drizzle's, through TransactionConnection). */
  async query(config: QueryConfig, values?: unknown[]): Promise<unknown> {
    if (this.opening) {
      return new Promise((resolve, reject) => {
        if (!this.queued.length) setTimeout(() => this.flush(), 0);
        this.queued.push({ config, values, resolve, reject });
      });
    }
    if (this.sent) await this.sent;
    if (this.httpDone) await this.reopenOnce();
    return this.driverQuery(config as never, values as never);
  }

  private reopenOnce(): Promise<void> {
    this.reopening ??= this.reopen();
    return this.reopening;
  }

  /**
   * A statement after a read's HTTP batch: that transaction is committed, so this one runs in a new
   * transaction on the WebSocket, opened as the first was (BEGIN, the tenant, the context query)
   * and its context checked again before the statement runs.
   */
  private async reopen(): Promise<void> {
    this.http?.onLateStatement?.();
    const opening = this.reopenWith!;
    await this.connect();
    const result = (await this.driverQuery(opening.statements.join("; "))) as unknown as { rows: Record<string, unknown>[] }[];
    this.httpDone = false;
    try {
      opening.verify?.(result[result.length - 1]!.rows);
    } catch (error) {
      this.refusedLater = error;
      throw error;
    }
  }

  private flush(): void {
    const opening = this.opening;
    if (!opening) return;
    this.opening = null;
    const batch = this.queued;
    this.queued = [];
    const sent = this.http ? this.sendOverHttp(this.http, opening, batch) : this.sendOpening(opening, batch);
    // Settled for the callers in the batch by sendOpening; later callers await `sent` and get its error.
    sent.catch(() => undefined);
    this.sent = sent;
  }

  /**
   * The opening and the batch as one HTTP transaction (db/http.ts), parameters as parameters: the
   * tenant and role, the context query, the statements. A statement that fails there sends the
   * whole over the WebSocket instead (sendOpening), which judges the context first, as always; an
   * endpoint that cannot answer is a lost connection (503).
   */
  private async sendOverHttp(http: HttpRead, opening: { statements: string[]; verify?: VerifyOpening }, batch: Queued[]): Promise<void> {
    const params = batch.map((q) => httpParams(q.values ?? []));
    if (params.some((p) => p === null)) return this.sendOpening(opening, batch);
    // The batch commits where it runs, whatever the answer then is (an error, a refused or changed
    // context): after the context query (which may record the token's use) it is made read-only,
    // so a handler statement that writes fails there (25006) and the request goes the WebSocket's
    // way, where a write commits only with a successful answer.
    const statements: HttpStatement[] = [
      ...httpOpening(opening.statements),
      { query: READ_ONLY_FROM_HERE, params: [] },
      ...batch.map((q, i) => ({ query: q.config.text, params: params[i]! })),
    ];
    let results: RawResult[];
    try {
      results = (await sendBatch(http.endpoint, http.connectionString, statements)) as RawResult[];
    } catch (error) {
      if (error instanceof HttpStatementError) {
        // A read that writes: the route reads over the WebSocket from now on.
        if (error.code === READ_ONLY_VIOLATION) http.onLateStatement?.();
        return this.sendOpening(opening, batch);
      }
      this.connectionLost = true;
      for (const q of batch) q.reject(error);
      throw error;
    }
    this.httpDone = true;
    const contextAt = opening.statements.length - 3;
    try {
      if (opening.verify) opening.verify(shaped(results[contextAt]!, {}).rows as Record<string, unknown>[]);
    } catch (error) {
      for (const q of batch) q.reject(error);
      throw error;
    }
    for (const [i, q] of batch.entries()) q.resolve(shaped(results[contextAt + 2 + i]!, q.config));
  }

  private async sendOpening(opening: { statements: string[]; verify?: VerifyOpening }, batch: Queued[]): Promise<void> {
    try {
      await this.connect();
    } catch (error) {
      for (const q of batch) q.reject(error);
      throw error;
    }
    let inlined: string[] | null = null;
    try {
      inlined = batch.map((q) => inlineStatement(q.config.text, q.values ?? []));
    } catch (error) {
      if (!(error instanceof NotInlinable)) throw error;
    }
    try {
      if (inlined?.length) {
        let results: RawResult[] | null = null;
        try {
          results = (await this.driverQuery({
            text: [...opening.statements, ...inlined].join(";\n"),
            rowMode: "array",
            types: RAW_TEXT,
          } as never)) as unknown as RawResult[];
        } catch (error) {
          if (this.connectionLost) throw error;
          // A statement of the batch failed, and Postgres skipped the rest of the message: the
          // answer to give depends first on the request context, so the transaction starts again,
          // the opening alone, and the statements follow as they would have, failing again or not.
          await this.driverQuery("ROLLBACK");
        }
        if (results) {
          const context = results[opening.statements.length - 1]!;
          opening.verify?.(shaped(context, {}).rows as Record<string, unknown>[]);
          const own = results.slice(opening.statements.length);
          for (const [i, q] of batch.entries()) q.resolve(shaped(own[i]!, q.config));
          return;
        }
      }
      const result = (await this.driverQuery(opening.statements.join("; "))) as unknown as { rows: Record<string, unknown>[] }[];
      opening.verify?.(result[result.length - 1]!.rows);
    } catch (error) {
      for (const q of batch) q.reject(error);
      throw error;
    }
    for (const q of batch) this.driverQuery(q.config as never, q.values as never).then(q.resolve, q.reject);
  }

  private deferred: { text: string; onRows?: (rows: Record<string, unknown>[]) => void }[] = [];

  /**
   * Runs `statement` at the commit, in the COMMIT's own round trip: a write whose result the
   * request does not wait for (a webhook event and its deliveries, modules/events/service.ts)
   * then costs no round trip of its own. Its values are inlined (drizzle's inlineParams: strings
   * quoted with '' doubled, safe as begin() forced standard_conforming_strings on for the transaction),
   * since a simple-query message carries no parameters; a Date is refused, its text not being
   * Postgres's. A rollback drops it; a failure fails the commit, so the change and what was
   * deferred commit together or not at all. `onRows` gets the statement's rows once committed.
   */
  deferUntilCommit(statement: SQL, onRows?: (rows: Record<string, unknown>[]) => void): void {
    if (this.state !== "open") throw new Error("no open transaction to defer a statement to");
    if (inlineDialect.sqlToQuery(statement).params.some((param) => param instanceof Date)) throw new Error("a deferred statement cannot inline a Date");
    const { sql: text } = inlineDialect.sqlToQuery(statement.inlineParams());
    // A simple-query message ends at a NUL byte (JSON.stringify escapes it; a raw string may not).
    if (text.includes("\0")) throw new Error("a deferred statement cannot carry a NUL character");
    this.deferred.push({ text, onRows });
  }

  async commit(): Promise<void> {
    if (this.state !== "open") return;
    this.state = "done";
    // Opened lazily and never used: nothing was sent, nothing to commit.
    if (this.opening) {
      this.opening = null;
      return;
    }
    if (this.sent) await this.sent;
    // A read's HTTP batch committed where it ran; deferred statements need a transaction of their own.
    if (this.httpDone && !this.deferred.length) return;
    if (this.httpDone) await this.reopenOnce();
    const deferred = this.deferred;
    this.deferred = [];
    if (!deferred.length) {
      await this.driverQuery("COMMIT");
      return;
    }
    const text = [...deferred.map((d) => d.text), "COMMIT"].join(";\n");
    let results: unknown;
    try {
      results = await this.driverQuery(text);
    } catch (error) {
      // A statement failed: Postgres skipped the rest of the message, COMMIT included.
      await this.driverQuery("ROLLBACK").catch(() => undefined);
      throw error;
    }
    const sets = results as { rows?: Record<string, unknown>[] }[];
    for (const [i, d] of deferred.entries()) d.onRows?.(sets[i]?.rows ?? []);
  }

  async rollback(): Promise<void> {
    if (this.state !== "open") return;
    this.state = "done";
    this.deferred = [];
    if (this.opening) {
      this.opening = null;
      for (const q of this.queued.splice(0)) q.reject(new Error("the request transaction was rolled back"));
      return;
    }
    await this.sent?.catch(() => undefined);
    await this.reopening?.catch(() => undefined);
    // Nothing open on the connection: an HTTP read (committed there), or a connection never made.
    if (this.httpDone || !this.connecting || this.connectFailed) return;
    await this.driverQuery("ROLLBACK");
  }
}

/** Renders deferred statements (RequestTransaction.deferUntilCommit) to text. */
const inlineDialect = new PgDialect();

/**
 * Runs `work` in one transaction of the tenant, as the application role. Used by tests, jobs and
 * the request middleware alike.
 */
export async function withTenantTransaction<T>(env: Env, tenantId: number | null, work: (db: Database) => Promise<T>, connectionString?: string): Promise<T> {
  const tx = new RequestTransaction(() => createClient(env, connectionString), env);
  try {
    await tx.begin(tenantId);
    const result = await work(tx.db);
    await tx.commit();
    return result;
  } catch (error) {
    await tx.rollback().catch(() => undefined);
    throw error;
  } finally {
    await tx.close();
  }
}
