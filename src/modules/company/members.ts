import { asc, desc, eq } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { ADMIN_ROLE } from "../../db/grants";
import * as schema from "../../db/schema";
import { AppError, fieldError, notFound } from "../../lib/errors";
import { timestamp } from "../../lib/format";
import { roleByName } from "../roles/service";
import type { CompanyMember } from "./schemas";

/**
 * The company's own grants (issue 41; docs/permissions.md, "The company and its branches"): who
 * holds a role at company level. The owner alone grants, changes and revokes them, and hands the
 * company over; the owner's own row (admin) can only change by that hand-over. Each change locks the
 * owner's row first, so two changes (or a change and a hand-over) run one after the other.
 */

const cm = schema.companyMembers;
const { users, roles } = schema;

const memberColumns = {
  userId: cm.userId,
  name: users.name,
  email: users.email,
  role: roles.name,
  isOwner: cm.isOwner,
  deactivatedAt: users.deactivatedAt,
  addedAt: cm.addedAt,
};

type MemberRow = { userId: number; name: string; email: string; role: string; isOwner: boolean; deactivatedAt: Date | null; addedAt: Date };

export function serializeCompanyMember(row: MemberRow): CompanyMember {
  return {
    user_id: row.userId,
    name: row.name,
    email: row.email,
    role: row.role,
    is_owner: row.isOwner,
    status: row.deactivatedAt === null ? "active" : "deactivated",
    added_at: timestamp(row.addedAt),
  };
}

const memberQuery = (db: AnyDb) => db.select(memberColumns).from(cm).innerJoin(users, eq(users.id, cm.userId)).innerJoin(roles, eq(roles.id, cm.roleId));

/** The company's role holders, the owner first, then by name. */
export async function listCompanyMembers(db: AnyDb): Promise<MemberRow[]> {
  return memberQuery(db).orderBy(desc(cm.isOwner), asc(users.name), asc(cm.userId));
}

async function companyMember(db: AnyDb, userId: number): Promise<MemberRow> {
  const [row] = await memberQuery(db).where(eq(cm.userId, userId));
  if (!row) throw notFound("Company member");
  return row;
}

/** The owner's row, locked; anyone else → 403 company_forbidden. */
async function lockOwnership(db: AnyDb, callerId: number): Promise<number> {
  const [owner] = await db.select({ userId: cm.userId }).from(cm).where(eq(cm.isOwner, true)).for("update");
  if (owner?.userId !== callerId) {
    throw new AppError("company_forbidden", "Only the company's owner grants, changes and revokes roles at company level, and hands the company over.");
  }
  return owner.userId;
}

/** An active user of the tenant, share-locked: a deactivation (which locks it for update) waits, or is seen. */
async function activeUser(db: AnyDb, userId: number, field: string): Promise<void> {
  const [user] = await db.select({ deactivatedAt: users.deactivatedAt }).from(users).where(eq(users.id, userId)).for("share");
  if (!user) throw notFound("User");
  if (user.deactivatedAt !== null) throw fieldError(field, "This user is deactivated: reactivate them first.");
}

/** PUT /company/members/{user_id}: grants `roleName` at company level, or changes the role held there. */
export async function grantCompanyRole(db: AnyDb, callerId: number, userId: number, roleName: string): Promise<{ member: MemberRow; created: boolean }> {
  const ownerId = await lockOwnership(db, callerId);
  if (userId === ownerId) throw new AppError("owner_role_immutable", "The company's owner holds admin at company level: hand the company over to change it.");
  await activeUser(db, userId, "user_id");
  const role = await roleByName(db, roleName, "role", { share: true });
  const [before] = await db.select({ userId: cm.userId }).from(cm).where(eq(cm.userId, userId));
  await db
    .insert(cm)
    .values({ tenantId: role.tenantId, userId, roleId: role.id })
    .onConflictDoUpdate({ target: cm.userId, set: { roleId: role.id } });
  return { member: await companyMember(db, userId), created: !before };
}

/** DELETE /company/members/{user_id}: the user holds nothing at company level any more. */
export async function revokeCompanyRole(db: AnyDb, callerId: number, userId: number): Promise<void> {
  const ownerId = await lockOwnership(db, callerId);
  if (userId === ownerId) throw new AppError("owner_cannot_be_removed", "The company's owner cannot lose their role: hand the company over first.");
  const removed = await db.delete(cm).where(eq(cm.userId, userId)).returning({ userId: cm.userId });
  if (!removed.length) throw notFound("Company member");
}

/**
 * POST /company/transfer-ownership: the heir (an active user) becomes the owner, with admin at
 * company level; the former owner keeps admin there, or `previousOwnerRole`, and from then on can be
 * changed or revoked by the new owner like anyone.
 */
export async function transferCompanyOwnership(db: AnyDb, callerId: number, input: { userId: number; previousOwnerRole?: string }): Promise<MemberRow> {
  await lockOwnership(db, callerId);
  if (input.userId === callerId) throw fieldError("user_id", "You already own the company.");
  await activeUser(db, input.userId, "user_id");
  const admin = await roleByName(db, ADMIN_ROLE, "user_id", { share: true });
  const previous = input.previousOwnerRole === undefined ? admin : await roleByName(db, input.previousOwnerRole, "previous_owner_role", { share: true });
  // One owner per company (a unique index): the former owner steps down before the heir steps up.
  await db.update(cm).set({ isOwner: false, roleId: previous.id }).where(eq(cm.userId, callerId));
  await db
    .insert(cm)
    .values({ tenantId: admin.tenantId, userId: input.userId, roleId: admin.id, isOwner: true })
    .onConflictDoUpdate({ target: cm.userId, set: { roleId: admin.id, isOwner: true } });
  return companyMember(db, input.userId);
}
