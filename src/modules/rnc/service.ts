import { sql } from "drizzle-orm";
import type { RegistryDb } from "./sync/runs";
import { clean, foldForSearch } from "./sync/parse";

export interface RncRecordRow {
  identification: string;
  name: string;
  comercial_name: string;
  status: string;
}

export const SEARCH_LIMIT = 10;
export const SEARCH_MIN_LENGTH = 3;

/** Readers see only the generation of the latest completed sync run (see sync/runs.ts). */
const ACTIVE_RUN = sql`(SELECT max(id) FROM rnc_sync_runs WHERE status = 'completed')`;

const rowsOf = <T>(result: unknown): T[] => ((result as { rows?: T[] }).rows ?? []) as T[];

/** `131-23456-7` → `131234567`; null unless 9 or 11 digits (dashes allowed between them). */
export function normalizeIdentification(value: string): string | null {
  const trimmed = value.trim();
  if (!/^\d[\d-]*\d$/.test(trimmed)) return null;
  const digits = trimmed.replace(/-/g, "");
  return digits.length === 9 || digits.length === 11 ? digits : null;
}

export function statusWarning(record: { identification: string; status: string }): string | undefined {
  if (record.status === "ACTIVO") return undefined;
  return `RNC ${record.identification} is ${record.status || "without a status"} in the DGII registry, not ACTIVO.`;
}

export async function findRnc(db: RegistryDb, identification: string): Promise<RncRecordRow | null> {
  const result = await db.execute(sql`
    SELECT identification, name, comercial_name, status FROM rnc_records
    WHERE run_id = ${ACTIVE_RUN} AND identification = ${identification}`);
  return rowsOf<RncRecordRow>(result)[0] ?? null;
}

/** Registry records of several identifications at once (one query), by identification. */
export async function findRncMany(db: RegistryDb, identifications: string[]): Promise<Map<string, RncRecordRow>> {
  const wanted = [...new Set(identifications.filter((id) => /^\d{9}(\d{2})?$/.test(id)))];
  if (!wanted.length) return new Map();
  const result = await db.execute(sql`
    SELECT identification, name, comercial_name, status FROM rnc_records
    WHERE run_id = ${ACTIVE_RUN} AND identification = ANY(${`{${wanted.join(",")}}`}::text[])`);
  return new Map(rowsOf<RncRecordRow>(result).map((r) => [r.identification, r]));
}

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The term as matched: whitespace collapsed, accents and case folded; dashes dropped from an id. */
export function searchTerm(raw: string): string {
  const cleaned = clean(raw);
  return /^[\d-]+$/.test(cleaned) ? cleaned.replace(/-/g, "") : foldForSearch(cleaned);
}

/**
 * Substring search over identification, name and comercial_name (folded `search` column, trigram
 * GIN index). Ranking: the exact identification, then records where a field starts with the term,
 * then the rest; within a rank by name and identification. At most 10. Each rank is its own
 * LIMITed branch, so a common term ("maria": a fifth of the registry) stops after 10 rows instead
 * of sorting every match; which 10 of a rank's many matches is not otherwise specified.
 */
export async function searchRnc(db: RegistryDb, raw: string): Promise<RncRecordRow[]> {
  // Never a sequential (or whole-index) scan: with LIMIT the planner likes a seq scan when it
  // expects many matches, which degrades badly when the estimate is wrong. Bitmap scans only, for
  // the rest of this transaction (the request's).
  await db.execute(sql`SELECT set_config('enable_seqscan', 'off', true), set_config('enable_indexscan', 'off', true)`);
  return rowsOf<RncRecordRow>(await db.execute(searchQuery(raw)));
}

/** The smallest digit string greater than every string starting with `prefix` ("1299" → "13"); null for "99…". */
function digitsUpperBound(prefix: string): string | null {
  const trimmed = prefix.replace(/9+$/, "");
  if (!trimmed) return null;
  return trimmed.slice(0, -1) + String(Number(trimmed.at(-1)) + 1);
}

/**
 * The search statement (exported for the bench's EXPLAIN). A term of digits is an identification:
 * exact match and prefix use the primary key (digit strings sort the same in every collation), the
 * rest the trigram index. Any other term: prefix of name or comercial_name (`\n` + term in the
 * folded column), then anywhere, both through the trigram index.
 */
export function searchQuery(raw: string) {
  const term = searchTerm(raw);
  const escaped = escapeLike(term);
  const contains = `%${escaped}%`;
  const branch = (rank: number, where: ReturnType<typeof sql>, limit: number) => sql`
    (SELECT ${rank}::int AS rank, identification, name, comercial_name, status FROM rnc_records
      WHERE run_id = (SELECT id FROM active) AND ${where} LIMIT ${limit})`;
  let branches;
  if (/^\d+$/.test(term)) {
    const upper = digitsUpperBound(term);
    const prefix = upper === null ? sql`identification > ${term}` : sql`identification > ${term} AND identification < ${upper}`;
    branches = sql`${branch(0, sql`identification = ${term}`, 1)} UNION ALL ${branch(1, prefix, SEARCH_LIMIT)}
      UNION ALL ${branch(2, sql`search LIKE ${contains} AND NOT (identification >= ${term} AND ${upper === null ? sql`true` : sql`identification < ${upper}`})`, SEARCH_LIMIT)}`;
  } else {
    const fieldPrefix = `%\n${escaped}%`;
    branches = sql`${branch(1, sql`search LIKE ${fieldPrefix}`, SEARCH_LIMIT)}
      UNION ALL ${branch(2, sql`search LIKE ${contains} AND search NOT LIKE ${fieldPrefix}`, SEARCH_LIMIT)}`;
  }
  return sql`
    WITH active AS MATERIALIZED (SELECT max(id) AS id FROM rnc_sync_runs WHERE status = 'completed')
    SELECT identification, name, comercial_name, status FROM (${branches}) ranked
    ORDER BY rank, name, identification
    LIMIT ${SEARCH_LIMIT}`;
}
