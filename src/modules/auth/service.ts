import { and, eq, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { type Page, pageOfQuery, updatedSince } from "../../db/queries";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import { AppError } from "../../lib/errors";
import { DUMMY_PASSWORD_HASH, verifyPassword } from "../../lib/password";
import { signAccessToken } from "../../lib/tokens";
import { membershipsOf } from "../users/service";

const DEFAULT_TOKEN_TTL_DAYS = 30;

export async function issueAccessToken(
  db: AnyDb,
  secret: string,
  input: { tenantId: number; userId: number; name: string; ttlDays?: number },
): Promise<{ token: string; tokenId: string; expiresAt: Date }> {
  const tokenId = crypto.randomUUID();
  const ttlDays = input.ttlDays ?? DEFAULT_TOKEN_TTL_DAYS;
  const expiresAt = new Date(Date.now() + ttlDays * 86_400_000);
  await db.insert(schema.accessTokens).values({ id: tokenId, tenantId: input.tenantId, userId: input.userId, name: input.name, expiresAt });
  const token = await signAccessToken(secret, { userId: input.userId, tenantId: input.tenantId, tokenId }, expiresAt);
  return { token, tokenId, expiresAt };
}

/**
 * Email and password of an active user of this tenant; one answer for every failure, so nothing is
 * hinted. A deactivated account is refused after the same hash verification as any other, so
 * neither the answer nor the time it takes tells that the account exists.
 */
export async function checkCredentials(db: AnyDb, email: string, password: string): Promise<number> {
  const [user] = await db
    .select({ id: schema.users.id, passwordHash: schema.users.passwordHash, deactivatedAt: schema.users.deactivatedAt })
    .from(schema.users)
    .where(sql`lower(${schema.users.email}) = ${email.trim().toLowerCase()}`);
  const valid = await verifyPassword(password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
  if (!user || !valid || user.deactivatedAt !== null) throw new AppError("invalid_credentials", "These credentials do not match our records.");
  return user.id;
}

export async function revokeAccessToken(db: AnyDb, tokenId: string): Promise<void> {
  await db
    .update(schema.accessTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(schema.accessTokens.id, tokenId)));
}

export async function describeUser(
  db: AnyDb,
  userId: number,
): Promise<{ user: typeof schema.users.$inferSelect; memberships: { id: number; name: string; role: string }[] }> {
  // Issued together: both leave in the request's one round trip (issue 46).
  const [user, memberships] = await Promise.all([db.select().from(schema.users).where(eq(schema.users.id, userId)).then(oneRow), membershipsOf(db, userId)]);
  return { user, memberships };
}

export async function listAccessTokens(
  db: AnyDb,
  userId: number,
  page: { page: number; perPage: number; updatedSince: Date | undefined },
  sort: { field: "created_at" | "last_used_at" | "expires_at" | "updated_at"; descending: boolean },
): Promise<Page<typeof schema.accessTokens.$inferSelect>> {
  const column = {
    created_at: schema.accessTokens.createdAt,
    last_used_at: schema.accessTokens.lastUsedAt,
    expires_at: schema.accessTokens.expiresAt,
    updated_at: schema.accessTokens.updatedAt,
  }[sort.field];
  const where = and(eq(schema.accessTokens.userId, userId), updatedSince(schema.accessTokens.updatedAt, page));
  const order = sort.descending ? sql`${column} DESC NULLS LAST, ${schema.accessTokens.id}` : sql`${column} ASC NULLS FIRST, ${schema.accessTokens.id}`;
  const { rows, total } = await pageOfQuery(db, { table: schema.accessTokens, id: schema.accessTokens.id, where, order: [order], query: page }, (columns) =>
    db
      .select({ token: schema.accessTokens, ...columns })
      .from(schema.accessTokens)
      .$dynamic(),
  );
  return { rows: rows.map((r) => r.token), total };
}

/** Revokes one of the user's own tokens; false when there is no such token of theirs. */
export async function revokeOwnToken(db: AnyDb, userId: number, tokenId: string): Promise<boolean> {
  const rows = await db
    .update(schema.accessTokens)
    .set({ revokedAt: sql`coalesce(${schema.accessTokens.revokedAt}, now())` })
    .where(and(eq(schema.accessTokens.id, tokenId), eq(schema.accessTokens.userId, userId)))
    .returning({ id: schema.accessTokens.id });
  return rows.length > 0;
}
