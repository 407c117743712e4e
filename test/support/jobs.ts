import { createExecutionContext, createMessageBatch, createScheduledController, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import { env } from "./env";

/**
 * Background work driven by the test instead of waited for (CONTRIBUTING.md, "Testing background
 * work"): the Worker's own queue and scheduled handlers (src/index.ts), called with the batch or
 * the cron a test needs, as the Workers runtime would call them. Miniflare's own queue consumer
 * still runs beside them; every job takes its row FOR UPDATE SKIP LOCKED and checks its state and
 * due time, so a message consumed twice (by the test and by miniflare) steps its row once.
 */

const handler = worker as ExportedHandler<Env>;
let sequence = 0;

export type QueueName = "outbox" | "ecf" | "rnc-sync";

/** Runs the Worker's queue handler on one batch of `bodies` and answers what it acked and retried. */
export async function runQueue(queue: QueueName, bodies: unknown[], options: { attempts?: number; env?: Env } = {}) {
  const batch = createMessageBatch(
    queue,
    bodies.map((body) => ({ id: `driven-${++sequence}`, timestamp: new Date(), attempts: options.attempts ?? 1, body })),
  );
  const ctx = createExecutionContext();
  await handler.queue!(batch as MessageBatch<unknown>, options.env ?? env, ctx);
  return getQueueResult(batch, ctx);
}

/** Runs the Worker's scheduled handler for `cron` (the minute sweeps by default) and waits for what it started. */
export async function runCron(cron = "* * * * *", options: { scheduledTime?: Date; env?: Env } = {}): Promise<void> {
  const ctx = createExecutionContext();
  await handler.scheduled!(createScheduledController({ cron, scheduledTime: options.scheduledTime ?? new Date() }), options.env ?? env, ctx);
  await waitOnExecutionContext(ctx);
}
