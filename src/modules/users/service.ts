import { and, asc, eq, ilike, isNotNull, isNull, ne, or, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { ADMIN_ROLE, companyGrantOf, grantsOf, isAdminGrant } from "../../db/grants";
import { likePattern, orderBy, pageOfQuery, updatedSince } from "../../db/queries";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import type { WorkspaceContext } from "../../http/context";
import type { ListQuery } from "../../http/pagination";
import { AppError, fieldError, notFound } from "../../lib/errors";
import { timestamp } from "../../lib/format";
import { hashPassword, verifyPassword } from "../../lib/password";

const { users, workspaces, workspaceMembers, roles, accessTokens } = schema;

type UserRow = Pick<typeof users.$inferSelect, "id" | "name" | "email" | "deactivatedAt" | "createdAt">;
type Membership = { id: number; name: string; role: string };

/**
 * The users routes are for the tenant's administrators: the caller must hold the built-in admin
 * role in the request's workspace as a member (a workspace reached through view_all_locations gives
 * no role there). The route's declared permission is only the first gate.
 */
export function assertAdmin(workspace: WorkspaceContext): void {
  if (workspace.roleName !== ADMIN_ROLE) {
    throw new AppError("forbidden", "Only an administrator of this workspace can manage the company's users.");
  }
}

/** A user as the API shows it. */
type UserData = ReturnType<typeof serializeUser>;

/** A user as the API shows it, with their workspaces (memberships, in workspace order). */
function serializeUser(user: UserRow, memberships: Membership[]) {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    status: user.deactivatedAt === null ? ("active" as const) : ("deactivated" as const),
    deactivated_at: timestamp(user.deactivatedAt),
    created_at: timestamp(user.createdAt),
    workspaces: memberships.map((m) => ({ id: m.id, name: m.name, role: m.role })),
  };
}

const userColumns = { id: users.id, name: users.name, email: users.email, deactivatedAt: users.deactivatedAt, createdAt: users.createdAt };

/** The workspaces (with role names) of a user, in workspace order (also what /me lists). */
export async function membershipsOf(db: AnyDb, userId: number): Promise<Membership[]> {
  return db
    .select({ id: workspaces.id, name: workspaces.name, role: roles.name })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .innerJoin(roles, eq(roles.id, workspaceMembers.roleId))
    .where(eq(workspaceMembers.userId, userId))
    .orderBy(asc(workspaces.id));
}

type UserFilter = "status" | "search";
type UserSort = "name" | "email" | "created_at" | "updated_at";

/**
 * Each user's workspaces (with role names) in workspace order, as JSON in the user's row: the list
 * reads its page, their memberships and its total in one statement (issue 46: one round trip per read).
 */
const workspacesOfUser = (db: AnyDb) =>
  sql<{ id: number; name: string; role: string }[]>`(${db
    .select({
      list: sql`coalesce(json_agg(json_build_object('id', ${workspaces.id}, 'name', ${workspaces.name}, 'role', ${roles.name}) ORDER BY ${workspaces.id}), '[]')`,
    })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .innerJoin(roles, eq(roles.id, workspaceMembers.roleId))
    .where(eq(workspaceMembers.userId, users.id))})`;

/** The tenant's users (row-level security keeps them to the tenant), each with their workspaces. */
export async function listUsers(db: AnyDb, query: ListQuery<UserFilter, UserSort>): Promise<{ data: UserData[]; total: number }> {
  const f = query.filters;
  const where = and(
    f.status === "active" ? isNull(users.deactivatedAt) : f.status === "deactivated" ? isNotNull(users.deactivatedAt) : undefined,
    f.search ? or(ilike(users.name, likePattern(f.search)), ilike(users.email, likePattern(f.search))) : undefined,
    updatedSince(users.updatedAt, query),
  );
  const column = { name: users.name, email: users.email, created_at: users.createdAt, updated_at: users.updatedAt }[query.sort.field];
  const { rows, total } = await pageOfQuery(
    db,
    { table: users, id: users.id, where, order: [orderBy(column, users.id, query.sort.descending)], query },
    (page) =>
      db
        .select({ user: userColumns, workspaces: workspacesOfUser(db), ...page })
        .from(users)
        .$dynamic(),
  );
  return { data: rows.map((r) => serializeUser(r.user, r.workspaces)), total };
}

