import type { Env } from "../env";
import { log } from "../lib/log";

/** Cron: the weekly RNC sync. The sync itself lands with the RNC registry. */
export async function handleScheduled(controller: ScheduledController, _env: Env): Promise<void> {
  log.info("scheduled run", { cron: controller.cron, scheduledTime: controller.scheduledTime });
}
