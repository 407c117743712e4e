import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PERMISSIONS_DOC_PATH, renderPermissionsBlock, withPermissionsBlock } from "../../scripts/routes-table";
import { createApp } from "../../src/app";
import { routeTable } from "../../src/http/openapi";
import { allPermissions, builtinRoles, permissionCatalog } from "../../src/lib/permissions";

const app = createApp();
const document = app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "Sucursal API", version: "1.0.0" } });
const METHODS = ["get", "post", "put", "patch", "delete"];

describe("route permissions", () => {
  it("gives every route an explicit access rule naming a permission of the catalog", () => {
    expect(routeTable.length).toBeGreaterThan(0);
    const problems: string[] = [];
    for (const route of routeTable) {
      const { access } = route;
      if (access === "public" || access === "authenticated") continue;
      if (typeof access !== "object" || typeof access.permission !== "string") problems.push(`${route.method} ${route.path}: no access rule`);
      else if (!Object.hasOwn(permissionCatalog, access.permission)) problems.push(`${route.method} ${route.path}: unknown permission ${access.permission}`);
    }
    expect(problems).toEqual([]);
  });

  it("declares each method and path once", () => {
    const keys = routeTable.map((r) => `${r.method} ${r.path}`);
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
  });

  it("has every operation of the OpenAPI document in the route table (none bypasses defineRoute)", () => {
    const documented = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
      METHODS.filter((m) => (item as Record<string, unknown>)[m]).map((m) => `${m.toUpperCase()} ${path}`),
    );
    const declared = new Set(routeTable.map((r) => `${r.method} ${r.path}`));
    expect(documented.filter((op) => !declared.has(op))).toEqual([]);
    expect([...declared].filter((op) => !documented.includes(op))).toEqual([]);
  });

  it("documents the endpoints of workspaces, members, invitations, roles and permissions", () => {
    const declared = new Set(routeTable.map((r) => `${r.method} ${r.path}`));
    for (const op of [
      "GET /api/v1/workspaces",
      "POST /api/v1/workspaces",
      "GET /api/v1/workspaces/{id}",
      "PATCH /api/v1/workspaces/{id}",
      "PATCH /api/v1/workspace-context/{id}",
      "DELETE /api/v1/workspace-context/{id}",
      "GET /api/v1/workspace/members",
      "PATCH /api/v1/workspace/members/{user_id}",
      "DELETE /api/v1/workspace/members/{user_id}",
      "POST /api/v1/workspace/invitations",
      "GET /api/v1/workspace/invitations",
      "DELETE /api/v1/workspace/invitations/{id}",
      "POST /api/v1/invitations/{token}/accept",
      "GET /api/v1/roles",
      "POST /api/v1/roles",
      "PATCH /api/v1/roles/{id}",
      "DELETE /api/v1/roles/{id}",
      "GET /api/v1/permissions",
    ]) {
      expect(declared.has(op), op).toBe(true);
    }
  });

  it("keeps docs/permissions.md's permission table identical to the generated one (run `npm run docs:routes`)", () => {
    const page = readFileSync(PERMISSIONS_DOC_PATH, "utf8");
    const block = renderPermissionsBlock();
    expect(withPermissionsBlock(page, block)).toBe(page);
    for (const route of routeTable) expect(block).toContain(`| ${route.method} | \`${route.path}\` |`);
  });
});

describe("permission catalog and built-in roles", () => {
  const role = (name: string) => new Set<string>(builtinRoles.find((r) => r.name === name)!.permissions);

  it("uses <resource>:<action> identifiers (plus view_all_locations) covering the issue's resources", () => {
    for (const p of allPermissions) expect(p === "view_all_locations" || /^[a-z_]+:[a-z_]+$/.test(p), p).toBe(true);
    const resources = new Set(allPermissions.map((p) => p.split(":")[0]));
    for (const r of [
      "workspaces",
      "members",
      "roles",
      "invitations",
      "products",
      "contacts",
      "invoices",
      "payments",
      "quotations",
      "inventory",
      "document_subtypes",
      "taxes",
      "currencies",
      "salesmen",
      "bank_accounts",
      "integrations",
      "rnc",
      "view_all_locations",
    ]) {
      expect(resources.has(r), r).toBe(true);
    }
    for (const a of ["inventory:view", "inventory:adjust", "inventory:transfer"]) expect(allPermissions).toContain(a);
  });

  it("gives admin every permission, viewer only :view (bar the company's DGII reports), member the everyday set", () => {
    expect([...role("admin")].sort()).toEqual([...allPermissions].sort());
    expect([...role("viewer")].every((p) => p.endsWith(":view"))).toBe(true);
    expect([...role("viewer")].sort()).toEqual(allPermissions.filter((p) => p.endsWith(":view") && p !== "reports:view").sort());
    const member = role("member");
    for (const r of ["invoices", "quotations", "products", "contacts"]) {
      for (const a of ["view", "create", "edit"]) expect(member.has(`${r}:${a}`), `${r}:${a}`).toBe(true);
    }
    expect(member.has("inventory:view")).toBe(true);
    for (const p of ["inventory:adjust", "roles:create", "members:edit", "invitations:create", "workspaces:create", "view_all_locations", "reports:view"]) {
      expect(member.has(p), p).toBe(false);
    }
  });

  it("gives the accountant the DGII reports and every view across workspaces, and nothing that writes", () => {
    const accountant = role("accountant");
    expect(accountant.has("reports:view")).toBe(true);
    expect(accountant.has("view_all_locations")).toBe(true);
    for (const p of ["purchases:view", "invoices:view", "payments:view", "document_subtypes:view"]) expect(accountant.has(p), p).toBe(true);
    expect([...accountant].filter((p) => p !== "view_all_locations").every((p) => p.endsWith(":view"))).toBe(true);
  });

  it("migration 0029 gives existing tenants the accountant role, its permissions the catalog's accountant's, the reports included", () => {
    const migration = readFileSync("drizzle/0029_reports_permission.sql", "utf8");
    const granted = [...migration.match(/ARRAY\[([^\]]*)\]/)![1]!.matchAll(/'([a-z_:]+)'/g)].map((m) => m[1]!);
    expect(granted).toContain("reports:view");
    expect(granted.filter((p) => !role("accountant").has(p))).toEqual([]);
  });
});
