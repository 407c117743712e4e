import { config, type Env } from "../../env";
import { AppError } from "../../http/errors";
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

async function call(platform: PlatformError["platform"], url: string, init: RequestInit, describe: (json: any, status: number) => string | null): Promise<any> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (error) {
    const timedOut = (error as Error).name === "TimeoutError" || (error as Error).name === "AbortError";
    throw new PlatformError(platform, null, timedOut ? "the platform did not answer in time" : "the platform could not be reached");
  }
  let json: any = null;
  try {
    json = await response.json();
  } catch {
    json = null;
  }
  const problem = describe(json, response.status);
  if (!response.ok || problem) throw new PlatformError(platform, response.status, problem ?? `HTTP ${response.status}`);
  return json;
}

// ---- Messaging platform (Telegram Bot API shape)

const telegramBase = (env: Env) => config(env).TELEGRAM_API_BASE;

async function telegram<T>(env: Env, token: string, method: string, body: Record<string, unknown> = {}): Promise<T> {
  const json = await call(
    "messaging",
    `${telegramBase(env)}/bot${token}/${method}`,
    { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
    (j, status) => (j && j.ok === true ? null : String(j?.description ?? `HTTP ${status}`)),
  );
  return json.result as T;
}

export interface BotIdentity {
  id: number;
  username?: string;
  first_name?: string;
}

export const telegramGetMe = (env: Env, token: string) => telegram<BotIdentity>(env, token, "getMe");

export const telegramSetWebhook = (env: Env, token: string, url: string, secretToken: string) =>
  telegram<boolean>(env, token, "setWebhook", { url, secret_token: secretToken });

export const telegramDeleteWebhook = (env: Env, token: string) => telegram<boolean>(env, token, "deleteWebhook");

export const telegramSendMessage = (env: Env, token: string, chatId: string, text: string) =>
  telegram<{ message_id: number; date?: number }>(env, token, "sendMessage", { chat_id: chatId, text });

// ---- Chat platform (Graph / WhatsApp Cloud API shape)

const graphBase = (env: Env) => config(env).GRAPH_API_BASE;

export async function graph<T = any>(env: Env, accessToken: string, method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
  return call(
    "chat",
    path.startsWith("http") ? path : `${graphBase(env)}/${path}`,
    {
      method,
      headers: { authorization: `Bearer ${accessToken}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    },
    (j, status) => (j?.error ? String(j.error.error_user_msg || j.error.message || `HTTP ${status}`) : null),
  );
}

/** A platform failure as the API answers it: 502 integration_failed, logged with the request id. */
export function integrationFailed(error: unknown, what: string, context: Record<string, unknown>): AppError {
  if (!(error instanceof PlatformError)) throw error;
  log.warn("integration call failed", { ...context, platform: error.platform, status: error.status, description: error.description });
  const platform = error.platform === "messaging" ? "The messaging platform" : "The chat platform";
  return new AppError("integration_failed", `${platform} could not ${what}: ${error.description}`, { platform: [error.description] });
}
