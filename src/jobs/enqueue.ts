import { log } from "../lib/log";

/**
 * Sends message bodies to a Queue binding in batches of 100 (the Queues limit), optionally
 * delayed; false (logged) when there is no binding or a send failed. Every caller has a sweep that
 * finds what a lost message would have carried, so a failed send is never an error.
 */
export async function sendToQueue(
  queue: Queue | undefined,
  bodies: unknown[],
  what: string,
  options: { delaySeconds?: number; requestId?: string } = {},
): Promise<boolean> {
  if (!bodies.length) return true;
  if (!queue) {
    log.warn(`${what}: no queue binding; the sweep will deliver`, { requestId: options.requestId, count: bodies.length });
    return false;
  }
  try {
    for (let i = 0; i < bodies.length; i += 100) {
      await queue.sendBatch(bodies.slice(i, i + 100).map((body) => ({ body, contentType: "json" as const, delaySeconds: options.delaySeconds ?? 0 })));
    }
    return true;
  } catch (error) {
    log.warn(`${what}: queue send failed; the sweep will deliver`, { requestId: options.requestId, count: bodies.length, error: (error as Error).message });
    return false;
  }
}
