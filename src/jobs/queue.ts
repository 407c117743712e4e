import type { Env } from "../env";
import { log } from "../lib/log";
import { handleEcfBatch } from "./ecf";
import { handleOutboxBatch } from "./outbox";
import { handleRncSyncBatch } from "./rnc-sync";

/** Queue consumers, one function per queue: `outbox` (email and bot delivery), `ecf` (e-CF to DGII) and `rnc-sync` (registry batches). */
export async function handleQueue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  switch (batch.queue) {
    case "rnc-sync":
      return handleRncSyncBatch(batch, env);
    case "outbox":
      return handleOutboxBatch(batch, env);
    case "ecf":
      return handleEcfBatch(batch, env);
    default:
      log.info("queue batch", { queue: batch.queue, messages: batch.messages.length });
      batch.ackAll();
  }
}
