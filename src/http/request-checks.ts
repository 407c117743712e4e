import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import { config } from "../env";
import { AppError } from "../lib/errors";
import type { AppEnv } from "./context";

/** Checks on the request itself, before any work: configuration, body size, body type. */

/** An invalid configuration is a 500 internal_error with the request's reference (logged once by config()). */
export const validConfiguration = createMiddleware<AppEnv>(async (c, next) => {
  config(c.env);
  await next();
});

export const MAX_BODY_BYTES = 1024 * 1024;

export const bodySizeLimit = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new AppError("payload_too_large", `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`);
  },
});

const WITH_BODY = new Set(["POST", "PUT", "PATCH"]);

/** DGII's receiver services (/fe/…) take XML files as multipart/form-data, as DGII's protocol sends them. */
export const isReceiverService = (path: string) => /^\/fe\//i.test(path);

/** A request that carries a body must say it is JSON (the receiver services excepted). */
export const jsonOnly = createMiddleware<AppEnv>(async (c, next) => {
  if (WITH_BODY.has(c.req.method) && !isReceiverService(c.req.path)) {
    const length = c.req.header("content-length");
    const hasBody = (length !== undefined && length !== "0") || c.req.header("transfer-encoding") !== undefined;
    const type = c.req.header("content-type") ?? "";
    if (hasBody && !/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
      throw new AppError("unsupported_media_type", "Request bodies must be JSON (Content-Type: application/json).");
    }
  }
  await next();
});
