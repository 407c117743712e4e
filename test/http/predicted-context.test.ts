import { describe, expect, it, vi } from "vitest";
import { RequestTransaction } from "../../src/db/client";
import { forgetPredictedContexts } from "../../src/http/auth";
import { issueAccessToken } from "../../src/modules/auth/service";
import { appCall, NO_LIMIT } from "../security/world";
import { env } from "../support/env";
import { requestOpenings } from "../support/openings";
import { asOwner, ownerRow, seedTenant, seedUser, seedWorkspace, sql, uniqueName } from "../support/seed";
import { createProduct } from "../support/stock";

/**
 * These requests' reads go to the HTTP endpoint under a key of this file's own: an isolate learns,
 * per endpoint and route, that a route needs the WebSocket (a statement after its batch), and the
 * tests' Worker is shared by test files — another file's past-the-end page of GET /products (its
 * total counted after the empty page) made these first reads take BEGIN on CI.
 */
const OWN_ENDPOINT = { ...NO_LIMIT, DB_HTTP_ENDPOINT: `${env.DB_HTTP_ENDPOINT}?for=predicted-context` };

/** A tenant and a user holding a new role with these permissions in its workspace. */
async function tenantWithRole(permissions: string[]) {
  const tenant = await seedTenant();
  const role = uniqueName("role");
  await asOwner((db) =>
    db.execute(
      sql`INSERT INTO roles (tenant_id, name, display_name, permissions) VALUES (${tenant.tenantId}, ${role}, ${role}, ${`{${permissions.join(",")}}`}::text[])`,
    ),
  );
  const user = await seedUser(tenant, { role, workspaceIds: [tenant.workspaceId] });
  return { tenant, user, role };
}

/**
 * A request whose token this isolate has seen runs on the context it had then, its first
 * statements sent with BEGIN and the context query in one message (http/auth.ts, db/client.ts
 * openLater); the context the database returns decides before anything of the answer leaves.
 * Each test makes a first request (the prediction), changes the caller in the database, then asks
 * again: the answer must be the one a fresh context gives.
 */
