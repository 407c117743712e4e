import { describe, expect, it } from "vitest";
import { issueAccessToken } from "../../src/modules/auth/service";
import { call, client } from "../support/api";
import { env } from "../support/env";
import { asOwner, seedTenant, seedUser, seedWorkspace } from "../support/seed";

describe("request pipeline", () => {
  it("answers /health without a tenant", async () => {
    const res = await call("anything", "http://localhost/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
  });

  it("answers an unknown tenant with 404 JSON", async () => {
    const res = await call("no-such-tenant-here", "/api/v1/me");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: "Unknown tenant.", code: "tenant_not_found" });
  });

  it("answers an unknown route with 404 JSON", async () => {
    const tenant = await seedTenant();
    const res = await tenant.api.get("/no-such-route");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: "Route not found.", code: "route_not_found" });
  });

  it("echoes a given request id and makes one otherwise", async () => {
    const tenant = await seedTenant();
    const given = await tenant.api.get("/me", { headers: { "x-request-id": "req-12345678" } });
    expect(given.headers.get("x-request-id")).toBe("req-12345678");
    const made = await tenant.api.get("/me");
    expect(made.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("reports every invalid field in the 422 body", async () => {
    const tenant = await seedTenant();
    const res = await call(tenant.subdomain, "/api/v1/auth/tokens", { method: "POST", body: { email: "not-an-email", name: "" } });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("validation_failed");
    expect(res.body.message).toBe("The given data was invalid.");
    expect(Object.keys(res.body.errors).sort()).toEqual(["email", "name", "password"]);
    expect(res.body.errors.email[0]).toEqual(expect.any(String));
  });

  it("answers malformed JSON with 400, a non-JSON body with 415 and a body over 1 MiB with 413", async () => {
    const tenant = await seedTenant();
    const malformed = await call(tenant.subdomain, "/api/v1/auth/tokens", {
      method: "POST",
      rawBody: '{"email": "a@b.do", ',
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ message: "The request body is not valid JSON.", code: "malformed_json" });

    const form = await call(tenant.subdomain, "/api/v1/auth/tokens", {
      method: "POST",
      rawBody: "email=a@b.do",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
    expect(form.body.code).toBe("unsupported_media_type");

    const huge = await call(tenant.subdomain, "/api/v1/auth/tokens", {
      method: "POST",
      rawBody: JSON.stringify({ email: "a@b.do", password: "x".repeat(1024 * 1024 + 10) }),
      headers: { "content-type": "application/json" },
    });
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe("payload_too_large");
  });

  it("paginates with meta and links, and refuses per_page over 100 and unknown parameters", async () => {
    const tenant = await seedTenant();
    await asOwner(async (db) => {
      for (let i = 0; i < 4; i++) await issueAccessToken(db, env.JWT_SECRET, { tenantId: tenant.tenantId, userId: tenant.admin.id, name: `t${i}` });
    });
    const page2 = await tenant.api.get("/auth/tokens?per_page=2&page=2&sort=created_at");
    expect(page2.status).toBe(200);
    expect(page2.body.meta).toEqual({ current_page: 2, last_page: 3, per_page: 2, total: 5 });
    expect(page2.body.data).toHaveLength(2);
    const base = `http://${tenant.subdomain}.sucursal.test/api/v1/auth/tokens`;
    expect(page2.body.links).toEqual({
      first: `${base}?per_page=2&page=1&sort=created_at`,
      last: `${base}?per_page=2&page=3&sort=created_at`,
      prev: `${base}?per_page=2&page=1&sort=created_at`,
      next: `${base}?per_page=2&page=3&sort=created_at`,
    });
    const page3 = await tenant.api.get("/auth/tokens?per_page=2&page=3");
    expect(page3.body.data).toHaveLength(1);
    expect(page3.body.links.next).toBeNull();
    const page1 = await tenant.api.get("/auth/tokens?per_page=2");
    expect(page1.body.links.prev).toBeNull();
    // A request naming neither: page, then per_page, after the request's own parameters.
    const plain = await tenant.api.get("/auth/tokens?sort=created_at");
    expect(plain.body.links).toEqual({
      first: `${base}?sort=created_at&page=1&per_page=15`,
      last: `${base}?sort=created_at&page=1&per_page=15`,
      prev: null,
      next: null,
    });

    const tooMany = await tenant.api.get("/auth/tokens?per_page=101");
    expect(tooMany.status).toBe(422);
    expect(Object.keys(tooMany.body.errors)).toEqual(["per_page"]);
    const unknownSort = await tenant.api.get("/auth/tokens?sort=password");
    expect(unknownSort.status).toBe(422);
    expect(Object.keys(unknownSort.body.errors)).toEqual(["sort"]);
    const unknownFilter = await tenant.api.get("/auth/tokens?filter[user_id]=1");
    expect(unknownFilter.status).toBe(422);
  });

  it("lets X-Workspace-ID pick a reachable workspace and refuses others with 403", async () => {
    const tenant = await seedTenant();
    const second = await seedWorkspace(tenant);
    const clerk = await seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] });

    const own = await clerk.api.get("/me", { headers: { "x-workspace-id": String(tenant.workspaceId) } });
    expect(own.status).toBe(200);
    expect(own.body.data.current_workspace).toEqual({ id: tenant.workspaceId, name: "Principal" });

    const notMember = await clerk.api.get("/me", { headers: { "x-workspace-id": String(second) } });
    expect(notMember.status).toBe(403);
    expect(notMember.body).toEqual({ message: "You do not have access to this workspace.", code: "workspace_forbidden" });

    const other = await seedTenant();
    const otherTenants = await clerk.api.get("/me", { headers: { "x-workspace-id": String(other.workspaceId) } });
    expect(otherTenants.status).toBe(403);
    const missing = await clerk.api.get("/me", { headers: { "x-workspace-id": "2147483000" } });
    expect(missing.status).toBe(403);

    const notInteger = await clerk.api.get("/me", { headers: { "x-workspace-id": "abc" } });
    expect(notInteger.status).toBe(422);
    expect(Object.keys(notInteger.body.errors)).toEqual(["X-Workspace-ID"]);

    // The admin holds view_all_locations and reaches the second workspace as well.
    const admin = await tenant.api.get("/me", { headers: { "x-workspace-id": String(second) } });
    expect(admin.status).toBe(200);
    expect(admin.body.data.current_workspace.id).toBe(second);
  });

  it("a token presented on another tenant's host is refused", async () => {
    const a = await seedTenant();
    const b = await seedTenant();
    const res = await client(b.subdomain, a.admin.token).get("/me");
    expect(res.status).toBe(401);
  });
});
