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
  const term = searchTerm(raw);
  const escaped = escapeLike(term);
  const contains = `%${escaped}%`;
  const idPrefix = `${escaped}%`;
  const fieldPrefix = `%\n${escaped}%`;
  const result = await db.execute(sql`
    WITH active AS MATERIALIZED (SELECT max(id) AS id FROM rnc_sync_runs WHERE status = 'completed')
    SELECT identification, name, comercial_name, status FROM (
      (SELECT 0 AS rank, identification, name, comercial_name, status FROM rnc_records
        WHERE run_id = (SELECT id FROM active) AND identification = ${term} LIMIT 1)
      UNION ALL
      (SELECT 1, identification, name, comercial_name, status FROM rnc_records
        WHERE run_id = (SELECT id FROM active) AND (search LIKE ${idPrefix} OR search LIKE ${fieldPrefix}) AND identification <> ${term}
        LIMIT ${SEARCH_LIMIT})
      UNION ALL
      (SELECT 2, identification, name, comercial_name, status FROM rnc_records
        WHERE run_id = (SELECT id FROM active) AND search LIKE ${contains} AND NOT (search LIKE ${idPrefix} OR search LIKE ${fieldPrefix})
        LIMIT ${SEARCH_LIMIT})
    ) ranked
    ORDER BY rank, name, identification
    LIMIT ${SEARCH_LIMIT}`);
  return rowsOf<RncRecordRow>(result);
}
