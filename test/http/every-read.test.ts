import { describe, expect, it, vi } from "vitest";
import { RequestTransaction } from "../../src/db/client";
import { concreteRoutes } from "../security/routes";
import { appCall, buildWorld, NO_LIMIT } from "../security/world";
import { TEST_DOMAIN } from "../support/api";
import { env } from "../support/env";

/**
 * Every GET of the API reads in one round trip (issue 46): the handler's statements all leave in
 * the request's opening batch (BEGIN, the tenant, the context query), one HTTP transaction at the
 * SQL-over-HTTP endpoint. A statement that waits for another's answer reopens a transaction on the
 * WebSocket (db/client.ts reopen): a connection and more round trips, and the isolate then reads
 * that route over the WebSocket (http/database.ts httpRead). So a read that opened no WebSocket
 * connection took its one HTTP round trip. Every GET route of the route table, against a world with
 * one of everything (test/security/world.ts), as the world's admin; the reads go to an HTTP
 * endpoint key of this file's own, so what another file's requests taught the shared isolate does
 * not count here.
 */
const OWN_ENDPOINT = { ...NO_LIMIT, DB_HTTP_ENDPOINT: `${env.DB_HTTP_ENDPOINT}?for=every-read` };

/**
 * The reports DGII receives as files and the monthly forms summed from them read their rows through
 * a cursor, one round trip per page of 500 rows (docs/performance.md: the 607 of 100,000 rows).
 */
const PAGED_BY_CURSOR = new Set([
  "GET /api/v1/reports/606",
  "GET /api/v1/reports/607",
  "GET /api/v1/reports/608",
  "GET /api/v1/reports/it1",
  "GET /api/v1/reports/ir17",
]);

describe("every GET reads in one round trip (issue 46)", () => {
  it("sends all of a read's statements in its opening batch: no WebSocket connection for any GET route, as the company's admin and as a branch's viewer", async () => {
    const world = await buildWorld();
    const routes = concreteRoutes(world).filter((r) => r.method === "GET" && r.scope !== "public" && !PAGED_BY_CURSOR.has(r.key));
    expect(routes.length).toBeGreaterThan(80);
    // The request transactions of this world's tenant (a queue consumer's transaction is not opened by a request: no reopenWith).
    const tenantSet = `'app.tenant_id', '${world.tenant.tenantId}'`;
    const ours = (tx: unknown) => ((tx as { reopenWith: { statements: string[] } | null }).reopenWith?.statements ?? []).some((s) => s.includes(tenantSet));
    const connect = vi.spyOn(RequestTransaction.prototype, "connect");
    const connections = () => connect.mock.contexts.filter(ours).length;
    const call = (url: string, token = world.tenant.admin.token) =>
      appCall(world.tenant.subdomain, `http://${world.tenant.subdomain}.${TEST_DOMAIN}${url}`, { token, env: OWN_ENDPOINT });
    const walk = async (token: string) => {
      // The user's first request in the isolate reads the context alone first (no prediction).
      expect((await call("/api/v1/me", token)).status).toBe(200);
      const problems: string[] = [];
      const statuses: Record<number, number> = {};
      for (const route of routes) {
        const before = connections();
        const res = await call(route.url, token);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status >= 500) problems.push(`${route.key}: ${res.status} ${res.text.slice(0, 200)}`);
        if (connections() > before)
          problems.push(`${route.key} (${route.url} → ${res.status}): a WebSocket connection (a statement after its opening batch, or its opening sent alone)`);
      }
      return { problems, statuses };
    };
    try {
      const admin = await walk(world.tenant.admin.token);
      expect(admin.problems).toEqual([]);
      // Most reads found what they asked for (the world has one of everything): the statements ran.
      expect(admin.statuses[200]!).toBeGreaterThan(routes.length * 0.75);
      // A branch's viewer takes the other paths: the reads of their own branch, 403 and 404 elsewhere.
      const viewer = await walk(world.objects.w1Viewer.token);
      expect(viewer.problems).toEqual([]);
      expect(viewer.statuses[200]!).toBeGreaterThan(40);
      expect(viewer.statuses[403]!).toBeGreaterThan(10);
      // The check can fail: a read whose statement waits for another's answer connects.
      const before = connections();
      expect((await call("/api/v1/reports/606?period=202610")).status).toBe(200);
      expect(connections()).toBeGreaterThan(before);
    } finally {
      connect.mockRestore();
    }
  });
});
