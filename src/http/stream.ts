import type { Context } from "hono";
import { log } from "../lib/log";
import type { AppEnv } from "./context";

/**
 * A response body written chunk by chunk from the request transaction, so that a large answer (a
 * month of DGII's 606) never sits whole in the Worker's memory: `first` is written at once, then
 * `next` is called each time the client is ready for more, until it returns null. The transaction
 * stays open, and is committed, only once the body is written, has failed or was cancelled
 * (`c.var.streaming`, read by databaseSession). A failure after the first chunk cannot change the
 * status already sent: it is logged and the body is cut short, which the client sees as an error.
 */
export function streamedBody(c: Context<AppEnv>, first: string, next: () => Promise<string | null>): ReadableStream<Uint8Array> | null {
  // A HEAD answers the GET's status and headers without a body (hono drops it unread): nothing is
  // streamed, so nothing holds the transaction open.
  if (c.req.raw.method === "HEAD") return null;
  const encoder = new TextEncoder();
  let settle: () => void = () => undefined;
  c.set(
    "streaming",
    new Promise<void>((resolve) => {
      settle = resolve;
    }),
  );
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(first));
    },
    async pull(controller) {
      try {
        const chunk = await next();
        if (chunk === null) {
          controller.close();
          settle();
        } else controller.enqueue(encoder.encode(chunk));
      } catch (error) {
        log.error("streamed response failed", { requestId: c.get("requestId"), cause: String(error) });
        controller.error(error);
        settle();
      }
    },
    cancel() {
      settle();
    },
  });
}
