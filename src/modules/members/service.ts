import { and, asc, desc, eq, sql } from "drizzle-orm";
import type { PgSelect } from "drizzle-orm/pg-core";
import type { AnyDb } from "../../db/client";
import { assertHeldInEvery, grantsOf } from "../../db/grants";
import { type Page, pageOfQuery, updatedSince } from "../../db/queries";
import * as schema from "../../db/schema";
import type { ListQuery } from "../../http/pagination";
import { AppError, notFound } from "../../lib/errors";
import { type Caller, roleByName } from "../roles/service";

const { workspaceMembers, users, roles, workspaces } = schema;

export async function listMembers(
  db: AnyDb,
  workspaceId: number,
  query: ListQuery<"role", "name" | "email" | "added_at">,
): Promise<Page<{ id: number; name: string; email: string; role: string; addedAt: Date }>> {
  const column = { name: users.name, email: users.email, added_at: workspaceMembers.addedAt, updated_at: workspaceMembers.updatedAt }[query.sort.field];
  const where = and(
    eq(workspaceMembers.workspaceId, workspaceId),
    query.filters.role ? eq(roles.name, query.filters.role) : undefined,
    updatedSince(workspaceMembers.updatedAt, query),
  );
  // A member is named by their user's id (one membership per user in the workspace); the role
  // filter and the sort read the joined user and role.
  const joined = (select: PgSelect) => select.innerJoin(users, eq(users.id, workspaceMembers.userId)).innerJoin(roles, eq(roles.id, workspaceMembers.roleId));
  return pageOfQuery(
    db,
    { table: workspaceMembers, id: users.id, joins: joined, where, order: [query.sort.descending ? desc(column) : asc(column), asc(users.id)], query },
    (page) =>
      db
        .select({ id: users.id, name: users.name, email: users.email, role: roles.name, addedAt: workspaceMembers.addedAt, ...page })
        .from(workspaceMembers)
        .innerJoin(users, eq(users.id, workspaceMembers.userId))
        .innerJoin(roles, eq(roles.id, workspaceMembers.roleId))
        .$dynamic(),
  );
}

/** The membership (locked) with its role, and whether the user owns the workspace; 404 when not a member. */
async function membership(db: AnyDb, workspaceId: number, userId: number) {
  // The workspace row first, shared: an ownership transfer (which locks it for update, then the
  // memberships) either has committed, and owner_id below is the new one, or waits for us. Without
  // it a member change racing a transfer read a stale owner_id, or lost the membership row the
  // transfer had just updated (a spurious 404).
  await db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, workspaceId)).for("share");
  const [row] = await db
    .select({ roleId: workspaceMembers.roleId, roleName: roles.name, permissions: roles.permissions, ownerId: workspaces.ownerId })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .innerJoin(roles, eq(roles.id, workspaceMembers.roleId))
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))
    .for("update", { of: workspaceMembers });
  if (!row) throw notFound("Member");
  return { ...row, isOwner: row.ownerId === userId };
}

/**
 * Acting on a member requires holding, in this workspace, every permission of the role they hold
 * now (or being admin here): a members:edit holder cannot demote or remove someone above them.
 */
function assertAbove(grants: Awaited<ReturnType<typeof grantsOf>>, workspaceId: number, member: { roleName: string; permissions: string[] }, what: string) {
  assertHeldInEvery(grants, [workspaceId], member.permissions, `${what} a member whose role (${member.roleName}) grants more than you hold`);
}

/**
 * Assigning a role requires holding each of its permissions in this workspace (where it will be
 * held), or being admin here; membership only: view_all_locations grants visibility, not grants.
 */
export async function changeMemberRole(db: AnyDb, caller: Caller, userId: number, roleName: string): Promise<typeof roles.$inferSelect> {
  const workspace = caller.workspace;
  const member = await membership(db, workspace.id, userId);
  if (member.isOwner) throw new AppError("owner_role_immutable", "The owner's role in their workspace cannot be changed.");
  const grants = await grantsOf(db, caller.userId);
  assertAbove(grants, workspace.id, member, "change the role of");
  const role = await roleByName(db, roleName, "role", { share: true });
  assertHeldInEvery(grants, [workspace.id], role.permissions, `assign the role "${role.name}"`);
  await db
    .update(workspaceMembers)
    .set({ roleId: role.id })
    .where(and(eq(workspaceMembers.workspaceId, workspace.id), eq(workspaceMembers.userId, userId)));
  return role;
}

/**
 * Removes the membership. The user keeps their account and tokens but loses this workspace at
 * once; if it was their current workspace, their context falls back to their first workspace.
 */
export async function removeMember(db: AnyDb, caller: Caller, userId: number): Promise<void> {
  const workspaceId = caller.workspace.id;
  const member = await membership(db, workspaceId, userId);
  if (member.isOwner) throw new AppError("owner_cannot_be_removed", "The owner cannot be removed from the workspace; transfer ownership first.");
  assertAbove(await grantsOf(db, caller.userId), workspaceId, member, "remove");
  await db.delete(workspaceMembers).where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)));
  await db
    .update(users)
    .set({ currentWorkspaceId: null, updatedAt: sql`now()` })
    .where(and(eq(users.id, userId), eq(users.currentWorkspaceId, workspaceId)));
}
