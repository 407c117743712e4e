import { and, asc, desc, eq, ilike, ne, type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import type { AnyDb } from "../../db/client";
import { isUniqueViolation } from "../../db/errors";
import { ADMIN_ROLE, assertHeldInEvery, grantsOf } from "../../db/grants";
import { likePattern, type Page, pageOfQuery, updatedSince } from "../../db/queries";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import type { WorkspaceContext } from "../../http/context";
import type { ListQuery } from "../../http/pagination";
import { AppError, fieldError, notFound } from "../../lib/errors";
import { roleByName } from "../roles/service";

/** Who is looking: a member sees their workspaces; `view_all_locations` sees every one of the tenant. */
export interface Viewer {
  userId: number;
  allLocations: boolean;
}

const { workspaces, workspaceMembers, users, roles } = schema;

function visibleTo(viewer: Viewer): SQL | undefined {
  if (viewer.allLocations) return undefined;
  return sql`EXISTS (SELECT 1 FROM workspace_members vm WHERE vm.workspace_id = ${workspaces.id} AND vm.user_id = ${viewer.userId})`;
}

function listColumns(viewer: Viewer): { [K in keyof WorkspaceListRow]: SQL<WorkspaceListRow[K]> | PgColumn } {
  return {
    id: workspaces.id,
    name: workspaces.name,
    ownerId: workspaces.ownerId,
    ownerName: users.name,
    ownerEmail: users.email,
    address: workspaces.address,
    phone: workspaces.phone,
    role: sql<
      string | null
    >`(SELECT r.name FROM workspace_members rm JOIN roles r ON r.id = rm.role_id WHERE rm.workspace_id = ${workspaces.id} AND rm.user_id = ${viewer.userId})`,
    createdAt: workspaces.createdAt,
    updatedAt: workspaces.updatedAt,
  };
}

/** A workspace as lists read it (listColumns), with its owner and the viewer's role. */
export interface WorkspaceListRow {
  id: number;
  name: string;
  ownerId: number;
  ownerName: string;
  ownerEmail: string;
  address: string | null;
  phone: string | null;
  role: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export async function listWorkspaces(db: AnyDb, viewer: Viewer, query: ListQuery<"name", "id" | "name" | "created_at">): Promise<Page<WorkspaceListRow>> {
  const column = { id: workspaces.id, name: workspaces.name, created_at: workspaces.createdAt, updated_at: workspaces.updatedAt }[query.sort.field];
  const where = and(
    visibleTo(viewer),
    query.filters.name ? ilike(workspaces.name, likePattern(query.filters.name)) : undefined,
    updatedSince(workspaces.updatedAt, query),
  );
  const { rows, total } = await pageOfQuery(
    db,
    { table: workspaces, id: workspaces.id, where, order: [query.sort.descending ? desc(column) : asc(column), asc(workspaces.id)], query },
    (page) =>
      db
        .select({ ...listColumns(viewer), ...page })
        .from(workspaces)
        .innerJoin(users, eq(users.id, workspaces.ownerId))
        .$dynamic(),
  );
  return { rows, total };
}

/** A workspace the viewer can see, else 404 (whether it is missing, another tenant's or out of reach). */
export async function findVisibleWorkspace(db: AnyDb, viewer: Viewer, id: number): Promise<WorkspaceListRow> {
  const [row] = await db
    .select(listColumns(viewer))
    .from(workspaces)
    .innerJoin(users, eq(users.id, workspaces.ownerId))
    .where(and(eq(workspaces.id, id), visibleTo(viewer)));
  if (!row) throw notFound("Workspace");
  return row;
}

export async function listMembersOf(db: AnyDb, workspaceId: number): Promise<{ id: number; name: string; email: string; role: string; addedAt: Date }[]> {
  return db
    .select({ id: users.id, name: users.name, email: users.email, role: roles.name, addedAt: workspaceMembers.addedAt })
    .from(workspaceMembers)
    .innerJoin(users, eq(users.id, workspaceMembers.userId))
    .innerJoin(roles, eq(roles.id, workspaceMembers.roleId))
    .where(eq(workspaceMembers.workspaceId, workspaceId))
    .orderBy(asc(users.name), asc(users.id));
}

async function assertNameFree(db: AnyDb, name: string, exceptId?: number) {
  const [taken] = await db
    .select({ id: workspaces.id })
    .from(workspaces)
    .where(and(sql`lower(${workspaces.name}) = ${name.toLowerCase()}`, exceptId === undefined ? undefined : ne(workspaces.id, exceptId)));
  if (taken) throw duplicateName();
}

const duplicateName = () => fieldError("name", "A workspace with this name already exists.", "duplicate_workspace_name");

/**
 * The creator becomes the owner and an `admin` member, and the new workspace becomes their current
 * one: all in the request's transaction.
 */
export async function createWorkspace(
  db: AnyDb,
  tenantId: number,
  caller: { userId: number; workspace: WorkspaceContext },
  name: string,
  branch: BranchFields = {},
): Promise<typeof workspaces.$inferSelect> {
  const userId = caller.userId;
  const [adminRole] = await db
    .select({ id: roles.id, permissions: roles.permissions })
    .from(roles)
    .where(and(eq(roles.name, "admin"), eq(roles.isBuiltin, true)));
  if (!adminRole) throw new Error(`tenant ${tenantId} has no built-in admin role`);
  // The creator becomes admin there, and admin's view_all_locations reaches every workspace with
  // admin's permissions: so creating one is reserved to whoever already holds all of them.
  const missing = adminRole.permissions.filter((p) => !caller.workspace.permissions.has(p));
  if (missing.length) {
    throw new AppError(
      "forbidden",
      `Creating a workspace makes you its admin, so it requires every permission of the admin role; you lack ${missing.sort().join(", ")}.`,
    );
  }
  await assertNameFree(db, name);
  let workspace: typeof workspaces.$inferSelect;
  try {
    [workspace] = (await db
      .insert(workspaces)
      .values({ tenantId, name, ownerId: userId, address: branch.address ?? null, phone: branch.phone ?? null })
      .returning()) as [typeof workspaces.$inferSelect];
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateName();
    throw error;
  }
  await db.insert(workspaceMembers).values({ tenantId, workspaceId: workspace.id, userId, roleId: adminRole.id });
  await db.update(users).set({ currentWorkspaceId: workspace.id, updatedAt: sql`now()` }).where(eq(users.id, userId));
  return workspace;
}

/** Only the owner may change a workspace (404 when the caller cannot see it at all). */
/** The branch's address and phone: undefined leaves a field as it is, null clears it. */
export type BranchFields = { address?: string | null; phone?: string | null };

export async function updateWorkspace(db: AnyDb, viewer: Viewer, id: number, input: { name?: string } & BranchFields): Promise<typeof workspaces.$inferSelect> {
  const current = await findVisibleWorkspace(db, viewer, id);
  if (current.ownerId !== viewer.userId) throw new AppError("forbidden", "Only the owner of the workspace can update it.");
  if (input.name !== undefined) await assertNameFree(db, input.name, id);
  try {
    const updated = await db
      .update(workspaces)
      .set({
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.address === undefined ? {} : { address: input.address }),
        ...(input.phone === undefined ? {} : { phone: input.phone }),
        updatedAt: sql`now()`,
      })
      .where(eq(workspaces.id, id))
      .returning()
      .then(oneRow);
    return updated;
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateName();
    throw error;
  }
}

/**
 * Hands the workspace to another member: only its owner may (404 when the caller cannot see it).
 * The new owner becomes `admin` there (an owner's role is immutable, so it must be one that can do
 * everything); the former owner stays a member with `admin` or the role named, and from then on can
 * be changed or removed like any member. Both roles are assignments in this workspace, so the
 * caller must hold each one's permissions here (or be admin here), as for PATCH member.
 */
export async function transferOwnership(db: AnyDb, viewer: Viewer, id: number, input: { userId: number; previousOwnerRole?: string }): Promise<void> {
  await findVisibleWorkspace(db, viewer, id);
  // Locked: two transfers (or a transfer and a member change) of the same workspace serialize.
  const [current] = await db.select({ ownerId: workspaces.ownerId }).from(workspaces).where(eq(workspaces.id, id)).for("update");
  if (!current) throw notFound("Workspace");
  if (current.ownerId !== viewer.userId) throw new AppError("forbidden", "Only the owner of the workspace can transfer its ownership.");
  if (input.userId === viewer.userId) throw fieldError("user_id", "You already own this workspace.");
  const [target] = await db
    .select({ userId: workspaceMembers.userId })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, id), eq(workspaceMembers.userId, input.userId)))
    .for("update");
  if (!target) throw fieldError("user_id", "The new owner must be a member of the workspace.");
  // Shared lock on the heir's user row: a deactivation (which locks it for update before checking
  // ownership) either sees this transfer committed and refuses, or has committed and is seen here.
  const [heir] = await db.select({ deactivatedAt: users.deactivatedAt }).from(users).where(eq(users.id, input.userId)).for("share");
  if (!heir || heir.deactivatedAt !== null) throw fieldError("user_id", "The new owner must be an active user (this one is deactivated).");
  const admin = await roleByName(db, ADMIN_ROLE, "user_id", { share: true });
  const previous = input.previousOwnerRole === undefined ? admin : await roleByName(db, input.previousOwnerRole, "previous_owner_role", { share: true });
  const grants = await grantsOf(db, viewer.userId);
  assertHeldInEvery(grants, [id], admin.permissions, "make the new owner an admin");
  assertHeldInEvery(grants, [id], previous.permissions, `keep the role "${previous.name}"`);

  await db.update(workspaces).set({ ownerId: input.userId, updatedAt: sql`now()` }).where(eq(workspaces.id, id));
  await db
    .update(workspaceMembers)
    .set({ roleId: admin.id })
    .where(and(eq(workspaceMembers.workspaceId, id), eq(workspaceMembers.userId, input.userId)));
  await db
    .update(workspaceMembers)
    .set({ roleId: previous.id })
    .where(and(eq(workspaceMembers.workspaceId, id), eq(workspaceMembers.userId, viewer.userId)));
}

export async function switchContext(db: AnyDb, viewer: Viewer, id: number): Promise<WorkspaceListRow> {
  const workspace = await findVisibleWorkspace(db, viewer, id);
  await db.update(users).set({ currentWorkspaceId: id, updatedAt: sql`now()` }).where(eq(users.id, viewer.userId));
  return workspace;
}

/** Clears the current workspace when it is `id`; true when it did. */
export async function clearContext(db: AnyDb, viewer: Viewer, id: number): Promise<boolean> {
  const cleared = await db
    .update(users)
    .set({ currentWorkspaceId: null, updatedAt: sql`now()` })
    .where(and(eq(users.id, viewer.userId), eq(users.currentWorkspaceId, id)))
    .returning({ id: users.id });
  if (cleared.length) return true;
  await findVisibleWorkspace(db, viewer, id);
  return false;
}
