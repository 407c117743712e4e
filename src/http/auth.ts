import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./context";
import { beginTenantTransaction } from "./database";
import { AppError } from "./errors";
import { requestedWorkspaceId, resolveWorkspace, type WorkspaceRow } from "./workspace";

const unauthenticated = () => new AppError("unauthenticated", "Unauthenticated.");

/**
 * Everything a request needs to know about its caller, in one statement sent with BEGIN: the token
 * (unexpired, not revoked), the user, the target workspace and the permissions there. The values
 * inlined are an integer and a uuid validated by the token parser, and an integer header.
 */
function contextQuery(userId: number, tokenId: string, workspaceId: number | null): string {
  const header = workspaceId === null ? "NULL::integer" : `${workspaceId}::integer`;
  return `WITH tok AS (
  SELECT id, user_id FROM access_tokens
  WHERE id = '${tokenId}'::uuid AND user_id = ${userId} AND revoked_at IS NULL AND expires_at > now()
), touch AS (
  UPDATE access_tokens SET last_used_at = now()
  WHERE id = (SELECT id FROM tok) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
  RETURNING 1
), usr AS (
  SELECT u.id, u.name, u.email, u.current_workspace_id FROM users u JOIN tok ON tok.user_id = u.id
), memberships AS (
  SELECT m.workspace_id, r.name AS role_name, r.permissions
  FROM workspace_members m JOIN roles r ON r.id = m.role_id
  WHERE m.user_id = (SELECT id FROM usr)
), all_locations AS (
  SELECT array_agg(DISTINCT p) AS permissions
  FROM memberships, unnest(memberships.permissions) AS p
  WHERE 'view_all_locations' = ANY(memberships.permissions)
), target AS (
  SELECT CASE
    WHEN ${header} IS NOT NULL THEN ${header}
    WHEN (SELECT current_workspace_id FROM usr) IS NOT NULL AND ((SELECT current_workspace_id FROM usr) IN (SELECT workspace_id FROM memberships)
      OR (SELECT permissions FROM all_locations) IS NOT NULL) THEN (SELECT current_workspace_id FROM usr)
    ELSE (SELECT min(workspace_id) FROM memberships)
  END AS id
)
SELECT usr.id AS user_id, usr.name, usr.email, usr.current_workspace_id,
  w.id AS workspace_id, w.name AS workspace_name,
  (SELECT role_name FROM memberships WHERE workspace_id = w.id) AS role_name,
  (SELECT permissions FROM memberships WHERE workspace_id = w.id) AS member_permissions,
  (SELECT permissions FROM all_locations) AS all_locations_permissions
FROM usr LEFT JOIN workspaces w ON w.id = (SELECT id FROM target)`;
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
