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
  if (text.includes("\\")) text = text.replaceAll("\\", "\\\\");
  if (text.includes("'")) text = text.replaceAll("'", "''");
  return `E'${text}'`;
}

const QUOTE = 39; // '
const DOUBLE_QUOTE = 34; // "
const BACKSLASH = 92;
const DOLLAR = 36;
const SEMICOLON = 59;
const DASH = 45;
const SLASH = 47;
const STAR = 42;

/** The characters that open a quoted part or a comment, or that `scan` reports. */
const SPECIAL = /['"$;\-/]/g;

/** [A-Za-z0-9_], what `\w` matches. */
function isWord(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

/** Where the dollar quote's tag opening at `i` ends (past its second `$`), or -1 when `$` opens none. */
function dollarTagEnd(sql: string, i: number): number {
  let j = i + 1;
  const first = sql.charCodeAt(j);
  if (first !== DOLLAR) {
    if (!((first >= 65 && first <= 90) || (first >= 97 && first <= 122) || first === 95)) return -1;
    j++;
    while (j < sql.length && isWord(sql.charCodeAt(j))) j++;
    if (sql.charCodeAt(j) !== DOLLAR) return -1;
  }
  return j + 1;
}

/**
 * Walks `sql` outside its quoted parts (strings '…', E'…', identifiers "…", dollar quotes $tag$…$tag$,
 * comments), calling `onCode(index)` at each `;` and each `$` that is not within an identifier, which may return where to go
 * on. One pass over character codes, quoted parts skipped with indexOf: a regular expression per
 * character made it 3× slower, and this runs on every statement sent with a request's BEGIN.
 */
function scan(sql: string, onCode: (index: number) => number | undefined): void {
  const n = sql.length;
  let i = 0;
  while (i < n) {
    // Plain SQL up to the next character that may matter, found by the regexp engine in one go.
    SPECIAL.lastIndex = i;
    if (!SPECIAL.test(sql)) return;
    i = SPECIAL.lastIndex - 1;
    const ch = sql.charCodeAt(i);
    if (ch === QUOTE || ch === DOUBLE_QUOTE) {
      // E'…' strings may escape a quote with a backslash.
      const prev = i > 0 ? sql.charCodeAt(i - 1) : 0;
      const escapes = ch === QUOTE && (prev === 69 || prev === 101) && !(i >= 2 && (isWord(sql.charCodeAt(i - 2)) || sql.charCodeAt(i - 2) === DOLLAR));
      i++;
      if (escapes) {
        while (i < n) {
          const c = sql.charCodeAt(i);
          if (c === BACKSLASH) i += 2;
          else if (c === ch) {
            if (sql.charCodeAt(i + 1) === ch) i += 2;
            else break;
          } else i++;
        }
        i++;
        continue;
      }
      const quote = ch === QUOTE ? "'" : '"';
      let end = sql.indexOf(quote, i);
      // A doubled quote is a quote inside.
      while (end >= 0 && sql.charCodeAt(end + 1) === ch) end = sql.indexOf(quote, end + 2);
      i = end < 0 ? n + 1 : end + 1;
      continue;
    }
    if (ch === DASH && sql.charCodeAt(i + 1) === DASH) {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? n : end + 1;
      continue;
    }
    if (ch === SLASH && sql.charCodeAt(i + 1) === STAR) {
      const end = sql.indexOf("*/", i + 2);
      i = end < 0 ? n : end + 2;
      continue;
    }
    if (ch === DOLLAR) {
      const prev = i > 0 ? sql.charCodeAt(i - 1) : 0;
      // After a letter, digit, _ or $, a $ is part of an identifier (x$1) or of a tag already read.
      if (isWord(prev) || prev === DOLLAR) {
        i++;
        continue;
      }
      const tagEnd = dollarTagEnd(sql, i);
      if (tagEnd > 0) {
        const tag = sql.slice(i, tagEnd);
        const end = sql.indexOf(tag, tagEnd);
        i = end < 0 ? n : end + tag.length;
        continue;
      }
      i = onCode(i) ?? i + 1;
      continue;
    }
    if (ch === SEMICOLON) {
      i = onCode(i) ?? i + 1;
      continue;
    }
    i++;
  }
}

function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

/** `sql` with each `$n` replaced by the literal of `params[n - 1]`; throws NotInlinable. */
export function inlineStatement(sql: string, params: readonly unknown[]): string {
  if (sql.includes("\0")) throw new NotInlinable("a NUL character");
  let out = "";
  let from = 0;
  scan(sql, (i) => {
    if (sql.charCodeAt(i) === SEMICOLON) {
      // Text without parameters is sent as a simple query, which may hold several statements: each
      // would answer with its own result, not the caller's one.
      for (let j = i + 1; j < sql.length; j++) if (!isSpace(sql.charCodeAt(j))) throw new NotInlinable("several statements");
      return undefined;
    }
    let end = i + 1;
    let n = 0;
    while (end < sql.length && end - i <= 11) {
      const digit = sql.charCodeAt(end) - 48;
      if (digit < 0 || digit > 9) break;
      n = n * 10 + digit;
      end++;
    }
    if (end === i + 1) return undefined;
    if (n < 1 || n > params.length) throw new NotInlinable(`$${n} has no parameter`);
    out += sql.slice(from, i) + literal(params[n - 1]);
    from = end;
    return from;
  });
  // A trailing semicolon would leave an empty statement, answered with no result, in the message.
  let last = sql.length;
  while (last > from && isSpace(sql.charCodeAt(last - 1))) last--;
  if (last > from && sql.charCodeAt(last - 1) === SEMICOLON) return out + sql.slice(from, last - 1);
  return out + sql.slice(from);
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
