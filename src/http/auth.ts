import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./context";
import { beginTenantTransaction } from "./database";
import { AppError } from "./errors";
import { requestedWorkspaceId, resolveWorkspace, type WorkspaceRow } from "./workspace";

const unauthenticated = () => new AppError("unauthenticated", "Unauthenticated.");

/**
 * Everything a request needs to know about its caller, in one statement sent with BEGIN: the token
 * (unexpired, not revoked), the user (not deactivated), the target workspace and the permissions
 * there — the `request_context` function (drizzle/0011, re-created by 0014), whose plan the backend
 * caches. The values inlined are an integer and a uuid validated by the token parser, and an
 * integer header.
 */
function contextQuery(userId: number, tokenId: string, workspaceId: number | null): string {
  const header = workspaceId === null ? "NULL" : String(workspaceId);
  return `SELECT * FROM request_context('${tokenId}'::uuid, ${userId}, ${header})`;
}

/** Bearer auth: a verified token of this tenant, still valid in the database. */
export const authenticate = createMiddleware<AppEnv>(async (c, next) => {
  const claims = c.get("tokenClaims");
  if (!claims || claims.tenantId !== c.get("tenant").id) throw unauthenticated();
  const workspaceId = requestedWorkspaceId(c);
  const rows = await beginTenantTransaction(c, contextQuery(claims.userId, claims.tokenId, workspaceId));
  const row = rows[0];
  if (!row) throw unauthenticated();
  c.set("auth", {
    userId: Number(row.user_id),
    tokenId: claims.tokenId,
    name: String(row.name),
    email: String(row.email),
    currentWorkspaceId: row.current_workspace_id === null ? null : Number(row.current_workspace_id),
  });
  const workspace = resolveWorkspace(row as unknown as WorkspaceRow, workspaceId);
  if (workspace) c.set("workspace", workspace);
  await next();
});

export function requireAuth(c: Context<AppEnv>) {
  const auth = c.get("auth");
  if (!auth) throw unauthenticated();
  return auth;
}
