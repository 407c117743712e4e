import type { Env } from "../env";
import { log } from "../lib/log";

/** Queue consumers: `outbox` (email and bot delivery) and `rnc-sync` (registry batches). */
export async function handleQueue(batch: MessageBatch<unknown>, _env: Env): Promise<void> {
  log.info("queue batch", { queue: batch.queue, messages: batch.messages.length });
  batch.ackAll();
}
