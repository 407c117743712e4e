import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import migration0055 from "../../drizzle/0055_company_members.sql?raw";
import { rowsOf } from "../../src/db/rows";
import { asOwner, seedTenant, seedUser, seedWorkspace, uniqueName } from "../support/seed";

/**
 * Migration 0055: the companies that exist already get their company roles. The owner is the owner
 * of the first workspace (admin); a user who held one same role in every workspace keeps it at
 * company level when it holds a company-level permission; an admin of some branches gets nothing.
 */
describe("company roles of existing companies (migration 0055)", () => {
  it("makes the first workspace's owner the company's owner and keeps what a role gave in every branch, nothing more", async () => {
    const tenant = await seedTenant();
    const w1 = tenant.workspaceId;
    const w2 = await seedWorkspace(tenant);
    const everywhereAdmin = await seedUser(tenant, { role: "admin", workspaceIds: [w1, w2] });
    const w2Admin = await seedUser(tenant, { role: "admin", workspaceIds: [w2] });
    const everywhereMember = await seedUser(tenant, { role: "member", workspaceIds: [w1, w2] });
    const contable = await tenant.api.post("/roles", { name: uniqueName("contable_").toLowerCase(), display_name: "Contable", permissions: ["taxes:edit"] });
    expect(contable.status, contable.text).toBe(201);
    const bookkeeper = await seedUser(tenant, { role: contable.body.data.name, workspaceIds: [w1, w2] });
    const mixed = await seedUser(tenant, { role: "admin", workspaceIds: [w1] });
    await asOwner((db) =>
      db.execute(sql`INSERT INTO workspace_members (tenant_id, workspace_id, user_id, role_id)
      SELECT ${tenant.tenantId}, ${w2}, ${mixed.id}, id FROM roles WHERE tenant_id = ${tenant.tenantId} AND name = 'member'`),
    );

    // As the company was before 0055: nobody holds anything at company level.
    await asOwner((db) => db.execute(sql`DELETE FROM company_members WHERE tenant_id = ${tenant.tenantId}`));
    expect((await tenant.api.put("/ecf/settings", { environment: "certecf" })).body.code).toBe("company_forbidden");

    // The migration's backfill, as the application role inside this tenant: row-level security
    // keeps it to this company, whatever the other test files have in the database meanwhile.
    const backfill = migration0055.split("--> statement-breakpoint").filter((statement) => /^\s*(--[^\n]*\n\s*)*INSERT INTO company_members/.test(statement));
    expect(backfill).toHaveLength(2);
    const rows = await asOwner(async (db) => {
      await db.execute(sql`SET LOCAL ROLE sucursal_app`);
      await db.execute(sql`SELECT set_config('app.tenant_id', ${String(tenant.tenantId)}, true)`);
      for (const statement of backfill) await db.execute(sql.raw(statement));
      return rowsOf<{ user_id: number; role: string; is_owner: boolean }>(
        await db.execute(sql`SELECT c.user_id, r.name AS role, c.is_owner FROM company_members c JOIN roles r ON r.id = c.role_id ORDER BY c.user_id`),
      );
    });
    expect(rows).toEqual(
      [
        { user_id: tenant.admin.id, role: "admin", is_owner: true },
        { user_id: everywhereAdmin.id, role: "admin", is_owner: false },
        { user_id: bookkeeper.id, role: contable.body.data.name, is_owner: false },
      ].sort((a, b) => a.user_id - b.user_id),
    );
    expect([w2Admin.id, everywhereMember.id, mixed.id].filter((id) => rows.some((r) => r.user_id === id))).toEqual([]);

    expect((await tenant.api.put("/ecf/settings", { environment: "certecf" })).status).toBe(200);
    expect((await everywhereAdmin.api.put("/ecf/settings", { environment: "testecf" })).status).toBe(200);
    expect((await w2Admin.api.put("/ecf/settings", { environment: "ecf" })).body.code).toBe("company_forbidden");
    const listed = (await tenant.api.get("/company/members")).body.data as { user_id: number; is_owner: boolean }[];
    expect(listed[0]).toMatchObject({ user_id: tenant.admin.id, is_owner: true });
    expect(listed.map((m) => m.user_id).sort((a, b) => a - b)).toEqual(rows.map((r) => r.user_id));
  });
});
