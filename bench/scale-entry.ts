/**
 * The scale bench's Worker (bench/scale.ts, through bench/worker-host.ts with BENCH_WORKER_ENTRY):
 * src/index.ts as deployed, with its queue producers (ECF_QUEUE, OUTBOX_QUEUE) wrapped to count
 * what each invocation enqueues — a cron's sweeps, a queue batch's steps re-enqueuing themselves
 * and handing work on — and each invocation's wall time and messages, kept in the isolate and read
 * by the bench at `GET /__bench/tallies` (which also clears them). Nothing else differs.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Env } from "../src/env";
import worker from "../src/index";

export interface Tally {
  kind: "cron" | "queue";
  /** The cron expression, or the queue's name. */
  name: string;
  /** Messages in the batch (a queue batch). */
  messages: number;
  /** Messages this invocation put on a queue, and the send/sendBatch calls that carried them. */
  enqueued: number;
  sendCalls: number;
  startedAt: number;
  wallMs: number | null;
}

const current = new AsyncLocalStorage<Tally>();
let tallies: Tally[] = [];

function counting(queue: Queue | undefined): Queue | undefined {
  if (!queue) return queue;
  const tally = (n: number) => {
    const t = current.getStore();
    if (!t) return;
    t.enqueued += n;
    t.sendCalls += 1;
  };
  return {
    send: (body: unknown, options?: QueueSendOptions) => {
      tally(1);
      return queue.send(body, options);
    },
    sendBatch: (messages: Iterable<MessageSendRequest<unknown>>, options?: QueueSendBatchOptions) => {
      const list = [...messages];
      tally(list.length);
      return queue.sendBatch(list, options);
    },
  } as Queue;
}

/** One wrapped env per env the runtime gives (config(env) is parsed once per env object). */
const wrapped = new WeakMap<Env, Env>();
function counted(env: Env): Env {
  let w = wrapped.get(env);
  if (!w) {
    w = { ...env, ECF_QUEUE: counting(env.ECF_QUEUE), OUTBOX_QUEUE: counting(env.OUTBOX_QUEUE) } as Env;
    wrapped.set(env, w);
  }
  return w;
}

function start(kind: Tally["kind"], name: string, messages: number): Tally {
  const t: Tally = { kind, name, messages, enqueued: 0, sendCalls: 0, startedAt: Date.now(), wallMs: null };
  tallies.push(t);
  return t;
}

export default {
  async fetch(request, env, ctx) {
    if (new URL(request.url).pathname === "/__bench/tallies") {
      // The finished invocations (cleared); those still running stay for the next read.
      const done = tallies.filter((t) => t.wallMs !== null);
      tallies = tallies.filter((t) => t.wallMs === null);
      return Response.json({ done, running: tallies.length });
    }
    return worker.fetch(request, env, ctx);
  },
  async scheduled(controller, env, ctx) {
    const t = start("cron", controller.cron, 0);
    const pending: Promise<unknown>[] = [];
    const tracked = {
      waitUntil: (promise: Promise<unknown>) => {
        pending.push(promise);
        ctx.waitUntil(promise);
      },
      passThroughOnException: () => ctx.passThroughOnException(),
      props: ctx.props,
    } as ExecutionContext;
    await current.run(t, () => worker.scheduled(controller, counted(env), tracked));
    ctx.waitUntil(
      Promise.allSettled(pending).then(() => {
        t.wallMs = Date.now() - t.startedAt;
      }),
    );
  },
  async queue(batch, env) {
    const t = start("queue", batch.queue, batch.messages.length);
    try {
      await current.run(t, () => worker.queue(batch, counted(env)));
    } finally {
      t.wallMs = Date.now() - t.startedAt;
    }
  },
} satisfies ExportedHandler<Env>;
