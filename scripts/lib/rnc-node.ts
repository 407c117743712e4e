import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { inTransaction, setLocalRole } from "../../src/db/transaction";
import { failRun, type RegistryStore, type RncBatchMessage, writeBatch } from "../../src/modules/rnc/sync/runs";
import type { RncQueue } from "../../src/modules/rnc/sync/sync";

/**
 * Node adapters of the RNC sync (operator CLI and bench): the same parsing and writing code as the
 * Worker, with a pg pool instead of the neon driver and an in-process queue instead of Cloudflare's.
 */

export function nodeStore(connectionString: string, options: { setRole?: string; max?: number } = {}): RegistryStore & { pool: pg.Pool; end(): Promise<void> } {
  if (options.setRole) setLocalRole(options.setRole); // refuses a role that is not a plain name now, not at the first batch
  const pool = new pg.Pool({ connectionString, max: options.max ?? 8 });
  pool.on("error", () => undefined); // an idle client dropped by the server is simply replaced
  return {
    pool,
    async transaction(work) {
      const client = await pool.connect();
      try {
        return await inTransaction(client, () => work(drizzle({ client })), options);
      } finally {
        client.release();
      }
    },
    end: () => pool.end(),
  };
}

/**
 * A queue whose consumer runs in this process: `concurrency` consumers call `writeBatch`, as the
 * Worker's rnc-sync consumer does, with the same retry budget (6 attempts, then the run fails).
 * Like Cloudflare's, sending never waits for consumers.
 */
export function inProcessQueue(store: RegistryStore, options: { concurrency?: number; maxAttempts?: number } = {}) {
  const waiting: { body: RncBatchMessage; attempts: number }[] = [];
  const concurrency = options.concurrency ?? 4;
  const maxAttempts = options.maxAttempts ?? 6;
  let active = 0;
  let idle: (() => void) | null = null;
  let maxBacklog = 0;

  const pump = () => {
    while (active < concurrency && waiting.length) {
      const item = waiting.shift()!;
      active++;
      writeBatch(store, item.body)
        .catch(async (error: Error) => {
          if (item.attempts + 1 >= maxAttempts) await failRun(store, item.body.runId, `batch ${item.body.seq} could not be written: ${error.message}`);
          else waiting.push({ body: item.body, attempts: item.attempts + 1 });
        })
        .finally(() => {
          active--;
          pump();
          if (!active && !waiting.length) idle?.();
        });
    }
  };

  const queue: RncQueue = {
    async sendBatch(messages) {
      for (const message of messages) waiting.push({ body: JSON.parse(JSON.stringify(message.body)) as RncBatchMessage, attempts: 0 });
      maxBacklog = Math.max(maxBacklog, waiting.length);
      pump();
    },
  };
  return {
    queue,
    /** Resolves when every sent message has been consumed. */
    drained: () => (active || waiting.length ? new Promise<void>((resolve) => (idle = resolve)) : Promise.resolve()),
    maxBacklog: () => maxBacklog,
  };
}
