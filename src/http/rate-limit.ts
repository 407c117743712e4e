import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis/cloudflare";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import ipaddr from "ipaddr.js";
import { config, type Env } from "../env";
import { canonicalId } from "../lib/bounds";
import { sha256Hex } from "../lib/crypto";
import { AppError } from "../lib/errors";
import { ExpiringMap } from "../lib/expiring-map";
import { log } from "../lib/log";
import type { AppEnv } from "./context";
import { isRead } from "./database";
import { isReceiverService } from "./request-checks";
import { subdomainOf } from "./tenant";

interface Decision {
  success: boolean;
  limit: number;
  remaining: number;
  reset: number;
}

interface Limiter {
  /** Counts one hit for `key` and says whether it is within the limit. */
  limit(key: string): Promise<Decision>;
  /** What is left for `key` in the current window, counting nothing. */
  remaining(key: string): Promise<{ remaining: number; reset: number }>;
}

/** How long a Redis call may take before the limiter counts Redis as unavailable (and lets the request through). */
export const REDIS_TIMEOUT_MS = 1000;
/** Login failures one account (tenant + email) may have in FAILURE_WINDOW before its logins are refused. */
export const LOGIN_FAILURES = 10;
/**
 * Failed lookups one e-NCF of a tenant may have in FAILURE_WINDOW before its lookup is locked to the
 * window's end (docs/security.md, "The consumer's lookup").
 */
export const LOOKUP_FAILURES = 5;
/** The fixed window failures are counted in (logins, lookups): a lock lasts to its end, at most 15 minutes. */
export const FAILURE_WINDOW = { ms: 15 * 60_000, upstash: "15 m" } as const;
const MINUTE = { ms: 60_000, upstash: "1 m" } as const;
type Window = typeof MINUTE | typeof FAILURE_WINDOW;
/** Limiters counting failures, in fixed windows, none cached in the isolate: what one isolate saw is not the count. */
type FailureKind = "login" | "lookup";
const isFailureKind = (kind: string): kind is FailureKind => kind === "login" || kind === "lookup";

/** Fixed windows in this isolate's memory: the fallback when no Redis is configured. */
class MemoryLimiter implements Limiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  constructor(
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  private current(key: string, create: boolean) {
    const now = Date.now();
    const start = now - (now % this.windowMs);
    let window = this.windows.get(key);
    if (!window || window.start !== start) {
      if (!create) return { start, count: 0 };
      if (this.windows.size > 10_000) {
        for (const [k, w] of this.windows) if (w.start !== start) this.windows.delete(k);
        if (this.windows.size > 10_000) this.windows.clear();
      }
      window = { start, count: 0 };
      this.windows.set(key, window);
    }
    return window;
  }

  async limit(key: string): Promise<Decision> {
    const window = this.current(key, true);
    window.count++;
    return { success: window.count <= this.max, limit: this.max, remaining: Math.max(0, this.max - window.count), reset: window.start + this.windowMs };
  }

  async remaining(key: string) {
    const window = this.current(key, false);
    return { remaining: Math.max(0, this.max - window.count), reset: window.start + this.windowMs };
  }
}

