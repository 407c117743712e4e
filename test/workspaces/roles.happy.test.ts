import { describe, expect, it } from "vitest";
import { allPermissions, permissionCatalog } from "../../src/lib/permissions";
import { seedTenant, seedUser, seedWorkspace } from "../support/seed";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

describe("roles and permissions: happy paths", () => {
  it("lists the built-in roles with their permissions and member counts", async () => {
    const tenant = await seedTenant();
    // A viewer in two workspaces counts once.
    const second = await seedWorkspace(tenant, "Santiago");
    await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId, second] });
    const res = await tenant.api.get("/roles");
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: { name: string }) => r.name)).toEqual(["admin", "member", "viewer", "accountant"]);
    const [admin, member, viewer, accountant] = res.body.data;
    expect(admin).toEqual({
      id: expect.any(Number),
      name: "admin",
      display_name: "Administrador",
      permissions: [...allPermissions].sort(),
      is_builtin: true,
      members_count: 1,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    expect(member.permissions).toContain("invoices:create");
    expect(member.permissions).not.toContain("roles:create");
    expect(viewer.permissions.every((p: string) => p.endsWith(":view"))).toBe(true);
    expect(viewer.permissions).not.toContain("reports:view");
    expect(viewer.members_count).toBe(1);
    expect(accountant).toMatchObject({ display_name: "Contador", is_builtin: true, members_count: 0 });
    expect(accountant.permissions).toEqual(expect.arrayContaining(["reports:view", "view_all_locations", "purchases:view"]));
  });

  it("creates, updates and deletes a custom role", async () => {
    const tenant = await seedTenant();
    const created = await tenant.api.post("/roles", {
      name: "Cajero_1",
      display_name: "Cajero",
      permissions: ["invoices:view", "invoices:create", "invoices:view"],
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.any(Number),
      name: "Cajero_1",
      display_name: "Cajero",
      permissions: ["invoices:create", "invoices:view"],
      is_builtin: false,
      members_count: 0,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    const id = created.body.data.id;

    const updated = await tenant.api.patch(`/roles/${id}`, { display_name: "Caja", permissions: ["payments:create", "invoices:view"] });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ id, name: "Cajero_1", display_name: "Caja", permissions: ["invoices:view", "payments:create"] });
    const renamedOnly = await tenant.api.patch(`/roles/${id}`, { display_name: "Caja principal" });
    expect(renamedOnly.body.data).toMatchObject({ display_name: "Caja principal", permissions: ["invoices:view", "payments:create"] });

    const listed = await tenant.api.get("/roles");
    expect(listed.body.data.map((r: { name: string }) => r.name)).toEqual(["admin", "member", "viewer", "accountant", "Cajero_1"]);

    const deleted = await tenant.api.delete(`/roles/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.message).toContain("Cajero_1");
    expect((await tenant.api.get("/roles")).body.meta.total).toBe(4); // the built-in roles
  });

  it("applies a role's new permissions to its members at once", async () => {
    const tenant = await seedTenant();
    const role = await tenant.api.post("/roles", { name: "bodega", display_name: "Bodega", permissions: ["inventory:view"] });
    const user = await seedUser(tenant, { role: "bodega", workspaceIds: [tenant.workspaceId] });
    expect((await user.api.get("/me")).body.data.permissions).toEqual(["inventory:view"]);
    expect((await user.api.get("/workspace/members")).status).toBe(403);
    await tenant.api.patch(`/roles/${role.body.data.id}`, { permissions: ["inventory:view", "members:view"] });
    expect((await user.api.get("/me")).body.data.permissions).toEqual(["inventory:view", "members:view"]);
    expect((await user.api.get("/workspace/members")).status).toBe(200);
  });

  it("deletes a role whose invitations are all history", async () => {
    const tenant = await seedTenant();
    const role = await tenant.api.post("/roles", { name: "temporal", display_name: "Temporal", permissions: [] });
    const invited = await tenant.api.post("/workspace/invitations", { email: "t@example.com", role: "temporal" });
    await tenant.api.delete(`/workspace/invitations/${invited.body.data.id}`);
    expect((await tenant.api.delete(`/roles/${role.body.data.id}`)).status).toBe(200);
    expect((await tenant.api.get("/workspace/invitations")).body.data).toEqual([]);
  });

  it("serves the permission catalog with a description for each identifier", async () => {
    const tenant = await seedTenant();
    const viewer = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    const res = await viewer.api.get("/permissions");
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(Object.keys(permissionCatalog).length);
    expect(res.body.data).toContainEqual({ name: "view_all_locations", description: "See every workspace of the tenant" });
    expect(res.body.data).toContainEqual({ name: "inventory:transfer", description: "Transfer stock between workspaces" });
    for (const p of res.body.data) expect(p.description.length).toBeGreaterThan(0);
  });
});
