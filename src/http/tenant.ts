import { createMiddleware } from "hono/factory";
import { AppError } from "../lib/errors";
import { ExpiringMap } from "../lib/expiring-map";
import { isSubdomainLabel } from "../lib/subdomain";
import type { AppEnv, Tenant } from "./context";
import { queryWithoutTenant } from "./database";

const CACHE_TTL_MS = 60_000;

// Subdomain → tenant, per isolate: tenants are created rarely and never renamed, so a minute of
// caching saves a round trip on nearly every request.
const cache = new Map<string, { tenant: Tenant; until: number }>();

// Subdomains that are no tenant, per isolate, for NEGATIVE_TTL_MS: a flood of requests for made-up
// hosts then costs no database connection after the first of each. Bounded (oldest entry out first),
// since anyone can invent subdomains; a tenant created meanwhile answers 404 here for at most the TTL.
const NEGATIVE_TTL_MS = 60_000;
const NEGATIVE_CACHE_MAX = 1000;
const unknown = new ExpiringMap<true>(NEGATIVE_CACHE_MAX);

const knownMissing = (subdomain: string) => unknown.get(subdomain) === true;
const rememberMissing = (subdomain: string) => unknown.set(subdomain, true, Date.now() + NEGATIVE_TTL_MS);

/** The first label of the host: `acme.sucursal.do` → `acme`. Null for a bare host or an IP. */
export function subdomainOf(host: string): string | null {
  const hostname = host.replace(/:\d+$/, "").toLowerCase();
  const labels = hostname.split(".");
  if (labels.length < 2) return null;
  const first = labels[0]!;
  return isSubdomainLabel(first) ? first : null;
}

export const tenantFromHost = createMiddleware<AppEnv>(async (c, next) => {
  const host = c.req.header("host") || new URL(c.req.url).host;
  const subdomain = subdomainOf(host);
  if (!subdomain) throw new AppError("tenant_not_found", "Unknown tenant.");
  const cached = cache.get(subdomain);
  let tenant = cached && cached.until > Date.now() ? cached.tenant : undefined;
  if (!tenant) {
    if (knownMissing(subdomain)) throw new AppError("tenant_not_found", "Unknown tenant.");
    // Inlined: `subdomain` is a subdomain label ([a-z0-9-] only), so it cannot hold a quote.
    const rows = await queryWithoutTenant<{ id: number; subdomain: string; name: string }>(
      c,
      `SELECT id, subdomain, name FROM tenants WHERE subdomain = '${subdomain}'`,
    );
    if (!rows[0]) {
      rememberMissing(subdomain);
      throw new AppError("tenant_not_found", "Unknown tenant.");
    }
    tenant = { id: Number(rows[0].id), subdomain: rows[0].subdomain, name: rows[0].name };
    cache.set(subdomain, { tenant, until: Date.now() + CACHE_TTL_MS });
  }
  c.set("tenant", tenant);
  await next();
});
