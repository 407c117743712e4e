import { z } from "zod";
import { log } from "./lib/log";

/** Bindings of the Worker: vars and secrets from wrangler.toml / `wrangler secret`, and Queues. Read through `config(env)`. */
export interface Env {
  /** Postgres connection string of the application role (no BYPASSRLS). Secret. */
  DATABASE_URL: string;
  /** When the login role is privileged (PGlite's `postgres`), each transaction runs `SET LOCAL ROLE` to this role. */
  DB_SET_ROLE?: string;
  /** Local only: `host:port` of the WebSocket-to-TCP relay standing in for Neon's proxy. */
  DB_WS_PROXY?: string;
  /**
   * Neon's SQL-over-HTTP endpoint, for reads sent as one batch (db/http.ts): unset, derived from a
   * Neon DATABASE_URL's host (none for another host); locally the Node stand-in's URL; `off`, never.
   */
  DB_HTTP_ENDPOINT?: string;
  /** HS256 key for access tokens. Secret. */
  JWT_SECRET: string;
  ACCESS_TOKEN_TTL_DAYS?: string;
  UPSTASH_REDIS_REST_URL?: string;
  UPSTASH_REDIS_REST_TOKEN?: string;
  RATE_LIMIT_AUTHENTICATED_PER_MINUTE?: string;
  RATE_LIMIT_ANONYMOUS_PER_MINUTE?: string;
  /** Per webhook endpoint (platform webhooks are verified by signature, not by token). */
  RATE_LIMIT_WEBHOOK_PER_MINUTE?: string;
  /** Prefix of the limiter's Redis keys; tests give each run its own, as they share one Redis. */
  RATE_LIMIT_NAMESPACE?: string;
  RESEND_API_KEY?: string;
  RESEND_BASE_URL?: string;
  EMAIL_FROM?: string;
  APP_URL?: string;
  APP_ENCRYPTION_KEY?: string;
  TELEGRAM_API_BASE?: string;
  GRAPH_API_BASE?: string;
  TAX_AUTHORITY_DATA_URL?: string;
  DGII_ECF_BASE_URL?: string;
  DGII_FC_BASE_URL?: string;
  /** DGII's service status host (statusecf) and the API key DGII gives for it; without a key the status sweep is off. */
  DGII_STATUS_BASE_URL?: string;
  DGII_STATUS_API_KEY?: string;
  /** Development only: lets webhook endpoints use http:// to loopback (127.0.0.0/8, ::1, localhost). */
  WEBHOOKS_ALLOW_HTTP_LOOPBACK?: string;
  WEBHOOKS_DNS_RESOLVER_URL?: string;
  /** PEM bundle of the certification authorities accredited for DGII (INDOTEL) whose certificates other taxpayers may sign with. */
  ECF_TRUSTED_CA_PEM?: string;
  /** Per client IP within a tenant's receiver services (/fe/…), inside RATE_LIMIT_WEBHOOK_PER_MINUTE. */
  RATE_LIMIT_RECEIVER_PER_IP_PER_MINUTE?: string;
  /** e-CF alerts (jobs/ecf-alerts.ts): hours left on a deferred e-CF's 24 h, hours DGII's reception is down. */
  ALERT_DEFERRED_HOURS_LEFT?: string;
  ALERT_DGII_DOWN_HOURS?: string;
  /** How long a contingency may stay open (hours; 72, unconfirmed by DGII), and the alert's hours before it. */
  CONTINGENCY_LIMIT_HOURS?: string;
  ALERT_CONTINGENCY_HOURS_LEFT?: string;
  /** e-CF steps the minute sweep hands out per company per minute (jobs/ecf.ts; an assumption, not DGII's figure). */
  ECF_SENDS_PER_MINUTE?: string;
  OUTBOX_QUEUE?: Queue;
  RNC_SYNC_QUEUE?: Queue;
  ECF_QUEUE?: Queue;
}

