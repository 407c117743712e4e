import { describe, expect, it } from "vitest";
import { client } from "../support/api";
import { seedTenant, seedUser, seedWorkspace } from "../support/seed";
import { ids } from "./helpers";

describe("workspaces: security", () => {
  it("refuses a viewer's writes with 403 naming the permission", async () => {
    const tenant = await seedTenant();
    const viewer = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    const create = await viewer.api.post("/workspaces", { name: "Norte" });
    expect(create.status).toBe(403);
    expect(create.body.code).toBe("forbidden");
    expect(create.body.message).toContain("workspaces:create");
    const update = await viewer.api.patch(`/workspaces/${tenant.workspaceId}`, { name: "Norte" });
    expect(update.status).toBe(403);
    expect(update.body.code).toBe("forbidden");
    expect(ids((await tenant.api.get("/workspaces")).body)).toEqual([tenant.workspaceId]);
  });

  it("requires a token (401)", async () => {
    const tenant = await seedTenant();
    const anonymous = tenant.api.as(undefined);
    for (const res of [
      await anonymous.get("/workspaces"),
      await anonymous.post("/workspaces", { name: "x" }),
      await anonymous.get(`/workspaces/${tenant.workspaceId}`),
      await anonymous.patch(`/workspace-context/${tenant.workspaceId}`),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body.code).toBe("unauthenticated");
    }
  });

  it("keeps tenant B away from tenant A's workspaces (401 on A's host, 404 on B's)", async () => {
    const a = await seedTenant();
    const b = await seedTenant();
    const bOnA = client(a.subdomain, b.admin.token);
    expect((await bOnA.get("/workspaces")).status).toBe(401);
    expect((await bOnA.get(`/workspaces/${a.workspaceId}`)).status).toBe(401);
    expect((await bOnA.patch(`/workspaces/${a.workspaceId}`, { name: "Hacked" })).status).toBe(401);

    expect(ids((await b.api.get("/workspaces")).body)).toEqual([b.workspaceId]);
    expect((await b.api.get(`/workspaces/${a.workspaceId}`)).status).toBe(404);
    expect((await b.api.patch(`/workspaces/${a.workspaceId}`, { name: "Hacked" })).status).toBe(404);
    expect((await b.api.patch(`/workspace-context/${a.workspaceId}`)).status).toBe(404);
    const header = await b.api.get("/workspaces", { headers: { "X-Workspace-ID": String(a.workspaceId) } });
    expect(header.status).toBe(403);
    expect(header.body.code).toBe("workspace_forbidden");
    // A's workspace is unchanged and B's name can repeat A's: names are unique per tenant only.
    expect((await a.api.get(`/workspaces/${a.workspaceId}`)).body.data.name).toBe("Principal");
    expect((await b.api.post("/workspaces", { name: "Sucursal Compartida" })).status).toBe(201);
    expect((await a.api.post("/workspaces", { name: "Sucursal Compartida" })).status).toBe(201);
  });

  it("refuses X-Workspace-ID naming a workspace of the tenant the caller does not belong to", async () => {
    const tenant = await seedTenant();
    const other = await seedWorkspace(tenant, "Santiago");
    const member = await seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] });
    const res = await member.api.get("/workspaces", { headers: { "X-Workspace-ID": String(other) } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("workspace_forbidden");
  });

  it("refuses workspace creation to someone holding workspaces:create but not all of admin's permissions", async () => {
    const tenant = await seedTenant();
    // Creating makes the creator admin there, and admin's view_all_locations reaches every workspace.
    const custom = await tenant.api.post("/roles", { name: "opener", display_name: "Opener", permissions: ["workspaces:view", "workspaces:create"] });
    expect(custom.status).toBe(201);
    const opener = await seedUser(tenant, { role: "opener", workspaceIds: [tenant.workspaceId] });
    const created = await opener.api.post("/workspaces", { name: "Propia" });
    expect(created.status).toBe(403);
    expect(created.body.code).toBe("forbidden");
    expect(created.body.message).toContain("view_all_locations");
    const me = await opener.api.get("/me");
    expect(me.body.data.workspaces).toEqual([{ id: tenant.workspaceId, name: "Principal", role: "opener" }]);
    expect((await tenant.api.get("/workspaces")).body.meta.total).toBe(1);
  });
});
