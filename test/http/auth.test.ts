import { describe, expect, it, vi } from "vitest";
import { signAccessToken, verifyAccessToken } from "../../src/lib/tokens";
import { issueAccessToken } from "../../src/modules/auth/service";
import { call, client } from "../support/api";
import { env } from "../support/env";
import { forgedToken } from "../support/forged";
import { asOwner, DEFAULT_PASSWORD, seedTenant } from "../support/seed";

describe("tokens and identity", () => {
  it("issues a token for the right email and password and answers /me with it", async () => {
    const tenant = await seedTenant();
    const login = await call(tenant.subdomain, "/api/v1/auth/tokens", {
      method: "POST",
      body: { email: tenant.admin.email.toUpperCase(), password: DEFAULT_PASSWORD, name: "laptop" },
    });
    expect(login.status).toBe(201);
    expect(login.body.data.token_type).toBe("Bearer");
    expect(login.body.data.expires_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const expiresInDays = (Date.parse(login.body.data.expires_at) - Date.now()) / 86_400_000;
    expect(expiresInDays).toBeGreaterThan(29.9);
    expect(expiresInDays).toBeLessThanOrEqual(30);

    const me = await client(tenant.subdomain, login.body.data.token).get("/me");
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({
      id: tenant.admin.id,
      email: tenant.admin.email,
      current_workspace_id: tenant.workspaceId,
      current_workspace: { id: tenant.workspaceId, name: "Principal" },
      workspaces: [{ id: tenant.workspaceId, name: "Principal", role: "admin" }],
    });
    expect(me.body.data.permissions).toContain("invoices:create");
    expect(me.body.data.permissions).toContain("view_all_locations");
  });

  it("answers a wrong password and an unknown email with the same 401", async () => {
    const tenant = await seedTenant();
    const wrongPassword = await call(tenant.subdomain, "/api/v1/auth/tokens", { method: "POST", body: { email: tenant.admin.email, password: "nope-nope" } });
    const unknownEmail = await call(tenant.subdomain, "/api/v1/auth/tokens", {
      method: "POST",
      body: { email: "ghost@nowhere.do", password: DEFAULT_PASSWORD },
    });
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    expect(wrongPassword.body).toEqual({ message: "These credentials do not match our records.", code: "invalid_credentials" });
    expect(unknownEmail.body).toEqual(wrongPassword.body);
  });

  it("refuses a request without a token", async () => {
    const tenant = await seedTenant();
    const res = await call(tenant.subdomain, "/api/v1/me");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: "Unauthenticated.", code: "unauthenticated" });
  });

  it("refuses forged, malformed, expired, revoked and other-tenant tokens", async () => {
    const tenant = await seedTenant();
    const other = await seedTenant();
    const forged = await forgedToken(tenant.tenantId, tenant.admin.id);
    const expired = await asOwner((db) =>
      issueAccessToken(db, env.JWT_SECRET, { tenantId: tenant.tenantId, userId: tenant.admin.id, name: "old", ttlDays: -1 }),
    );
    const revoked = await asOwner((db) => issueAccessToken(db, env.JWT_SECRET, { tenantId: tenant.tenantId, userId: tenant.admin.id, name: "gone" }));
    const revoke = await client(tenant.subdomain, revoked.token).delete("/auth/tokens/current");
    expect(revoke.status).toBe(200);

    for (const token of [forged, "not.a.jwt", "abc", expired.token, revoked.token, other.admin.token]) {
      const res = await client(tenant.subdomain, token).get("/me");
      expect(res.status, token).toBe(401);
      expect(res.body.code).toBe("unauthenticated");
    }
    // The revoked token's row is marked; the admin's own token still works.
    expect((await tenant.api.get("/me")).status).toBe(200);
  });

  it("a token verified once is cached by the isolate until its own expiry, under its secret only, and revocation still holds", async () => {
    const tenant = await seedTenant();
    // The JWT expires in a minute; its database row in 30 days: only the JWT's own expiry refuses it.
    const issued = await asOwner((db) => issueAccessToken(db, env.JWT_SECRET, { tenantId: tenant.tenantId, userId: tenant.admin.id, name: "short" }));
    const token = await signAccessToken(
      env.JWT_SECRET,
      { userId: tenant.admin.id, tenantId: tenant.tenantId, tokenId: issued.tokenId },
      new Date(Date.now() + 60_000),
    );
    expect((await client(tenant.subdomain, token).get("/me")).status).toBe(200);
    expect(await verifyAccessToken("another secret of at least thirty-two characters", token)).toBeNull();
    expect(await verifyAccessToken(env.JWT_SECRET, token)).toMatchObject({ userId: tenant.admin.id, tokenId: issued.tokenId });
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + 61_000);
      const late = await client(tenant.subdomain, token).get("/me");
      expect(late.status).toBe(401);
      expect(await verifyAccessToken(env.JWT_SECRET, token)).toBeNull();
    } finally {
      vi.useRealTimers();
    }
    // Cached, then revoked through the API: the next request is refused.
    const api = client(tenant.subdomain, issued.token);
    expect((await api.get("/me")).status).toBe(200);
    expect((await api.delete("/auth/tokens/current")).status).toBe(200);
    expect((await api.get("/me")).status).toBe(401);
  });

  it("a token whose database row is expired is refused even if the JWT is still valid", async () => {
    const tenant = await seedTenant();
    const issued = await asOwner((db) => issueAccessToken(db, env.JWT_SECRET, { tenantId: tenant.tenantId, userId: tenant.admin.id, name: "x" }));
    await asOwner((db) => db.execute(`UPDATE access_tokens SET expires_at = now() - interval '1 second' WHERE id = '${issued.tokenId}'` as never));
    expect((await client(tenant.subdomain, issued.token).get("/me")).status).toBe(401);
  });

  it("lists the caller's tokens without the token strings and revokes one by id", async () => {
    const tenant = await seedTenant();
    const second = await asOwner((db) => issueAccessToken(db, env.JWT_SECRET, { tenantId: tenant.tenantId, userId: tenant.admin.id, name: "second" }));
    const list = await tenant.api.get("/auth/tokens");
    expect(list.status).toBe(200);
    expect(list.body.meta).toEqual({ current_page: 1, last_page: 1, per_page: 15, total: 2 });
    expect(list.text).not.toContain(second.token);
    expect(list.body.data.map((t: { name: string }) => t.name).sort()).toEqual(["second", "test"]);
    expect(list.body.data.filter((t: { is_current: boolean }) => t.is_current)).toHaveLength(1);

    const gone = await tenant.api.delete(`/auth/tokens/${second.tokenId}`);
    expect(gone.status).toBe(200);
    expect((await client(tenant.subdomain, second.token).get("/me")).status).toBe(401);
    const missing = await tenant.api.delete(`/auth/tokens/${crypto.randomUUID()}`);
    expect(missing.status).toBe(404);
  });
});
