import { and, asc, desc, eq, isNull, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { assertHeldInEvery, grantsOf } from "../../db/grants";
import { type Page, pageOfQuery, updatedSince } from "../../db/queries";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import type { WorkspaceContext } from "../../http/context";
import type { ListQuery } from "../../http/pagination";
import { sha256Hex } from "../../lib/crypto";
import { AppError, type FieldErrors, fieldError, notFound } from "../../lib/errors";
import { hashPassword } from "../../lib/password";
import { enqueueEmail } from "../outbox/service";
import { roleByName } from "../roles/service";

const { invitations, roles, users, workspaces, workspaceMembers } = schema;

const INVITATION_LIFETIME_DAYS = 7;

type InvitationStatus = "pending" | "accepted" | "revoked" | "expired";

const status = sql<InvitationStatus>`CASE
  WHEN ${invitations.acceptedAt} IS NOT NULL THEN 'accepted'
  WHEN ${invitations.revokedAt} IS NOT NULL THEN 'revoked'
  WHEN ${invitations.expiresAt} <= now() THEN 'expired'
  ELSE 'pending' END`;

const columns = {
  id: invitations.id,
  workspaceId: invitations.workspaceId,
  email: invitations.email,
  role: roles.name,
  status,
  expiresAt: invitations.expiresAt,
  createdAt: invitations.createdAt,
};

export type InvitationRow = {
  id: number;
  workspaceId: number;
  email: string;
  role: string;
  status: "pending" | "accepted" | "revoked" | "expired";
  expiresAt: Date;
  createdAt: Date;
};

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** 256 random bits, URL-safe. */
export const newInvitationToken = () => toBase64Url(crypto.getRandomValues(new Uint8Array(32)));

/** Only this is stored: the token itself is shown once, to the inviter and in the email. */
const hashInvitationToken = (token: string): Promise<string> => sha256Hex(token);

export function acceptUrl(appUrl: string | undefined, subdomain: string, token: string): string {
  const base = (appUrl ?? "https://app.sucursal.do").replace(/\/+$/, "");
  return `${base}/invitations/${encodeURIComponent(token)}/accept?tenant=${encodeURIComponent(subdomain)}`;
}

/**
 * Invites `email` to the request's workspace with `roleName`. A pending invitation of the same
 * address to the same workspace is revoked and replaced (a re-send). The email goes out through
 * the outbox, written in this transaction.
 */
export async function createInvitation(
  db: AnyDb,
  input: {
    tenant: { id: number; subdomain: string; name: string };
    workspace: WorkspaceContext;
    inviter: { id: number; name: string };
    email: string;
    roleName: string;
    appUrl?: string;
  },
): Promise<{ invitation: InvitationRow; token: string; outboxId: number }> {
  const { workspace } = input;
  const email = input.email.trim().toLowerCase();
  const role = await roleByName(db, input.roleName, "role", { share: true });
  // The role will be held in this workspace: the inviter must hold all of it here (or be admin here).
  assertHeldInEvery(await grantsOf(db, input.inviter.id), [workspace.id], role.permissions, `invite with the role "${role.name}"`);
  const [member] = await db
    .select({ id: users.id })
    .from(workspaceMembers)
    .innerJoin(users, eq(users.id, workspaceMembers.userId))
    .where(and(eq(workspaceMembers.workspaceId, workspace.id), sql`lower(${users.email}) = ${email}`));
  if (member) throw fieldError("email", "This person is already a member of the workspace.");

  await db
    .update(invitations)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(invitations.workspaceId, workspace.id), eq(invitations.email, email), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)));

  const token = newInvitationToken();
  const row = await db
    .insert(invitations)
    .values({
      tenantId: input.tenant.id,
      workspaceId: workspace.id,
      email,
      roleId: role.id,
      tokenHash: await hashInvitationToken(token),
      invitedBy: input.inviter.id,
      expiresAt: sql`now() + make_interval(days => ${INVITATION_LIFETIME_DAYS})`,
    })
    .returning()
    .then(oneRow);

  const link = acceptUrl(input.appUrl, input.tenant.subdomain, token);
  const subject = `Invitación a ${workspace.name} (${input.tenant.name})`;
  const outboxId = await enqueueEmail(db, input.tenant.id, {
    to: email,
    subject,
    template: "invitation",
    text: [
      `${input.inviter.name} te invitó a unirte a "${workspace.name}" de ${input.tenant.name} con el rol ${role.name}.`,
      "",
      `Acepta la invitación aquí: ${link}`,
      "",
      `El enlace vence en ${INVITATION_LIFETIME_DAYS} días.`,
    ].join("\n"),
  });

  const invitation: InvitationRow = {
    id: row.id,
    workspaceId: row.workspaceId,
    email: row.email,
    role: role.name,
    status: "pending",
    expiresAt: row.expiresAt,
    createdAt: row.createdAt,
  };
  return { invitation, token, outboxId };
}

