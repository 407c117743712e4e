import { and, desc, eq, ne, sql } from "drizzle-orm";
import type { AnyDb } from "../../../db/client";
import { oneRow, rowsOf } from "../../../db/rows";
import { rncSyncBatches, rncSyncRuns } from "../../../db/schema";
import { countActiveRecords, deleteRecordsOfRun, upsertRecords } from "../queries";
import { foldForSearch, type ParseStats, type RncTuple } from "./parse";

/**
 * The life of a sync run, shared by the Worker and Node:
 *
 * - `startRun` inserts a `running` run (and abandons any other run still `running`).
 * - The producer streams the file and sends batches; each Queue message is written by `writeBatch`
 *   as one INSERT … ON CONFLICT into the run's own generation of `rnc_records` (run_id = the run),
 *   plus a receipt so a redelivered message is not counted twice.
 * - `finishParsing` records the totals and how many batches to expect; whoever makes
 *   batches_done reach batches_expected (the last consumer, or the producer if the consumers were
 *   faster) calls `tryComplete`, which in one transaction marks the run `completed` and deletes
 *   every other generation. Readers read only the latest completed generation, so they see the old
 *   registry until that commit and the new one after it, never a mix and never an empty table.
 * - `failRun` marks the run `failed` and deletes whatever it had written: the previous generation
 *   stays untouched.
 *
 * Row locks order these: writers take FOR KEY SHARE on the run row, completion and failure take
 * FOR UPDATE, so a batch is either written before the run ends (and deleted with it if it failed)
 * or sees the run ended and is skipped.
 */

/** The registry is read and written with the one database handle type (a Worker transaction or a Node pool client). */
export type RegistryDb = AnyDb;

/** Runs `work` in one transaction as the application role (Worker: neon driver; Node: pg). */
export interface RegistryStore {
  transaction<T>(work: (db: RegistryDb) => Promise<T>): Promise<T>;
}

export interface RncBatchMessage {
  kind: "rnc-batch";
  runId: number;
  seq: number;
  records: RncTuple[];
}

/** Serializes run starts across processes (cron and an operator at the same time). */
const START_LOCK = sql`SELECT pg_advisory_xact_lock(7281905)`;

/**
 * Deleting a whole generation of the registry (about 750,000 rows and their indexes' entries) can
 * outlast the application role's statement_timeout of 30 s (migration 0048) on a slow or busy
 * database; this transaction alone gets longer.
 */
const GENERATION_DELETE_TIMEOUT = sql`SET LOCAL statement_timeout = '10min'`;

async function abandon(db: RegistryDb, runId: number, reason: string): Promise<void> {
  await db.execute(GENERATION_DELETE_TIMEOUT);
  await db.execute(deleteRecordsOfRun(runId, "only"));
  await db.delete(rncSyncBatches).where(eq(rncSyncBatches.runId, runId));
  await db
    .update(rncSyncRuns)
    .set({ status: "failed", error: reason.slice(0, 1000), finishedAt: sql`now()` })
    .where(eq(rncSyncRuns.id, runId));
}

export async function startRun(store: RegistryStore, input: { source: string; trigger: string }): Promise<number> {
  return store.transaction(async (db) => {
    await db.execute(START_LOCK);
    const run = await db
      .insert(rncSyncRuns)
      .values({ source: input.source.slice(0, 500), trigger: input.trigger })
      .returning({ id: rncSyncRuns.id })
      .then(oneRow);
    const stale = await db
      .select({ id: rncSyncRuns.id })
      .from(rncSyncRuns)
      .where(and(eq(rncSyncRuns.status, "running"), ne(rncSyncRuns.id, run.id)))
      .for("update");
    for (const old of stale) await abandon(db, old.id, `superseded by run ${run.id}`);
    return run.id;
  });
}

/** Ends a running run as failed and removes what it wrote. No-op when it already ended. */
export async function failRun(store: RegistryStore, runId: number, reason: string): Promise<void> {
  await store.transaction(async (db) => {
    const [run] = await db.select({ status: rncSyncRuns.status }).from(rncSyncRuns).where(eq(rncSyncRuns.id, runId)).for("update");
    if (run?.status === "running") await abandon(db, runId, reason);
  });
}

