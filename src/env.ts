/** Bindings of the Worker: vars and secrets from wrangler.toml / `wrangler secret`, and Queues. */
export interface Env {
  /** Postgres connection string of the application role (no BYPASSRLS). Secret. */
  DATABASE_URL: string;
  /** When the login role is privileged (PGlite's `postgres`), each transaction runs `SET LOCAL ROLE` to this role. */
  DB_SET_ROLE?: string;
  /** Local only: `host:port` of the WebSocket-to-TCP relay standing in for Neon's proxy. */
  DB_WS_PROXY?: string;
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
  OUTBOX_QUEUE?: Queue;
  RNC_SYNC_QUEUE?: Queue;
}
