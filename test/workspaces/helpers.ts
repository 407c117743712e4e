import { and, eq, sql } from "drizzle-orm";
import { rowsOf } from "../../src/db/rows";
import * as schema from "../../src/db/schema";
import type { Client } from "../support/api";
import { asOwner, type SeededTenant, uniqueName } from "../support/seed";

/** Email rows the tenant's outbox holds (newest last). */
export async function outboxEmails(tenantId: number) {
  const rows = await asOwner((db) =>
    db
      .select()
      .from(schema.outboxMessages)
      .where(and(eq(schema.outboxMessages.tenantId, tenantId), eq(schema.outboxMessages.kind, "email")))
      .orderBy(schema.outboxMessages.id),
  );
  return rows.map((r) => ({ ...r, payload: r.payload as { to: string; subject: string; text: string; template: string } }));
}

/** Moves an invitation's clock back: as if `seconds` had passed since it was created. */
export async function ageInvitation(id: number, seconds: number) {
  await asOwner((db) =>
    db
      .update(schema.invitations)
      .set({
        createdAt: sql`${schema.invitations.createdAt} - make_interval(secs => ${seconds})`,
        expiresAt: sql`${schema.invitations.expiresAt} - make_interval(secs => ${seconds})`,
      })
      .where(eq(schema.invitations.id, id)),
  );
}

export async function invitationRow(id: number) {
  const [row] = await asOwner((db) => db.select().from(schema.invitations).where(eq(schema.invitations.id, id)));
  return row!;
}

export async function userRow(id: number) {
  const [row] = await asOwner((db) => db.select().from(schema.users).where(eq(schema.users.id, id)));
  return row!;
}

/** A custom role created through the API by the tenant's admin; returns its id. */
export async function createRole(tenant: SeededTenant, permissions: string[], name = uniqueName("role_")) {
  const res = await tenant.api.post("/roles", { name, display_name: name, permissions });
  if (res.status !== 201) throw new Error(`role creation failed: ${res.status} ${res.text}`);
  return { id: res.body.data.id as number, name };
}

/** Ids of a paginated list's data. */
export const ids = (body: { data: { id: number }[] }) => body.data.map((x) => x.id);

export const SEVEN_DAYS = 7 * 24 * 60 * 60;

export type { Client };

/** Makes `userId` a member of `workspaceId` holding the tenant's role `roleName` (as the database owner). */
export async function addMembership(tenant: SeededTenant, userId: number, workspaceId: number, roleName: string) {
  await asOwner(async (db) => {
    const [role] = await db
      .select({ id: schema.roles.id })
      .from(schema.roles)
      .where(and(eq(schema.roles.tenantId, tenant.tenantId), eq(schema.roles.name, roleName)));
    if (!role) throw new Error(`no role ${roleName}`);
    await db.insert(schema.workspaceMembers).values({ tenantId: tenant.tenantId, workspaceId, userId, roleId: role.id });
  });
}

/** Every row of `table` of the tenant, each as the text of the whole row (all of its columns). */
export async function rowsAsText(table: "outbox_messages" | "invitations", tenantId: number): Promise<string[]> {
  return asOwner(async (db) => {
    const result = await db.execute(sql`SELECT t::text AS row FROM ${sql.identifier(table)} t WHERE t.tenant_id = ${tenantId}`);
    return rowsOf<{ row: string }>(result).map((r) => r.row);
  });
}