// Vars arrive as strings; an empty one (a blank line in .dev.vars, a test binding left "") means unset.
const blankIsUnset = (value: unknown) => (typeof value === "string" && value.trim() === "" ? undefined : value);
const optionalText = z.preprocess(blankIsUnset, z.string().optional());
const count = (fallback: number) => z.preprocess(blankIsUnset, z.coerce.number().int().positive().default(fallback));
/** A base URL without its trailing slashes, so callers append `/path`. */
const baseUrl = (fallback: string) => z.preprocess(blankIsUnset, z.url().default(fallback)).transform((url) => url.replace(/\/+$/, ""));
const optionalUrl = z.preprocess(blankIsUnset, z.url().optional());

/** `SET LOCAL ROLE` cannot take a bind parameter: the name goes into the statement, so only a plain identifier. */
const ROLE_NAME = /^[a-z_][a-z0-9_]*$/;

const schema = z.object({
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, error: "must be a postgres:// connection string" }),
  DB_SET_ROLE: z.preprocess(blankIsUnset, z.string().regex(ROLE_NAME, "must be a plain role name").optional()),
  DB_WS_PROXY: optionalText,
  DB_HTTP_ENDPOINT: z.preprocess(blankIsUnset, z.union([z.literal("off"), z.url({ protocol: /^https?$/ })]).optional()),
  JWT_SECRET: z.string({ error: "is required" }).min(32, "must be at least 32 characters"),
  ACCESS_TOKEN_TTL_DAYS: count(30),
  UPSTASH_REDIS_REST_URL: optionalUrl,
  UPSTASH_REDIS_REST_TOKEN: optionalText,
  RATE_LIMIT_AUTHENTICATED_PER_MINUTE: count(60),
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: count(10),
  RATE_LIMIT_WEBHOOK_PER_MINUTE: count(600),
  RATE_LIMIT_NAMESPACE: z.preprocess(blankIsUnset, z.string().default("sucursal")),
  RESEND_API_KEY: optionalText,
  RESEND_BASE_URL: baseUrl("https://api.resend.com"),
  EMAIL_FROM: z.preprocess(blankIsUnset, z.string().default("Sucursal <no-reply@sucursal.do>")),
  APP_URL: baseUrl("https://app.sucursal.do"),
  // Optional at start: only the integrations need it, and they refuse without it (lib/crypto.ts).
  // When given it must be what AES-256-GCM takes: 32 bytes, base64.
  APP_ENCRYPTION_KEY: z.preprocess(
    blankIsUnset,
    z
      .base64("must be base64")
      .refine((key) => atob(key).length === 32, "must be 32 bytes (base64)")
      .optional(),
  ),
  TELEGRAM_API_BASE: baseUrl("https://api.telegram.org"),
  GRAPH_API_BASE: baseUrl("https://graph.facebook.com/v21.0"),
  TAX_AUTHORITY_DATA_URL: z.preprocess(blankIsUnset, z.url().default("https://dgii.gov.do/app/WebApps/Consultas/RNC/DGII_RNC.zip")),
  // DGII's e-CF services and consumer-invoice (RFCE) services; the environment (testecf, certecf,
  // ecf) is appended per tenant (ecf/service.ts dgiiUrls).
  DGII_ECF_BASE_URL: baseUrl("https://ecf.dgii.gov.do"),
  DGII_FC_BASE_URL: baseUrl("https://fc.dgii.gov.do"),
  // DGII's "Estatus Servicios" (Descripción técnica): each service's state per environment and the
  // maintenance windows, read by the minute sweep (modules/ecf/dgii-status.ts). DGII gives the API key
  // to taxpayers that meet its requirements; without one the sweep is off and sending does not pause.
  DGII_STATUS_BASE_URL: baseUrl("https://statusecf.dgii.gov.do"),
  DGII_STATUS_API_KEY: optionalText,
  // Off in production: webhook endpoints must be https:// to a public host (lib/outbound-url.ts).
  WEBHOOKS_ALLOW_HTTP_LOOPBACK: z.preprocess(blankIsUnset, z.enum(["true", "false"]).default("false")).transform((v) => v === "true"),
  // DNS over HTTPS (JSON API) that webhook endpoint names are resolved through before a delivery, so
  // a name pointing at a private address is refused (lib/outbound-url.ts).
  WEBHOOKS_DNS_RESOLVER_URL: baseUrl("https://cloudflare-dns.com/dns-query"),
  // The authorities accredited by INDOTEL for DGII (Ley 32-23 art. 6) as a PEM bundle: a supplier's
  // e-CF, a buyer's ACECF or ARECF is accepted only when signed by a certificate chaining to one of
  // them (modules/ecf/signers.ts). Unset: the receiver services refuse with a configuration
  // error rather than trust any certificate. Read when used, so a bad bundle names itself there.
  ECF_TRUSTED_CA_PEM: optionalText,
  // One client IP's share of a tenant's receiver services (/fe/…), so a stranger flooding them cannot
  // use up the tenant's whole RATE_LIMIT_WEBHOOK_PER_MINUTE and starve its real suppliers.
  RATE_LIMIT_RECEIVER_PER_IP_PER_MINUTE: count(60),
  // The hourly e-CF alert sweep (modules/ecf/alerts.ts, issue 33): a deferred e-CF (24 hours to reach
  // DGII) not yet accepted with this many hours left, and DGII's reception reported down this long.
  ALERT_DEFERRED_HOURS_LEFT: count(4),
  ALERT_DGII_DOWN_HOURS: count(2),
  // A contingency's limit: only third-party summaries of DGII's Informe Técnico give one (72 hours,
  // CERTIFICATION.md "Contingency"), so it is configuration; the alert comes this many hours before.
  CONTINGENCY_LIMIT_HOURS: count(72),
  ALERT_CONTINGENCY_HOURS_LEFT: count(12),
  // A company's pace towards DGII through the minute sweep (issue 48): DGII publishes no rate limit
  // in the documents we have (Descripción Técnica); it says a validation takes ~200 ms on average,
  // so one document at a time is ~300 a minute. An assumption, a setting: lowered when DGII answers
  // 429 (which also backs the company off by itself, jobs/ecf.ts).
  ECF_SENDS_PER_MINUTE: count(300),
});

