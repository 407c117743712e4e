import { createApp } from "./app";
import type { Env } from "./env";
import { handleQueue } from "./jobs/queue";
import { handleScheduled } from "./jobs/scheduled";

const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(handleScheduled(controller, env));
  },
  async queue(batch, env) {
    await handleQueue(batch, env);
  },
} satisfies ExportedHandler<Env>;
