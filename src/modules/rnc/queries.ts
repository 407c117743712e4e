import { type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { rncRecords, rncSyncRuns } from "../../db/schema";

/**
 * The raw statements of `rnc_records`, in one place: the sync writes a run's generation of the
 * registry in bulk (one INSERT per batch from JSON) and readers see only the latest completed
 * generation. Column names come from the drizzle table.
 */

const r = rncRecords;
const column = (name: keyof typeof r.$inferSelect) => sql.identifier(r[name].name);

/** Readers see only the generation of the latest completed sync run (see sync/runs.ts). */
const ACTIVE_RUN = sql`(SELECT max(${sql.identifier(rncSyncRuns.id.name)}) FROM ${rncSyncRuns} WHERE ${sql.identifier(rncSyncRuns.status.name)} = 'completed')`;

/** The columns a record is shown with (RncRecordRow). */
export const RECORD_COLUMNS = sql.join([column("identification"), column("name"), column("comercialName"), column("status")], sql`, `);

/** The shown columns of the active generation's records that `where` selects. */
export const activeRecords = (where: SQL): SQL => sql`SELECT ${RECORD_COLUMNS} FROM ${r} WHERE ${column("runId")} = ${ACTIVE_RUN} AND ${where}`;

/**
 * The active generation's record of `identification` (a column of the outer query) as JSON
 * {name, comercial_name, status}, or null: a correlated subquery, so a list reads its rows and
 * their records in one statement (issue 46: one round trip per read).
 */
export const activeRecordJson = (identification: PgColumn): SQL =>
  sql`(SELECT json_build_object('name', ${column("name")}, 'comercial_name', ${column("comercialName")}, 'status', ${column("status")}) FROM ${r} WHERE ${column("runId")} = ${ACTIVE_RUN} AND ${column("identification")} = ${identification})`;

/** Records of the active generation: what readers see. */
export const countActiveRecords = (): SQL => sql`SELECT count(*)::int AS n FROM ${r} WHERE ${column("runId")} = ${ACTIVE_RUN}`;

/** Drops the records of the run `runId` (abandoned), or of every other run (`except`, on completion). */
export const deleteRecordsOfRun = (runId: number, which: "only" | "except"): SQL =>
  sql`DELETE FROM ${r} WHERE ${column("runId")} ${sql.raw(which === "only" ? "=" : "<>")} ${runId}`;

/**
 * Writes a batch into the run's generation: `tuples` is JSON of [identification, name,
 * comercial_name, status, search] arrays; a repeated identification keeps the last values.
 */
export const upsertRecords = (runId: number, tuples: string): SQL => sql`
  INSERT INTO ${r} (${column("runId")}, ${column("identification")}, ${column("name")}, ${column("comercialName")}, ${column("status")}, ${column("search")})
  SELECT ${runId}::integer, t->>0, t->>1, t->>2, t->>3, t->>4 FROM json_array_elements(${tuples}::json) AS t
  ON CONFLICT (${column("runId")}, ${column("identification")}) DO UPDATE
    SET ${column("name")} = excluded.${column("name")}, ${column("comercialName")} = excluded.${column("comercialName")},
      ${column("status")} = excluded.${column("status")}, ${column("search")} = excluded.${column("search")}`;
