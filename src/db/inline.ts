/**
 * A parameterized statement as text for a simple-query message, which carries no parameters: how
 * the request transaction sends a handler's first statements in the same message as BEGIN and the
 * request context (RequestTransaction in client.ts), one round trip for both.
 *
 * Each `$n` becomes an escape-string literal, `E'…'` with `\` and `'` doubled, of the text the
 * driver would have sent as the parameter (node-postgres's prepareValue: numbers, booleans and
 * strings as their text). A literal with no type, like a parameter sent with none, takes its type
 * from where it stands (`$1::jsonb`, `id = $1`, `LIMIT $1`), so the statement means the same.
 * `E'…'` reads the same whether `standard_conforming_strings` is on or off: the setting that applies
 * is the one in force before the message, Postgres scanning a whole message before running any of it.
 */

/** What cannot be inlined safely: the caller then sends the statement with its parameters. */
export class NotInlinable extends Error {}

function literal(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  let text: string;
  if (typeof value === "string") text = value;
  else if (typeof value === "number" || typeof value === "bigint") {
    if (typeof value === "number" && !Number.isFinite(value)) throw new NotInlinable("a non-finite number");
    text = String(value);
  } else if (typeof value === "boolean") text = value ? "true" : "false";
  // Dates, buffers, arrays and objects: the driver's own conversions (time zones, array and bytea
  // syntax) are not reproduced here.
  else throw new NotInlinable(`a parameter of type ${typeof value}`);
  if (text.includes("\0")) throw new NotInlinable("a NUL character");
  return `E'${text.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
}

/**
 * Walks `sql` outside its quoted parts (strings '…', E'…', identifiers "…", dollar quotes $tag$…$tag$,
 * comments), calling `onCode(index)` at each character of plain SQL; returns nothing.
 */
function scan(sql: string, onCode: (index: number) => number | undefined): void {
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    if (ch === "'" || ch === '"') {
      // E'…' strings may escape a quote with a backslash.
      const escapes = ch === "'" && i > 0 && /[eE]/.test(sql[i - 1]!) && !/[\w$]/.test(sql[i - 2] ?? " ");
      i++;
      while (i < sql.length) {
        if (escapes && sql[i] === "\\") i += 2;
        else if (sql[i] === ch) {
          if (sql[i + 1] === ch) i += 2;
          else break;
        } else i++;
      }
      i++;
      continue;
    }
    if (ch === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? sql.length : end + 1;
      continue;
    }
    if (ch === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2);
      i = end < 0 ? sql.length : end + 2;
      continue;
    }
    if (ch === "$" && !/[\w$]/.test(sql[i - 1] ?? " ")) {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 64));
      if (tag) {
        const end = sql.indexOf(tag[0], i + tag[0].length);
        i = end < 0 ? sql.length : end + tag[0].length;
        continue;
      }
    }
    const next = onCode(i);
    i = next ?? i + 1;
  }
}

/** `sql` with each `$n` replaced by the literal of `params[n - 1]`; throws NotInlinable. */
export function inlineStatement(sql: string, params: readonly unknown[]): string {
  if (sql.includes("\0")) throw new NotInlinable("a NUL character");
  let out = "";
  let from = 0;
  scan(sql, (i) => {
    // Text without parameters is sent as a simple query, which may hold several statements: each
    // would answer with its own result, not the caller's one.
    if (sql[i] === ";" && sql.slice(i + 1).trim()) throw new NotInlinable("several statements");
    if (sql[i] !== "$") return undefined;
    const match = /^\$(\d+)/.exec(sql.slice(i, i + 12));
    if (!match) return undefined;
    const n = Number(match[1]);
    if (n < 1 || n > params.length) throw new NotInlinable(`$${n} has no parameter`);
    out += sql.slice(from, i) + literal(params[n - 1]);
    from = i + match[0].length;
    return from;
  });
  // A trailing semicolon would leave an empty statement, answered with no result, in the message.
  return (out + sql.slice(from)).replace(/;\s*$/, "");
}

/** The statements of a simple-query message, split at its top-level semicolons (for the bench). */
export function splitStatements(sql: string): string[] {
  const parts: string[] = [];
  let from = 0;
  scan(sql, (i) => {
    if (sql[i] !== ";") return undefined;
    parts.push(sql.slice(from, i));
    from = i + 1;
    return from;
  });
  parts.push(sql.slice(from));
  return parts.map((p) => p.trim()).filter(Boolean);
}