/** The Worker's configuration, parsed: numbers are numbers, defaults applied, base URLs without a trailing slash. */
export type Config = z.output<typeof schema> & { OUTBOX_QUEUE?: Queue; RNC_SYNC_QUEUE?: Queue; ECF_QUEUE?: Queue };

/** A missing or malformed secret or var. Its message names the settings and the problem, never a value. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

// Keyed on the env object: one per isolate in production, and tests build several (overrides).
const parsed = new WeakMap<Env, Config | ConfigError>();

/**
 * The configuration of `env`, parsed once per env object. An invalid one is logged once, as the
 * Worker's startup error, and throws `ConfigError` on every read: a request then answers 500
 * `internal_error` with its reference (the app's error handler), a cron or queue batch does nothing.
 */
export function config(env: Env): Config {
  const known = parsed.get(env);
  if (known instanceof ConfigError) throw known;
  if (known) return known;
  const result = schema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`);
    const error = new ConfigError(`invalid configuration: ${problems.join("; ")}`);
    log.error("startup: invalid configuration", { problems });
    parsed.set(env, error);
    throw error;
  }
  const value: Config = { ...result.data, OUTBOX_QUEUE: env.OUTBOX_QUEUE, RNC_SYNC_QUEUE: env.RNC_SYNC_QUEUE, ECF_QUEUE: env.ECF_QUEUE };
  parsed.set(env, value);
  return value;
}

/** For the cron and queue handlers: false (already logged) when the configuration is invalid. */
export function configured(env: Env): boolean {
  try {
    config(env);
    return true;
  } catch (error) {
    if (error instanceof ConfigError) return false;
    throw error;
  }
}
