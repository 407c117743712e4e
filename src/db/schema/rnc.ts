import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * The DGII taxpayer (RNC) registry: public data shared by every tenant, so a global table (no
 * tenant_id, no row-level security). Each sync writes a complete new generation of rows tagged with
 * its run id; readers only read the generation of the latest completed run, and completing a run
 * deletes every other generation in the same transaction. See docs/operations.md, "RNC registry sync".
 *
 * `search` is the accent- and case-folded `identification \n name \n comercial_name` (folded in
 * TypeScript by `foldForSearch`), indexed with a pg_trgm GIN index (migration 0004, custom SQL).
 */
export const rncRecords = pgTable(
  "rnc_records",
  {
    runId: integer("run_id").notNull(),
    identification: text("identification").notNull(),
    name: text("name").notNull(),
    comercialName: text("comercial_name").notNull(),
    status: text("status").notNull(),
    search: text("search").notNull(),
  },
  // identification first: lookups and identification-prefix searches use it, and run_id alone is
  // never a usable index prefix (so the planner cannot pick a full scan of a generation for search).
  (t) => [primaryKey({ name: "rnc_records_pkey", columns: [t.identification, t.runId] })],
);

const RNC_RUN_STATUSES = ["running", "completed", "failed"] as const;
type RncRunStatus = (typeof RNC_RUN_STATUSES)[number];

/** One row per sync run (cron or operator): what was read, written, rejected, and how it ended. */
export const rncSyncRuns = pgTable(
  "rnc_sync_runs",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    source: text("source").notNull(),
    trigger: text("trigger").notNull(),
    status: text("status").$type<RncRunStatus>().notNull().default("running"),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
    parsedAt: timestamp("parsed_at", { withTimezone: true }),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
    linesRead: integer("lines_read").notNull().default(0),
    linesRejected: integer("lines_rejected").notNull().default(0),
    /** The first few rejected lines: `[{line, reason}]`. */
    rejections: jsonb("rejections").$type<{ line: number; reason: string }[]>().notNull().default(sql`'[]'::jsonb`),
    recordsWritten: integer("records_written").notNull().default(0),
    batchesExpected: integer("batches_expected"),
    batchesDone: integer("batches_done").notNull().default(0),
    error: text("error"),
  },
  (t) => [index("rnc_sync_runs_status_idx").on(t.status, t.id)],
);

/**
 * Receipts of the batches a running sync has written, so that a redelivered Queue message is not
 * counted twice. Emptied for a run when it completes or fails.
 */
export const rncSyncBatches = pgTable(
  "rnc_sync_batches",
  {
    runId: integer("run_id").notNull(),
    seq: integer("seq").notNull(),
    records: integer("records").notNull(),
  },
  (t) => [primaryKey({ name: "rnc_sync_batches_pkey", columns: [t.runId, t.seq] })],
);
