import { describe, expect, it } from "vitest";
import { seedTenant, seedUser, seedWorkspace } from "../support/seed";
import { ids } from "./helpers";

describe("members: refusals", () => {
  it("refuses to remove the owner (409 owner_cannot_be_removed)", async () => {
    const tenant = await seedTenant();
    const otherAdmin = await seedUser(tenant, { role: "admin", workspaceIds: [tenant.workspaceId] });
    const res = await otherAdmin.api.delete(`/workspace/members/${tenant.admin.id}`);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("owner_cannot_be_removed");
    const self = await tenant.api.delete(`/workspace/members/${tenant.admin.id}`);
    expect(self.status).toBe(409);
    expect(ids((await tenant.api.get("/workspace/members")).body)).toContain(tenant.admin.id);
  });

  it("refuses to change the owner's role (409 owner_role_immutable)", async () => {
    const tenant = await seedTenant();
    const otherAdmin = await seedUser(tenant, { role: "admin", workspaceIds: [tenant.workspaceId] });
    const res = await otherAdmin.api.patch(`/workspace/members/${tenant.admin.id}`, { role: "viewer" });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("owner_role_immutable");
    expect((await tenant.api.get("/me")).body.data.workspaces[0].role).toBe("admin");
  });

  it("refuses an unknown or missing role with 422 on role", async () => {
    const tenant = await seedTenant();
    const user = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    const unknown = await tenant.api.patch(`/workspace/members/${user.id}`, { role: "superuser" });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual({ role: ['There is no role named "superuser".'] });
    const missing = await tenant.api.patch(`/workspace/members/${user.id}`, {});
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.errors)).toEqual(["role"]);
  });

  it("answers 404 for a user who is not a member of the request's workspace", async () => {
    const tenant = await seedTenant();
    const other = await seedWorkspace(tenant, "Santiago");
    const elsewhere = await seedUser(tenant, { role: "member", workspaceIds: [other] });
    for (const id of [elsewhere.id, 99_999_999]) {
      const patch = await tenant.api.patch(`/workspace/members/${id}`, { role: "viewer" });
      expect(patch.status).toBe(404);
      expect(patch.body.code).toBe("not_found");
      expect((await tenant.api.delete(`/workspace/members/${id}`)).status).toBe(404);
    }
    expect((await elsewhere.api.get("/me")).body.data.workspaces).toEqual([{ id: other, name: "Santiago", role: "member" }]);
  });

  it("refuses a user_id that is not a positive integer", async () => {
    const tenant = await seedTenant();
    const res = await tenant.api.delete("/workspace/members/abc");
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(["user_id"]);
  });
});
