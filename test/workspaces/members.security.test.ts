import { describe, expect, it } from "vitest";
import { client } from "../support/api";
import { seedTenant, seedUser, seedWorkspace } from "../support/seed";
import { addMembership, createRole, ids } from "./helpers";

describe("members: security", () => {
  it("refuses a viewer's writes with 403 naming the permission", async () => {
    const tenant = await seedTenant();
    const viewer = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    const other = await seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] });
    expect((await viewer.api.get("/workspace/members")).status).toBe(200);
    const patch = await viewer.api.patch(`/workspace/members/${other.id}`, { role: "admin" });
    expect(patch.status).toBe(403);
    expect(patch.body).toMatchObject({ code: "forbidden", message: expect.stringContaining("members:edit") });
    const self = await viewer.api.patch(`/workspace/members/${viewer.id}`, { role: "admin" });
    expect(self.status).toBe(403);
    const remove = await viewer.api.delete(`/workspace/members/${other.id}`);
    expect(remove.status).toBe(403);
    expect(remove.body.message).toContain("members:delete");
    expect(ids((await tenant.api.get("/workspace/members")).body).length).toBe(3);
  });

  it("refuses to assign a role carrying permissions the caller does not hold", async () => {
    const tenant = await seedTenant();
    await tenant.api.post("/roles", { name: "staff_manager", display_name: "Staff", permissions: ["members:view", "members:edit"] });
    const manager = await seedUser(tenant, { role: "staff_manager", workspaceIds: [tenant.workspaceId] });
    // The target's current role must be within what the manager holds (else acting on them is refused too).
    await tenant.api.post("/roles", { name: "greeter", display_name: "Greeter", permissions: ["members:view"] });
    const target = await seedUser(tenant, { role: "greeter", workspaceIds: [tenant.workspaceId] });
    const promote = await manager.api.patch(`/workspace/members/${manager.id}`, { role: "admin" });
    expect(promote.status).toBe(403);
    expect(promote.body.code).toBe("forbidden");
    expect(promote.body.message).toContain("view_all_locations");
    expect((await manager.api.patch(`/workspace/members/${target.id}`, { role: "member" })).status).toBe(403);
    // A role within what they hold is fine.
    expect((await manager.api.patch(`/workspace/members/${target.id}`, { role: "staff_manager" })).status).toBe(200);
    expect((await manager.api.get("/me")).body.data.workspaces[0].role).toBe("staff_manager");
  });

  it("keeps tenant B away from tenant A's members (401 on A's host, 404 on B's)", async () => {
    const a = await seedTenant();
    const b = await seedTenant();
    const aUser = await seedUser(a, { role: "member", workspaceIds: [a.workspaceId] });
    const bOnA = client(a.subdomain, b.admin.token);
    expect((await bOnA.get("/workspace/members")).status).toBe(401);
    expect((await bOnA.delete(`/workspace/members/${aUser.id}`)).status).toBe(401);
    expect(ids((await b.api.get("/workspace/members")).body)).toEqual([b.admin.id]);
    expect((await b.api.patch(`/workspace/members/${aUser.id}`, { role: "admin" })).status).toBe(404);
    expect((await b.api.delete(`/workspace/members/${aUser.id}`)).status).toBe(404);
    expect((await b.api.delete(`/workspace/members/${a.admin.id}`)).status).toBe(404);
    expect((await aUser.api.get("/me")).body.data.workspaces).toEqual([{ id: a.workspaceId, name: "Principal", role: "member" }]);
  });
  it("refuses to demote or remove a member whose current role grants more than the caller holds (403)", async () => {
    const tenant = await seedTenant();
    const staff = await createRole(tenant, ["members:view", "members:edit", "members:delete"]);
    const manager = await seedUser(tenant, { role: staff.name, workspaceIds: [tenant.workspaceId] });
    const superior = await seedUser(tenant, { role: "admin", workspaceIds: [tenant.workspaceId] });
    const roleOf = async (userId: number) => (await tenant.api.get("/workspace/members")).body.data.find((m: { id: number }) => m.id === userId)?.role;

    // The new role (staff) is within what the manager holds; the admin's current one is not.
    const demote = await manager.api.patch(`/workspace/members/${superior.id}`, { role: staff.name });
    expect(demote.status).toBe(403);
    expect(demote.body.code).toBe("forbidden");
    expect(demote.body.message).toContain("(admin)");
    const remove = await manager.api.delete(`/workspace/members/${superior.id}`);
    expect(remove.status).toBe(403);
    expect(remove.body.code).toBe("forbidden");
    expect(await roleOf(superior.id)).toBe("admin");

    // A peer (same role) and someone below can be changed and removed.
    const peer = await seedUser(tenant, { role: staff.name, workspaceIds: [tenant.workspaceId] });
    const below = await createRole(tenant, ["members:view"]);
    expect((await manager.api.patch(`/workspace/members/${peer.id}`, { role: below.name })).status).toBe(200);
    expect(await roleOf(peer.id)).toBe(below.name);
    expect((await manager.api.delete(`/workspace/members/${peer.id}`)).status).toBe(200);
    expect(await roleOf(peer.id)).toBeUndefined();
  });

  it("checks the member's role against what the caller holds in that workspace, not in another", async () => {
    const tenant = await seedTenant();
    const branch = await seedWorkspace(tenant, "Santiago");
    const staff = await createRole(tenant, ["members:view", "members:edit", "members:delete", "invoices:delete"]);
    const weak = await createRole(tenant, ["members:view", "members:edit", "members:delete"]);
    const strong = await createRole(tenant, ["invoices:delete"]);
    // invoices:delete in Principal, not in Santiago.
    const manager = await seedUser(tenant, { role: staff.name, workspaceIds: [tenant.workspaceId] });
    await addMembership(tenant, manager.id, branch, weak.name);
    const target = await seedUser(tenant, { role: strong.name, workspaceIds: [tenant.workspaceId, branch] });
    const inBranch = { headers: { "X-Workspace-ID": String(branch) } };
    const remove = await manager.api.delete(`/workspace/members/${target.id}`, inBranch);
    expect(remove.status).toBe(403);
    expect(remove.body.message).toContain("invoices:delete");
    expect((await manager.api.patch(`/workspace/members/${target.id}`, { role: strong.name }, inBranch)).status).toBe(403);
    // In Principal they hold it.
    expect((await manager.api.delete(`/workspace/members/${target.id}`)).status).toBe(200);
    const members = (await tenant.api.get("/workspace/members", inBranch)).body.data.map((m: { id: number }) => m.id);
    expect(members).toContain(target.id);
  });
});
