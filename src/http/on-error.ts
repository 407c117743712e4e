import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { databaseRefusal, errorLogFields } from "../db/errors";
import { AppError } from "../lib/errors";
import { log } from "../lib/log";
import type { AppEnv } from "./context";
import { unavailable } from "./database";
import { errorBody, errorStatus } from "./errors";
import { FILE_UPLOAD_TYPE_MESSAGE, isFileUpload } from "./request-checks";

/**
 * The one error path (app.onError): every error a request raises becomes its answer here.
 * - AppError (src/lib/errors.ts): its code's status (errors.ts), code, field errors and Retry-After.
 * - Hono's HTTP errors: malformed JSON (400) and the validator's media-type gate (415).
 * - A statement that failed because the connection was lost: the database is unavailable, 503
 *   with Retry-After, as when it cannot be reached at all (the work rolled back).
 * - Database refusals by SQLSTATE (db/errors.ts): a 422/409 for input the database refused, 503
 *   for a transaction it aborted (class 40).
 * - Anything else: 500 internal_error with the request id as reference, logged without the
 *   query's parameters.
 */
export function errorResponse(error: Error, c: Context<AppEnv>): Response {
  if (error instanceof AppError) return appErrorResponse(c, error);
  // A statement refused before it ran, by the pipeline (the request context the database returned
  // with it, http/auth.ts), reaches here wrapped by drizzle (DrizzleQueryError, the refusal its cause).
  if (error.cause instanceof AppError) return appErrorResponse(c, error.cause);
  if (error instanceof HTTPException && error.status === 400) {
    // The form validator's: a multipart body its parser could not read (a truncated or missing
    // boundary), with the parser's reason, which says what to fix; else the JSON validator's.
    const multipart = MALFORMED_FORM.exec(error.message);
    if (multipart) return c.json(errorBody(malformedMultipart(multipart[1] ?? "")), 400);
    return c.json({ message: "The request body is not valid JSON.", code: "malformed_json" }, 400);
  }
  // The OpenAPI validator's own media-type gate (a body that reached it without a Content-Length
  // or Transfer-Encoding header, as over HTTP/2): the same answer as jsonOnly's.
  if (error instanceof HTTPException && error.status === 415) {
    const message = isFileUpload(c.req.method, c.req.path) ? FILE_UPLOAD_TYPE_MESSAGE : "Request bodies must be JSON (Content-Type: application/json).";
    return c.json({ message, code: "unsupported_media_type" }, 415);
  }
  if (c.get("tx")?.connectionLost) return appErrorResponse(c, unavailable(error, c.get("requestId")));
  // What the database refused because of the input (a foreign key, a check, a number or date out
  // of range, NUL in text, …) is a 422/409, and a transaction it aborted (class 40) a 503 to retry.
  const refused = databaseRefusal(error);
  if (refused) {
    // Logged (without parameters): a refusal that reaches here is a bound or check the request
    // schemas or services missed, or contention; the client's answer is the same either way.
    const what = refused.code === "service_unavailable" ? "transaction aborted by the database" : "input refused by the database";
    const { stack: _stack, errorMessage, ...fields } = errorLogFields(error);
    log.warn(what, { requestId: c.get("requestId"), status: errorStatus[refused.code], ...fields, statement: String(errorMessage).slice(0, 300) });
    return appErrorResponse(c, refused);
  }
  const requestIdValue = c.get("requestId");
  // The error's class, SQLSTATE and constraint; never the query's parameters (request data).
  log.error("unhandled error", { requestId: requestIdValue, ...errorLogFields(error) });
  return c.json({ message: `Server error. Reference: ${requestIdValue}`, code: "internal_error" }, 500);
}

/** hono's form validator (validator/validator.ts) throws 400 "Malformed FormData request. <the parser's error>". */
const MALFORMED_FORM = /^Malformed FormData request\.\s*(.*)$/s;

/** A multipart body that cannot be parsed, with the parser's reason. */
export function malformedMultipart(reason: string): AppError {
  const why = reason.trim().replace(/\.+$/, "");
  return new AppError("malformed_multipart", `The request body is not valid multipart/form-data${why ? `: ${why}` : ""}.`);
}

/** An AppError's answer: its code's status (errors.ts), the body `{ message, code, errors? }`, and Retry-After when it passes. */
function appErrorResponse(c: Context<AppEnv>, error: AppError): Response {
  const response = c.json(errorBody(error), errorStatus[error.code]);
  if (error.retryAfterSeconds !== undefined) response.headers.set("Retry-After", String(error.retryAfterSeconds));
  return response;
}
