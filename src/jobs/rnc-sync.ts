import { withTenantTransaction } from "../db/client";
import { config, type Env } from "../env";
import { log } from "../lib/log";
import { failRun, type RegistryDb, type RegistryStore, type RncBatchMessage, writeBatch } from "../modules/rnc/sync/runs";
import { openUrl, type RncQueue, runRncSync, type SyncResult } from "../modules/rnc/sync/sync";

/** Attempts of one rnc-sync message: wrangler.toml says max_retries = 5. */
const RNC_MAX_ATTEMPTS = 6;

/** The registry is global: transactions run as the app role with no tenant set. */
export function workerStore(env: Env): RegistryStore {
  return { transaction: (work) => withTenantTransaction(env, null, (db) => work(db as unknown as RegistryDb)) };
}

/**
 * The cron's sync: streams `url` (default TAX_AUTHORITY_DATA_URL) into the rnc-sync Queue. Tests
 * pass their own URL and a queue that captures messages.
 */
export async function runWorkerRncSync(env: Env, options: { url?: string; queue?: RncQueue; trigger?: "cron" | "test" } = {}): Promise<SyncResult> {
  const url = options.url ?? config(env).TAX_AUTHORITY_DATA_URL;
  const queue = options.queue ?? config(env).RNC_SYNC_QUEUE;
  if (!queue) throw new Error("the RNC_SYNC_QUEUE binding is missing");
  return runRncSync({ store: workerStore(env), queue: queue as RncQueue, source: url, trigger: options.trigger ?? "cron", open: openUrl(url) });
}

function isBatchMessage(body: unknown): body is RncBatchMessage {
  const b = body as Partial<RncBatchMessage> | null;
  return !!b && b.kind === "rnc-batch" && Number.isInteger(b.runId) && Number.isInteger(b.seq) && Array.isArray(b.records);
}

/** Consumer of the `rnc-sync` Queue: each message is one batch, written with one statement. */
export async function handleRncSyncBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const store = workerStore(env);
  for (const message of batch.messages) {
    if (!isBatchMessage(message.body)) {
      log.warn("rnc-sync: unknown message dropped", { id: message.id });
      message.ack();
      continue;
    }
    const body = message.body;
    try {
      const { outcome, completed } = await writeBatch(store, body);
      if (completed) log.info("rnc sync completed", { runId: body.runId });
      else if (outcome !== "written") log.info("rnc-sync: batch skipped", { runId: body.runId, seq: body.seq, outcome });
      message.ack();
    } catch (error) {
      const reason = (error as Error).message;
      if (message.attempts >= RNC_MAX_ATTEMPTS) {
        log.error("rnc-sync: batch failed for good; failing the run", { runId: body.runId, seq: body.seq, reason });
        await failRun(store, body.runId, `batch ${body.seq} could not be written: ${reason}`).catch(() => undefined);
        message.ack();
      } else {
        log.warn("rnc-sync: batch failed; retrying", { runId: body.runId, seq: body.seq, attempts: message.attempts, reason });
        message.retry();
      }
    }
  }
}