/** A Redis call that has not answered in time: the same as one that failed. */
function withTimeout<T>(promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${REDIS_TIMEOUT_MS} ms`)), REDIS_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Upstash's limiter, every call bounded by REDIS_TIMEOUT_MS (a hung Redis rejects, as a down one does). */
class RedisLimiter implements Limiter {
  constructor(private readonly ratelimit: Ratelimit) {}

  async limit(key: string): Promise<Decision> {
    const decision = await withTimeout(this.ratelimit.limit(key));
    // Upstash's own timeout answers "success" with limit 0: we never enable it, but never trust it either.
    if (decision.reason === "timeout") throw new Error(`Redis did not answer within ${REDIS_TIMEOUT_MS} ms`);
    return decision;
  }

  remaining(key: string) {
    return withTimeout(this.ratelimit.getRemaining(key));
  }
}

const limiters = new Map<string, Limiter>();
let warnedNoRedis = false;
let lastRedisWarning = 0;

function limiterFor(env: Env, kind: "user" | "ip" | "webhook" | "receiver" | FailureKind, max: number, window: Window = MINUTE): Limiter {
  const { UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: token, RATE_LIMIT_NAMESPACE: namespace } = config(env);
  const cacheKey = `${namespace}:${kind}:${max}:${window.ms}:${url ?? "memory"}`;
  let limiter = limiters.get(cacheKey);
  if (limiter) return limiter;
  if (url && token) {
    const redis = new Redis({
      url,
      token,
      enableTelemetry: false,
      retry: false,
      // Aborts the subrequest itself when Redis hangs (withTimeout answers the caller either way).
      signal: () => AbortSignal.timeout(REDIS_TIMEOUT_MS),
    });
    limiter = new RedisLimiter(
      new Ratelimit({
        redis,
        // Failures are counted in fixed windows: "10 in these 15 minutes", with a Retry-After to the window's end.
        limiter: isFailureKind(kind) ? Ratelimit.fixedWindow(max, window.upstash) : Ratelimit.slidingWindow(max, window.upstash),
        prefix: `${namespace}:rl:${kind}`,
        timeout: 0, // withTimeout instead: Upstash's own timeout lets the request through silently
        analytics: false,
        ephemeralCache: isFailureKind(kind) ? false : undefined,
      }),
    );
  } else {
    if (!warnedNoRedis) {
      log.warn("rate limiting uses an in-memory window: UPSTASH_REDIS_REST_URL is not configured");
      warnedNoRedis = true;
    }
    limiter = new MemoryLimiter(max, window.ms);
  }
  limiters.set(cacheKey, limiter);
  return limiter;
}

// Requests whose Redis call already failed: their later limiter calls (a login's) are skipped, so a
// hung Redis costs a request one timeout, not one per call.
const redisFailed = new WeakSet<Request>();

/** Redis failed or timed out: the caller lets the request through; the warning is logged at most once a minute per isolate. */
function redisUnavailable(c: Context<AppEnv>, error: unknown): null {
  redisFailed.add(c.req.raw);
  if (Date.now() - lastRedisWarning > 60_000) {
    log.warn("rate limiter unavailable; request allowed", { requestId: c.get("requestId"), cause: String(error) });
    lastRedisWarning = Date.now();
  }
  return null;
}

/**
 * The client's address as the key of a per-IP bucket: an IPv4 address whole; an IPv6 address by
 * its /64, the smallest block one subscriber is given (RFC 6177; a LAN is a /64), whose 2^64
 * addresses its owner can rotate through at will — counted one by one, eleven guesses from one /64
 * were eleven first tries (issue 41). An IPv4-mapped IPv6 address is its IPv4 address. What does
 * not parse is kept as sent, cut to 64 characters.
 */
export function clientBucket(address: string): string {
  const text = address.trim();
  if (!ipaddr.isValid(text)) return text.slice(0, 64);
  const parsed = ipaddr.parse(text);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${v6.parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(":")}::/64`;
}

function clientIp(c: Context<AppEnv>): string {
  // Cloudflare sets CF-Connecting-IP itself and overwrites any value a client sends.
  return clientBucket(c.req.header("cf-connecting-ip") ?? "unknown");
}

/** The host's first label as sent (no database): the tenant part of an anonymous bucket. */
function hostKey(c: Context<AppEnv>): string {
  const host = c.req.header("host") || new URL(c.req.url).host;
  return subdomainOf(host) ?? "-";
}

const WEBHOOK_PATH = /^\/webhooks\/(messaging-bots|chat-accounts)\/([^/]+)$/;

type Bucket = { kind: "ip" | "webhook" | "receiver"; key: string; max: number };

/**
 * Platform webhooks come from a few shared IPs and are verified by signature: they get a bucket per
 * endpoint — the host and the parsed id, so `/1`, `/01` and `/0x1` can never be three buckets — instead of
 * the anonymous per-IP one. A path whose id is not canonical (the route answers 404) stays in the per-IP bucket.
 * DGII's receiver services (/fe/…) are called by other taxpayers' systems: one bucket per tenant's
 * receiver, and inside it one per client IP (RATE_LIMIT_RECEIVER_PER_IP_PER_MINUTE), checked first,
 * so one stranger flooding them spends its own share and cannot starve the tenant's real suppliers.
 */
function anonymousBuckets(c: Context<AppEnv>): Bucket[] {
  const host = hostKey(c);
  const settings = config(c.env);
  const webhook = WEBHOOK_PATH.exec(c.req.path);
  const id = webhook ? canonicalId(webhook[2]!) : null;
  if (webhook && id !== null) return [{ kind: "webhook", key: `${host}:${webhook[1]}:${id}`, max: settings.RATE_LIMIT_WEBHOOK_PER_MINUTE }];
  if (isReceiverService(c.req.path)) {
    return [
      { kind: "receiver", key: `${host}:fe:${clientIp(c)}`, max: settings.RATE_LIMIT_RECEIVER_PER_IP_PER_MINUTE },
      { kind: "webhook", key: `${host}:fe`, max: settings.RATE_LIMIT_WEBHOOK_PER_MINUTE },
    ];
  }
  return [{ kind: "ip", key: `${clientIp(c)}:${host}`, max: settings.RATE_LIMIT_ANONYMOUS_PER_MINUTE }];
}