export async function listInvitations(
  db: AnyDb,
  workspaceId: number,
  query: ListQuery<"status", "created_at" | "expires_at" | "email">,
): Promise<Page<InvitationRow>> {
  const column = { created_at: invitations.createdAt, expires_at: invitations.expiresAt, email: invitations.email, updated_at: invitations.updatedAt }[
    query.sort.field
  ];
  const where = and(
    eq(invitations.workspaceId, workspaceId),
    query.filters.status ? sql`${status} = ${query.filters.status}` : undefined,
    updatedSince(invitations.updatedAt, query),
  );
  const { rows, total } = await pageOfQuery(
    db,
    { table: invitations, id: invitations.id, where, order: [query.sort.descending ? desc(column) : asc(column), desc(invitations.id)], query },
    (page) =>
      db
        .select({ ...columns, ...page })
        .from(invitations)
        .innerJoin(roles, eq(roles.id, invitations.roleId))
        .$dynamic(),
  );
  return { rows: rows as InvitationRow[], total };
}

const notUsable = (why: string) => new AppError("invitation_not_usable", `This invitation is ${why} and can no longer be used.`);

/** Revokes a pending (or expired) invitation of the workspace; an accepted or revoked one → 410. */
export async function revokeInvitation(db: AnyDb, workspaceId: number, id: number): Promise<void> {
  const [row] = await db
    .select({ status })
    .from(invitations)
    .where(and(eq(invitations.id, id), eq(invitations.workspaceId, workspaceId)))
    .for("update");
  if (!row) throw notFound("Invitation");
  if (row.status === "accepted" || row.status === "revoked") throw notUsable(row.status);
  await db.update(invitations).set({ revokedAt: sql`now()` }).where(eq(invitations.id, id));
}

interface AcceptInput {
  token: string;
  tenantId: number;
  /** The caller when a bearer token was sent. */
  caller: { userId: number; email: string } | null;
  name?: string;
  password?: string;
}

/**
 * Accepts an invitation (row locked, so it is used once). With a bearer token the caller's email
 * must be the invitation's; without one the invitee must not have an account yet and sends name
 * and password to create it.
 */
/** What accepting an invitation did: the invitation, the user (created or existing) and their role in the workspace. */
export interface AcceptedInvitation {
  invitation: { id: number; email: string; status: InvitationStatus; workspaceId: number; workspaceName: string; roleId: number; roleName: string };
  user: { id: number; name: string; email: string; currentWorkspaceId: number | null };
  created: boolean;
  role: string;
}

export async function acceptInvitation(db: AnyDb, input: AcceptInput): Promise<AcceptedInvitation> {
  const [invitation] = await db
    .select({
      id: invitations.id,
      email: invitations.email,
      status,
      workspaceId: invitations.workspaceId,
      workspaceName: workspaces.name,
      roleId: invitations.roleId,
      roleName: roles.name,
    })
    .from(invitations)
    .innerJoin(workspaces, eq(workspaces.id, invitations.workspaceId))
    .innerJoin(roles, eq(roles.id, invitations.roleId))
    .where(eq(invitations.tokenHash, await hashInvitationToken(input.token)))
    .for("update", { of: invitations });
  if (!invitation) throw notFound("Invitation");
  if (invitation.status !== "pending") throw notUsable(invitation.status);

  let user: AcceptedInvitation["user"];
  let created = false;
  if (input.caller) {
    if (input.caller.email.toLowerCase() !== invitation.email.toLowerCase()) {
      throw new AppError("forbidden", "This invitation was sent to another email address.");
    }
    const row = await db.select().from(users).where(eq(users.id, input.caller.userId)).then(oneRow);
    user = row;
  } else {
    const [existing] = await db.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = ${invitation.email}`);
    if (existing) {
      throw new AppError("unauthenticated", "An account with this email already exists: sign in and send its bearer token to accept.");
    }
    const errors: FieldErrors = {};
    if (!input.name) errors.name = ["The name is required to create your account."];
    if (!input.password) errors.password = ["The password is required to create your account."];
    if (Object.keys(errors).length) throw new AppError("validation_failed", "The given data was invalid.", errors);
    const row = await db
      .insert(users)
      .values({
        tenantId: input.tenantId,
        name: input.name!,
        email: invitation.email,
        passwordHash: await hashPassword(input.password!),
        currentWorkspaceId: invitation.workspaceId,
      })
      .returning()
      .then(oneRow);
    user = row;
    created = true;
  }

  await db
    .insert(workspaceMembers)
    .values({ tenantId: input.tenantId, workspaceId: invitation.workspaceId, userId: user.id, roleId: invitation.roleId })
    .onConflictDoNothing();
  if (!created && user.currentWorkspaceId === null) {
    await db.update(users).set({ currentWorkspaceId: invitation.workspaceId, updatedAt: sql`now()` }).where(eq(users.id, user.id));
  }
  await db.update(invitations).set({ acceptedAt: sql`now()` }).where(eq(invitations.id, invitation.id));
  // Someone already a member keeps the role they have.
  const membership = await db
    .select({ role: roles.name })
    .from(workspaceMembers)
    .innerJoin(roles, eq(roles.id, workspaceMembers.roleId))
    .where(and(eq(workspaceMembers.workspaceId, invitation.workspaceId), eq(workspaceMembers.userId, user.id)))
    .then(oneRow);
  return { invitation, user, created, role: membership.role };
}
