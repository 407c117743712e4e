import { describe, expect, it } from "vitest";
import { seedTenant, seedUser, seedWorkspace } from "../support/seed";
import { ids, userRow } from "./helpers";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

describe("members: happy paths", () => {
  it("lists the members of the request's workspace with their roles", async () => {
    const tenant = await seedTenant();
    const other = await seedWorkspace(tenant, "Santiago");
    const viewer = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId], email: `b-viewer@${tenant.subdomain}.do` });
    await seedUser(tenant, { role: "member", workspaceIds: [other] });

    const res = await tenant.api.get("/workspace/members?sort=email");
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { id: tenant.admin.id, name: "Administrador", email: tenant.admin.email, role: "admin", added_at: expect.stringMatching(ISO) },
      { id: viewer.id, name: "b-viewer", email: viewer.email, role: "viewer", added_at: expect.stringMatching(ISO) },
    ]);
    expect(res.body.meta.total).toBe(2);

    const viewers = await tenant.api.get("/workspace/members?filter[role]=viewer");
    expect(ids(viewers.body)).toEqual([viewer.id]);
    const paged = await tenant.api.get("/workspace/members?per_page=1&page=2&sort=email");
    expect(ids(paged.body)).toEqual([viewer.id]);
    expect(paged.body.meta).toEqual({ current_page: 2, last_page: 2, per_page: 1, total: 2 });
  });

  it("changes a member's role in this workspace only; their permissions follow at once", async () => {
    const tenant = await seedTenant();
    const other = await seedWorkspace(tenant, "Santiago");
    const user = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId, other] });
    expect((await user.api.get("/me")).body.data.permissions).not.toContain("products:create");

    const res = await tenant.api.patch(`/workspace/members/${user.id}`, { role: "member" });
    expect(res.status).toBe(200);
    expect(res.body.message).toMatch(/member/);

    const me = await user.api.get("/me");
    expect(me.body.data.workspaces).toEqual([
      { id: tenant.workspaceId, name: "Principal", role: "member" },
      { id: other, name: "Santiago", role: "viewer" },
    ]);
    expect(me.body.data.permissions).toContain("products:create");
    const inOther = await user.api.get("/me", { headers: { "X-Workspace-ID": String(other) } });
    expect(inOther.body.data.permissions).not.toContain("products:create");
  });

  it("assigns a custom role", async () => {
    const tenant = await seedTenant();
    const role = await tenant.api.post("/roles", { name: "cajero", display_name: "Cajero", permissions: ["invoices:view", "invoices:create"] });
    const user = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    const res = await tenant.api.patch(`/workspace/members/${user.id}`, { role: "cajero" });
    expect(res.status).toBe(200);
    expect((await user.api.get("/me")).body.data.permissions).toEqual(["invoices:create", "invoices:view"]);
    const roles = await tenant.api.get("/roles?per_page=100");
    expect(roles.body.data.find((r: { id: number }) => r.id === role.body.data.id).members_count).toBe(1);
  });

  it("removes a member: they lose the workspace at once and their context falls back", async () => {
    const tenant = await seedTenant();
    const other = await seedWorkspace(tenant, "Santiago");
    // Current workspace Santiago; also a member of Principal.
    const user = await seedUser(tenant, { role: "member", workspaceIds: [other, tenant.workspaceId] });
    expect((await user.api.get("/workspace/members")).status).toBe(200);

    const res = await tenant.api.delete(`/workspace/members/${user.id}`, { headers: { "X-Workspace-ID": String(other) } });
    expect(res.status).toBe(200);
    expect(res.body.message).toEqual(expect.any(String));

    const header = await user.api.get("/workspace/members", { headers: { "X-Workspace-ID": String(other) } });
    expect(header.status).toBe(403);
    expect(header.body.code).toBe("workspace_forbidden");
    expect((await user.api.get(`/workspaces/${other}`)).status).toBe(404);
    expect((await userRow(user.id)).currentWorkspaceId).toBeNull();
    const me = await user.api.get("/me");
    expect(me.body.data.current_workspace).toEqual({ id: tenant.workspaceId, name: "Principal" });
    expect(me.body.data.workspaces).toEqual([{ id: tenant.workspaceId, name: "Principal", role: "member" }]);
    // The account and token remain.
    expect(me.status).toBe(200);
  });

  it("lets a member leave (remove themselves) when they hold members:delete", async () => {
    const tenant = await seedTenant();
    const admin2 = await seedUser(tenant, { role: "admin", workspaceIds: [tenant.workspaceId] });
    const res = await admin2.api.delete(`/workspace/members/${admin2.id}`);
    expect(res.status).toBe(200);
    expect(ids((await tenant.api.get("/workspace/members")).body)).toEqual([tenant.admin.id]);
  });
});
