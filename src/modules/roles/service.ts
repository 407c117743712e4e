import { and, asc, desc, eq, isNotNull, or, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { isUniqueViolation } from "../../db/errors";
import { assertCompanyHolds, assertHeldInEvery, companyGrantOf, grantsOf, pendingInvitationsOffering, workspacesHoldingRole } from "../../db/grants";
import { type Page, pageOfQuery, updatedSince } from "../../db/queries";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import type { WorkspaceContext } from "../../http/context";
import { AppError, type FieldErrors, fieldError, notFound } from "../../lib/errors";
import { isKnownPermission } from "../../lib/permissions";

/** Who is asking: the user and the request's workspace. */
export interface Caller {
  userId: number;
  workspace: WorkspaceContext;
}

export type RoleRow = typeof schema.roles.$inferSelect & { membersCount: number };

/**
 * Nobody hands out more than they hold: creating a role requires the caller to hold each of its
 * permissions in the request's workspace (where it would be held once assigned). Otherwise a
 * `roles:create` holder could mint an admin-like role. Roles already held somewhere are checked
 * where they are held (assertCanChangeRole); assignments in the target workspace (members, invitations).
 */
function assertGrantable(workspace: WorkspaceContext, permissions: readonly string[]): void {
  const missing = permissions.filter((p) => !workspace.permissions.has(p));
  if (missing.length) {
    throw new AppError("forbidden", `You cannot grant permissions you do not hold: ${missing.sort().join(", ")}.`);
  }
}

/** Known identifiers, each once; unknown ones → 422 under `permissions.N`. */
function checkPermissions(permissions: readonly string[]): string[] {
  const errors: FieldErrors = {};
  permissions.forEach((p, i) => {
    if (!isKnownPermission(p)) errors[`permissions.${i}`] = [`Unknown permission "${p}". See GET /api/v1/permissions.`];
  });
  if (Object.keys(errors).length) throw new AppError("validation_failed", "The given data was invalid.", errors);
  return [...new Set(permissions)].sort();
}

const membersCount = sql<number>`(SELECT count(DISTINCT m.user_id) FROM workspace_members m WHERE m.role_id = ${schema.roles.id})`.mapWith(Number);

export async function listRoles(
  db: AnyDb,
  query: { page: number; perPage: number; updatedSince: Date | undefined; sort: { field: "id" | "name" | "created_at" | "updated_at"; descending: boolean } },
): Promise<Page<RoleRow>> {
  const column = { id: schema.roles.id, name: schema.roles.name, created_at: schema.roles.createdAt, updated_at: schema.roles.updatedAt }[query.sort.field];
  const where = updatedSince(schema.roles.updatedAt, query);
  const { rows, total } = await pageOfQuery(
    db,
    { table: schema.roles, id: schema.roles.id, where, order: [query.sort.descending ? desc(column) : asc(column), asc(schema.roles.id)], query },
    (page) =>
      db
        .select({ role: schema.roles, membersCount, ...page })
        .from(schema.roles)
        .$dynamic(),
  );
  return { rows: rows.map((r) => ({ ...r.role, membersCount: r.membersCount })), total };
}

async function findRole(db: AnyDb, id: number, options: { lock?: boolean } = {}): Promise<RoleRow> {
  const base = db.select({ role: schema.roles, membersCount }).from(schema.roles).where(eq(schema.roles.id, id));
  const [row] = options.lock ? await base.for("update", { of: schema.roles }) : await base;
  if (!row) throw notFound("Role");
  return { ...row.role, membersCount: row.membersCount };
}

/**
 * A role of the tenant by name (as assigned to members and invitations); unknown → 422 on `field`.
 * `share` locks the row until the transaction ends: an assignment then cannot interleave with an
 * edit of the role's permissions (which locks it for update), so the edit's check of where the
 * role is held sees the assignment, or the assignment's check sees the edited permissions.
 */
export async function roleByName(db: AnyDb, name: string, field = "role", options: { share?: boolean } = {}): Promise<typeof schema.roles.$inferSelect> {
  const base = db.select().from(schema.roles).where(eq(schema.roles.name, name));
  const [role] = options.share ? await base.for("share") : await base;
  if (!role) throw fieldError(field, `There is no role named "${name}".`);
  return role;
}

async function assertNameFree(db: AnyDb, name: string) {
  const [taken] = await db.select({ id: schema.roles.id }).from(schema.roles).where(sql`lower(${schema.roles.name}) = ${name.toLowerCase()}`);
  if (taken) throw fieldError("name", "A role with this name already exists.", "duplicate_role_name");
}

export async function createRole(
  db: AnyDb,
  tenantId: number,
  workspace: WorkspaceContext,
  input: { name: string; displayName: string; permissions: string[] },
): Promise<RoleRow> {
  const permissions = checkPermissions(input.permissions);
  assertGrantable(workspace, permissions);
  await assertNameFree(db, input.name);
  try {
    const role = await db
      .insert(schema.roles)
      .values({ tenantId, name: input.name, displayName: input.displayName, permissions, isBuiltin: false })
      .returning()
      .then(oneRow);
    return { ...role, membersCount: 0 };
  } catch (error) {
    if (isUniqueViolation(error)) throw fieldError("name", "A role with this name already exists.", "duplicate_role_name");
    throw error;
  }
}

/**
 * A role's permissions apply in every workspace where it is held, so changing them (or deleting the
 * role) requires holding every permission of `required` — the old set and the new one — in each of
 * those workspaces, or being admin there: roles:edit in branch A does not reach branch B. A role
 * held nowhere yet is checked in the request's workspace, like a new role.
 */
async function assertCanChangeRole(db: AnyDb, caller: Caller, role: RoleRow, required: readonly string[], what: string) {
  // A company role (one the owner granted someone at company level) acts on the whole company: only
  // who holds its whole set there changes it, so nobody raises the company role they hold, nor
  // anyone's, with a branch's roles:edit (issue 41).
  if ((await companyHoldersOf(db, role.id)) > 0) {
    assertCompanyHolds(await companyGrantOf(db, caller.userId), required, `${what} the role "${role.name}", held at company level,`);
  }
  const held = await workspacesHoldingRole(db, role.id);
  if (!held.length) return assertGrantable(caller.workspace, required);
  assertHeldInEvery(await grantsOf(db, caller.userId), held, required, `${what} the role "${role.name}"`);
}

/** How many users hold the role at company level (company_members). */
async function companyHoldersOf(db: AnyDb, roleId: number): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(schema.companyMembers)
    .where(eq(schema.companyMembers.roleId, roleId));
  return row?.n ?? 0;
}

