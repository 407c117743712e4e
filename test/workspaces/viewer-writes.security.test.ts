import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { routeTable } from "../../src/http/openapi";
import { seedTenant, seedUser } from "../support/seed";

createApp(); // every router registered, so the route table is complete

const WRITES = [
  "POST /api/v1/workspaces",
  "PATCH /api/v1/workspace/members/{user_id}",
  "DELETE /api/v1/workspace/members/{user_id}",
  "POST /api/v1/workspace/invitations",
  "DELETE /api/v1/workspace/invitations/{id}",
  "POST /api/v1/roles",
  "PATCH /api/v1/roles/{id}",
  "DELETE /api/v1/roles/{id}",
];

describe("a viewer on the write endpoints of workspaces, members, invitations and roles", () => {
  const writes = routeTable.filter((r) => WRITES.includes(`${r.method} ${r.path}`));

  it("finds each of them in the route table, guarded by a permission", () => {
    expect(writes.map((r) => `${r.method} ${r.path}`).sort()).toEqual([...WRITES].sort());
    for (const route of writes) expect(typeof route.access).toBe("object");
  });

  it("answers 403 forbidden naming the permission on each of them", async () => {
    const tenant = await seedTenant();
    const viewer = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    for (const route of writes) {
      const path = route.path.replace("{id}", "1").replace("{user_id}", String(tenant.admin.id));
      const method = route.method.toLowerCase() as "post" | "patch" | "delete";
      const res = method === "delete" ? await viewer.api.delete(path) : await viewer.api[method](path, {});
      const permission = (route.access as { permission: string }).permission;
      expect(res.status, `${route.method} ${route.path}`).toBe(403);
      expect(res.body.code).toBe("forbidden");
      expect(res.body.message).toContain(permission);
    }
    // The owner-only rename answers 403 to a viewer too.
    const rename = await viewer.api.patch(`/workspaces/${tenant.workspaceId}`, { name: "Mía" });
    expect(rename.status).toBe(403);
    expect(rename.body.code).toBe("forbidden");
  });
});
