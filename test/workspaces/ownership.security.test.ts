import { describe, expect, it } from "vitest";
import { seedTenant, seedUser, seedWorkspace } from "../support/seed";
import { createRole } from "./helpers";

const path = (id: number) => `/workspaces/${id}/transfer-ownership`;

describe("workspaces: ownership transfer", () => {
  it("hands the workspace to a member, who becomes admin and owner; the former owner stays admin and can then be changed and removed", async () => {
    const tenant = await seedTenant();
    const id = tenant.workspaceId;
    const heir = await seedUser(tenant, { role: "member", workspaceIds: [id] });

    // Before: the owner cannot be removed.
    expect((await tenant.api.delete(`/workspace/members/${tenant.admin.id}`)).body.code).toBe("owner_cannot_be_removed");

    const res = await tenant.api.post(path(id), { user_id: heir.id });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe(`Ownership transferred to ${heir.email.split("@")[0]}.`);
    expect(res.body.data).toMatchObject({
      id,
      name: "Principal",
      owner_id: heir.id,
      owner: { id: heir.id, email: heir.email },
      is_owner: false,
      role: "admin",
    });
    const roles = Object.fromEntries(res.body.data.members.map((m: { id: number; role: string }) => [m.id, m.role]));
    expect(roles).toEqual({ [tenant.admin.id]: "admin", [heir.id]: "admin" });
    // The same as GET answers it.
    const shown = await tenant.api.get(`/workspaces/${id}`);
    expect(shown.body.data).toEqual(res.body.data);
    expect((await heir.api.get(`/workspaces/${id}`)).body.data).toMatchObject({ is_owner: true, role: "admin" });

    // The owner-only rules follow workspaces.owner_id.
    expect((await tenant.api.patch(`/workspaces/${id}`, { name: "Mía" })).status).toBe(403);
    expect((await heir.api.patch(`/workspaces/${id}`, { name: "Nueva" })).status).toBe(200);
    const heirRole = await tenant.api.patch(`/workspace/members/${heir.id}`, { role: "viewer" });
    expect(heirRole.status).toBe(409);
    expect(heirRole.body.code).toBe("owner_role_immutable");
    expect((await tenant.api.post(path(id), { user_id: tenant.admin.id })).status).toBe(403);

    const demoted = await heir.api.patch(`/workspace/members/${tenant.admin.id}`, { role: "member" });
    expect(demoted.status).toBe(200);
    const removed = await heir.api.delete(`/workspace/members/${tenant.admin.id}`);
    expect(removed.status).toBe(200);
    const members = (await heir.api.get("/workspace/members")).body.data.map((m: { id: number; role: string }) => [m.id, m.role]);
    expect(members).toEqual([[heir.id, "admin"]]);
  });

  it("keeps the former owner with previous_owner_role when given (a role name that must exist)", async () => {
    const tenant = await seedTenant();
    const id = tenant.workspaceId;
    const heir = await seedUser(tenant, { role: "viewer", workspaceIds: [id] });
    const unknown = await tenant.api.post(path(id), { user_id: heir.id, previous_owner_role: "emperador" });
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.body.errors)).toEqual(["previous_owner_role"]);
    expect((await tenant.api.get(`/workspaces/${id}`)).body.data.owner_id).toBe(tenant.admin.id);

    const custom = await createRole(tenant, ["products:view", "invoices:view"]);
    const res = await tenant.api.post(path(id), { user_id: heir.id, previous_owner_role: custom.name });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ owner_id: heir.id, is_owner: false, role: custom.name });
    // The former owner now has only that role here.
    const create = await tenant.api.post("/products", { name: "Nada", price: "1.00" });
    expect(create.status).toBe(403);
    expect(create.body.message).toContain("products:create");
  });

  it("refuses anyone but the owner with 403, even an admin of the workspace, and changes nothing", async () => {
    const tenant = await seedTenant();
    const id = tenant.workspaceId;
    const otherAdmin = await seedUser(tenant, { role: "admin", workspaceIds: [id] });
    const res = await otherAdmin.api.post(path(id), { user_id: otherAdmin.id });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("forbidden");
    const viewer = await seedUser(tenant, { role: "viewer", workspaceIds: [id] });
    expect((await viewer.api.post(path(id), { user_id: viewer.id })).status).toBe(403);
    const shown = (await tenant.api.get(`/workspaces/${id}`)).body.data;
    expect(shown.owner_id).toBe(tenant.admin.id);
    expect(shown.members.find((m: { id: number }) => m.id === viewer.id).role).toBe("viewer");
    // A workspace the caller cannot see at all: 404.
    const branch = await seedWorkspace(tenant, "Santiago");
    const outsider = await seedUser(tenant, { role: "member", workspaceIds: [branch] });
    expect((await outsider.api.post(path(id), { user_id: outsider.id })).status).toBe(404);
  });

  it("refuses a new owner who is not a member (422 on user_id), the owner themself, and a malformed body", async () => {
    const tenant = await seedTenant();
    const id = tenant.workspaceId;
    const branch = await seedWorkspace(tenant, "Santiago");
    const elsewhere = await seedUser(tenant, { role: "admin", workspaceIds: [branch] });
    const notMember = await tenant.api.post(path(id), { user_id: elsewhere.id });
    expect(notMember.status).toBe(422);
    expect(notMember.body.code).toBe("validation_failed");
    expect(notMember.body.errors).toEqual({ user_id: ["The new owner must be a member of the workspace."] });
    const unknown = await tenant.api.post(path(id), { user_id: 2_000_000_000 });
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.body.errors)).toEqual(["user_id"]);
    const self = await tenant.api.post(path(id), { user_id: tenant.admin.id });
    expect(self.status).toBe(422);
    expect(Object.keys(self.body.errors)).toEqual(["user_id"]);
    for (const body of [{}, { user_id: "2" }, { user_id: elsewhere.id, owner_id: 1 }, { user_id: 0 }]) {
      const res = await tenant.api.post(path(id), body);
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    expect((await tenant.api.get(`/workspaces/${id}`)).body.data.owner_id).toBe(tenant.admin.id);
  });
  it("refuses a deactivated member as the new owner (422 on user_id), owner unchanged", async () => {
    const tenant = await seedTenant();
    const id = tenant.workspaceId;
    const heir = await seedUser(tenant, { role: "member", workspaceIds: [id] });
    expect((await tenant.api.post(`/users/${heir.id}/deactivate`)).status).toBe(200);
    const res = await tenant.api.post(path(id), { user_id: heir.id });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ user_id: ["The new owner must be an active user (this one is deactivated)."] });
    expect((await tenant.api.get(`/workspaces/${id}`)).body.data.owner_id).toBe(tenant.admin.id);
  });

  it("never leaves a workspace owned by a non-member: a transfer racing the removal of the heir", async () => {
    const outcomes = new Set<string>();
    for (let round = 0; round < 6; round++) {
      const tenant = await seedTenant();
      const id = tenant.workspaceId;
      const heir = await seedUser(tenant, { role: "member", workspaceIds: [id] });
      const otherAdmin = await seedUser(tenant, { role: "admin", workspaceIds: [id] });
      const [transfer, removal] = await Promise.all([tenant.api.post(path(id), { user_id: heir.id }), otherAdmin.api.delete(`/workspace/members/${heir.id}`)]);
      outcomes.add(`${transfer.status}/${removal.status}`);
      // Either the transfer went first (the heir, now owner, cannot be removed) or the removal did
      // (then the heir is no member to hand the workspace to).
      expect([`200/409`, `422/200`], `${transfer.text} ${removal.text}`).toContain(`${transfer.status}/${removal.status}`);
      const shown = (await tenant.api.get(`/workspaces/${id}`)).body.data;
      expect(shown.members.map((m: { id: number }) => m.id)).toContain(shown.owner_id);
    }
    expect(outcomes.size).toBeGreaterThan(0);
  });
});
