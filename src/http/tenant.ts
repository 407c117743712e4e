import { createMiddleware } from "hono/factory";
import type { AppEnv, Tenant } from "./context";
import { queryWithoutTenant } from "./database";
import { AppError } from "./errors";

const SUBDOMAIN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const CACHE_TTL_MS = 60_000;

// Subdomain → tenant, per isolate: tenants are created rarely and never renamed, so a minute of
// caching saves a round trip on nearly every request. Misses are not cached.
const cache = new Map<string, { tenant: Tenant; until: number }>();

/** The first label of the host: `acme.sucursal.do` → `acme`. Null for a bare host or an IP. */
export function subdomainOf(host: string): string | null {
  const hostname = host.replace(/:\d+$/, "").toLowerCase();
  const labels = hostname.split(".");
  if (labels.length < 2) return null;
  const first = labels[0]!;
  return SUBDOMAIN.test(first) && !/^\d+$/.test(first) ? first : null;
}

export const tenantFromHost = createMiddleware<AppEnv>(async (c, next) => {
  const host = c.req.header("host") || new URL(c.req.url).host;
  const subdomain = subdomainOf(host);
  if (!subdomain) throw new AppError("tenant_not_found", "Unknown tenant.");
  const cached = cache.get(subdomain);
  let tenant = cached && cached.until > Date.now() ? cached.tenant : undefined;
  if (!tenant) {
    // Inlined: `subdomain` matched SUBDOMAIN ([a-z0-9-] only), so it cannot hold a quote.
    const rows = await queryWithoutTenant<{ id: number; subdomain: string; name: string }>(c, `SELECT id, subdomain, name FROM tenants WHERE subdomain = '${subdomain}'`);
    if (!rows[0]) throw new AppError("tenant_not_found", "Unknown tenant.");
    tenant = { id: Number(rows[0].id), subdomain: rows[0].subdomain, name: rows[0].name };
    cache.set(subdomain, { tenant, until: Date.now() + CACHE_TTL_MS });
  }
  c.set("tenant", tenant);
  await next();
});