describe("a predicted request context is confirmed before the answer", () => {
  it("refuses a token revoked since its last request with 401, and reads and writes nothing for it", async () => {
    const { tenant, user } = await tenantWithRole(["products:view", "products:create"]);
    expect((await user.api.get("/products")).status).toBe(200);
    await asOwner((db) => db.execute(sql`UPDATE access_tokens SET revoked_at = now() WHERE user_id = ${user.id}`));
    const read = await user.api.get("/products");
    expect(read.status).toBe(401);
    expect(read.body).toEqual({ message: "Unauthenticated.", code: "unauthenticated" });
    const write = await user.api.post("/products", { name: "Never", price: "10.00" });
    expect(write.status).toBe(401);
    const { count } = await ownerRow<{ count: number }>(
      sql`SELECT count(*)::int AS count FROM products WHERE tenant_id = ${tenant.tenantId} AND name = 'Never'`,
    );
    expect(count).toBe(0);
  });

  it("refuses a deactivated user's next request with 401", async () => {
    const { user } = await tenantWithRole(["products:view"]);
    expect((await user.api.get("/products")).status).toBe(200);
    await asOwner((db) => db.execute(sql`UPDATE users SET deactivated_at = now() WHERE id = ${user.id}`));
    expect((await user.api.get("/products")).status).toBe(401);
  });

  it("answers 403 once a permission is taken away, and 200 once it is given back", async () => {
    const { tenant, user, role } = await tenantWithRole(["products:view"]);
    await createProduct(tenant.api, { name: "Visible", workspace_id: null });
    expect((await user.api.get("/products")).status).toBe(200);
    await asOwner((db) => db.execute(sql`UPDATE roles SET permissions = '{}' WHERE tenant_id = ${tenant.tenantId} AND name = ${role}`));
    const refused = await user.api.get("/products");
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("forbidden");
    // The isolate predicted "no permission" last: the database's context (permission back) wins.
    await asOwner((db) => db.execute(sql`UPDATE roles SET permissions = '{products:view}' WHERE tenant_id = ${tenant.tenantId} AND name = ${role}`));
    const again = await user.api.get("/products");
    expect(again.status).toBe(200);
    expect(again.body.data.map((p: { name: string }) => p.name)).toContain("Visible");
  });

  it("answers for the user's current workspace as it is now, not as it was at the last request", async () => {
    const tenant = await seedTenant();
    const second = await seedWorkspace(tenant);
    const before = await tenant.api.get("/me");
    expect(before.body.data.current_workspace_id).toBe(tenant.workspaceId);
    await asOwner((db) => db.execute(sql`UPDATE users SET current_workspace_id = ${second} WHERE id = ${tenant.admin.id}`));
    // A write with a body, first after the change: it runs again, context first, with its body.
    const name = uniqueName("P");
    const created = await tenant.api.post("/products", { name, price: "10.00" });
    expect(created.status).toBe(201);
    expect(created.body.data.name).toBe(name);
    const after = await tenant.api.get("/me");
    expect(after.status).toBe(200);
    expect(after.body.data.current_workspace_id).toBe(second);
    await asOwner((db) => db.execute(sql`UPDATE users SET current_workspace_id = ${tenant.workspaceId} WHERE id = ${tenant.admin.id}`));
    const back = await tenant.api.get("/me");
    expect(back.body.data.current_workspace_id).toBe(tenant.workspaceId);
  });

  it("gives a statement's own refusal after confirming the caller, as without a prediction", async () => {
    const { user } = await tenantWithRole(["products:view"]);
    expect((await user.api.get("/products")).status).toBe(200);
    const missing = await user.api.get("/products/2147483647");
    expect(missing.status).toBe(404);
    await asOwner((db) => db.execute(sql`UPDATE access_tokens SET revoked_at = now() WHERE user_id = ${user.id}`));
    expect((await user.api.get("/products/2147483647")).status).toBe(401);
  });

  it("refuses a company-level route on the next request once the company role is revoked or loses the permission", async () => {
    const tenant = await seedTenant();
    const carla = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    const role = await tenant.api.post("/roles", { name: uniqueName("finanzas_").toLowerCase(), display_name: "Finanzas", permissions: ["members:view"] });
    expect(role.status, role.text).toBe(201);
    const grant = () => tenant.api.put(`/company/members/${carla.id}`, { role: role.body.data.name });
    expect((await grant()).status).toBe(201);
    // The company role comes with the request context: predicted from the last request, confirmed by the database.
    expect((await carla.api.get("/company/members")).status).toBe(200);
    expect((await carla.api.get("/company/members")).status).toBe(200);
    const revoked = await tenant.api.delete(`/company/members/${carla.id}`);
    expect(revoked.status, revoked.text).toBe(200);
    const refused = await carla.api.get("/company/members");
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("company_forbidden");
    expect((await grant()).status).toBe(201);
    expect((await carla.api.get("/company/members")).status).toBe(200);
    // The role itself loses the permission (changed as the owner, behind the API's back).
    await asOwner((db) => db.execute(sql`UPDATE roles SET permissions = '{}' WHERE id = ${role.body.data.id}`));
    const stripped = await carla.api.get("/company/members");
    expect(stripped.status).toBe(403);
    expect(stripped.body.code).toBe("company_forbidden");
  });

  it("predicts from a context 30 minutes old, and reads the context first once it is older", async () => {
    const { tenant, user } = await tenantWithRole(["products:view"]);
    const call = () => appCall(tenant.subdomain, "/products", { token: user.token, env: OWN_ENDPOINT });
    const start = Date.now();
    expect((await call()).status).toBe(200);
    const read = vi.spyOn(RequestTransaction.prototype, "readOverHttp");
    try {
      // 29 minutes on (a user of a small business, between two sales): still predicted.
      vi.useFakeTimers({ toFake: ["Date"], now: start + 29 * 60_000 });
      expect((await call()).status).toBe(200);
      expect(requestOpenings(read, tenant.tenantId)).toBe(0);
      // 31 minutes after that (the prediction, confirmed at minute 29, and the one shared at minute 0, expired).
      vi.setSystemTime(start + 60 * 60_000);
      expect((await call()).status).toBe(200);
      expect(requestOpenings(read, tenant.tenantId)).toBe(1);
    } finally {
      vi.useRealTimers();
      vi.restoreAllMocks();
    }
  });

  it("predicts a new token's first request from its user's last context: one message with BEGIN, and a revoked token still refused", async () => {
    const { tenant, user } = await tenantWithRole(["products:view"]);
    const second = await asOwner((db) => issueAccessToken(db, env.JWT_SECRET, { tenantId: tenant.tenantId, userId: user.id, name: "second" }));
    const revoked = await asOwner((db) => issueAccessToken(db, env.JWT_SECRET, { tenantId: tenant.tenantId, userId: user.id, name: "gone" }));
    await asOwner((db) => db.execute(sql`UPDATE access_tokens SET revoked_at = now() WHERE id = ${revoked.tokenId}`));
    const call = (token: string) => appCall(tenant.subdomain, "/products", { token, env: OWN_ENDPOINT });
    const begin = vi.spyOn(RequestTransaction.prototype, "begin");
    const later = vi.spyOn(RequestTransaction.prototype, "openLater");
    const read = vi.spyOn(RequestTransaction.prototype, "readOverHttp");
    try {
      // Seen by no isolate: the read's context is read alone over HTTP first (no BEGIN).
      expect((await call(user.token)).status).toBe(200);
      expect(requestOpenings(read, tenant.tenantId)).toBe(1);
      expect(requestOpenings(begin, tenant.tenantId)).toBe(0);
      vi.clearAllMocks();
      expect((await call(second.token)).status).toBe(200);
      expect(requestOpenings(read, tenant.tenantId)).toBe(0);
      expect(requestOpenings(begin, tenant.tenantId)).toBe(0);
      expect(requestOpenings(later, tenant.tenantId)).toBe(1);
      expect((await call(revoked.token)).status).toBe(401);
    } finally {
      vi.restoreAllMocks();
    }
  });
});

