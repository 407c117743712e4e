import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./context";

const ACCEPTABLE_ID = /^[A-Za-z0-9._-]{8,128}$/;

/** Takes a well-formed X-Request-ID from the caller or makes one, and echoes it on the response. */
export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  const given = c.req.header("x-request-id");
  const id = given && ACCEPTABLE_ID.test(given) ? given : crypto.randomUUID();
  c.set("requestId", id);
  await next();
  c.res.headers.set("X-Request-ID", id);
});