/**
 * The target user, locked (concurrent deactivations and reactivations of one user run one after
 * the other), after checking the caller may act on them: an admin in EVERY workspace where the
 * target is a member — else an admin of one branch could lock out another branch's staff or admin.
 */
async function lockManageable(db: AnyDb, callerId: number, targetId: number, verb: string) {
  const [target] = await db.select(userColumns).from(users).where(eq(users.id, targetId)).for("update");
  if (!target) throw notFound("User");
  const memberships = await membershipsOf(db, targetId);
  // Someone the owner made a company role holder answers to the owner alone: an admin of every
  // branch they belong to (perhaps none) does not reach what they hold for the company (issue 41).
  const [atCompany] = await db.select({ isOwner: schema.companyMembers.isOwner }).from(schema.companyMembers).where(eq(schema.companyMembers.userId, targetId));
  // (The owner themselves is never deactivated: deactivateUser answers 409 for them.)
  if (atCompany && !atCompany.isOwner && !(await companyGrantOf(db, callerId))?.isOwner) {
    throw new AppError("company_forbidden", `Only the company's owner can ${verb} this user: they hold a role at company level.`);
  }
  const grants = await grantsOf(db, callerId);
  for (const membership of memberships) {
    if (!isAdminGrant(grants.get(membership.id))) {
      throw new AppError("forbidden", `You cannot ${verb} this user: they are a member of workspace ${membership.id}, where you are not an administrator.`);
    }
  }
  return { target, memberships, ownsCompany: atCompany?.isOwner ?? false };
}

/**
 * Deactivates a user: they cannot log in, and every token of theirs is revoked at once (a
 * reactivation therefore needs a new login). The owner of a workspace must hand it over first, and
 * nobody deactivates themselves (that would leave no one to undo it from this account). Deactivating
 * a deactivated user changes nothing (their first deactivated_at stays).
 */
export async function deactivateUser(db: AnyDb, callerId: number, targetId: number): Promise<UserData> {
  if (targetId === callerId) throw new AppError("conflict", "You cannot deactivate your own account.");
  const { target, memberships, ownsCompany } = await lockManageable(db, callerId, targetId, "deactivate");
  const [owned] = await db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.ownerId, targetId)).limit(1);
  if (owned) {
    throw new AppError("owner_cannot_be_deactivated", `This user owns workspace ${owned.id}: transfer its ownership before deactivating them.`);
  }
  if (ownsCompany)
    throw new AppError(
      "owner_cannot_be_deactivated",
      "This user owns the company: they hand it over (POST /company/transfer-ownership) before they can be deactivated.",
    );
  const updated = await db
    .update(users)
    .set({ deactivatedAt: sql`coalesce(${users.deactivatedAt}, now())`, updatedAt: sql`now()` })
    .where(eq(users.id, target.id))
    .returning(userColumns)
    .then(oneRow);
  await db
    .update(accessTokens)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(accessTokens.userId, target.id), isNull(accessTokens.revokedAt)));
  return serializeUser(updated, memberships);
}

/** Lets a deactivated user log in again; tokens revoked by the deactivation stay revoked. */
export async function reactivateUser(db: AnyDb, callerId: number, targetId: number): Promise<UserData> {
  const { target, memberships } = await lockManageable(db, callerId, targetId, "reactivate");
  const updated = await db.update(users).set({ deactivatedAt: null, updatedAt: sql`now()` }).where(eq(users.id, target.id)).returning(userColumns).then(oneRow);
  return serializeUser(updated, memberships);
}

/**
 * Changes the caller's password after checking the current one (a stolen token alone cannot take
 * the account over), and revokes the caller's other tokens: whoever held them must log in with the
 * new password. The token of this request keeps working. Returns how many tokens were revoked.
 */
export async function changePassword(db: AnyDb, auth: { userId: number; tokenId: string }, currentPassword: string, newPassword: string): Promise<number> {
  const [user] = await db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, auth.userId)).for("update");
  if (!user || !(await verifyPassword(currentPassword, user.passwordHash))) {
    throw fieldError("current_password", "The current password is incorrect.");
  }
  await db
    .update(users)
    .set({ passwordHash: await hashPassword(newPassword), updatedAt: sql`now()` })
    .where(eq(users.id, auth.userId));
  const revoked = await db
    .update(accessTokens)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(accessTokens.userId, auth.userId), ne(accessTokens.id, auth.tokenId), isNull(accessTokens.revokedAt)))
    .returning({ id: accessTokens.id });
  return revoked.length;
}
