import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { routeTable } from "../../src/http/openapi";
import { allPermissions } from "../../src/lib/permissions";
import { type ApiResponse, TEST_DOMAIN } from "../support/api";
import { inParallel } from "../support/parallel";
import { type SeededTenant, seedTenant, seedUser, uniqueName } from "../support/seed";
import { type ConcreteRoute, concreteRoutes } from "./routes";
import {
  appCall,
  buildWorld,
  deactivatedUserToken,
  expectErrorShape,
  expiredToken,
  forgedToken,
  NO_LIMIT,
  record,
  revokedToken,
  TokenPool,
  unsignedToken,
  type World,
} from "./world";

/**
 * Every operation of the route table × hostile identities. The expected answer of each pair is
 * derived from the route's access rule and the resource its path names (see docs/reliability.md):
 *   - no token, a forged / unsigned / expired / revoked token, another tenant's token, a token of a
 *     deactivated user → 401
 *     `unauthenticated` on every non-public route; public routes answer a 4xx (bad credentials,
 *     unknown invitation, unverified webhook);
 *   - a viewer of W1 on every write guarded by a permission → 403 `forbidden` (`company_forbidden`
 *     for a company-level act);
 *   - a member of W2 only (a custom role with every permission except view_all_locations):
 *       · with X-Workspace-ID of W1 on every permission-guarded route → 403 `workspace_forbidden`;
 *       · naming a W1 workspace-scoped object (invoice, payment, quotation, transfer, adjustment,
 *         W1-only product and contact, invitation, member, bot, chat account, the workspace) → 403/404;
 *       · tenant-wide catalog resources (taxes, currencies, document subtypes, salesmen, bank
 *         accounts, roles, RNC) are legitimately readable with the permission (their writes are
 *         company-level acts, below);
 *       · self-service routes (the caller's own tokens and workspace context) never act on others;
 *   - an administrator of W2 only (the built-in admin role, so view_all_locations too):
 *       · every act on the company (`level: "company"`) → 403 `company_forbidden`: a branch role,
 *         even admin, never counts at company level;
 *       · every act on named branches (`level: "branches"`) naming W1 → 403 `forbidden`;
 *   - the admin of another tenant, on their own host, naming tenant A's objects → 403/404.
 * Always: never 5xx, errors in the documented shape, and no body carries the other party's markers.
 */

interface Check {
  identity: string;
  route: ConcreteRoute;
  host: string;
  token?: () => string;
  headers?: Record<string, string>;
  expect: (res: ApiResponse) => string | null;
  markers: string[];
}

/**
 * The matrix is about access, not rate limits (test/http/rate-limit.test.ts and the burst test in
 * concurrency.test.ts are): it calls the app (createApp().fetch, what the Worker exports) with the
 * limit lifted and the in-memory window, so ~1,000 requests neither wait on the Redis relay nor
 * need a pool of users per identity.
 */
const MATRIX_ENV = { ...NO_LIMIT, UPSTASH_REDIS_REST_URL: "" };
const HANG_MS = 15_000;
const slowest = { ms: 0, what: "" };
const IN_FLIGHT = 8; // each request holds a Postgres connection; other files run alongside

const status401 = (res: ApiResponse) => (res.status === 401 && res.body?.code === "unauthenticated" ? null : `expected 401 unauthenticated`);
const status4xx = (res: ApiResponse) => (res.status >= 400 && res.status < 500 && res.status !== 429 ? null : "expected a 4xx refusal");
const forbidden = (code: string) => (res: ApiResponse) => (res.status === 403 && res.body?.code === code ? null : `expected 403 ${code}`);
const hidden = (res: ApiResponse) => (res.status === 403 || res.status === 404 ? null : "expected 403 or 404");
const hiddenOr422 = (res: ApiResponse) => (res.status === 403 || res.status === 404 || res.status === 422 ? null : "expected 403, 404 or 422");
const anything = () => null;

let world: World;
let other: SeededTenant;
let crossWs: TokenPool;
let viewers: TokenPool;
let branchAdmins: TokenPool;
let revoked: TokenPool;
let otherAdmins: TokenPool;
let expired: string;
let deactivated: string;
let forged: string;
let unsigned: string;
let routes: ConcreteRoute[];
const tally = { cases: 0, failures: 0 };

