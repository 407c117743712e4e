import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { allPermissions } from "../../src/lib/permissions";
import { issueAccessToken } from "../../src/modules/auth/service";
import { call, client } from "../support/api";
import { env } from "../support/env";
import { asOwner, DEFAULT_PASSWORD, type SeededTenant, seedTenant, seedUser, seedWorkspace } from "../support/seed";
import { createRole, userRow } from "./helpers";

const login = (tenant: SeededTenant, email: string, password: string) =>
  call(tenant.subdomain, "/api/v1/auth/tokens", { method: "POST", body: { email, password } });

const WRONG_CREDENTIALS = { message: "These credentials do not match our records.", code: "invalid_credentials" };
const UNAUTHENTICATED = { message: "Unauthenticated.", code: "unauthenticated" };

async function tokenRows(userId: number) {
  return asOwner((db) => db.select().from(schema.accessTokens).where(eq(schema.accessTokens.userId, userId)));
}

describe("users of the tenant: list", () => {
  it("lists the company's users with status and workspaces for an admin, filtered, searched and paginated", async () => {
    const tenant = await seedTenant();
    const other = await seedTenant();
    const w2 = await seedWorkspace(tenant, "Sucursal Norte");
    const member = await seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId, w2] });
    const viewer = await seedUser(tenant, { role: "viewer", workspaceIds: [w2] });

    const all = await tenant.api.get("/users?per_page=100&sort=created_at");
    expect(all.status, all.text).toBe(200);
    expect(all.body.meta).toEqual({ current_page: 1, last_page: 1, per_page: 100, total: 3 });
    expect(all.body.data.map((u: { id: number }) => u.id)).toEqual([tenant.admin.id, member.id, viewer.id]);
    const listed = all.body.data.find((u: { id: number }) => u.id === member.id);
    expect(listed).toEqual({
      id: member.id,
      name: member.email.split("@")[0],
      email: member.email,
      status: "active",
      deactivated_at: null,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
      workspaces: [
        { id: tenant.workspaceId, name: "Principal", role: "member" },
        { id: w2, name: "Sucursal Norte", role: "member" },
      ],
    });
    expect(all.body.data[0].workspaces).toEqual([
      { id: tenant.workspaceId, name: "Principal", role: "admin" },
      { id: w2, name: "Sucursal Norte", role: "admin" },
    ]);
    // Another tenant's users never appear.
    expect(all.text).not.toContain(other.admin.email);

    const searched = await tenant.api.get(`/users?filter[search]=${encodeURIComponent(viewer.email.split("@")[0]!.toUpperCase())}`);
    expect(searched.status).toBe(200);
    expect(searched.body.data.map((u: { id: number }) => u.id)).toEqual([viewer.id]);

    const page2 = await tenant.api.get("/users?per_page=1&page=2&sort=-email");
    const byEmailDesc = [tenant.admin.email, member.email, viewer.email].sort().reverse();
    expect(page2.body.data.map((u: { email: string }) => u.email)).toEqual([byEmailDesc[1]]);
    expect(page2.body.meta).toEqual({ current_page: 2, last_page: 3, per_page: 1, total: 3 });

    expect((await tenant.api.post(`/users/${viewer.id}/deactivate`)).status).toBe(200);
    const deactivated = await tenant.api.get("/users?filter[status]=deactivated");
    expect(deactivated.body.data.map((u: { id: number }) => u.id)).toEqual([viewer.id]);
    expect(deactivated.body.data[0].status).toBe("deactivated");
    expect(Date.parse(deactivated.body.data[0].deactivated_at)).toBeGreaterThan(Date.now() - 60_000);
    const active = await tenant.api.get("/users?filter[status]=active&sort=created_at");
    expect(active.body.data.map((u: { id: number }) => u.id)).toEqual([tenant.admin.id, member.id]);

    const bad = await tenant.api.get("/users?filter[status]=gone");
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(["filter[status]"]);
    expect((await tenant.api.get("/users?filter[role]=admin")).status).toBe(422);
  });

  it("refuses the list to anyone but an admin of the request's workspace (403 forbidden)", async () => {
    const tenant = await seedTenant();
    const member = await seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] });
    const viewer = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    // Every permission of the catalog, but not the built-in admin role.
    const almost = await createRole(tenant, allPermissions);
    const nearlyAdmin = await seedUser(tenant, { role: almost.name, workspaceIds: [tenant.workspaceId] });
    for (const [who, user] of [
      ["member", member],
      ["viewer", viewer],
      ["every permission", nearlyAdmin],
    ] as const) {
      const res = await user.api.get("/users");
      expect(res.status, who).toBe(403);
      expect(res.body.code, who).toBe("forbidden");
      expect(res.text, who).not.toContain(tenant.admin.email);
    }
    expect((await call(tenant.subdomain, "/api/v1/users")).body).toEqual(UNAUTHENTICATED);
  });
});

