import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { config } from "../env";
import { AppError } from "../lib/errors";
import { verifyAccessToken } from "../lib/tokens";
import type { AppEnv } from "./context";
import { beginTenantTransaction, tenantDb } from "./database";
import { type RequestScope, workspaceForbidden } from "./scope";
import { requestedWorkspaceId, resolveWorkspace, type WorkspaceRow } from "./workspace";

const unauthenticated = () => new AppError("unauthenticated", "Unauthenticated.");

/**
 * A scope for a request without a workspace: reading a field it lacks throws `refusal()`. An
 * authenticated caller without a workspace (a company role and no branch) still has its tenant and
 * user, which the company-level routes need.
 */
function scopeRefusing(refusal: () => AppError, caller?: { tenantId: number; userId: number }): RequestScope {
  const refuse = (): never => {
    throw refusal();
  };
  return {
    get tenantId() {
      return caller ? caller.tenantId : refuse();
    },
    get userId() {
      return caller ? caller.userId : refuse();
    },
    get workspaceId() {
      return refuse();
    },
    get viewAll() {
      return refuse();
    },
  };
}

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

/**
 * `Authorization: Bearer …` parsed and its signature and expiry verified, once per request, before
 * any database work: the rate limiters count a verified token per user and anything else per IP;
 * `authenticate` then checks the token against the database.
 */
export const bearerToken = createMiddleware<AppEnv>(async (c, next) => {
  const match = c.req.header("authorization")?.match(/^Bearer\s+(\S+)$/i);
  const claims = match ? await verifyAccessToken(config(c.env).JWT_SECRET, match[1]!) : null;
  if (claims) c.set("tokenClaims", claims);
  await next();
});

/**
 * A public route: the tenant transaction opened and its handle on `c.var.db` — unless the route's
 * own middleware authenticated an optional token, which did both already.
 */
export const publicSession = createMiddleware<AppEnv>(async (c, next) => {
  if (!c.get("auth")) {
    c.set("db", await tenantDb(c));
    c.set("scope", scopeRefusing(unauthenticated));
  }
  await next();
});

/**
 * Bearer auth: a verified token of this tenant, still valid in the database. Sets `c.var.db`,
 * `c.var.auth` and, when the request has a workspace, `c.var.workspace`.
 */
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
  c.set("db", c.get("tx")!.db);
  const workspace = resolveWorkspace(row as unknown as WorkspaceRow, workspaceId);
  if (workspace) {
    c.set("workspace", workspace);
    c.set("scope", { tenantId: claims.tenantId, userId: claims.userId, workspaceId: workspace.id, viewAll: workspace.viewAllLocations });
  } else c.set("scope", scopeRefusing(workspaceForbidden, { tenantId: claims.tenantId, userId: claims.userId }));
  await next();
});

export function requireAuth(c: Context<AppEnv>) {
  const auth = c.get("auth");
  if (!auth) throw unauthenticated();
  return auth;
}
