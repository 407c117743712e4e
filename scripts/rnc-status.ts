/** npm run rnc:status [-- --limit N]: the last RNC sync runs and the size of the registry. */
import { sql } from "drizzle-orm";
import { recentRuns } from "../src/modules/rnc/sync/runs";
import { command, commandLine, isMain, runMain } from "./lib/args";
import { openOperatorDatabase } from "./lib/local-database";
import { nodeStore } from "./lib/rnc-node";

export const COMMAND = command({
  usage: `Usage: npm run rnc:status [-- --limit N]

The last N runs of the RNC sync (default 10, at most 100) and the size of the registry, from the
database of npm run dev (.dev-data/) or DATABASE_URL's.`,
  options: { limit: { type: "string" } },
});

async function main(): Promise<number> {
  const options = commandLine(COMMAND).values;
  const limit = Math.min(100, Math.max(1, Number(options.limit ?? 10) || 10));
  const database = await openOperatorDatabase();
  const store = nodeStore(database.ownerUrl, { setRole: database.setRole });
  try {
    const runs = await recentRuns(store, limit);
    const [active] = await store.transaction(async (db) => {
      const result = await db.execute(sql`
        SELECT r.id, r.finished_at, (SELECT count(*) FROM rnc_records WHERE run_id = r.id)::int AS records
        FROM rnc_sync_runs r WHERE r.status = 'completed' ORDER BY r.id DESC LIMIT 1`);
      return (result as unknown as { rows: { id: number; finished_at: Date; records: number }[] }).rows;
    });
    console.log(
      active
        ? `Registry: ${active.records} records from run ${active.id} (completed ${new Date(active.finished_at).toISOString()}).`
        : "Registry: empty (no completed run).",
    );
    if (!runs.length) {
      console.log("No sync runs yet.");
      return 0;
    }
    console.table(
      runs.map((r) => ({
        run: r.id,
        status: r.status,
        trigger: r.trigger,
        started: r.startedAt.toISOString().replace(".000", ""),
        seconds: r.finishedAt ? Math.round((r.finishedAt.getTime() - r.startedAt.getTime()) / 100) / 10 : null,
        lines: r.linesRead,
        rejected: r.linesRejected,
        written: r.recordsWritten,
        batches: `${r.batchesDone}/${r.batchesExpected ?? "?"}`,
        error: r.error ?? "",
      })),
    );
    for (const r of runs) for (const rejection of r.rejections.slice(0, 3)) console.log(`run ${r.id}, line ${rejection.line}: ${rejection.reason}`);
    return 0;
  } finally {
    await store.end();
    await database.stop();
  }
}

if (isMain(import.meta.url)) runMain(main);
