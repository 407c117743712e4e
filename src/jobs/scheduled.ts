import type { Env } from "../env";
import { log } from "../lib/log";
import { OUTBOX_SWEEP_CRON, sweepOutbox } from "./outbox";
import { runWorkerRncSync } from "./rnc-sync";

/** Crons (wrangler.toml): the outbox sweep every minute, and the weekly RNC sync (`0 6 * * SUN`). */
export async function handleScheduled(controller: ScheduledController, env: Env): Promise<void> {
  log.info("scheduled run", { cron: controller.cron, scheduledTime: controller.scheduledTime });
  // Every minute: the outbox sweep re-enqueues due messages (src/jobs/outbox.ts).
  if (controller.cron === OUTBOX_SWEEP_CRON) {
    await sweepOutbox(env);
    return;
  }
  const result = await runWorkerRncSync(env);
  log.info("rnc sync producer finished", { runId: result.runId, status: result.status, batches: result.batches, error: result.error });
}
