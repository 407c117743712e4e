import { z } from "@hono/zod-openapi";
import { and, eq, sql } from "drizzle-orm";
import type { Context, TypedResponse } from "hono";
import { routePath } from "hono/route";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { JSONParsed } from "hono/utils/types";
import type { Database } from "../db/client";
import * as schema from "../db/schema";
import { sha256Hex } from "../lib/crypto";
import { AppError, fieldError } from "../lib/errors";
import { requireAuth } from "./auth";
import type { AppEnv } from "./context";
import { requireWorkspace } from "./workspace";

const MAX_KEY_LENGTH = 255;
const LIFETIME_HOURS = 24;

export interface StoredResponse<T extends object, S extends ContentfulStatusCode> {
  status: S;
  body: T;
}

/** What `c.json(body, status)` returns: a Response typed with the route's body and status. */
type JsonResponse<T, S extends ContentfulStatusCode> = Response & TypedResponse<JSONParsed<T>, S, "json">;

/**
 * What a key is scoped by, besides tenant and user (columns of the key): the request's workspace
 * and the endpoint — method, route pattern and the values of its path parameters, e.g.
 * `POST /api/v1/invoices/:id/payments {"id":"5"} @workspace 3`. The primary key (tenant, user,
 * scope, key) then makes each (tenant, user, workspace, endpoint, key) independent: the same key
 * sent to another workspace or endpoint runs there instead of replaying another one's response.
 * Derived from the request, never from a caller-supplied string, so no route can get it wrong.
 */
export function idempotencyScope(c: Context<AppEnv>): string {
  const params = c.req.param() as Record<string, string>;
  const named = Object.keys(params).length ? ` ${JSON.stringify(Object.fromEntries(Object.entries(params).sort(([a], [b]) => a.localeCompare(b))))}` : "";
  return `${c.req.method} ${routePath(c)}${named} @workspace ${requireWorkspace(c).id}`;
}

/**
 * `Idempotency-Key`: the first request with a key runs and its response is stored in the same
 * transaction; a retry with the same key and body within 24 h gets that response again without
 * anything being created; the same key with another body → 422 idempotency_key_reused. A second
 * request racing the first waits on the key's row lock and then replays. Only successful
 * responses are kept: a refused request rolls back with its key, so it can be retried.
 */
export async function idempotent<T extends object, S extends ContentfulStatusCode>(
  c: Context<AppEnv>,
  db: Database,
  run: () => Promise<StoredResponse<T, S>>,
): Promise<JsonResponse<T, S>> {
  const key = c.req.header("idempotency-key");
  if (key === undefined) {
    const response = await run();
    return c.json(response.body, response.status);
  }
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) throw fieldError("Idempotency-Key", `Must be 1 to ${MAX_KEY_LENGTH} characters.`);
  const tenantId = c.get("tenant").id;
  const userId = requireAuth(c).userId;
  const scope = idempotencyScope(c);
  const requestHash = await sha256Hex(await c.req.text());
  const k = schema.idempotencyKeys;
  const where = and(eq(k.tenantId, tenantId), eq(k.userId, userId), eq(k.scope, scope), eq(k.key, key));
  // Expired keys are forgotten, so the key may be used again.
  await db.delete(k).where(and(where, sql`${k.createdAt} < now() - make_interval(hours => ${LIFETIME_HOURS})`));
  const inserted = await db.insert(k).values({ tenantId, userId, scope, key, requestHash }).onConflictDoNothing().returning({ key: k.key });
  if (!inserted.length) {
    const [stored] = await db.select().from(k).where(where);
    if (!stored || stored.requestHash !== requestHash) {
      throw new AppError("idempotency_key_reused", "This Idempotency-Key was used with a different request body.", {
        "Idempotency-Key": ["Already used with a different request body."],
      });
    }
    // What this endpoint stored under its own scope (method, route, params): a response of its own type.
    const replay = c.json(stored.responseBody as T, (stored.responseStatus ?? 200) as S);
    replay.headers.set("Idempotent-Replayed", "true");
    return replay;
  }
  const response = await run();
  await db.update(k).set({ responseStatus: response.status, responseBody: response.body }).where(where);
  return c.json(response.body, response.status);
}

/** The request header of the writes that take an Idempotency-Key, as their routes declare it. */
export const idempotencyHeader = z.object({
  "idempotency-key": z
    .string()
    .optional()
    // Checked in the handler (1 to MAX_KEY_LENGTH characters, a 422 on Idempotency-Key), declared here.
    .openapi({ param: { name: "idempotency-key", in: "header" }, minLength: 1, maxLength: MAX_KEY_LENGTH, description: "Replays the first response for 24 h" }),
});