/**
 * An isolate that has not seen the user takes the context another isolate of the data centre read
 * (http/shared-contexts.ts, the Cache API): its first request is predicted too, and still confirmed.
 */
describe("a context shared between isolates (issue 46)", () => {
  it("predicts a new isolate's first request from the shared context: one message with BEGIN, the same answer", async () => {
    const { tenant, user } = await tenantWithRole(["products:view"]);
    await createProduct(tenant.api, { name: "Shared", workspace_id: null });
    const call = () => appCall(tenant.subdomain, "/products", { token: user.token, env: OWN_ENDPOINT });
    const begin = vi.spyOn(RequestTransaction.prototype, "begin");
    const later = vi.spyOn(RequestTransaction.prototype, "openLater");
    const read = vi.spyOn(RequestTransaction.prototype, "readOverHttp");
    try {
      const first = await call();
      expect(first.status).toBe(200);
      expect(requestOpenings(read, tenant.tenantId)).toBe(1);
      forgetPredictedContexts();
      vi.clearAllMocks();
      const second = await call();
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      // Predicted from the shared context: not read first, neither over HTTP nor with BEGIN.
      expect(requestOpenings(read, tenant.tenantId)).toBe(0);
      expect(requestOpenings(begin, tenant.tenantId)).toBe(0);
      expect(requestOpenings(later, tenant.tenantId)).toBe(1);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it("refuses a token revoked since another isolate shared its context, and forgets the shared context", async () => {
    const { tenant, user } = await tenantWithRole(["products:view"]);
    const call = () => appCall(tenant.subdomain, "/products", { token: user.token, env: OWN_ENDPOINT });
    expect((await call()).status).toBe(200);
    await asOwner((db) => db.execute(sql`UPDATE access_tokens SET revoked_at = now() WHERE user_id = ${user.id}`));
    forgetPredictedContexts();
    const refused = await call();
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ message: "Unauthenticated.", code: "unauthenticated" });
    const key = `https://request-context.invalid/${encodeURIComponent(`${tenant.tenantId}:${user.id}:`)}`;
    expect(await (await caches.open("request-contexts")).match(key)).toBeUndefined();
  });

  it("answers 403 in a new isolate once a permission is taken away after another isolate shared the context", async () => {
    const { tenant, user, role } = await tenantWithRole(["products:view"]);
    const call = () => appCall(tenant.subdomain, "/products", { token: user.token, env: OWN_ENDPOINT });
    expect((await call()).status).toBe(200);
    await asOwner((db) => db.execute(sql`UPDATE roles SET permissions = '{}' WHERE tenant_id = ${tenant.tenantId} AND name = ${role}`));
    forgetPredictedContexts();
    const refused = await call();
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("forbidden");
    // The changed context was shared in its place: the next new isolate predicts it.
    forgetPredictedContexts();
    const begin = vi.spyOn(RequestTransaction.prototype, "begin");
    try {
      expect((await call()).status).toBe(403);
      expect(requestOpenings(begin, tenant.tenantId)).toBe(0);
    } finally {
      vi.restoreAllMocks();
    }
  });
});