/** Each bucket in turn, the first refusing answering 429 before the next is counted. */
function applyLimits(c: Context<AppEnv>, buckets: Bucket[], next: () => Promise<void>): Promise<void> {
  const [first, ...rest] = buckets;
  if (!first) return next();
  return applyLimit(c, first.kind, first.max, first.key, () => applyLimits(c, rest, next));
}

/** The limiter's decision for `key`; null when Redis failed or timed out (let through, fail open). */
async function decide(c: Context<AppEnv>, kind: "user" | Bucket["kind"], max: number, key: string): Promise<Decision | null> {
  if (redisFailed.has(c.req.raw)) return null;
  try {
    return await limiterFor(c.env, kind, max).limit(key);
  } catch (error) {
    return redisUnavailable(c, error);
  }
}

const figures = (decision: Decision) => ({
  "X-RateLimit-Limit": String(decision.limit),
  "X-RateLimit-Remaining": String(Math.max(0, decision.remaining)),
});

/** A refusal: 429 with the limiter's figures, which ride the answer the error path writes (it keeps the context's headers). */
function refuse(c: Context<AppEnv>, decision: Decision): never {
  for (const [name, value] of Object.entries(figures(decision))) c.header(name, value);
  throw new AppError("rate_limited", "Too many requests.", undefined, Math.max(1, Math.ceil((decision.reset - Date.now()) / 1000)));
}

/** An allowed request's answer shows the limiter's figures. */
function showFigures(c: Context<AppEnv>, decision: Decision): void {
  // A 429 of the per-account login limit carries its own figures: keep them. Of two buckets (a
  // receiver's IP within its tenant), the one with less left is shown.
  const shown = c.res.headers.get("X-RateLimit-Remaining");
  if (c.res.status !== 429 && (shown === null || Number(shown) > Math.max(0, decision.remaining))) {
    for (const [name, value] of Object.entries(figures(decision))) c.res.headers.set(name, value);
  }
}

async function applyLimit(c: Context<AppEnv>, kind: "user" | Bucket["kind"], max: number, key: string, next: () => Promise<void>) {
  const decision = await decide(c, kind, max, key);
  if (decision && !decision.success) refuse(c, decision);
  await next();
  if (decision) showFigures(c, decision);
}

/**
 * Users this isolate refused, until their window's end (at most 1,000, oldest out first): their
 * reads wait for the limiter again before any database work.
 */
const REFUSED_MAX = 1000;
const refusedHere = new ExpiringMap<true>(REFUSED_MAX);

/**
 * A read (GET, HEAD) of a verified user runs while the limiter decides, instead of after it: on
 * Cloudflare the limiter is a round trip to Upstash and the read one to the database, each far
 * away, and a read waiting for the first paid both in turn (issue 46). Nothing of the read is
 * shown before the decision: a refusal replaces its answer, headers included, with the same 429
 * the limiter gives first, and its transaction is rolled back (databaseSession); a read writes
 * nothing (its HTTP batch is read-only, http/database.ts). What a user over the limit costs the
 * database is the reads of theirs already running in an isolate when its first refusal arrives
 * (one, for requests one after another; a burst's, for a burst): once refused here, their reads wait
 * for the limiter first until the window ends. Writes always wait for the limiter: they commit,
 * and some call out.
 */
async function limitAlongside(c: Context<AppEnv>, max: number, key: string, next: () => Promise<void>) {
  const pending = decide(c, "user", max, key);
  await next();
  const decision = await pending;
  if (!decision) return;
  if (decision.success) {
    showFigures(c, decision);
    return;
  }
  refusedHere.set(key, true, decision.reset);
  // The read's answer is dropped whole, its headers with it: the 429 is then written as when the
  // limiter decides first (from the context's prepared headers, not the dropped answer's).
  c.res = undefined;
  c.finalized = false;
  refuse(c, decision);
}

/**
 * Before the tenant is resolved (no database work yet): a request without a token that verified (`bearerToken`) is
 * limited per IP and host at RATE_LIMIT_ANONYMOUS_PER_MINUTE (or per webhook endpoint), so anonymous
 * floods — unknown tenants, a database that is down — are refused before they cost a connection.
 * A verified token is limited per user by `rateLimit`, once its tenant is known.
 */
