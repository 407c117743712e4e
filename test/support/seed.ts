import { and, eq, type SQL, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/neon-serverless";
import type { AnyDb } from "../../src/db/client";
import { createPool } from "../../src/db/client";
import * as schema from "../../src/db/schema";
import { inTransaction } from "../../src/db/transaction";
import { hashPassword } from "../../src/lib/password";
import { issueAccessToken } from "../../src/modules/auth/service";
import { createTenant } from "../../src/modules/tenants/service";
import { client, type Untyped } from "./api";
import { env } from "./env";

/**
 * The one seed helper: runs as the database owner (like the operator CLI), outside the API, for
 * what the API itself cannot create (tenants) or to set up users quickly.
 */
export async function asOwner<T>(work: (db: AnyDb) => Promise<T>): Promise<T> {
  const pool = createPool({ ...env, DB_SET_ROLE: undefined }, env.TEST_OWNER_DATABASE_URL);
  const connection = await pool.connect();
  try {
    return await inTransaction(connection, () => work(drizzle({ client: connection })));
  } finally {
    connection.release();
    await pool.end();
  }
}

/**
 * The rows of one raw SQL statement, run as the owner (outside row-level security): for checks of
 * what the API does not show. Raw SQL has no column types: `Record<string, Untyped>` unless the caller
 * passes `T`.
 */
export async function ownerRows<T = Record<string, Untyped>>(query: SQL): Promise<T[]> {
  return asOwner(async (db) => ((await db.execute(query)) as unknown as { rows: T[] }).rows);
}

/** The one row of `query`, run as the owner; a test that expected a row fails here when there is none. */
export async function ownerRow<T = Record<string, Untyped>>(query: SQL): Promise<T> {
  const [row] = await ownerRows<T>(query);
  if (row === undefined) throw new Error("expected a row, the query returned none");
  return row;
}

let counter = 0;
export const uniqueName = (prefix: string) => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

export const DEFAULT_PASSWORD = "correct horse battery";
/** An RNC with a valid check digit (made up). */
export const TEST_RNC = "131246796";

export interface SeededTenant {
  subdomain: string;
  tenantId: number;
  admin: { id: number; email: string; token: string };
  workspaceId: number;
  api: ReturnType<typeof client>;
}

/** A new tenant with its admin (token included) and its first workspace "Principal". */
export async function seedTenant(options: { demoSequences?: boolean } = {}): Promise<SeededTenant> {
  const subdomain = uniqueName("t");
  const email = `admin@${subdomain}.do`;
  const created = await asOwner((db) =>
    createTenant(db, {
      subdomain,
      name: `Tenant ${subdomain}`,
      adminEmail: email,
      adminPassword: DEFAULT_PASSWORD,
      // Tests issue invoices: a complete fiscal profile and the demo NCF ranges (1-5,000).
      rnc: TEST_RNC,
      legalName: `Tenant ${subdomain} SRL`,
      address: "Calle El Conde 1, Santo Domingo",
      demoSequences: options.demoSequences ?? true,
    }),
  );
  const { token } = await asOwner((db) => issueAccessToken(db, env.JWT_SECRET, { tenantId: created.tenant.id, userId: created.user.id, name: "test" }));
  return {
    subdomain,
    tenantId: created.tenant.id,
    admin: { id: created.user.id, email, token },
    workspaceId: created.workspace.id,
    api: client(subdomain, token),
  };
}

export interface SeededUser {
  id: number;
  email: string;
  token: string;
  api: ReturnType<typeof client>;
}

/** A user of the tenant holding `role` in each of `workspaceIds` (the first becomes current). */
export async function seedUser(tenant: SeededTenant, options: { role: string; workspaceIds: number[]; email?: string }): Promise<SeededUser> {
  const email = options.email ?? `${uniqueName("u")}@${tenant.subdomain}.do`;
  const passwordHash = await hashPassword(DEFAULT_PASSWORD);
  const user = await asOwner(async (db) => {
    const [role] = await db
      .select({ id: schema.roles.id })
      .from(schema.roles)
      .where(and(eq(schema.roles.tenantId, tenant.tenantId), eq(schema.roles.name, options.role)));
    if (!role) throw new Error(`no role ${options.role}`);
    const [row] = await db
      .insert(schema.users)
      .values({ tenantId: tenant.tenantId, name: email.split("@")[0]!, email, passwordHash, currentWorkspaceId: options.workspaceIds[0] ?? null })
      .returning();
    if (options.workspaceIds.length) {
      await db
        .insert(schema.workspaceMembers)
        .values(options.workspaceIds.map((workspaceId) => ({ tenantId: tenant.tenantId, workspaceId, userId: row!.id, roleId: role.id })));
    }
    return row!;
  });
  const { token } = await asOwner((db) => issueAccessToken(db, env.JWT_SECRET, { tenantId: tenant.tenantId, userId: user.id, name: "test" }));
  return { id: user.id, email, token, api: client(tenant.subdomain, token) };
}

/** Another workspace of the tenant, owned by its admin (who is an admin member of it). */
export async function seedWorkspace(tenant: SeededTenant, name = uniqueName("Sucursal ")): Promise<number> {
  return asOwner(async (db) => {
    const [admin] = await db
      .select({ id: schema.roles.id })
      .from(schema.roles)
      .where(and(eq(schema.roles.tenantId, tenant.tenantId), eq(schema.roles.name, "admin")));
    const [workspace] = await db.insert(schema.workspaces).values({ tenantId: tenant.tenantId, name, ownerId: tenant.admin.id }).returning();
    await db.insert(schema.workspaceMembers).values({ tenantId: tenant.tenantId, workspaceId: workspace!.id, userId: tenant.admin.id, roleId: admin!.id });
    return workspace!.id;
  });
}

export { sql };
