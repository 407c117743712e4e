import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { routeTable } from "../../src/http/openapi";
import type { ApiResponse } from "../support/api";
import { ownerRows, type SeededTenant, type SeededUser, seedTenant, seedUser, seedWorkspace, sql, uniqueName } from "../support/seed";
import { unlimited } from "./world";

/**
 * Issue 41, finding 3: the company is not a branch. The cast: W1 ("Principal", the owner's) and W2
 * of one company. `branchAdmin` holds the built-in admin role in W2 only (with it
 * view_all_locations, so it sees W1): every permission — in W2. `carla` is a viewer in W2, granted
 * by the owner the company role `finanzas` (ecf:manage only). Company-level acts read the company
 * role; acts on some branches need the permission at company level or in every branch they name.
 */
let tenant: SeededTenant;
let w1: number;
let w2: number;
let branchAdmin: SeededUser;
/** Another admin of W2 only, for the sweep: its requests go around the rate limit, which counts per user. */
let sweeper: SeededUser;
let carla: SeededUser;
let finanzasId: number;

const expectRefused = (res: ApiResponse, code: string, what: string) => {
  expect(`${what} → ${res.status} ${res.body?.code}`, res.text).toBe(`${what} → 403 ${code}`);
};

async function ecfSettings() {
  const [row] = await ownerRows<{ environment: string; enabled: boolean; uses_certified_provider: boolean }>(
    sql`SELECT environment, enabled, uses_certified_provider FROM ecf_settings WHERE tenant_id = ${tenant.tenantId}`,
  );
  return row ?? null;
}

async function openContingencies() {
  return ownerRows<{ id: number; workspace_ids: number[] | null }>(
    sql`SELECT id, workspace_ids FROM ecf_contingencies WHERE tenant_id = ${tenant.tenantId} AND closed_at IS NULL ORDER BY id`,
  );
}

beforeAll(async () => {
  createApp(); // the route table, for the sweep below
  tenant = await seedTenant();
  w1 = tenant.workspaceId;
  w2 = await seedWorkspace(tenant);
  branchAdmin = await seedUser(tenant, { role: "admin", workspaceIds: [w2] });
  sweeper = await seedUser(tenant, { role: "admin", workspaceIds: [w2] });
  carla = await seedUser(tenant, { role: "viewer", workspaceIds: [w2] });
  const role = await tenant.api.post("/roles", { name: uniqueName("finanzas_").toLowerCase(), display_name: "Finanzas", permissions: ["ecf:manage"] });
  expect(role.status, role.text).toBe(201);
  finanzasId = role.body.data.id;
  const granted = await tenant.api.put(`/company/members/${carla.id}`, { role: role.body.data.name });
  expect(granted.status, granted.text).toBe(201);
  expect(granted.body.data).toMatchObject({ user_id: carla.id, role: role.body.data.name, is_owner: false, status: "active" });
});

