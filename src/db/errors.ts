import { AppError, periodClosed } from "../lib/errors";

/**
 * Database errors that input can cause, mapped in one place by SQLSTATE (the app's onError): a
 * request the database refuses is the client's 422 or 409, never a 500. Services that expect a
 * particular violation (a unique SKU, a tax in use) catch it themselves first and answer with
 * their own message; what reaches here is the rest. Messages never echo the error's `detail`
 * (it holds other rows' values): only column names, read from it.
 */

/** The fields of a Postgres error (pg-protocol's DatabaseError) this module reads. */
interface PgErrorFields {
  code: string;
  message?: string;
  detail?: string;
  constraint?: string;
  table?: string;
  column?: string;
}

/** A SQLSTATE: its class is two digits/letters starting with a digit, or F0, HV, P0, XX (not "EPIPE"). */
const SQLSTATE = /^(?:[0-9][0-9A-Z]|F0|HV|P0|XX)[0-9A-Z]{3}$/;

/** The Postgres error behind `error`, walking `.cause` (drizzle wraps the driver's error). */
export function postgresError(error: unknown): PgErrorFields | null {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const candidate = current as Partial<PgErrorFields> & { cause?: unknown };
    if (typeof candidate.code === "string" && SQLSTATE.test(candidate.code)) return candidate as PgErrorFields;
    current = candidate.cause;
  }
  return null;
}

/**
 * Request fields for foreign-key columns whose name is not the field's: lines' products and taxes
 * are inside `items`, an invoice's salesmen are `salesman_ids`. Other columns are named as sent.
 */
const FOREIGN_KEY_FIELDS: Record<string, string> = {
  invoice_items_product_id_products_id_fk: "items",
  quotation_items_product_id_products_id_fk: "items",
  invoice_item_taxes_tax_id_taxes_id_fk: "items",
  invoice_salesmen_salesman_id_salesmen_id_fk: "salesman_ids",
};

/** Check constraints → the request field they guard. */
const CHECK_FIELDS: Record<string, string> = {
  stock_levels_minimum_not_negative: "minimum_quantity",
};

/** Columns the server sets itself: a violation on them is not about a field of the request. */
const SERVER_COLUMNS = new Set(["tenant_id", "created_by", "invited_by", "user_id", "invoice_id", "quotation_id", "invoice_item_id", "adjustment_id"]);

/** Column names of "Key (a, b)=(…)" in a detail — names only; the values are never read. */
function keyColumns(detail: string | undefined): string[] {
  const match = /^Key \(([^)]*)\)=/.exec(detail ?? "");
  return match ? match[1]!.split(",").map((name) => name.trim().replace(/^"|"$/g, "")) : [];
}

/**
 * The referencing column of a drizzle-named foreign key, `<table>_<column>_<referenced table>_<referenced column>_fk`:
 * under row-level security Postgres leaves the key out of the detail ("Key is not present in table
 * "currencies"."), so the constraint's name is what tells which column it was.
 */
function foreignKeyColumn(pg: PgErrorFields): string | undefined {
  const { constraint, table } = pg;
  if (!constraint || !table || !constraint.startsWith(`${table}_`) || !constraint.endsWith("_fk")) return undefined;
  const middle = constraint.slice(table.length + 1, -"_fk".length);
  const referenced = /table "([^"]+)"/.exec(pg.detail ?? "")?.[1];
  if (referenced) {
    const suffix = middle.lastIndexOf(`_${referenced}_`);
    if (suffix > 0) return middle.slice(0, suffix);
  }
  const idEnd = middle.indexOf("_id_");
  return idEnd > 0 ? middle.slice(0, idEnd + "_id".length) : undefined;
}

const fieldFor = (column: string | undefined) => (column && !SERVER_COLUMNS.has(column) ? column : "body");

const invalid = (field: string, message: string) => new AppError("validation_failed", "The given data was invalid.", { [field]: [message] });

const DATA_EXCEPTIONS: Record<string, string> = {
  "22003": "A number is out of the range the database can store.",
  "22008": "A date or time is out of the range the database can store.",
  "22007": "A date or time is not valid.",
  "22P02": "A value is not valid for its type.",
  "22021": "Text must not contain NUL (\\u0000) or characters the database cannot store.",
  "22P05": "Text must not contain NUL (\\u0000) or characters the database cannot store.",
};

/** How long a client should wait before retrying a transaction the database aborted (class 40). */
const RETRY_AFTER_CONFLICT_SECONDS = 1;
/** How long after a statement timeout: the load or lock that slowed it may take a while to pass. */
const RETRY_AFTER_TIMEOUT_SECONDS = 30;

/**
 * What the database refused, as the refusal the API answers with (on-error.ts gives it its status),
 * or null when it is not input's fault (the 500 path):
 * - 23503 foreign key: inserting a row that names a missing one → 422 on that column's field
 *   (e.g. a workspace or currency deleted meanwhile); deleting a row still referenced → 409 in_use.
 * - 23505 unique, 23P01 exclusion → 409 conflict. 23514 check, 23502 not null → 422 on the field.
 * - class 22 (data exception: numeric overflow, date out of range, invalid text, NUL) → 422.
 * - class 40 (serialization failure, deadlock): the transaction was rolled back and can simply be
 *   retried → 503 service_unavailable with Retry-After.
 * - P0001 raised by the fiscal-period lock (constraint `period_closed`, the period in its detail;
 *   drizzle/0058_period_lock.sql) → 409 period_closed naming the period.
 * - 57014 a statement cut by the application role's statement_timeout (migration 0048) → 503
 *   service_unavailable with Retry-After, saying so.
 */
