import { and, asc, desc, eq, sql } from "drizzle-orm";
import * as schema from "../../db/schema";
import type { WorkspaceContext } from "../../http/context";
import { AppError, notFound } from "../../http/errors";
import { assertGrantable, roleByName } from "../roles/service";
import type { AnyDb } from "../tenants/service";

const { workspaceMembers, users, roles, workspaces } = schema;

export async function listMembers(
  db: AnyDb,
  workspaceId: number,
  query: { page: number; perPage: number; filters: { role?: string }; sort: { field: "name" | "email" | "added_at"; descending: boolean } },
) {
  const column = { name: users.name, email: users.email, added_at: workspaceMembers.addedAt }[query.sort.field];
  const where = and(eq(workspaceMembers.workspaceId, workspaceId), query.filters.role ? eq(roles.name, query.filters.role) : undefined);
  const rows = await db
    .select({
      id: users.id,
      name: users.name,
      email: users.email,
      role: roles.name,
      addedAt: workspaceMembers.addedAt,
      total: sql<number>`count(*) OVER ()`.mapWith(Number),
    })
    .from(workspaceMembers)
    .innerJoin(users, eq(users.id, workspaceMembers.userId))
    .innerJoin(roles, eq(roles.id, workspaceMembers.roleId))
    .where(where)
    .orderBy(query.sort.descending ? desc(column) : asc(column), asc(users.id))
    .limit(query.perPage)
    .offset((query.page - 1) * query.perPage);
  let total = rows[0]?.total;
  if (total === undefined) {
    const [count] = await db
      .select({ n: sql<number>`count(*)`.mapWith(Number) })
      .from(workspaceMembers)
      .innerJoin(roles, eq(roles.id, workspaceMembers.roleId))
      .where(where);
    total = count?.n ?? 0;
  }
  return { rows, total };
}

/** The membership (locked) and whether the user owns the workspace; 404 when not a member. */
async function membership(db: AnyDb, workspaceId: number, userId: number) {
  const [row] = await db
    .select({ roleId: workspaceMembers.roleId, ownerId: workspaces.ownerId })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))
    .for("update", { of: workspaceMembers });
  if (!row) throw notFound("Member");
  return { ...row, isOwner: row.ownerId === userId };
}

export async function changeMemberRole(db: AnyDb, workspace: WorkspaceContext, userId: number, roleName: string) {
  const member = await membership(db, workspace.id, userId);
  if (member.isOwner) throw new AppError("owner_role_immutable", "The owner's role in their workspace cannot be changed.");
  const role = await roleByName(db, roleName);
  assertGrantable(workspace, role.permissions);
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
export async function removeMember(db: AnyDb, workspaceId: number, userId: number) {
  const member = await membership(db, workspaceId, userId);
  if (member.isOwner) throw new AppError("owner_cannot_be_removed", "The owner cannot be removed from the workspace; transfer ownership first.");
  await db.delete(workspaceMembers).where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)));
  await db
    .update(users)
    .set({ currentWorkspaceId: null, updatedAt: sql`now()` })
    .where(and(eq(users.id, userId), eq(users.currentWorkspaceId, workspaceId)));
}