describe("users of the tenant: deactivation", () => {
  it("cuts a token that worked one request earlier (401), revokes every token, and login answers as for a wrong password", async () => {
    const tenant = await seedTenant();
    const user = await seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] });
    const second = await login(tenant, user.email, DEFAULT_PASSWORD);
    expect(second.status).toBe(201);
    expect((await user.api.get("/me")).status).toBe(200);
    expect((await user.api.get("/invoices")).status).toBe(200);

    const res = await tenant.api.post(`/users/${user.id}/deactivate`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.message).toBe("User deactivated; their access tokens were revoked.");
    expect(res.body.data).toMatchObject({
      id: user.id,
      email: user.email,
      status: "deactivated",
      workspaces: [{ id: tenant.workspaceId, name: "Principal", role: "member" }],
    });
    expect(res.body.data.deactivated_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);

    for (const token of [user.token, second.body.data.token]) {
      for (const path of ["/me", "/invoices"]) {
        const after = await client(tenant.subdomain, token).get(path);
        expect(after.status, path).toBe(401);
        expect(after.body).toEqual(UNAUTHENTICATED);
      }
    }
    const tokens = await tokenRows(user.id);
    expect(tokens).toHaveLength(2);
    for (const t of tokens) expect(t.revokedAt).not.toBeNull();
    expect((await userRow(user.id)).deactivatedAt).not.toBeNull();

    // The right password of a deactivated account: the very answer of a wrong one.
    const rightPassword = await login(tenant, user.email, DEFAULT_PASSWORD);
    const wrongPassword = await login(tenant, user.email, "not the password at all");
    const unknown = await login(tenant, `ghost-${user.email}`, DEFAULT_PASSWORD);
    expect(rightPassword.status).toBe(401);
    expect(rightPassword.body).toEqual(WRONG_CREDENTIALS);
    expect(wrongPassword.body).toEqual(rightPassword.body);
    expect(unknown.body).toEqual(rightPassword.body);
    expect(rightPassword.headers.get("content-length")).toBe(wrongPassword.headers.get("content-length"));
  });

  it("refuses even a token issued after the deactivation (request_context finds no deactivated caller)", async () => {
    const tenant = await seedTenant();
    const user = await seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] });
    expect((await tenant.api.post(`/users/${user.id}/deactivate`)).status).toBe(200);
    // As a login that raced the deactivation would have left it: a live, unrevoked token row.
    const { token } = await asOwner((db) => issueAccessToken(db, env.JWT_SECRET, { tenantId: tenant.tenantId, userId: user.id, name: "raced" }));
    const res = await client(tenant.subdomain, token).get("/me");
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHENTICATED);
  });

  it("reactivation restores login, while the tokens revoked by the deactivation stay revoked", async () => {
    const tenant = await seedTenant();
    const user = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    expect((await tenant.api.post(`/users/${user.id}/deactivate`)).status).toBe(200);
    // Deactivating twice changes nothing.
    const first = (await userRow(user.id)).deactivatedAt;
    const again = await tenant.api.post(`/users/${user.id}/deactivate`);
    expect(again.status).toBe(200);
    expect((await userRow(user.id)).deactivatedAt).toEqual(first);

    const res = await tenant.api.post(`/users/${user.id}/reactivate`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ message: "User reactivated; they must log in again.", data: { id: user.id, status: "active", deactivated_at: null } });
    expect((await userRow(user.id)).deactivatedAt).toBeNull();

    expect((await user.api.get("/me")).status).toBe(401);
    const fresh = await login(tenant, user.email, DEFAULT_PASSWORD);
    expect(fresh.status).toBe(201);
    const me = await client(tenant.subdomain, fresh.body.data.token).get("/me");
    expect(me.status).toBe(200);
    expect(me.body.data.id).toBe(user.id);
  });

  it("refuses to deactivate a workspace owner (409 owner_cannot_be_deactivated) or yourself (409 conflict); unknown users are 404", async () => {
    const tenant = await seedTenant();
    const other = await seedTenant();
    const secondAdmin = await seedUser(tenant, { role: "admin", workspaceIds: [tenant.workspaceId] });

    const owner = await secondAdmin.api.post(`/users/${tenant.admin.id}/deactivate`);
    expect(owner.status).toBe(409);
    expect(owner.body).toEqual({
      message: `This user owns workspace ${tenant.workspaceId}: transfer its ownership before deactivating them.`,
      code: "owner_cannot_be_deactivated",
    });
    expect((await userRow(tenant.admin.id)).deactivatedAt).toBeNull();
    expect((await tenant.api.get("/me")).status).toBe(200);

    const self = await secondAdmin.api.post(`/users/${secondAdmin.id}/deactivate`);
    expect(self.status).toBe(409);
    expect(self.body).toEqual({ message: "You cannot deactivate your own account.", code: "conflict" });
    expect((await secondAdmin.api.get("/me")).status).toBe(200);

    for (const id of [2_000_000_000, other.admin.id]) {
      const res = await tenant.api.post(`/users/${id}/deactivate`);
      expect(res.status, String(id)).toBe(404);
      expect(res.body).toEqual({ message: "User not found.", code: "not_found" });
    }
    expect((await userRow(other.admin.id)).deactivatedAt).toBeNull();
    expect((await tenant.api.post("/users/abc/deactivate")).status).toBe(422);
  });

  it("needs an admin in every workspace of the target: an admin of branch B cannot lock out branch A's admin (403)", async () => {
    const tenant = await seedTenant();
    const branchB = await seedWorkspace(tenant, "Sucursal B");
    const adminB = await seedUser(tenant, { role: "admin", workspaceIds: [branchB] });
    const adminA = await seedUser(tenant, { role: "admin", workspaceIds: [tenant.workspaceId] });
    const inBoth = await seedUser(tenant, { role: "member", workspaceIds: [branchB, tenant.workspaceId] });
    const onlyB = await seedUser(tenant, { role: "member", workspaceIds: [branchB] });

    for (const target of [adminA, inBoth]) {
      const res = await adminB.api.post(`/users/${target.id}/deactivate`);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        message: `You cannot deactivate this user: they are a member of workspace ${tenant.workspaceId}, where you are not an administrator.`,
        code: "forbidden",
      });
      expect((await userRow(target.id)).deactivatedAt).toBeNull();
      expect((await target.api.get("/me")).status).toBe(200);
    }
    // Naming branch A as the request's workspace does not help: adminB sees it (view_all_locations)
    // but holds no role there.
    const viaHeader = await adminB.api.post(`/users/${adminA.id}/deactivate`, undefined, { headers: { "x-workspace-id": String(tenant.workspaceId) } });
    expect(viaHeader.status).toBe(403);
    expect(viaHeader.body.code).toBe("forbidden");
    expect((await userRow(adminA.id)).deactivatedAt).toBeNull();

    // Within branch B only, adminB may.
    expect((await adminB.api.post(`/users/${onlyB.id}/deactivate`)).status).toBe(200);
    expect((await onlyB.api.get("/me")).status).toBe(401);

    // Reactivation follows the same rule.
    expect((await tenant.api.post(`/users/${inBoth.id}/deactivate`)).status).toBe(200);
    const reactivate = await adminB.api.post(`/users/${inBoth.id}/reactivate`);
    expect(reactivate.status).toBe(403);
    expect(reactivate.body.code).toBe("forbidden");
    expect((await userRow(inBoth.id)).deactivatedAt).not.toBeNull();
  });

  it("refuses deactivation and reactivation to non-admins, even holding every permission (403 forbidden)", async () => {
    const tenant = await seedTenant();
    const target = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    const member = await seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] });
    const almost = await createRole(tenant, allPermissions);
    const nearlyAdmin = await seedUser(tenant, { role: almost.name, workspaceIds: [tenant.workspaceId] });
    for (const caller of [member, nearlyAdmin]) {
      for (const action of ["deactivate", "reactivate"]) {
        const res = await caller.api.post(`/users/${target.id}/${action}`);
        expect(res.status, action).toBe(403);
        expect(res.body.code, action).toBe("forbidden");
      }
    }
    expect((await userRow(target.id)).deactivatedAt).toBeNull();
    expect((await target.api.get("/me")).status).toBe(200);
  });
});

