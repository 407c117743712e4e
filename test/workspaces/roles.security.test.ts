import { describe, expect, it } from "vitest";
import { client } from "../support/api";
import { seedTenant, seedUser, seedWorkspace } from "../support/seed";
import { addMembership, createRole } from "./helpers";

/** The stored permissions of a role, as the admin lists them. */
async function permissionsOf(tenant: Awaited<ReturnType<typeof seedTenant>>, id: number): Promise<string[]> {
  const list = await tenant.api.get("/roles?per_page=100");
  return list.body.data.find((r: { id: number }) => r.id === id).permissions;
}

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
    expect((await tenant.api.get("/roles")).body.meta.total).toBe(5); // the four built-in roles and the custom one
  });

  it("evaluates permissions in the request's workspace: admin in one branch, viewer in another", async () => {
    const tenant = await seedTenant();
    const branch = await seedWorkspace(tenant, "Santiago");
    const user = await seedUser(tenant, { role: "viewer", workspaceIds: [branch] });
    // Make them admin of Principal as well.
    const invited = await tenant.api.post("/workspace/invitations", { email: user.email, role: "admin" });
    expect((await user.api.post(`/invitations/${invited.body.data.token}/accept`)).status).toBe(200);

    const asViewer = await user.api.post(
      "/roles",
      { name: "en_santiago", display_name: "S", permissions: [] },
      { headers: { "X-Workspace-ID": String(branch) } },
    );
    expect(asViewer.status).toBe(403);
    expect(asViewer.body.code).toBe("forbidden");
    const asAdmin = await user.api.post(
      "/roles",
      { name: "en_principal", display_name: "P", permissions: [] },
      { headers: { "X-Workspace-ID": String(tenant.workspaceId) } },
    );
    expect(asAdmin.status).toBe(201);
    // Their stored context (Santiago, as viewer) applies without the header.
    expect((await user.api.post("/roles", { name: "sin_header", display_name: "N", permissions: [] })).status).toBe(403);
  });

  it("refuses to create or extend a role beyond the caller's own permissions", async () => {
    const tenant = await seedTenant();
    const manager = await tenant.api.post("/roles", {
      name: "role_manager",
      display_name: "RM",
      permissions: ["roles:view", "roles:create", "roles:edit", "invoices:view"],
    });
    const user = await seedUser(tenant, { role: "role_manager", workspaceIds: [tenant.workspaceId] });
    const beyond = await user.api.post("/roles", { name: "super", display_name: "S", permissions: ["invoices:view", "view_all_locations"] });
    expect(beyond.status).toBe(403);
    expect(beyond.body.code).toBe("forbidden");
    expect(beyond.body.message).toContain("view_all_locations");
    const self = await user.api.patch(`/roles/${manager.body.data.id}`, {
      permissions: ["roles:view", "roles:create", "roles:edit", "invoices:view", "invoices:delete"],
    });
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
    expect(bRoles.body.data.map((r: { name: string }) => r.name)).toEqual(["admin", "member", "viewer", "accountant"]);
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
  it("refuses to raise a role held in another branch where the editor lacks the permissions (403), and leaves it unchanged", async () => {
    const tenant = await seedTenant();
    const branchA = tenant.workspaceId;
    const branchB = await seedWorkspace(tenant, "Santiago");
    const branchC = await seedWorkspace(tenant, "La Romana");
    const editor = await createRole(tenant, ["roles:view", "roles:edit", "products:view", "products:create"]);
    const weak = await createRole(tenant, ["products:view"]);
    // roles:edit (and products:create) in A; only the weak role in B.
    const user = await seedUser(tenant, { role: editor.name, workspaceIds: [branchA] });
    await addMembership(tenant, user.id, branchB, weak.name);
    const inA = { headers: { "X-Workspace-ID": String(branchA) } };

    const raise = await user.api.patch(`/roles/${weak.id}`, { permissions: ["products:view", "products:create"] }, inA);
    expect(raise.status).toBe(403);
    expect(raise.body.code).toBe("forbidden");
    expect(raise.body.message).toContain("products:create");
    expect(raise.body.message).toContain(`workspace ${branchB}`);
    expect(await permissionsOf(tenant, weak.id)).toEqual(["products:view"]);

    // A role held only where the editor is not a member at all: they hold nothing there.
    const elsewhere = await createRole(tenant, ["products:view"]);
    await seedUser(tenant, { role: elsewhere.name, workspaceIds: [branchC] });
    const rename = await user.api.patch(`/roles/${elsewhere.id}`, { display_name: "Renombrado" }, inA);
    expect(rename.status).toBe(403);
    expect(rename.body.message).toContain(`workspace ${branchC}`);
    const after = (await tenant.api.get("/roles?per_page=100")).body.data.find((r: { id: number }) => r.id === elsewhere.id);
    expect(after.display_name).toBe(elsewhere.name);

    // Held only in A, within what the editor holds there: allowed.
    const local = await createRole(tenant, ["products:view"]);
    await seedUser(tenant, { role: local.name, workspaceIds: [branchA] });
    const ok = await user.api.patch(`/roles/${local.id}`, { permissions: ["products:view", "products:create"] }, inA);
    expect(ok.status).toBe(200);
    expect(ok.body.data.permissions).toEqual(["products:create", "products:view"]);
    // The admin, admin in every branch, may raise the role held in B.
    const byAdmin = await tenant.api.patch(`/roles/${weak.id}`, { permissions: ["products:view", "products:create"] });
    expect(byAdmin.status).toBe(200);
    expect(await permissionsOf(tenant, weak.id)).toEqual(["products:create", "products:view"]);
  });

  it("refuses to edit a role whose current permissions exceed the editor's (old set counts too)", async () => {
    const tenant = await seedTenant();
    const editor = await createRole(tenant, ["roles:view", "roles:edit", "products:view"]);
    const strong = await createRole(tenant, ["products:view", "invoices:delete"]);
    await seedUser(tenant, { role: strong.name, workspaceIds: [tenant.workspaceId] });
    const user = await seedUser(tenant, { role: editor.name, workspaceIds: [tenant.workspaceId] });
    // Lowering it to what the editor holds still needs the old set: refused.
    const lower = await user.api.patch(`/roles/${strong.id}`, { permissions: ["products:view"] });
    expect(lower.status).toBe(403);
    expect(lower.body.message).toContain("invoices:delete");
    expect(await permissionsOf(tenant, strong.id)).toEqual(["invoices:delete", "products:view"]);
  });

  it("refuses to delete a role the caller could not grant: where it is held or offered (before 409), else in the request's workspace", async () => {
    const tenant = await seedTenant();
    const branchB = await seedWorkspace(tenant, "Santiago");
    const deleter = await createRole(tenant, ["roles:view", "roles:delete", "products:view"]);
    const user = await seedUser(tenant, { role: deleter.name, workspaceIds: [tenant.workspaceId] });

    // Offered by a pending invitation in B, where the user holds nothing.
    const offered = await createRole(tenant, ["products:view"]);
    const invited = await tenant.api.post(
      "/workspace/invitations",
      { email: "b@example.com", role: offered.name },
      { headers: { "X-Workspace-ID": String(branchB) } },
    );
    expect(invited.status).toBe(201);
    const held = await user.api.delete(`/roles/${offered.id}`);
    expect(held.status).toBe(403);
    expect(held.body.code).toBe("forbidden");
    expect(held.body.message).toContain(`workspace ${branchB}`);
    // The admin gets the usual 409: it is still offered.
    expect((await tenant.api.delete(`/roles/${offered.id}`)).body.code).toBe("role_in_use");

    // Held nowhere: checked in the request's workspace.
    const strong = await createRole(tenant, ["products:view", "invoices:delete"]);
    const beyond = await user.api.delete(`/roles/${strong.id}`);
    expect(beyond.status).toBe(403);
    expect(beyond.body.message).toContain("invoices:delete");
    const within = await createRole(tenant, ["products:view"]);
    expect((await user.api.delete(`/roles/${within.id}`)).status).toBe(200);
    const names = (await tenant.api.get("/roles?per_page=100")).body.data.map((r: { name: string }) => r.name);
    expect(names).toContain(strong.name);
    expect(names).toContain(offered.name);
    expect(names).not.toContain(within.name);
  });
});