export function databaseRefusal(error: unknown): AppError | null {
  const pg = postgresError(error);
  if (!pg) return null;
  const code = pg.code;
  switch (code) {
    case "23503": {
      if (/^update or delete on table/.test(pg.message ?? "")) {
        return new AppError("in_use", "The record is still referenced by other records and cannot be removed.");
      }
      const column = keyColumns(pg.detail).find((name) => name !== "tenant_id") ?? foreignKeyColumn(pg);
      const field = (pg.constraint && FOREIGN_KEY_FIELDS[pg.constraint]) ?? fieldFor(column);
      return invalid(field, field === "body" ? "A record this request refers to does not exist." : "No such record (it may have been deleted).");
    }
    case "23505":
    case "23P01": {
      const columns = keyColumns(pg.detail).filter((name) => name !== "tenant_id");
      const what = columns.length ? ` with the same ${columns.join(", ")}` : "";
      return new AppError("conflict", `Another record${what} already exists.`);
    }
    case "23514": {
      const field = (pg.constraint && CHECK_FIELDS[pg.constraint]) ?? fieldFor(pg.column);
      return invalid(field, "The value is not allowed.");
    }
    case "23502":
      return invalid(fieldFor(pg.column), "A value is required.");
    case "23001":
      return new AppError("in_use", "The record is still referenced by other records and cannot be removed.");
    case "P0001":
      return pg.constraint === "period_closed" && pg.detail && /^[0-9]{6}$/.test(pg.detail) ? periodClosed(pg.detail) : null;
  }
  if (code.startsWith("22")) return invalid("body", DATA_EXCEPTIONS[code] ?? "A value is out of range or not valid.");
  if (code === "57014") {
    return new AppError(
      "service_unavailable",
      "The database stopped the request: it took longer than the statement timeout allows. Nothing was changed; retry it later.",
      undefined,
      RETRY_AFTER_TIMEOUT_SECONDS,
    );
  }
  if (code.startsWith("40")) {
    return new AppError(
      "service_unavailable",
      "The request conflicted with another one and was rolled back; retry it.",
      undefined,
      RETRY_AFTER_CONFLICT_SECONDS,
    );
  }
  return null;
}

/** Quoted values in a Postgres message (`invalid input syntax for type integer: "abc"`). */
const QUOTED = /"((?:[^"]|"")*)"/g;

/**
 * What an unhandled error's log line carries: the error's class, and for a database error its
 * SQLSTATE, constraint, table and column, with messages stripped of the query's parameters —
 * drizzle's "Failed query: <sql>\nparams: <values>" loses its `params:` part, quoted values in the
 * driver's message are replaced by "…" unless they are the identifiers named above, and the stack
 * keeps only its frames (its first line repeats the message).
 */
export function errorLogFields(error: unknown): Record<string, unknown> {
  const err = error instanceof Error ? error : new Error(String(error));
  const fields: Record<string, unknown> = { errorClass: err.constructor?.name ?? "Error" };
  const pg = postgresError(err);
  let message = err.message;
  if (pg) {
    const identifiers = new Set([pg.constraint, pg.table, pg.column].filter(Boolean));
    Object.assign(fields, { sqlState: pg.code, constraint: pg.constraint, table: pg.table, column: pg.column });
    if ((pg as unknown) !== err) {
      fields.causeClass = (pg as object).constructor?.name;
      fields.causeMessage = (pg.message ?? "").replace(QUOTED, (quoted, inner: string) => (identifiers.has(inner) ? quoted : '"…"'));
    } else {
      message = message.replace(QUOTED, (quoted, inner: string) => (identifiers.has(inner) ? quoted : '"…"'));
    }
  }
  fields.errorMessage = withoutParams(message).slice(0, 2_000);
  fields.stack = (err.stack ?? "")
    .split("\n")
    .filter((line) => /^\s+at /.test(line))
    .slice(0, 15)
    .join("\n");
  return fields;
}

/** drizzle's message without the `params:` part. */
function withoutParams(message: string): string {
  const cut = message.search(/\n?\s*params:/);
  return cut === -1 ? message : message.slice(0, cut);
}

/** Postgres unique_violation (23505), on the named constraint or index when one is given. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const pg = postgresError(error);
  if (pg?.code !== "23505") return false;
  return constraint === undefined || pg.constraint === constraint || String(pg.message ?? "").includes(constraint);
}

/** Postgres foreign_key_violation (23503). */
function isForeignKeyViolation(error: unknown): boolean {
  return postgresError(error)?.code === "23503";
}

/**
 * Backstop for deletes: a reference no check knew about (a table added later) still answers 409
 * in_use instead of a server error.
 */
export function inUseOnForeignKey(what: string) {
  return (error: unknown): never => {
    if (isForeignKeyViolation(error)) throw new AppError("in_use", `This ${what} cannot be deleted: other records refer to it. Deactivate it instead.`);
    throw error;
  };
}