describe("an administrator of one branch cannot act on the company", () => {
  it("is refused 403 company_forbidden on every company-level route, and the company's e-CF setup does not move", async () => {
    const api = unlimited(tenant.subdomain, sweeper.token);
    const company = routeTable.filter((r) => typeof r.access === "object" && r.access.level === "company");
    expect(company.length).toBeGreaterThan(40);
    const before = await ecfSettings();
    for (const route of company) {
      const url = route.path.replace(/\{\w+\}/g, "1");
      const res = await (route.method === "GET"
        ? api.get(url)
        : route.method === "DELETE"
          ? api.delete(url)
          : api[route.method.toLowerCase() as "post" | "put" | "patch"](url, {}));
      expectRefused(res, "company_forbidden", `${route.method} ${route.path}`);
    }
    // The attack of the issue, with bodies that would pass: production without certification, e-CF
    // off, the test environment, the company's name.
    expectRefused(await api.put("/ecf/certification", { uses_certified_provider: true }), "company_forbidden", "certified provider");
    expectRefused(await api.put("/ecf/settings", { environment: "ecf" }), "company_forbidden", "production");
    expectRefused(await api.put("/ecf/settings", { enabled: false }), "company_forbidden", "e-CF off");
    expectRefused(await api.put("/ecf/settings", { environment: "testecf" }), "company_forbidden", "testecf");
    expectRefused(await api.patch("/company", { legal_name: "Otra Empresa SRL" }), "company_forbidden", "fiscal profile");
    expectRefused(await api.put(`/company/members/${sweeper.id}`, { role: "admin" }), "company_forbidden", "granting itself");
    expectRefused(await api.post("/company/transfer-ownership", { user_id: sweeper.id }), "company_forbidden", "taking the company");
    expect(await ecfSettings()).toEqual(before);
    const profile = await tenant.api.get("/company");
    expect(profile.body.data.legal_name).toBe(`Tenant ${tenant.subdomain} SRL`);
    // Its branch is still its own: it reads W1 (view_all_locations) and acts in W2.
    expect((await api.get("/invoices", { headers: { "X-Workspace-ID": String(w1) } })).status).toBe(200);
    expect((await api.post("/products", { name: uniqueName("De W2 "), price: "10.00", workspace_id: w2 })).status).toBe(201);
  });

  it("cannot open or close a contingency naming W1, nor a total one; one of its own branch it can", async () => {
    const api = branchAdmin.api;
    expectRefused(await api.post("/ecf/contingency", { scope: "branches", workspace_ids: [w1], reason: "Sin enlace" }), "forbidden", "W1");
    // Named with its own branch: refused whole, never narrowed to W2.
    const both = await api.post("/ecf/contingency", { scope: "branches", workspace_ids: [w2, w1], reason: "Sin enlace" });
    expectRefused(both, "forbidden", "W1 and W2");
    expect(both.body.message).toContain(`workspace ${w1}`);
    expectRefused(await api.post("/ecf/contingency", { scope: "total", reason: "DGII caído" }), "company_forbidden", "total");
    expect(await openContingencies()).toEqual([]);

    const own = await api.post("/ecf/contingency", { scope: "branches", workspace_ids: [w2], reason: "Sin enlace en W2" });
    expect(own.status, own.text).toBe(201);
    expect(own.body.data).toMatchObject({ scope: "branches", workspace_ids: [w2], opened_by: branchAdmin.id, open: true });
    const closedOwn = await api.delete(`/ecf/contingency/${own.body.data.id}`);
    expect(closedOwn.status, closedOwn.text).toBe(200);
    expect(closedOwn.body.data).toMatchObject({ open: false, closed_by: branchAdmin.id, closed_how: "manual" });

    // The owner's contingency of W1, then a total one: the branch admin closes neither.
    const ofW1 = await tenant.api.post("/ecf/contingency", { scope: "branches", workspace_ids: [w1], reason: "Apagón en Principal" });
    expect(ofW1.status, ofW1.text).toBe(201);
    expectRefused(await api.delete(`/ecf/contingency/${ofW1.body.data.id}`), "forbidden", "closing W1's");
    expect(await openContingencies()).toEqual([{ id: ofW1.body.data.id, workspace_ids: [w1] }]);
    expect((await tenant.api.delete(`/ecf/contingency/${ofW1.body.data.id}`)).status).toBe(200);
    const total = await tenant.api.post("/ecf/contingency", { scope: "total", reason: "DGII caído" });
    expect(total.status, total.text).toBe(201);
    expectRefused(await api.delete(`/ecf/contingency/${total.body.data.id}`), "company_forbidden", "closing a total one");
    expect(await openContingencies()).toEqual([{ id: total.body.data.id, workspace_ids: null }]);
    expect((await tenant.api.delete(`/ecf/contingency/${total.body.data.id}`)).status).toBe(200);
  });

  it("cannot download every branch's printed representations, nor W1's; its own branch's it may ask for", async () => {
    const zip = "/ecf/certification/printed-representations.zip";
    expectRefused(await branchAdmin.api.get(zip), "company_forbidden", "the company's ZIP");
    const ofW1 = await branchAdmin.api.get(`${zip}?workspace_id=${w1}`);
    expectRefused(ofW1, "forbidden", "W1's ZIP");
    // Past the permission: W2 has no e-CF accepted in certecf yet (409), as the owner's whole company.
    const ofW2 = await branchAdmin.api.get(`${zip}?workspace_id=${w2}`);
    expect([ofW2.status, ofW2.body.code]).toEqual([409, "conflict"]);
    const whole = await tenant.api.get(zip);
    expect([whole.status, whole.body.code]).toEqual([409, "conflict"]);
  });
});