/** Records in the registry readers see now (the latest completed generation); 0 before the first sync. */
export async function currentRegistrySize(store: RegistryStore): Promise<number> {
  const rows = await store.transaction((db) => db.execute(countActiveRecords()));
  return Number(rowsOf<{ n: number }>(rows)[0]?.n ?? 0);
}

export async function finishParsing(store: RegistryStore, runId: number, stats: ParseStats, batches: number): Promise<boolean> {
  const updated = await store.transaction((db) =>
    db
      .update(rncSyncRuns)
      .set({
        parsedAt: sql`now()`,
        linesRead: stats.linesRead,
        linesRejected: stats.linesRejected,
        rejections: stats.rejections,
        batchesExpected: batches,
      })
      .where(and(eq(rncSyncRuns.id, runId), eq(rncSyncRuns.status, "running")))
      .returning({ id: rncSyncRuns.id }),
  );
  return updated.length > 0;
}

/** Completes the run when every expected batch is written. Returns true when this call completed it. */
export async function tryComplete(store: RegistryStore, runId: number): Promise<boolean> {
  return store.transaction(async (db) => {
    const [run] = await db
      .select({ status: rncSyncRuns.status, expected: rncSyncRuns.batchesExpected, done: rncSyncRuns.batchesDone })
      .from(rncSyncRuns)
      .where(eq(rncSyncRuns.id, runId))
      .for("update");
    if (run?.status !== "running" || run.expected === null || run.done < run.expected) return false;
    await db.execute(GENERATION_DELETE_TIMEOUT);
    await db.execute(deleteRecordsOfRun(runId, "except"));
    await db.delete(rncSyncBatches).where(eq(rncSyncBatches.runId, runId));
    await db.update(rncSyncRuns).set({ status: "completed", finishedAt: sql`now()` }).where(eq(rncSyncRuns.id, runId));
    return true;
  });
}

type BatchOutcome = "written" | "duplicate" | "run_ended";

/**
 * Writes one Queue message: all its records in one statement, into the run's generation. Safe to
 * repeat: a redelivered message finds its receipt and changes nothing.
 */
export async function writeBatch(store: RegistryStore, message: RncBatchMessage): Promise<{ outcome: BatchOutcome; completed: boolean }> {
  const rows = JSON.stringify(
    message.records.map(([identification, name, comercialName, status]) => [
      identification,
      name,
      comercialName,
      status,
      `${identification}\n${foldForSearch(name)}\n${foldForSearch(comercialName)}`,
    ]),
  );
  const result = await store.transaction(async (db) => {
    const [run] = await db.select({ status: rncSyncRuns.status }).from(rncSyncRuns).where(eq(rncSyncRuns.id, message.runId)).for("key share");
    if (run?.status !== "running") return { outcome: "run_ended" as const, progress: null };
    const receipt = await db
      .insert(rncSyncBatches)
      .values({ runId: message.runId, seq: message.seq, records: message.records.length })
      .onConflictDoNothing()
      .returning({ seq: rncSyncBatches.seq });
    if (!receipt.length) return { outcome: "duplicate" as const, progress: null };
    await db.execute(upsertRecords(message.runId, rows));
    const progress = await db
      .update(rncSyncRuns)
      .set({ batchesDone: sql`${rncSyncRuns.batchesDone} + 1`, recordsWritten: sql`${rncSyncRuns.recordsWritten} + ${message.records.length}` })
      .where(eq(rncSyncRuns.id, message.runId))
      .returning({ done: rncSyncRuns.batchesDone, expected: rncSyncRuns.batchesExpected })
      .then(oneRow);
    return { outcome: "written" as const, progress: progress };
  });
  const ready = result.progress && result.progress.expected !== null && result.progress.done >= result.progress.expected;
  const completed = ready ? await tryComplete(store, message.runId) : false;
  return { outcome: result.outcome, completed };
}

type RunRow = typeof rncSyncRuns.$inferSelect;

export async function recentRuns(store: RegistryStore, limit = 10): Promise<RunRow[]> {
  return store.transaction((db) => db.select().from(rncSyncRuns).orderBy(desc(rncSyncRuns.id)).limit(limit));
}

export async function getRun(store: RegistryStore, runId: number): Promise<RunRow | null> {
  const rows = await store.transaction((db) => db.select().from(rncSyncRuns).where(eq(rncSyncRuns.id, runId)));
  return rows[0] ?? null;
}