export const anonymousRateLimit = createMiddleware<AppEnv>(async (c, next) => {
  if (c.get("tokenClaims")) return next(); // limited per user by rateLimit, once the tenant is known
  await applyLimits(c, anonymousBuckets(c), next);
});

/**
 * After the tenant: a token of this tenant is limited per user at RATE_LIMIT_AUTHENTICATED_PER_MINUTE;
 * a valid token of another tenant counts as anonymous (it was not counted before the tenant was known).
 * When Redis fails or does not answer within REDIS_TIMEOUT_MS the request is let through (fail open)
 * and a warning is logged at most once a minute: an outage of the limiter must not become ours.
 */
export const rateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const claims = c.get("tokenClaims");
  if (!claims) return next(); // anonymous: already limited by anonymousRateLimit
  const tenant = c.get("tenant");
  if (claims.tenantId === tenant.id) {
    const max = config(c.env).RATE_LIMIT_AUTHENTICATED_PER_MINUTE;
    const key = `${tenant.id}:${claims.userId}`;
    if (isRead(c.req.method) && !refusedHere.get(key)) await limitAlongside(c, max, key, next);
    else await applyLimit(c, "user", max, key, next);
    return;
  }
  await applyLimits(c, anonymousBuckets(c), next);
});

/** The account a login names, as a limiter key: the tenant and a hash of the lowercased email (no address in Redis). */
async function loginKey(tenantId: number, email: string): Promise<string> {
  return `${tenantId}:${await sha256Hex(email.trim().toLowerCase())}`;
}

/**
 * What a key has spent of its failures in the current FAILURE_WINDOW: `locked` (with the seconds to
 * the window's end) once `max` were recorded, and the function that records one more. Redis down
 * or hung: never locked (fail open), logged.
 */
async function failureGuard(c: Context<AppEnv>, kind: FailureKind, max: number, key: string) {
  const limiter = limiterFor(c.env, kind, max, FAILURE_WINDOW);
  let state: { remaining: number; reset: number } | null = null;
  try {
    if (!redisFailed.has(c.req.raw)) state = await limiter.remaining(key);
  } catch (error) {
    redisUnavailable(c, error);
  }
  return {
    lockedForSeconds: state && state.remaining <= 0 ? Math.max(1, Math.ceil((state.reset - Date.now()) / 1000)) : null,
    async recordFailure(): Promise<void> {
      try {
        if (!redisFailed.has(c.req.raw)) await limiter.limit(key);
      } catch (error) {
        redisUnavailable(c, error);
      }
    },
  };
}

/**
 * Failed logins per account: after LOGIN_FAILURES failures for one (tenant, lowercased email) in the
 * current 15-minute window, every login for that account — the right password included — is 429
 * `rate_limited` with Retry-After until the window ends, whatever the IP. Counted by the email string,
 * never by user id, so an unknown email behaves exactly like a known one. A success does not reset the
 * count (only the window's end does): otherwise every successful login of the owner (an integration
 * logging in on a schedule) would hand someone guessing the password ten more tries.
 * Returns the function that records a failure. Redis down or hung: no account limit (fail open), logged.
 */
export async function guardLogin(c: Context<AppEnv>, email: string): Promise<() => Promise<void>> {
  const guard = await failureGuard(c, "login", LOGIN_FAILURES, await loginKey(c.get("tenant").id, email));
  if (guard.lockedForSeconds !== null) {
    c.header("X-RateLimit-Limit", String(LOGIN_FAILURES));
    c.header("X-RateLimit-Remaining", "0");
    throw new AppError("rate_limited", "Too many failed logins for this account; try again later.", undefined, guard.lockedForSeconds);
  }
  return guard.recordFailure;
}

/**
 * Failed lookups per e-NCF of a tenant (the consumer's lookup, modules/lookup): after
 * LOOKUP_FAILURES wrong codes for one (tenant, e-NCF) in the current 15-minute window, from any IP,
 * that e-NCF is `locked` to the window's end. The caller answers a locked e-NCF exactly as a miss
 * and records every miss; counted by the number as typed, whether an E32 has it or not, so a lock
 * says nothing about which numbers exist (docs/security.md, "The consumer's lookup").
 */
export async function guardLookup(c: Context<AppEnv>, tenantId: number, encf: string): Promise<{ locked: boolean; recordFailure: () => Promise<void> }> {
  const guard = await failureGuard(c, "lookup", LOOKUP_FAILURES, `${tenantId}:${encf}`);
  return { locked: guard.lockedForSeconds !== null, recordFailure: guard.recordFailure };
}
