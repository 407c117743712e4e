import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import type { AnyDb } from "../../src/db/client";
import { inTransaction } from "../../src/db/transaction";
import { issueAccessToken } from "../../src/modules/auth/service";
import { createTenant, type NewTenant } from "../../src/modules/tenants/service";

/** Runs `work` in one owner transaction on `url` (drizzle query builder, as the Worker uses it). */
export async function inOwnerTransaction<T>(url: string, work: (db: AnyDb) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await inTransaction(client, () => work(drizzle(client)));
  } finally {
    await client.end();
  }
}

export async function createTenantWithToken(url: string, jwtSecret: string, input: NewTenant) {
  return inOwnerTransaction(url, async (db) => {
    const created = await createTenant(db, input);
    const { token, expiresAt } = await issueAccessToken(db, jwtSecret, { tenantId: created.tenant.id, userId: created.user.id, name: "cli" });
    return { ...created, token, expiresAt };
  });
}