describe("the caller's password", () => {
  it("refuses a short new password and a wrong current one with 422 on the field, changing nothing", async () => {
    const tenant = await seedTenant();
    const user = await seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] });
    const hashBefore = (await userRow(user.id)).passwordHash;

    const short = await user.api.post("/me/password", { current_password: DEFAULT_PASSWORD, new_password: "elevenchars" });
    expect(short.status).toBe(422);
    expect(short.body).toEqual({
      message: "The given data was invalid.",
      code: "validation_failed",
      errors: { new_password: ["The new password must have at least 12 characters."] },
    });

    const wrong = await user.api.post("/me/password", { current_password: "not my password", new_password: "a brand new passphrase" });
    expect(wrong.status).toBe(422);
    expect(wrong.body).toEqual({
      message: "The current password is incorrect.",
      code: "validation_failed",
      errors: { current_password: ["The current password is incorrect."] },
    });

    expect((await user.api.post("/me/password", { new_password: "a brand new passphrase" })).body.errors).toHaveProperty("current_password");
    expect(
      (await user.api.post("/me/password", { current_password: DEFAULT_PASSWORD, new_password: "a brand new passphrase", user_id: tenant.admin.id })).status,
    ).toBe(422);
    expect(
      (
        await call(tenant.subdomain, "/api/v1/me/password", {
          method: "POST",
          body: { current_password: DEFAULT_PASSWORD, new_password: "a brand new passphrase" },
        })
      ).body,
    ).toEqual(UNAUTHENTICATED);

    expect((await userRow(user.id)).passwordHash).toBe(hashBefore);
    expect((await login(tenant, user.email, DEFAULT_PASSWORD)).status).toBe(201);
  });

  it("changes the password: the old one stops working, the new one works, other tokens are revoked and the calling one is not", async () => {
    const tenant = await seedTenant();
    const user = await seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] });
    const other = await login(tenant, user.email, DEFAULT_PASSWORD);
    expect(other.status).toBe(201);
    const bystander = await seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] });
    const newPassword = "otra contraseña bastante larga";

    const res = await user.api.post("/me/password", { current_password: DEFAULT_PASSWORD, new_password: newPassword });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ message: "Password changed; 1 other access token was revoked." });

    expect((await user.api.get("/me")).status).toBe(200);
    const revoked = await client(tenant.subdomain, other.body.data.token).get("/me");
    expect(revoked.status).toBe(401);
    expect(revoked.body).toEqual(UNAUTHENTICATED);
    // Only the caller's tokens: another user's stay valid.
    expect((await bystander.api.get("/me")).status).toBe(200);

    const old = await login(tenant, user.email, DEFAULT_PASSWORD);
    expect(old.status).toBe(401);
    expect(old.body).toEqual(WRONG_CREDENTIALS);
    const fresh = await login(tenant, user.email, newPassword);
    expect(fresh.status).toBe(201);
    expect((await client(tenant.subdomain, fresh.body.data.token).get("/me")).status).toBe(200);
    expect((await userRow(user.id)).passwordHash).toMatch(/^pbkdf2_sha256\$100000\$/);
  });
});