const immutable = (name: string) => new AppError("builtin_role_immutable", `The built-in role "${name}" cannot be modified or deleted.`);

export async function updateRole(db: AnyDb, caller: Caller, id: number, input: { displayName?: string; permissions?: string[] }): Promise<RoleRow> {
  const role = await findRole(db, id, { lock: true });
  if (role.isBuiltin) throw immutable(role.name);
  const permissions = input.permissions === undefined ? undefined : checkPermissions(input.permissions);
  // Any edit (a display name too) is an edit of what the role's holders see: the old set counts
  // even when the permissions do not change, so nobody edits a role above their own.
  await assertCanChangeRole(db, caller, role, [...role.permissions, ...(permissions ?? [])], "edit");
  const updated = await db
    .update(schema.roles)
    .set({
      ...(input.displayName === undefined ? {} : { displayName: input.displayName }),
      ...(permissions === undefined ? {} : { permissions }),
      updatedAt: sql`now()`,
    })
    .where(eq(schema.roles.id, id))
    .returning()
    .then(oneRow);
  return { ...updated, membersCount: role.membersCount };
}

/**
 * A custom role can go once no member holds it and no pending invitation offers it. Invitations
 * that are history (accepted, revoked, expired) are deleted with it, and answered: they leave their
 * workspaces' lists (each gets its invitation.deleted, routes.ts).
 */
export async function deleteRole(db: AnyDb, caller: Caller, id: number): Promise<{ role: RoleRow; invitations: { id: number; workspaceId: number }[] }> {
  const role = await findRole(db, id, { lock: true });
  if (role.isBuiltin) throw immutable(role.name);
  // Before role_in_use: a caller who may not touch the role learns nothing about who holds it.
  await assertCanChangeRole(db, caller, role, role.permissions, "delete");
  const [pending] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(schema.invitations)
    .where(pendingInvitationsOffering(id));
  const pendingInvitations = pending?.n ?? 0;
  const companyHolders = await companyHoldersOf(db, id);
  if (role.membersCount > 0 || pendingInvitations > 0 || companyHolders > 0) {
    const parts = [];
    if (role.membersCount > 0) parts.push(`${role.membersCount} member${role.membersCount === 1 ? "" : "s"}`);
    if (companyHolders > 0) parts.push(`${companyHolders} user${companyHolders === 1 ? "" : "s"} at company level`);
    if (pendingInvitations > 0) parts.push(`${pendingInvitations} pending invitation${pendingInvitations === 1 ? "" : "s"}`);
    throw new AppError("role_in_use", `The role "${role.name}" is assigned to ${parts.join(" and ")}; reassign or revoke them first.`);
  }
  const invitations = await db
    .delete(schema.invitations)
    .where(
      and(
        eq(schema.invitations.roleId, id),
        or(isNotNull(schema.invitations.acceptedAt), isNotNull(schema.invitations.revokedAt), sql`${schema.invitations.expiresAt} <= now()`),
      ),
    )
    .returning({ id: schema.invitations.id, workspaceId: schema.invitations.workspaceId });
  await db.delete(schema.roles).where(eq(schema.roles.id, id));
  return { role, invitations: invitations.sort((x, y) => x.id - y.id) };
}
