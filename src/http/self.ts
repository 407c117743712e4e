import type { ExecutionContext as Ctx } from "hono";
import type { Env } from "../env";

type Handler = (request: Request, env: Env, ctx?: Ctx) => Response | Promise<Response>;

let handler: Handler | null = null;

/** createApp registers its fetch handler here, so a module can call the app in-process without importing it (no cycle). */
export function registerSelf(fetch: Handler): void {
  handler = fetch;
}

/**
 * The Worker's own fetch handler, called in-process: how a check reaches this deployment's own
 * hosts (a tenant's receiver under /fe). Over the network it could not: on Cloudflare a Worker's
 * fetch to a host routed to itself does not reach it again.
 */
export function selfFetcher(env: Env, ctx?: Ctx): (request: Request) => Promise<Response> {
  return async (request) => {
    if (!handler) throw new Error("The app registered no fetch handler (createApp).");
    return handler(request, env, ctx);
  };
}
