import { and, eq, isNull, type SQL, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import * as schema from "../../db/schema";
import { AppError } from "../../lib/errors";

/**
 * What a user holds in each workspace they are a member of. Roles apply tenant-wide but are held
 * per workspace, so a rule about "the caller's permissions" must say in which workspace: the
 * request's one only decides which routes the caller may reach.
 */
interface Grant {
  workspaceId: number;
  roleName: string;
  permissions: ReadonlySet<string>;
}

/** The built-in role that may do everything in a workspace. */
export const ADMIN_ROLE = "admin";

export const isAdminGrant = (grant: Grant | undefined): boolean => grant?.roleName === ADMIN_ROLE;

/** The user's memberships, by workspace id, in one statement. */
export async function grantsOf(db: AnyDb, userId: number): Promise<Map<number, Grant>> {
  const rows = await db
    .select({ workspaceId: schema.workspaceMembers.workspaceId, roleName: schema.roles.name, permissions: schema.roles.permissions })
    .from(schema.workspaceMembers)
    .innerJoin(schema.roles, eq(schema.roles.id, schema.workspaceMembers.roleId))
    .where(eq(schema.workspaceMembers.userId, userId));
  return new Map(rows.map((r) => [r.workspaceId, { workspaceId: r.workspaceId, roleName: r.roleName, permissions: new Set(r.permissions) }]));
}

/** The permissions of `required` that `grant` lacks (none when it is an admin grant). */
export function missingIn(grant: Grant | undefined, required: Iterable<string>): string[] {
  if (isAdminGrant(grant)) return [];
  return [...new Set(required)].filter((p) => !grant?.permissions.has(p)).sort();
}

/**
 * Refuses with 403 `forbidden` unless, in every workspace of `workspaceIds`, the user is an admin or
 * holds every permission of `required`. `what` completes "You need … to …".
 */
export function assertHeldInEvery(grants: Map<number, Grant>, workspaceIds: Iterable<number>, required: Iterable<string>, what: string): void {
  const needed = [...new Set(required)];
  for (const workspaceId of new Set(workspaceIds)) {
    const missing = missingIn(grants.get(workspaceId), needed);
    if (missing.length) {
      throw new AppError("forbidden", `You cannot ${what}: it needs ${missing.join(", ")} in workspace ${workspaceId}, which you do not hold there.`);
    }
  }
}

/**
 * What a user holds at company level (issue 41; docs/permissions.md, "The company and its
 * branches"): the role of their company_members row, which only the company's owner grants. It
 * answers the routes declared `level: "company"` (and "branches"), never a branch's: a branch role,
 * even admin, gives nothing here, and a company role gives nothing in a branch.
 */
export interface CompanyGrant {
  isOwner: boolean;
  roleName: string;
  permissions: ReadonlySet<string>;
}

/** The user's company role, or null when they hold none. */
export async function companyGrantOf(db: AnyDb, userId: number): Promise<CompanyGrant | null> {
  const [row] = await db
    .select({ isOwner: schema.companyMembers.isOwner, roleName: schema.roles.name, permissions: schema.roles.permissions })
    .from(schema.companyMembers)
    .innerJoin(schema.roles, eq(schema.roles.id, schema.companyMembers.roleId))
    .where(eq(schema.companyMembers.userId, userId));
  return row ? { isOwner: row.isOwner, roleName: row.roleName, permissions: new Set(row.permissions) } : null;
}

/** The permissions of `required` the company grant lacks (none for the owner and the admin role). */
export function missingAtCompanyLevel(grant: CompanyGrant | null, required: Iterable<string>): string[] {
  if (grant && (grant.isOwner || grant.roleName === ADMIN_ROLE)) return [];
  return [...new Set(required)].filter((p) => !grant?.permissions.has(p)).sort();
}

/** 403 `company_forbidden`: `what` completes "You cannot …". */
export function companyForbidden(what: string, missing: readonly string[]): AppError {
  return new AppError(
    "company_forbidden",
    `You cannot ${what}: it acts on the whole company and needs ${missing.join(", ")} at company level, which only the company's owner and the company roles the owner grants hold.`,
  );
}

/** Refuses with 403 `company_forbidden` unless the grant holds every permission of `required` at company level. */
export function assertCompanyHolds(grant: CompanyGrant | null, required: Iterable<string>, what: string): void {
  const missing = missingAtCompanyLevel(grant, required);
  if (missing.length) throw companyForbidden(what, missing);
}

/**
 * A branch-scoped act (a contingency of some branches, their printed representations): `permission`
 * at company level, or as a member of every branch it names (403 `forbidden` naming the first one
 * that fails: a branch is never silently dropped from the request). Naming none is an act on the
 * whole company (403 `company_forbidden` without it at company level).
 */
export async function assertHeldForBranches(
  db: AnyDb,
  caller: { userId: number; company: CompanyGrant | null },
  permission: string,
  workspaceIds: readonly number[] | null,
  what: string,
): Promise<void> {
  if (missingAtCompanyLevel(caller.company, [permission]).length === 0) return;
  if (workspaceIds === null) throw companyForbidden(what, [permission]);
  assertHeldInEvery(await grantsOf(db, caller.userId), workspaceIds, [permission], what);
}

/**
 * `column IN (workspaces where the user is a member holding `permission`)`, for a write's WHERE:
 * a row is written only under a permission held in the workspace that owns it. Membership only:
 * `view_all_locations` grants visibility, never writes.
 */
export function memberWorkspacesHolding(column: SQL | SQL.Aliased | { getSQL(): SQL }, userId: number, permission: string): SQL {
  return sql`${column} IN (SELECT m.workspace_id FROM workspace_members m JOIN roles r ON r.id = m.role_id
    WHERE m.user_id = ${userId} AND (${permission} = ANY(r.permissions) OR r.name = ${ADMIN_ROLE}))`;
}

/** Invitations still usable (not accepted, revoked or expired) that offer the role. */
export function pendingInvitationsOffering(roleId: number): SQL {
  return and(
    eq(schema.invitations.roleId, roleId),
    isNull(schema.invitations.acceptedAt),
    isNull(schema.invitations.revokedAt),
    sql`${schema.invitations.expiresAt} > now()`,
  )!;
}

/**
 * The workspaces where a role is held (a member has it) or would be held (a pending invitation
 * offers it): a change to the role's permissions takes effect in each of them.
 */
export async function workspacesHoldingRole(db: AnyDb, roleId: number): Promise<number[]> {
  const members = await db
    .selectDistinct({ workspaceId: schema.workspaceMembers.workspaceId })
    .from(schema.workspaceMembers)
    .where(eq(schema.workspaceMembers.roleId, roleId));
  const invited = await db.selectDistinct({ workspaceId: schema.invitations.workspaceId }).from(schema.invitations).where(pendingInvitationsOffering(roleId));
  return [...new Set([...members, ...invited].map((r) => r.workspaceId))].sort((a, b) => a - b);
}
