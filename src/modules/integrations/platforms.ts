import { z } from "@hono/zod-openapi";
import { config, type Env } from "../../env";
import { AppError, fieldError } from "../../lib/errors";
import { log } from "../../lib/log";

/**
 * Clients of the two platforms, over fetch with a timeout. Base URLs come from configuration
 * (TELEGRAM_API_BASE, GRAPH_API_BASE) so tests point them at local fakes. Credentials travel in the
 * URL path (Telegram) or the Authorization header (Graph) and never appear in errors or logs.
 */
const TIMEOUT_MS = 10_000;

export class PlatformError extends Error {
  constructor(
    readonly platform: "messaging" | "chat",
    /** HTTP status of the platform's answer; null when it could not be reached or timed out. */
    readonly status: number | null,
    /** The platform's own description of the problem (safe to show: it never echoes credentials). */
    readonly description: string,
  ) {
    super(description);
  }
}

/** The platform's answer as JSON (null when it is not JSON) and its HTTP status. */
async function call(
  platform: PlatformError["platform"],
  url: string,
  init: RequestInit,
  describe: (json: unknown, status: number) => string | null,
): Promise<{ json: unknown; status: number }> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (error) {
    const timedOut = (error as Error).name === "TimeoutError" || (error as Error).name === "AbortError";
    throw new PlatformError(platform, null, timedOut ? "the platform did not answer in time" : "the platform could not be reached");
  }
  let json: unknown = null;
  try {
    json = await response.json();
  } catch {
    json = null;
  }
  const problem = describe(json, response.status);
  if (!response.ok || problem) throw new PlatformError(platform, response.status, problem ?? `HTTP ${response.status}`);
  return { json, status: response.status };
}

/** Reads a successful answer with `schema`; one of another shape is the platform's failure (502). */
function answer<S extends z.ZodType>(platform: PlatformError["platform"], status: number, schema: S, json: unknown): z.output<S> {
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new PlatformError(platform, status, "the platform answered in an unexpected shape");
  return parsed.data;
}

/** `schema`'s reading of `json`, or `{}` when it does not fit (an error answer or a webhook body may be anything). */
export const fieldsOf = <S extends z.ZodType>(schema: S, json: unknown): Partial<z.output<S>> => {
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : {};
};

// ---- Messaging platform (Telegram Bot API shape)

const telegramBase = (env: Env) => config(env).TELEGRAM_API_BASE;

/** Every Bot API answer: `{ ok, result }` or `{ ok: false, description }`. */
const TelegramEnvelope = z.object({ ok: z.unknown(), description: z.unknown(), result: z.unknown() }).partial();

async function telegram<S extends z.ZodType>(env: Env, token: string, method: string, result: S, body: Record<string, unknown> = {}): Promise<z.output<S>> {
  const { json, status } = await call(
    "messaging",
    `${telegramBase(env)}/bot${token}/${method}`,
    { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
    (j, status) => {
      const envelope = fieldsOf(TelegramEnvelope, j);
      return envelope.ok === true ? null : String(envelope.description ?? `HTTP ${status}`);
    },
  );
  return answer("messaging", status, result, fieldsOf(TelegramEnvelope, json).result);
}

const BotIdentity = z.object({ id: z.number().optional(), username: z.string().optional(), first_name: z.string().optional() });
export type BotIdentity = z.output<typeof BotIdentity>;

export const telegramGetMe = (env: Env, token: string) => telegram(env, token, "getMe", BotIdentity);

export const telegramSetWebhook = (env: Env, token: string, url: string, secretToken: string) =>
  telegram(env, token, "setWebhook", z.unknown(), { url, secret_token: secretToken });

export const telegramDeleteWebhook = (env: Env, token: string) => telegram(env, token, "deleteWebhook", z.unknown());

export const telegramSendMessage = (env: Env, token: string, chatId: string, text: string) =>
  telegram(env, token, "sendMessage", z.object({ message_id: z.number(), date: z.number().optional() }), { chat_id: chatId, text });

// ---- Chat platform (Graph / WhatsApp Cloud API shape)

const graphBase = (env: Env) => config(env).GRAPH_API_BASE;

/** A Graph error answer: `{ error: { message, error_user_msg, … } }`. */
const GraphEnvelope = z.object({ error: z.unknown() }).partial();
const GraphErrorDetail = z.object({ error_user_msg: z.unknown(), message: z.unknown() }).partial();

export async function graph<S extends z.ZodType>(
  env: Env,
  accessToken: string,
  method: "GET" | "POST",
  path: string,
  result: S,
  body?: unknown,
): Promise<z.output<S>> {
  const { json, status } = await call(
    "chat",
    path.startsWith("http") ? path : `${graphBase(env)}/${path}`,
    {
      method,
      headers: { authorization: `Bearer ${accessToken}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    },
    (j, status) => {
      const { error } = fieldsOf(GraphEnvelope, j);
      if (!error) return null;
      const detail = fieldsOf(GraphErrorDetail, error);
      return String(detail.error_user_msg || detail.message || `HTTP ${status}`);
    },
  );
  return answer("chat", status, result, json);
}

/**
 * A webhook's body: a JSON object (`what` names it in the 422), else malformed_json (not JSON) or
 * 422 on `body` (JSON of another kind).
 */
export function jsonObjectBody(text: string, what: string): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError("malformed_json", "The request body is not valid JSON.");
  }
  const object = z.record(z.string(), z.unknown()).safeParse(body);
  if (!object.success || Array.isArray(body)) throw fieldError("body", `${what} must be a JSON object.`);
  return object.data;
}

/** A platform failure as the API answers it: 502 integration_failed, logged with the request id. */
export function integrationFailed(error: unknown, what: string, context: Record<string, unknown>): AppError {
  if (!(error instanceof PlatformError)) throw error;
  log.warn("integration call failed", { ...context, platform: error.platform, status: error.status, description: error.description });
  const platform = error.platform === "messaging" ? "The messaging platform" : "The chat platform";
  return new AppError("integration_failed", `${platform} could not ${what}: ${error.description}`, { platform: [error.description] });
}