async function run(checks: Check[]) {
  const failures: string[] = [];
  await inParallel(
    checks.map((check) => async () => {
      const { route } = check;
      const headers: Record<string, string> = { ...check.headers };
      const started = Date.now();
      const res = await Promise.race([
        appCall(check.host, `http://${check.host}.${TEST_DOMAIN}${route.url}`, {
          env: MATRIX_ENV,
          method: route.method,
          token: check.token?.(),
          headers,
          ...(route.body instanceof FormData ? { rawBody: route.body } : route.body !== undefined ? { body: route.body } : {}),
        }),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error("hung")), HANG_MS)),
      ]).catch((error: Error) => ({ status: 0, text: error.message, body: null, headers: new Headers() }) as ApiResponse);
      if (res.status === 0) {
        failures.push(`${check.identity} ${route.method} ${route.url}: no answer within ${HANG_MS} ms`);
        return;
      }
      const ms = Date.now() - started;
      if (ms > slowest.ms) Object.assign(slowest, { ms, what: `${check.identity} ${route.method} ${route.url}` });
      const where = `${check.identity} ${route.method} ${route.url} → ${res.status} ${res.text.slice(0, 160)}`;
      if (res.status >= 500) failures.push(`${where}: 5xx`);
      else {
        const problem = check.expect(res);
        if (problem) failures.push(`${where}: ${problem}`);
      }
      if (res.status >= 400) {
        try {
          expectErrorShape(res, where);
        } catch (error) {
          failures.push(`${where}: error shape: ${(error as Error).message.split("\n")[0]}`);
        }
      }
      for (const marker of check.markers) if (res.text.includes(marker)) failures.push(`${where}: leaks ${marker}`);
    }),
    IN_FLIGHT,
  );
  tally.cases += checks.length;
  tally.failures += failures.length;
  return failures;
}

