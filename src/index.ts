import { createApp } from "./app";
import { configured, type Env } from "./env";
import { handleQueue } from "./jobs/queue";
import { handleScheduled } from "./jobs/scheduled";

const app = createApp();

export default {
  fetch: app.fetch,
  // With an invalid configuration (logged once by config()) a cron does nothing and a queue batch
  // is retried, rather than failing on its first read of a setting.
  async scheduled(controller, env, ctx) {
    if (!configured(env)) return;
    ctx.waitUntil(handleScheduled(controller, env));
  },
  async queue(batch, env) {
    if (!configured(env)) return batch.retryAll();
    await handleQueue(batch, env);
  },
} satisfies ExportedHandler<Env>;
