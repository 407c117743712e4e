import { describe, expect, it } from "vitest";
import { seedTenant, seedUser, seedWorkspace } from "../support/seed";
import { ids, userRow } from "./helpers";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

describe("workspaces: happy paths", () => {
  it("lists only the caller's workspaces, and every workspace with view_all_locations", async () => {
    const tenant = await seedTenant();
    const second = await seedWorkspace(tenant, "Santiago");
    const member = await seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] });
    // An admin of Principal only: not a member of Santiago, but admin holds view_all_locations.
    const otherAdmin = await seedUser(tenant, { role: "admin", workspaceIds: [tenant.workspaceId] });

    const asMember = await member.api.get("/workspaces");
    expect(asMember.status).toBe(200);
    expect(asMember.body.data).toEqual([
      {
        id: tenant.workspaceId,
        name: "Principal",
        owner_id: tenant.admin.id,
        owner: { id: tenant.admin.id, name: "Administrador", email: tenant.admin.email },
        is_owner: false,
        role: "member",
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      },
    ]);
    expect(asMember.body.meta).toEqual({ current_page: 1, last_page: 1, per_page: 15, total: 1 });

    const asOwner = await tenant.api.get("/workspaces");
    expect(ids(asOwner.body)).toEqual([tenant.workspaceId, second]);
    expect(asOwner.body.data.map((w: { is_owner: boolean }) => w.is_owner)).toEqual([true, true]);

    const allLocations = await otherAdmin.api.get("/workspaces");
    expect(ids(allLocations.body)).toEqual([tenant.workspaceId, second]);
    expect(allLocations.body.data[1]).toMatchObject({ id: second, name: "Santiago", is_owner: false, role: null });

    const filtered = await tenant.api.get("/workspaces?filter[name]=sant");
    expect(ids(filtered.body)).toEqual([second]);
  });

  it("creates a workspace: the creator owns it, is an admin member and is switched to it", async () => {
    const tenant = await seedTenant();
    const created = await tenant.api.post("/workspaces", { name: "  Sucursal Norte " });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      data: { id: expect.any(Number), name: "Sucursal Norte", owner_id: tenant.admin.id, created_at: expect.stringMatching(ISO) },
      message: expect.any(String),
    });
    const id = created.body.data.id;

    const me = await tenant.api.get("/me");
    expect(me.body.data.current_workspace_id).toBe(id);
    expect(me.body.data.current_workspace).toEqual({ id, name: "Sucursal Norte" });
    expect(me.body.data.workspaces).toEqual([
      { id: tenant.workspaceId, name: "Principal", role: "admin" },
      { id, name: "Sucursal Norte", role: "admin" },
    ]);

    const shown = await tenant.api.get(`/workspaces/${id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.data).toMatchObject({ id, name: "Sucursal Norte", owner_id: tenant.admin.id, is_owner: true, role: "admin" });
    expect(shown.body.data.members).toEqual([
      { id: tenant.admin.id, name: "Administrador", email: tenant.admin.email, role: "admin", added_at: expect.stringMatching(ISO) },
    ]);
  });

  it("shows a workspace with its members and their roles", async () => {
    const tenant = await seedTenant();
    const viewer = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId], email: `zz-viewer@${tenant.subdomain}.do` });
    const res = await viewer.api.get(`/workspaces/${tenant.workspaceId}`);
    expect(res.status).toBe(200);
    expect(res.body.data.is_owner).toBe(false);
    expect(res.body.data.members.map((m: { id: number; role: string }) => [m.id, m.role])).toEqual([
      [tenant.admin.id, "admin"],
      [viewer.id, "viewer"],
    ]);
  });

  it("lets the owner rename the workspace", async () => {
    const tenant = await seedTenant();
    const before = await userRow(tenant.admin.id);
    const res = await tenant.api.patch(`/workspaces/${tenant.workspaceId}`, { name: "Casa Matriz" });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: tenant.workspaceId, name: "Casa Matriz", updated_at: expect.stringMatching(ISO) });
    // Changing only the case of its own name is not a duplicate.
    const recased = await tenant.api.patch(`/workspaces/${tenant.workspaceId}`, { name: "CASA MATRIZ" });
    expect(recased.status).toBe(200);
    expect((await tenant.api.get(`/workspaces/${tenant.workspaceId}`)).body.data.name).toBe("CASA MATRIZ");
    expect(before.currentWorkspaceId).toBe(tenant.workspaceId);
  });

  it("switches the workspace context, and later lists are scoped to the new workspace", async () => {
    const tenant = await seedTenant();
    const second = await seedWorkspace(tenant, "Santiago");
    const cashier = await seedUser(tenant, { role: "member", workspaceIds: [second] });

    const before = await tenant.api.get("/workspace/members");
    expect(ids(before.body)).toEqual([tenant.admin.id]);

    const switched = await tenant.api.patch(`/workspace-context/${second}`);
    expect(switched.status).toBe(200);
    expect(switched.body.data).toEqual({ current_workspace_id: second, workspace: { id: second, name: "Santiago" } });
    expect(switched.body.message).toEqual(expect.any(String));
    expect((await userRow(tenant.admin.id)).currentWorkspaceId).toBe(second);

    const after = await tenant.api.get("/workspace/members");
    expect(after.body.data.map((m: { id: number }) => m.id).sort()).toEqual([tenant.admin.id, cashier.id].sort());

    // X-Workspace-ID overrides the stored context for one request.
    const overridden = await tenant.api.get("/workspace/members", { headers: { "X-Workspace-ID": String(tenant.workspaceId) } });
    expect(ids(overridden.body)).toEqual([tenant.admin.id]);
    expect((await tenant.api.get("/me")).body.data.current_workspace_id).toBe(second);
  });

  it("clears the context only when it is the current one; the user falls back to their first workspace", async () => {
    const tenant = await seedTenant();
    const second = await seedWorkspace(tenant, "Santiago");
    await tenant.api.patch(`/workspace-context/${second}`);

    const notCurrent = await tenant.api.delete(`/workspace-context/${tenant.workspaceId}`);
    expect(notCurrent.status).toBe(200);
    expect(notCurrent.body.message).toMatch(/nothing changed/);
    expect((await userRow(tenant.admin.id)).currentWorkspaceId).toBe(second);

    const cleared = await tenant.api.delete(`/workspace-context/${second}`);
    expect(cleared.status).toBe(200);
    expect(cleared.body.message).toMatch(/cleared/);
    expect((await userRow(tenant.admin.id)).currentWorkspaceId).toBeNull();
    const me = await tenant.api.get("/me");
    expect(me.body.data.current_workspace_id).toBeNull();
    expect(me.body.data.current_workspace).toEqual({ id: tenant.workspaceId, name: "Principal" });
  });
});