describe("the owner and the company roles the owner grants", () => {
  it("the owner acts on the company; a company role acts with its own permissions only, in any branch, and gives nothing in a branch", async () => {
    const owner = tenant.api;
    expect((await owner.put("/ecf/certification", { uses_certified_provider: true })).status).toBe(200);
    expect((await owner.put("/ecf/certification", { uses_certified_provider: false })).status).toBe(200);
    const me = await carla.api.get("/me");
    expect(me.body.data.company).toEqual({ role: expect.stringMatching(/^finanzas_/), is_owner: false, permissions: ["ecf:manage"] });
    expect(me.body.data.permissions).not.toContain("ecf:manage");
    expect((await owner.get("/me")).body.data.company).toMatchObject({ role: "admin", is_owner: true });

    const settings = await carla.api.put("/ecf/settings", { environment: "certecf" });
    expect(settings.status, settings.text).toBe(200);
    expect((await ecfSettings())?.environment).toBe("certecf");
    expect((await carla.api.put("/ecf/settings", { environment: "testecf" })).status).toBe(200);
    // Not a member of W1, it still closes W1's contingency: ecf:manage at company level covers every branch.
    const ofW1 = await carla.api.post("/ecf/contingency", { scope: "branches", workspace_ids: [w1], reason: "Sin enlace" });
    expect(ofW1.status, ofW1.text).toBe(201);
    expect((await carla.api.delete(`/ecf/contingency/${ofW1.body.data.id}`)).status).toBe(200);
    // What finanzas does not hold: the fiscal profile, the webhooks; and in W2 it is a viewer.
    expectRefused(await carla.api.patch("/company", { trade_name: "Otra" }), "company_forbidden", "company:edit");
    expectRefused(await carla.api.get("/webhook-endpoints"), "company_forbidden", "webhooks:manage");
    expectRefused(await carla.api.post("/products", { name: "No", price: "1.00" }), "forbidden", "products:create in W2");
    // A company role needs no branch at all: someone of head office, a member of no workspace.
    const office = await seedUser(tenant, { role: "viewer", workspaceIds: [] });
    expect((await owner.put(`/company/members/${office.id}`, { role: me.body.data.company.role })).status).toBe(201);
    const fromOffice = await office.api.post("/ecf/contingency", { scope: "total", reason: "DGII caído" });
    expect(fromOffice.status, fromOffice.text).toBe(201);
    expect(fromOffice.body.data.opened_by).toBe(office.id);
    expect((await office.api.delete(`/ecf/contingency/${fromOffice.body.data.id}`)).body.data).toMatchObject({ open: false, closed_by: office.id });
    expectRefused(await office.api.get("/invoices"), "workspace_forbidden", "a branch's invoices");
    expect((await owner.delete(`/company/members/${office.id}`)).status).toBe(200);
    const members = await owner.get("/company/members");
    expect(members.status).toBe(200);
    expect(members.body.data.map((m: { user_id: number; is_owner: boolean }) => [m.user_id, m.is_owner])).toEqual([
      [tenant.admin.id, true],
      [carla.id, false],
    ]);
  });

  it("nobody raises a company role without holding it there: not its holder, not a branch admin, not through a deactivation", async () => {
    // The owner grants the W2 admin a company role with company:edit only.
    const tesoreria = await tenant.api.post("/roles", {
      name: uniqueName("tesoreria_").toLowerCase(),
      display_name: "Tesorería",
      permissions: ["company:edit"],
    });
    expect(tesoreria.status, tesoreria.text).toBe(201);
    expect((await tenant.api.put(`/company/members/${branchAdmin.id}`, { role: tesoreria.body.data.name })).status).toBe(201);
    expect((await branchAdmin.api.patch("/company", { trade_name: "Tesorería SRL" })).status).toBe(200);
    // Its admin role in W2 would have let it edit a role held in no branch: not a company role.
    const raised = await branchAdmin.api.patch(`/roles/${tesoreria.body.data.id}`, { permissions: ["company:edit", "ecf:manage"] });
    expectRefused(raised, "company_forbidden", "raising its own company role");
    expectRefused(
      await branchAdmin.api.patch(`/roles/${finanzasId}`, { permissions: ["ecf:manage", "webhooks:manage"] }),
      "company_forbidden",
      "raising Carla's",
    );
    expectRefused(await branchAdmin.api.put("/ecf/settings", { environment: "ecf" }), "company_forbidden", "still no ecf:manage");
    const deleted = await branchAdmin.api.delete(`/roles/${tesoreria.body.data.id}`);
    expect([deleted.status, deleted.body.code]).toEqual([409, "role_in_use"]);
    expect(deleted.body.message).toContain("1 user at company level");
    // Admin in W2, Carla's only branch: still not the one who answers for her company role.
    expectRefused(await branchAdmin.api.post(`/users/${carla.id}/deactivate`), "company_forbidden", "deactivating Carla");
    expectRefused(await branchAdmin.api.delete(`/company/members/${carla.id}`), "company_forbidden", "revoking Carla");
    const roles = await tenant.api.get(`/roles?per_page=100`);
    const byId = new Map(roles.body.data.map((r: { id: number; permissions: string[] }) => [r.id, r.permissions]));
    expect(byId.get(tesoreria.body.data.id)).toEqual(["company:edit"]);
    expect(byId.get(finanzasId)).toEqual(["ecf:manage"]);

    // The owner takes it back: company:edit is gone with it.
    expect((await tenant.api.delete(`/company/members/${branchAdmin.id}`)).status).toBe(200);
    expectRefused(await branchAdmin.api.patch("/company", { trade_name: "Otra vez" }), "company_forbidden", "after the revocation");
  });

  it("the owner's own role cannot be changed or revoked; the owner hands the company over, and then no longer grants", async () => {
    const owner = tenant.api;
    expect((await owner.put(`/company/members/${tenant.admin.id}`, { role: "viewer" })).body.code).toBe("owner_role_immutable");
    expect((await owner.delete(`/company/members/${tenant.admin.id}`)).body.code).toBe("owner_cannot_be_removed");
    expect((await owner.put(`/company/members/${carla.id}`, { role: "no_such_role" })).body.errors).toEqual({
      role: [expect.stringContaining("no_such_role")],
    });

    const handed = await owner.post("/company/transfer-ownership", { user_id: carla.id, previous_owner_role: "admin" });
    expect(handed.status, handed.text).toBe(200);
    expect(handed.body.data).toMatchObject({ user_id: carla.id, role: "admin", is_owner: true });
    expectRefused(await owner.put(`/company/members/${branchAdmin.id}`, { role: "admin" }), "company_forbidden", "the former owner granting");
    // The former owner keeps admin at company level, and acts on the company.
    expect((await owner.put("/ecf/certification", { uses_certified_provider: false })).status).toBe(200);
    const back = await carla.api.post("/company/transfer-ownership", { user_id: tenant.admin.id });
    expect(back.status, back.text).toBe(200);
    const members = await owner.get("/company/members");
    expect(members.body.data.map((m: { user_id: number; role: string; is_owner: boolean }) => [m.user_id, m.role, m.is_owner])).toEqual([
      [tenant.admin.id, "admin", true],
      [carla.id, "admin", false],
    ]);
  });
});
