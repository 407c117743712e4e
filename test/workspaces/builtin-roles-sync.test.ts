import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import migration0032 from "../../drizzle/0032_builtin_roles_sync.sql?raw";
import migration0059 from "../../drizzle/0059_builtin_roles_sync_fiscal_periods.sql?raw";
import { rowsOf } from "../../src/db/rows";
import { builtinRoles } from "../../src/lib/permissions";
import { asOwner, seedTenant } from "../support/seed";

/**
 * Migration 0032: tenants created before a permission entered the catalog get it in their built-in
 * roles (which the API cannot edit), and their built-in roles equal the catalog's definitions.
 */
describe("built-in roles of existing tenants (migration 0032)", () => {
  it("brings admin, member, viewer and accountant to the catalog's definitions, leaving custom roles alone", async () => {
    const tenant = await seedTenant();
    const custom = await tenant.api.post("/roles", { name: "caja", display_name: "Caja", permissions: ["invoices:view"] });
    expect(custom.status, custom.text).toBe(201);
    const newer = [
      "company:edit",
      "ecf:manage",
      "purchases:view",
      "purchases:create",
      "purchases:edit",
      "purchases:delete",
      "received_ecf:view",
      "received_ecf:approve",
      "webhooks:manage",
      "fiscal_periods:close",
    ];
    // As a tenant created before issues 17-21 was: its built-in roles without the permissions they brought.
    await asOwner((db) =>
      db.execute(sql`UPDATE roles SET permissions = ARRAY(SELECT p FROM unnest(permissions) p WHERE NOT p = ANY(${`{${newer.join(",")}}`}::text[]))
        WHERE tenant_id = ${tenant.tenantId} AND is_builtin`),
    );
    // (Branch-level reads: the owner, admin at company level, holds every company-level permission whatever the role's list.)
    expect((await tenant.api.get("/purchases")).status).toBe(403);
    expect((await tenant.api.get("/received-ecf")).status).toBe(403);

    await asOwner(async (db) => {
      // 0032, then the latest sync (0059: fiscal_periods:close, issue 47), as a tenant of before both meets them.
      for (const migration of [migration0032, migration0059])
        for (const statement of migration.split("--> statement-breakpoint")) await db.execute(sql.raw(statement));
    });
    const roles = await asOwner(async (db) =>
      rowsOf<{ name: string; is_builtin: boolean; permissions: string[] }>(
        await db.execute(sql`SELECT name, is_builtin, permissions FROM roles WHERE tenant_id = ${tenant.tenantId} ORDER BY name`),
      ),
    );
    const expected = [
      ...builtinRoles.map((r) => ({ name: r.name, is_builtin: true, permissions: [...r.permissions].sort() })),
      { name: "caja", is_builtin: false, permissions: ["invoices:view"] },
    ];
    expect(roles.map((r) => ({ ...r, permissions: [...r.permissions].sort() }))).toEqual(expected.sort((a, b) => a.name.localeCompare(b.name)));
    expect((await tenant.api.get("/purchases")).status).toBe(200);
    expect((await tenant.api.get("/received-ecf")).status).toBe(200);
  });
});
