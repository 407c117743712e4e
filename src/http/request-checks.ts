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

/**
 * DGII's receiver services (/fe/…) are called without an account: a smaller cap there bounds what a
 * stranger makes us read and parse. An e-CF of 1,000 lines (DGII's maximum, Formato e-CF v1.0) is
 * ~380 KiB as we build it; 768 KiB leaves room for long descriptions.
 */
export const MAX_RECEIVER_BODY_BYTES = 768 * 1024;

const limitTo = (maxSize: number) =>
  bodyLimit({
    maxSize,
    onError: () => {
      throw new AppError("payload_too_large", `Request bodies are limited to ${maxSize} bytes.`);
    },
  });
const apiBodyLimit = limitTo(MAX_BODY_BYTES);
const receiverBodyLimit = limitTo(MAX_RECEIVER_BODY_BYTES);

export const bodySizeLimit = createMiddleware<AppEnv>((c, next) => (isReceiverService(c.req.path) ? receiverBodyLimit(c, next) : apiBodyLimit(c, next)));

const WITH_BODY = new Set(["POST", "PUT", "PATCH"]);

/** DGII's receiver services (/fe/…) take XML files as multipart/form-data, as DGII's protocol sends them. */
export const isReceiverService = (path: string) => /^\/fe\//i.test(path);

/**
 * The API's file uploads, taken as multipart/form-data: DGII's test sets (.xlsx, issue 32). The
 * route itself refuses any other type (415).
 */
export const isFileUpload = (method: string, path: string) => method === "POST" && /^\/api\/v1\/ecf\/certification\/test-sets\/?$/.test(path);

export const FILE_UPLOAD_TYPE_MESSAGE = "This endpoint takes the file as multipart/form-data, in field `file`.";

/** A request that carries a body must say it is JSON (the receiver services and the file uploads excepted). */
export const jsonOnly = createMiddleware<AppEnv>(async (c, next) => {
  if (WITH_BODY.has(c.req.method) && !isReceiverService(c.req.path) && !isFileUpload(c.req.method, c.req.path)) {
    const length = c.req.header("content-length");
    const hasBody = (length !== undefined && length !== "0") || c.req.header("transfer-encoding") !== undefined;
    const type = c.req.header("content-type") ?? "";
    if (hasBody && !/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
      throw new AppError("unsupported_media_type", "Request bodies must be JSON (Content-Type: application/json).");
    }
  }
  await next();
});
