import { describe, expect, it } from "vitest";
import { client } from "../support/api";
import { seedTenant, seedUser, seedWorkspace } from "../support/seed";

describe("roles: security", () => {
  it("refuses a viewer's writes with 403 naming the permission", async () => {
    const tenant = await seedTenant();
    const viewer = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    const custom = await tenant.api.post("/roles", { name: "custom", display_name: "C", permissions: [] });
    expect((await viewer.api.get("/roles")).status).toBe(200);
    const create = await viewer.api.post("/roles", { name: "mine", display_name: "M", permissions: [] });
    expect(create.status).toBe(403);
    expect(create.body).toMatchObject({ code: "forbidden", message: expect.stringContaining("roles:create") });
    const patch = await viewer.api.patch(`/roles/${custom.body.data.id}`, { permissions: ["invoices:view"] });
    expect(patch.status).toBe(403);
    expect(patch.body.message).toContain("roles:edit");
    const del = await viewer.api.delete(`/roles/${custom.body.data.id}`);
    expect(del.status).toBe(403);
    expect(del.body.message).toContain("roles:delete");
    expect((await tenant.api.get("/roles")).body.meta.total).toBe(4);
  });

  it("evaluates permissions in the request's workspace: admin in one branch, viewer in another", async () => {
    const tenant = await seedTenant();
    const branch = await seedWorkspace(tenant, "Santiago");
    const user = await seedUser(tenant, { role: "viewer", workspaceIds: [branch] });
    // Make them admin of Principal as well.
    const invited = await tenant.api.post("/workspace/invitations", { email: user.email, role: "admin" });
    expect((await user.api.post(`/invitations/${invited.body.data.token}/accept`)).status).toBe(200);

    const asViewer = await user.api.post("/roles", { name: "en_santiago", display_name: "S", permissions: [] }, { headers: { "X-Workspace-ID": String(branch) } });
    expect(asViewer.status).toBe(403);
    expect(asViewer.body.code).toBe("forbidden");
    const asAdmin = await user.api.post("/roles", { name: "en_principal", display_name: "P", permissions: [] }, { headers: { "X-Workspace-ID": String(tenant.workspaceId) } });
    expect(asAdmin.status).toBe(201);
    // Their stored context (Santiago, as viewer) applies without the header.
    expect((await user.api.post("/roles", { name: "sin_header", display_name: "N", permissions: [] })).status).toBe(403);
  });

  it("refuses to create or extend a role beyond the caller's own permissions", async () => {
    const tenant = await seedTenant();
    const manager = await tenant.api.post("/roles", { name: "role_manager", display_name: "RM", permissions: ["roles:view", "roles:create", "roles:edit", "invoices:view"] });
    const user = await seedUser(tenant, { role: "role_manager", workspaceIds: [tenant.workspaceId] });
    const beyond = await user.api.post("/roles", { name: "super", display_name: "S", permissions: ["invoices:view", "view_all_locations"] });
    expect(beyond.status).toBe(403);
    expect(beyond.body.code).toBe("forbidden");
    expect(beyond.body.message).toContain("view_all_locations");
    const self = await user.api.patch(`/roles/${manager.body.data.id}`, { permissions: ["roles:view", "roles:create", "roles:edit", "invoices:view", "invoices:delete"] });
    expect(self.status).toBe(403);
    const within = await user.api.post("/roles", { name: "lector", display_name: "L", permissions: ["invoices:view"] });
    expect(within.status).toBe(201);
  });

  it("keeps tenant B away from tenant A's roles (401 on A's host, 404 on B's)", async () => {
    const a = await seedTenant();
    const b = await seedTenant();
    const role = await a.api.post("/roles", { name: "solo_a", display_name: "A", permissions: ["invoices:view"] });
    const id = role.body.data.id;
    const bOnA = client(a.subdomain, b.admin.token);
    expect((await bOnA.get("/roles")).status).toBe(401);
    expect((await bOnA.delete(`/roles/${id}`)).status).toBe(401);
    const bRoles = await b.api.get("/roles");
    expect(bRoles.body.data.map((r: { name: string }) => r.name)).toEqual(["admin", "member", "viewer"]);
    expect((await b.api.patch(`/roles/${id}`, { permissions: [] })).status).toBe(404);
    expect((await b.api.delete(`/roles/${id}`)).status).toBe(404);
    // Names are unique per tenant only.
    expect((await b.api.post("/roles", { name: "solo_a", display_name: "B", permissions: [] })).status).toBe(201);
    const aRole = (await a.api.get("/roles")).body.data.find((r: { id: number }) => r.id === id);
    expect(aRole.permissions).toEqual(["invoices:view"]);
  });

  it("requires a token for the permission catalog (401)", async () => {
    const tenant = await seedTenant();
    const res = await client(tenant.subdomain).get("/permissions");
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("unauthenticated");
  });
});
