import { type SQL, sql } from "drizzle-orm";
import { likePattern } from "../../db/queries";
import { rowsOf } from "../../db/rows";
import { activeRecords, RECORD_COLUMNS } from "./queries";
import { clean, foldForSearch } from "./sync/parse";
import type { RegistryDb } from "./sync/runs";

interface RncRecordRow {
  identification: string;
  name: string;
  comercial_name: string;
  status: string;
}

const SEARCH_LIMIT = 10;
export const SEARCH_MIN_LENGTH = 3;

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
  const result = await db.execute(activeRecords(sql`identification = ${identification}`));
  return rowsOf<RncRecordRow>(result)[0] ?? null;
}

/** The term as matched: whitespace collapsed, accents and case folded; dashes dropped from an id. */
function searchTerm(raw: string): string {
  const cleaned = clean(raw);
  return /^[\d-]+$/.test(cleaned) ? cleaned.replace(/-/g, "") : foldForSearch(cleaned);
}

/**
 * Substring search over identification, name and comercial_name (the folded `search` column).
 * Ranking: the exact identification, then records where a field starts with the term, then the
 * rest; within a rank by name and identification. At most 10. One statement: the `rnc_search`
 * function (migration 0009) picks per rank the index that answers fastest — btree ranges for
 * prefixes; for substrings a bounded probe, then the trigram index for rare fragments — and never
 * a sequential scan. Which 10 of a rank's many matches is not otherwise specified.
 */
export async function searchRnc(db: RegistryDb, raw: string): Promise<RncRecordRow[]> {
  return rowsOf<RncRecordRow>(await db.execute(searchQuery(raw)));
}

/** The smallest string greater than every string starting with `prefix`, bytewise ("ab" → "ac"); null for "99…". */
function prefixUpperBound(prefix: string, digits: boolean): string | null {
  if (digits) {
    const trimmed = prefix.replace(/9+$/, "");
    if (!trimmed) return null;
    return trimmed.slice(0, -1) + String(Number(trimmed.at(-1)) + 1);
  }
  return prefix.slice(0, -1) + String.fromCodePoint(prefix.codePointAt(prefix.length - 1)! + 1);
}

/** The search statement (exported for the bench). */
export function searchQuery(raw: string): SQL {
  const term = searchTerm(raw);
  const digits = /^\d+$/.test(term);
  const contains = likePattern(term);
  return sql`SELECT ${RECORD_COLUMNS}
    FROM rnc_search(${term}, ${prefixUpperBound(term, digits)}, ${contains}, ${digits}, ${SEARCH_LIMIT})
    ORDER BY rank, name, identification`;
}
