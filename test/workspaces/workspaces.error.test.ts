import { describe, expect, it } from "vitest";
import { seedTenant, seedUser, seedWorkspace } from "../support/seed";

describe("workspaces: refusals", () => {
  it("refuses a duplicate name, case-insensitively, with 409 duplicate_workspace_name on name (create and rename; issue 44)", async () => {
    const tenant = await seedTenant();
    const dup = await tenant.api.post("/workspaces", { name: "PRINCIPAL" });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("duplicate_workspace_name");
    expect(dup.body.errors.name).toEqual(["A workspace with this name already exists."]);

    const second = await seedWorkspace(tenant, "Santiago");
    const rename = await tenant.api.patch(`/workspaces/${second}`, { name: "principal" });
    expect(rename.status).toBe(409);
    expect(rename.body.code).toBe("duplicate_workspace_name");
    expect(Object.keys(rename.body.errors)).toEqual(["name"]);
    expect((await tenant.api.get(`/workspaces/${second}`)).body.data.name).toBe("Santiago");
  });

  it("validates the body: name required, not blank, no unknown fields", async () => {
    const tenant = await seedTenant();
    const missing = await tenant.api.post("/workspaces", {});
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.errors)).toEqual(["name"]);
    const blank = await tenant.api.post("/workspaces", { name: "   " });
    expect(blank.status).toBe(422);
    expect(Object.keys(blank.body.errors)).toEqual(["name"]);
    const long = await tenant.api.post("/workspaces", { name: "x".repeat(101) });
    expect(long.status).toBe(422);
    const extra = await tenant.api.post("/workspaces", { name: "Norte", owner_id: 1 });
    expect(extra.status).toBe(422);
    expect(extra.body.code).toBe("validation_failed");
    const list = await tenant.api.get("/workspaces");
    expect(list.body.meta.total).toBe(1);
  });

  it("lets only the owner update a workspace (403 forbidden for another admin)", async () => {
    const tenant = await seedTenant();
    const otherAdmin = await seedUser(tenant, { role: "admin", workspaceIds: [tenant.workspaceId] });
    const res = await otherAdmin.api.patch(`/workspaces/${tenant.workspaceId}`, { name: "Mía" });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("forbidden");
    expect(res.body.message).toMatch(/owner/);
    expect((await tenant.api.get(`/workspaces/${tenant.workspaceId}`)).body.data.name).toBe("Principal");
  });

  it("answers 404 for a workspace the caller cannot see or that does not exist", async () => {
    const tenant = await seedTenant();
    const hidden = await seedWorkspace(tenant, "Oculta");
    const member = await seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] });
    for (const id of [hidden, 99_999_999]) {
      const show = await member.api.get(`/workspaces/${id}`);
      expect(show.status).toBe(404);
      expect(show.body.code).toBe("not_found");
      expect((await member.api.patch(`/workspaces/${id}`, { name: "x" })).status).toBe(404);
      expect((await member.api.patch(`/workspace-context/${id}`)).status).toBe(404);
      expect((await member.api.delete(`/workspace-context/${id}`)).status).toBe(404);
    }
    const me = await member.api.get("/me");
    expect(me.body.data.current_workspace_id).toBe(tenant.workspaceId);
  });

  it("refuses ids that are not positive integers with 422", async () => {
    const tenant = await seedTenant();
    for (const path of ["/workspaces/abc", "/workspaces/0", "/workspace-context/-1"]) {
      const res = path.startsWith("/workspace-context") ? await tenant.api.patch(path) : await tenant.api.get(path);
      expect(res.status, path).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(["id"]);
    }
  });

  it("refuses unknown list parameters and per_page over 100", async () => {
    const tenant = await seedTenant();
    expect((await tenant.api.get("/workspaces?per_page=101")).status).toBe(422);
    const typo = await tenant.api.get("/workspaces?filter[nmae]=x");
    expect(typo.status).toBe(422);
  });
});
