import { log } from "../lib/log";

/**
 * The request contexts predicted by one isolate, shared with the other isolates of the data centre
 * through the Workers Cache API (a named cache: never served to a visitor, unlike `caches.default`
 * for a URL of the zone). On Cloudflare a user's requests land on many isolates, and an isolate
 * that has not seen the user had to read the context first: 2 round trips for a read (issue 46).
 * With the context another isolate read, the request is predicted as in the isolate that read it
 * (http/auth.ts): one round trip. The lookup runs while the connection opens, so it adds no wait.
 *
 * What is stored is what the isolate holds already (user id, name, e-mail, workspaces and
 * permissions), kept 30 minutes in the account's own cache of the data centre. It is a prediction,
 * never a credential: the request's own token is checked by the context query sent with its first
 * statements, and a context that differs has the request run again, context first. A cache that
 * fails or is absent (`workers.dev` hosts have none) only costs the round trip it would have saved.
 */
const CACHE_NAME = "request-contexts";
/**
 * How long a context predicts (here and in each isolate, http/auth.ts): 30 minutes, so that a user
 * of a small business, whose requests come minutes apart, is still predicted — one round trip, not
 * two. A prediction is always confirmed: its age costs a request run again when it is wrong, never
 * an answer on a stale context.
 */
export const PREDICTION_TTL_SECONDS = 30 * 60;

let opened: Promise<Cache | null> | undefined;

function contextCache(): Promise<Cache | null> {
  opened ??= (typeof caches === "undefined" ? Promise.resolve(null) : caches.open(CACHE_NAME)).catch((error: unknown) => {
    log.warn("request context cache unavailable", { cause: String(error) });
    return null;
  });
  return opened;
}

/** A URL of no host anyone serves: the cache's key, per tenant, user and X-Workspace-ID. */
const keyUrl = (key: string) => `https://request-context.invalid/${encodeURIComponent(key)}`;

/** The context another isolate shared for `key`, or undefined (none, expired, or the cache failed). */
export async function sharedContext(key: string): Promise<Record<string, unknown> | undefined> {
  try {
    const cache = await contextCache();
    const hit = await cache?.match(keyUrl(key));
    if (!hit) return undefined;
    const entry = (await hit.json()) as { row?: unknown; until?: unknown };
    if (typeof entry.until !== "number" || entry.until <= Date.now()) return undefined;
    if (!entry.row || typeof entry.row !== "object" || Array.isArray(entry.row)) return undefined;
    return entry.row as Record<string, unknown>;
  } catch (error) {
    log.warn("request context cache lookup failed", { cause: String(error) });
    return undefined;
  }
}

/** Shares the context the database returned for `key` (after the answer: `waitUntil`). */
export function shareContext(waitUntil: (work: Promise<unknown>) => void, key: string, row: Record<string, unknown>): void {
  const body = JSON.stringify({ row, until: Date.now() + PREDICTION_TTL_SECONDS * 1000 });
  waitUntil(
    contextCache()
      .then((cache) =>
        cache?.put(keyUrl(key), new Response(body, { headers: { "content-type": "application/json", "cache-control": `max-age=${PREDICTION_TTL_SECONDS}` } })),
      )
      .catch((error: unknown) => log.warn("request context cache write failed", { cause: String(error) })),
  );
}

/** Forgets the context shared for `key`: the token was refused, nothing of it should be predicted. */
export function unshareContext(waitUntil: (work: Promise<unknown>) => void, key: string): void {
  waitUntil(
    contextCache()
      .then((cache) => cache?.delete(keyUrl(key)))
      .catch((error: unknown) => log.warn("request context cache delete failed", { cause: String(error) })),
  );
}
