import { describe, expect, it } from "vitest";
import { seedTenant, seedUser } from "../support/seed";

describe("roles: refusals", () => {
  it("refuses to modify or delete a built-in role (403 builtin_role_immutable)", async () => {
    const tenant = await seedTenant();
    const roles = (await tenant.api.get("/roles")).body.data as { id: number; name: string; permissions: string[] }[];
    for (const role of roles) {
      const patch = await tenant.api.patch(`/roles/${role.id}`, { permissions: ["invoices:view"] });
      expect(patch.status, role.name).toBe(403);
      expect(patch.body.code).toBe("builtin_role_immutable");
      const del = await tenant.api.delete(`/roles/${role.id}`);
      expect(del.status, role.name).toBe(403);
      expect(del.body.code).toBe("builtin_role_immutable");
    }
    const after = (await tenant.api.get("/roles")).body.data as { permissions: string[] }[];
    expect(after.map((r) => r.permissions)).toEqual(roles.map((r) => r.permissions));
  });

  it("validates the name: letters, digits and underscores only (422)", async () => {
    const tenant = await seedTenant();
    for (const name of ["con espacio", "guión-medio", "ñandú", ""]) {
      const res = await tenant.api.post("/roles", { name, display_name: "X", permissions: [] });
      expect(res.status, name).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(["name"]);
    }
  });

  it("refuses a duplicate name, also against built-ins and case-insensitively (409 duplicate_role_name on name; issue 44)", async () => {
    const tenant = await seedTenant();
    expect((await tenant.api.post("/roles", { name: "cajero", display_name: "Cajero", permissions: [] })).status).toBe(201);
    for (const name of ["cajero", "CAJERO", "Admin"]) {
      const res = await tenant.api.post("/roles", { name, display_name: "Otro", permissions: [] });
      expect(res.status, name).toBe(409);
      expect(res.body.code).toBe("duplicate_role_name");
      expect(res.body.errors).toEqual({ name: ["A role with this name already exists."] });
    }
  });

  it("refuses unknown permission identifiers, naming permissions.N (422)", async () => {
    const tenant = await seedTenant();
    const res = await tenant.api.post("/roles", { name: "raro", display_name: "Raro", permissions: ["invoices:view", "invoices:fly", "nope"] });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(["permissions.1", "permissions.2"]);
    const created = await tenant.api.post("/roles", { name: "bueno", display_name: "Bueno", permissions: [] });
    const patch = await tenant.api.patch(`/roles/${created.body.data.id}`, { permissions: ["products:teleport"] });
    expect(patch.status).toBe(422);
    expect(Object.keys(patch.body.errors)).toEqual(["permissions.0"]);
  });

  it("requires display_name and permissions; refuses renaming or unknown fields (422)", async () => {
    const tenant = await seedTenant();
    const missing = await tenant.api.post("/roles", { name: "x" });
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.errors).sort()).toEqual(["display_name", "permissions"]);
    const created = await tenant.api.post("/roles", { name: "fijo", display_name: "Fijo", permissions: [] });
    const rename = await tenant.api.patch(`/roles/${created.body.data.id}`, { name: "otro" });
    expect(rename.status).toBe(422);
  });

  it("refuses to delete a role still assigned (409 role_in_use with the count)", async () => {
    const tenant = await seedTenant();
    const role = await tenant.api.post("/roles", { name: "cajero", display_name: "Cajero", permissions: ["invoices:view"] });
    const a = await seedUser(tenant, { role: "cajero", workspaceIds: [tenant.workspaceId] });
    await seedUser(tenant, { role: "cajero", workspaceIds: [tenant.workspaceId] });
    const res = await tenant.api.delete(`/roles/${role.body.data.id}`);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("role_in_use");
    expect(res.body.message).toContain("2 members");

    // After reassigning one the count drops; after both, the delete goes through.
    await tenant.api.patch(`/workspace/members/${a.id}`, { role: "viewer" });
    const still = await tenant.api.delete(`/roles/${role.body.data.id}`);
    expect(still.status).toBe(409);
    expect(still.body.message).toContain("1 member");
  });

  it("refuses to delete a role offered by a pending invitation (409)", async () => {
    const tenant = await seedTenant();
    const role = await tenant.api.post("/roles", { name: "pendiente", display_name: "P", permissions: [] });
    await tenant.api.post("/workspace/invitations", { email: "p@example.com", role: "pendiente" });
    const res = await tenant.api.delete(`/roles/${role.body.data.id}`);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("role_in_use");
    expect(res.body.message).toContain("1 pending invitation");
  });

  it("answers 404 for an unknown role id", async () => {
    const tenant = await seedTenant();
    expect((await tenant.api.patch("/roles/99999999", { display_name: "X" })).status).toBe(404);
    const del = await tenant.api.delete("/roles/99999999");
    expect(del.status).toBe(404);
    expect(del.body.code).toBe("not_found");
  });
});
