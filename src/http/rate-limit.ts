import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis/cloudflare";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { Env } from "../env";
import { log } from "../lib/log";
import { verifyAccessToken } from "../lib/tokens";
import type { AppEnv } from "./context";
import { AppError } from "./errors";

interface Decision {
  success: boolean;
  limit: number;
  remaining: number;
  reset: number;
}

interface Limiter {
  limit(key: string): Promise<Decision>;
}

/** Fixed one-minute windows in this isolate's memory: the fallback when no Redis is configured. */
class MemoryLimiter implements Limiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  constructor(private readonly max: number) {}

  async limit(key: string): Promise<Decision> {
    const now = Date.now();
    const start = now - (now % 60_000);
    let window = this.windows.get(key);
    if (!window || window.start !== start) {
      if (this.windows.size > 10_000) this.windows.clear();
      window = { start, count: 0 };
      this.windows.set(key, window);
    }
    window.count++;
    return { success: window.count <= this.max, limit: this.max, remaining: Math.max(0, this.max - window.count), reset: start + 60_000 };
  }
}

const limiters = new Map<string, Limiter>();
let warnedNoRedis = false;
let lastRedisWarning = 0;

function limiterFor(env: Env, kind: "user" | "ip" | "webhook", max: number): Limiter {
  const url = env.UPSTASH_REDIS_REST_URL;
  const namespace = env.RATE_LIMIT_NAMESPACE || "sucursal";
  const cacheKey = `${namespace}:${kind}:${max}:${url ?? "memory"}`;
  let limiter = limiters.get(cacheKey);
  if (limiter) return limiter;
  if (url && env.UPSTASH_REDIS_REST_TOKEN) {
    const redis = new Redis({ url, token: env.UPSTASH_REDIS_REST_TOKEN, enableTelemetry: false, retry: false });
    limiter = new Ratelimit({
      redis,
      limiter: Ratelimit.slidingWindow(max, "1 m"),
      prefix: `${namespace}:rl:${kind}`,
      timeout: 1000,
      analytics: false,
    });
  } else {
    if (!warnedNoRedis) {
      log.warn("rate limiting uses an in-memory window: UPSTASH_REDIS_REST_URL is not configured");
      warnedNoRedis = true;
    }
    limiter = new MemoryLimiter(max);
  }
  limiters.set(cacheKey, limiter);
  return limiter;
}

function bearerToken(c: Context<AppEnv>): string | null {
  const header = c.req.header("authorization");
  const match = header?.match(/^Bearer\s+(\S+)$/i);
  return match ? match[1]! : null;
}

function clientIp(c: Context<AppEnv>): string {
  // Cloudflare sets CF-Connecting-IP itself and overwrites any value a client sends.
  return c.req.header("cf-connecting-ip") ?? "unknown";
}

/**
 * Per user (from a verified token) at RATE_LIMIT_AUTHENTICATED_PER_MINUTE, otherwise per IP at
 * RATE_LIMIT_ANONYMOUS_PER_MINUTE. When Redis fails the request is let through (fail open) and a
 * warning is logged at most once a minute: an outage of the limiter must not become ours.
 */
export const rateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const token = bearerToken(c);
  const claims = token ? await verifyAccessToken(c.env.JWT_SECRET, token) : null;
  if (claims) c.set("tokenClaims", claims);
  const tenant = c.get("tenant");
  const authenticated = claims !== null && claims.tenantId === tenant.id;
  // Platform webhooks come from a few shared IPs and are verified by signature: they get a bucket
  // per endpoint instead of the anonymous per-IP one.
  const webhook = !authenticated && c.req.path.startsWith("/webhooks/");
  const kind = authenticated ? "user" : webhook ? "webhook" : "ip";
  const max = Number(
    authenticated
      ? (c.env.RATE_LIMIT_AUTHENTICATED_PER_MINUTE ?? 60)
      : webhook
        ? (c.env.RATE_LIMIT_WEBHOOK_PER_MINUTE ?? 600)
        : (c.env.RATE_LIMIT_ANONYMOUS_PER_MINUTE ?? 10),
  );
  const key = authenticated ? `${tenant.id}:${claims.userId}` : webhook ? `${tenant.id}:${c.req.path}` : clientIp(c);
  let decision: Decision | null = null;
  try {
    decision = await limiterFor(c.env, kind, max).limit(key);
  } catch (error) {
    if (Date.now() - lastRedisWarning > 60_000) {
      log.warn("rate limiter unavailable; request allowed", { requestId: c.get("requestId"), cause: String(error) });
      lastRedisWarning = Date.now();
    }
  }
  if (decision) {
    const headers = { "X-RateLimit-Limit": String(decision.limit), "X-RateLimit-Remaining": String(Math.max(0, decision.remaining)) };
    if (!decision.success) {
      const retryAfter = Math.max(1, Math.ceil((decision.reset - Date.now()) / 1000));
      throw new AppError("rate_limited", "Too many requests.", undefined, { ...headers, "Retry-After": String(retryAfter) });
    }
    await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
    return;
  }
  await next();
});