describe("access matrix over every operation of the route table", () => {
  beforeAll(async () => {
    world = await buildWorld();
    routes = concreteRoutes(world);
    other = await seedTenant();
    // A member of W2 only, holding every permission but view_all_locations.
    const roleName = uniqueName("casi_admin_").toLowerCase();
    const role = await world.tenant.api.post("/roles", {
      name: roleName,
      display_name: "Casi admin",
      permissions: allPermissions.filter((p) => p !== "view_all_locations"),
    });
    expect(role.status, JSON.stringify(role.body)).toBe(201);
    const nonPublic = routes.filter((r) => r.scope !== "public").length;
    crossWs = await TokenPool.of(nonPublic * 2, async () => (await seedUser(world.tenant, { role: roleName, workspaceIds: [world.w2] })).token);
    branchAdmins = await TokenPool.of(1, async () => (await seedUser(world.tenant, { role: "admin", workspaceIds: [world.w2] })).token);
    viewers = await TokenPool.of(
      routes.filter((r) => r.isWrite).length,
      async () => (await seedUser(world.tenant, { role: "viewer", workspaceIds: [world.w1] })).token,
    );
    revoked = await TokenPool.of(nonPublic, () => revokedToken(world.tenant));
    otherAdmins = await TokenPool.of(
      routes.filter((r) => r.namesTenantObject).length,
      async () => (await seedUser(other, { role: "admin", workspaceIds: [other.workspaceId] })).token,
    );
    expired = await expiredToken(world.tenant, world.tenant.admin.id);
    deactivated = await deactivatedUserToken(world.tenant);
    forged = await forgedToken(world.tenant);
    unsigned = unsignedToken(world.tenant);
  }, 120_000);

  it("covers every route of the table, with a fixture for every path parameter", () => {
    expect(routes).toHaveLength(routeTable.length);
    expect(routeTable.length).toBeGreaterThan(100);
    for (const route of routes) expect(route.url, route.key).not.toMatch(/[{}]/);
    // Every write that declares a JSON body has a valid fixture (new routes must add theirs).
    const missing = routes.filter((r) => needsBody(r) && r.body === undefined);
    expect(missing.map((r) => r.key)).toEqual([]);
  });

  it("refuses anonymous, forged, unsigned, expired, revoked, deactivated users' and other-tenant tokens with 401 (public routes with a 4xx)", async () => {
    const anonymous: [string, (() => string) | undefined][] = [
      ["no token", undefined],
      ["forged", () => forged],
      ["unsigned", () => unsigned],
      ["expired", () => expired],
      ["revoked", () => revoked.next()],
      ["deactivated user's", () => deactivated],
      ["other tenant's token", () => other.admin.token],
      ["garbage", () => "not.a.jwt"],
    ];
    const checks: Check[] = [];
    for (const route of routes) {
      if (route.scope === "public") {
        checks.push({ identity: "no token", route, host: world.tenant.subdomain, expect: status4xx, markers: world.tenantMarkers });
        continue;
      }
      for (const [identity, token] of anonymous) {
        checks.push({ identity, route, host: world.tenant.subdomain, token, expect: status401, markers: world.tenantMarkers });
      }
    }
    expect(await run(checks)).toEqual([]);
  }, 180_000);

  it("refuses a viewer every write guarded by a permission with 403 (and never lets an owner-only write through)", async () => {
    const checks: Check[] = routes
      .filter((r) => r.isWrite && r.scope !== "public" && r.scope !== "self")
      .map((route) => ({
        identity: "viewer of W1",
        route,
        host: world.tenant.subdomain,
        token: () => viewers.next(),
        expect: viewerMayRead(route) ? anything : typeof route.route.access === "object" ? forbidden(refusalOf(route)) : status4xx,
        markers: [],
      }));
    expect(checks.length).toBeGreaterThan(50);
    expect(await run(checks)).toEqual([]);
  }, 120_000);

  it("refuses a member of another workspace W1's context, W1's objects and W1's data", async () => {
    const checks: Check[] = [];
    for (const route of routes) {
      if (route.scope === "public") continue;
      if (typeof route.route.access === "object") {
        checks.push({
          identity: "W2 member with X-Workspace-ID of W1",
          route,
          host: world.tenant.subdomain,
          token: () => crossWs.next(),
          headers: { "x-workspace-id": String(world.w1) },
          expect: forbidden("workspace_forbidden"),
          markers: world.markers,
        });
      }
      if (route.namesWorkspaceObject) {
        // Objects named in a body (bulk PDF ids) are refused as invalid input: 422.
        const expectation = route.scope === "self" ? anything : route.body && !/\{/.test(route.route.path) ? hiddenOr422 : hidden;
        checks.push({
          identity: "W2 member naming W1's object",
          route,
          host: world.tenant.subdomain,
          token: () => crossWs.next(),
          expect: expectation,
          markers: world.markers,
        });
      } else if (route.method === "GET" && route.scope !== "tenant") {
        // Lists of the caller's own workspace and self-service reads: allowed, but nothing of W1.
        checks.push({
          identity: "W2 member listing",
          route,
          host: world.tenant.subdomain,
          token: () => crossWs.next(),
          expect: anything,
          markers: world.markers,
        });
      }
    }
    expect(await run(checks)).toEqual([]);
  }, 180_000);

  it("refuses an administrator of W2 only every act on the company (403 company_forbidden) and every act naming W1 (403 forbidden)", async () => {
    const checks: Check[] = [];
    for (const route of routes) {
      if (typeof route.route.access !== "object") continue;
      if (route.route.access.level === "company") {
        checks.push({
          identity: "admin of W2 only, on the company",
          route,
          host: world.tenant.subdomain,
          token: () => branchAdmins.next(),
          expect: forbidden("company_forbidden"),
          markers: [],
        });
      } else if (route.namingW1) {
        checks.push({
          identity: "admin of W2 only, naming W1",
          route: { ...route, url: route.namingW1.url, body: route.namingW1.body },
          host: world.tenant.subdomain,
          token: () => branchAdmins.next(),
          expect: forbidden("forbidden"),
          markers: world.markers,
        });
      }
    }
    expect(checks.filter((c) => c.identity.endsWith("naming W1")).length).toBe(3);
    expect(checks.length).toBeGreaterThan(40);
    expect(await run(checks)).toEqual([]);
  }, 120_000);

  it("answers another tenant's admin 403/404 for every object of this tenant, never its data", async () => {
    const checks: Check[] = routes
      .filter((r) => r.scope !== "public" && r.namesTenantObject)
      .map((route) => ({
        identity: "other tenant's admin on its own host",
        route,
        host: other.subdomain,
        token: () => otherAdmins.next(),
        expect: route.key === "DELETE /api/v1/workspace-context/{id}" ? anything : hidden,
        markers: world.tenantMarkers,
      }));
    expect(checks.length).toBeGreaterThan(40);
    expect(await run(checks)).toEqual([]);
  }, 120_000);

  it("records the figures", async () => {
    console.log(`access matrix: ${tally.cases} cases, slowest ${slowest.ms} ms (${slowest.what})`);
    await record({ suite: "access matrix", cases: tally.cases, failures: tally.failures, invariants: 5, notes: `${routes.length} routes` });
  });
});

/** Reads sent as POST (a ZIP of PDFs) are guarded by a `:view` permission the viewer holds. */
function viewerMayRead(route: ConcreteRoute): boolean {
  return typeof route.route.access === "object" && route.route.access.permission.endsWith(":view");
}

/** The code of a refusal for lack of the route's permission: at company level, company_forbidden. */
function refusalOf(route: ConcreteRoute): string {
  return typeof route.route.access === "object" && route.route.access.level === "company" ? "company_forbidden" : "forbidden";
}

let openApi: ReturnType<ReturnType<typeof createApp>["getOpenAPI31Document"]> | undefined;

/** The OpenAPI document says the operation takes a JSON body. */
function needsBody(route: ConcreteRoute): boolean {
  // Made once: building the document for each of the ~150 routes took this test 34 s of CPU (on the
  // slow machine of 2026-11-26, where it then timed out at 30 s).
  openApi ??= createApp().getOpenAPI31Document({ openapi: "3.1.0", info: { title: "Sucursal", version: "1" } });
  const doc = openApi;
  const body = doc.paths?.[route.route.path]?.[route.method.toLowerCase() as "get" | "post" | "put" | "patch" | "delete"]?.requestBody;
  // The receiver services (/fe/…) declare a multipart upload, not JSON.
  return Boolean(body && "content" in body && body.content["application/json"]);
}
