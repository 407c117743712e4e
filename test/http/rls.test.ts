import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { withTenantTransaction } from "../../src/db/client";
import { env } from "../support/env";
import { seedTenant, seedUser } from "../support/seed";

/** The Postgres error behind drizzle's wrapper. */
async function postgresError(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause;
    return cause?.message ?? String(error);
  }
  throw new Error("expected the query to fail");
}

describe("row-level security", () => {
  it("a raw select with no tenant filter, in a request transaction, sees only the current tenant", async () => {
    const a = await seedTenant();
    const b = await seedTenant();
    await seedUser(b, { role: "member", workspaceIds: [b.workspaceId] });
    const rows = await withTenantTransaction(env, a.tenantId, async (db) => {
      const result = await db.execute(sql`SELECT tenant_id, email FROM users`);
      return result.rows as { tenant_id: number; email: string }[];
    });
    expect(rows).toEqual([{ tenant_id: a.tenantId, email: a.admin.email }]);
    const workspaces = await withTenantTransaction(env, b.tenantId, async (db) => (await db.execute(sql`SELECT count(*)::int AS n FROM workspaces`)).rows);
    expect(workspaces).toEqual([{ n: 1 }]);
  });

  it("with no tenant set, a query on a tenant table errors instead of returning rows", async () => {
    await seedTenant();
    const message = await postgresError(withTenantTransaction(env, null, (db) => db.execute(sql`SELECT id FROM users`)));
    expect(message).toMatch(/unrecognized configuration parameter "app\.tenant_id"|invalid input syntax for type integer/);
  });

  it("the application role cannot write another tenant's rows even when it names them", async () => {
    const a = await seedTenant();
    const b = await seedTenant();
    const updated = await withTenantTransaction(
      env,
      a.tenantId,
      async (db) => (await db.execute(sql`UPDATE workspaces SET name = 'hijacked' WHERE id = ${b.workspaceId} RETURNING id`)).rows,
    );
    expect(updated).toEqual([]);
    const message = await postgresError(
      withTenantTransaction(env, a.tenantId, (db) =>
        db.execute(sql`INSERT INTO roles (tenant_id, name, display_name) VALUES (${b.tenantId}, 'sneaky', 'Sneaky')`),
      ),
    );
    expect(message).toMatch(/violates row-level security policy/);
  });
});
