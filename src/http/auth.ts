import { AsyncLocalStorage } from "node:async_hooks";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { CompanyGrant } from "../db/grants";
import { config } from "../env";
import { AppError } from "../lib/errors";
import { ExpiringMap } from "../lib/expiring-map";
import { verifyAccessToken } from "../lib/tokens";
import type { AppEnv } from "./context";
import { beginTenantTransaction, connectRequestTransaction, openTenantTransactionLater, readContextOverHttp, tenantDb } from "./database";
import { type RequestScope, workspaceForbidden } from "./scope";
import { PREDICTION_TTL_SECONDS, shareContext, sharedContext, unshareContext } from "./shared-contexts";
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
 * caches — and the caller's company role (`company`: db/grants.ts companyGrantOf's row as JSON, null
 * for none), so that a company-level route reads no grant of its own (http/permissions.ts
 * companyGrant) and a changed or revoked company role changes the context like a permission does.
 * The values inlined are an integer and a uuid validated by the token parser, and an integer header.
 */
function contextQuery(userId: number, tokenId: string, workspaceId: number | null): string {
  const header = workspaceId === null ? "NULL" : String(workspaceId);
  // One row always; a refused token's (user_id null) also sets the transaction's tenant to none
  // (0), so a statement sent with it (openLater) reads and writes nothing under RLS.
  return `SELECT ctx.*, (SELECT json_build_object('is_owner', cm.is_owner, 'role_name', r.name, 'permissions', r.permissions) FROM company_members cm JOIN roles r ON r.id = cm.role_id WHERE cm.user_id = ctx.user_id) AS company, set_config('app.tenant_id', CASE WHEN ctx.user_id IS NULL THEN '0' ELSE current_setting('app.tenant_id') END, true) AS tenant_gate FROM (SELECT 1) AS one LEFT JOIN request_context('${tokenId}'::uuid, ${userId}, ${header}) AS ctx ON true`;
}

/** request_context's row, or null for a token it refuses. */
function contextRow(rows: Record<string, unknown>[]): Record<string, unknown> | null {
  const row = rows[0];
  if (!row || row.user_id === null || row.user_id === undefined) return null;
  const { tenant_gate: _gate, ...context } = row;
  return context;
}

/**
 * The last context each user had in this isolate (per tenant and X-Workspace-ID), whatever token
 * they came with: a prediction, never a credential — each request's own token is checked by the
 * context query it sends. With one, the request runs as that context at once and its first statements
 * leave with BEGIN and the context query (RequestTransaction.openLater): one round trip for a read.
 * The context the database returns is checked against it before any result reaches the handler:
 * a token refused now is 401 as always; a context that changed (another workspace, other
 * permissions) has the request run again from the start with the context read first (`replayed`).
 * Bounded: oldest entry out first.
 */
const CONTEXT_TTL_MS = PREDICTION_TTL_SECONDS * 1000;
const CONTEXT_CACHE_MAX = 1000;
const contexts = new ExpiringMap<{ row: Record<string, unknown>; text: string }>(CONTEXT_CACHE_MAX);

/** This isolate's predictions forgotten, as in an isolate that has just started (tests). */
export function forgetPredictedContexts(): void {
  contexts.clear();
}

function remember(key: string, row: Record<string, unknown>): void {
  contexts.set(key, { row, text: JSON.stringify(row) }, Date.now() + CONTEXT_TTL_MS);
}

/**
 * Per dispatch of a request (`createApp` runs each in `dispatchSlot.run`): whether it is a replay,
 * and the request to run again in its place. Not keyed by the Request object: the body limiter
 * (http/request-checks.ts) wraps a request with a body in a new one.
 */
export interface DispatchSlot {
  replayed: boolean;
  again?: Request;
}
export const dispatchSlot = new AsyncLocalStorage<DispatchSlot>();

async function replay(c: Context<AppEnv>): Promise<void> {
  const slot = dispatchSlot.getStore();
  if (!slot) throw new ContextChanged();
  const raw = c.req.raw;
  const body = raw.method === "GET" || raw.method === "HEAD" ? undefined : await c.req.arrayBuffer();
  slot.again = new Request(raw.url, { method: raw.method, headers: raw.headers, body });
}

/** The context this isolate predicted is no longer the token's: the request runs again (`createApp`). */
class ContextChanged extends AppError {
  constructor() {
    super("service_unavailable", "The caller's context changed during the request; try again.", undefined, 0);
  }
}

/** The context row's `company` (contextQuery) as the grant the company-level rules read. */
function companyOf(value: unknown): CompanyGrant | null {
  if (!value || typeof value !== "object") return null;
  const grant = value as { is_owner: boolean; role_name: string; permissions: string[] | null };
  return { isOwner: grant.is_owner === true, roleName: String(grant.role_name), permissions: new Set(grant.permissions ?? []) };
}

function applyContext(
  c: Context<AppEnv>,
  claims: { tenantId: number; userId: number; tokenId: string },
  row: Record<string, unknown>,
  workspaceId: number | null,
) {
  c.set("auth", {
    userId: Number(row.user_id),
    tokenId: claims.tokenId,
    name: String(row.name),
    email: String(row.email),
    currentWorkspaceId: row.current_workspace_id === null ? null : Number(row.current_workspace_id),
  });
  c.set("db", c.get("tx")!.db);
  c.set("company", companyOf(row.company));
  const workspace = resolveWorkspace(row as unknown as WorkspaceRow, workspaceId);
  if (workspace) {
    c.set("workspace", workspace);
    c.set("scope", { tenantId: claims.tenantId, userId: claims.userId, workspaceId: workspace.id, viewAll: workspace.viewAllLocations });
  } else c.set("scope", scopeRefusing(workspaceForbidden, { tenantId: claims.tenantId, userId: claims.userId }));
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
  const statement = contextQuery(claims.userId, claims.tokenId, workspaceId);
  // By user, not token: the context is the user's (request_context answers nothing of the token but
  // whether it holds), so a new token of a known user — a login, another device — is predicted too.
  const key = `${claims.tenantId}:${claims.userId}:${workspaceId ?? ""}`;
  const replayed = dispatchSlot.getStore()?.replayed !== false;
  let predicted = replayed ? undefined : contexts.get(key);
  const waitUntil = (work: Promise<unknown>) => c.executionCtx.waitUntil(work);
  /** The context the database just returned for the caller, kept and shared; 401 when there is none. */
  const readNow = (rows: Record<string, unknown>[]) => {
    const row = contextRow(rows);
    if (!row) {
      unshareContext(waitUntil, key);
      throw unauthenticated();
    }
    remember(key, row);
    shareContext(waitUntil, key, row);
    return row;
  };
  if (!predicted && !replayed) {
    // Not seen by this isolate: perhaps by another of the data centre (http/shared-contexts.ts),
    // looked up while the connection opens.
    const [shared] = await Promise.all([sharedContext(key), connectRequestTransaction(c)]);
    if (shared) predicted = { row: shared, text: JSON.stringify(shared) };
    else {
      // Seen by none: a read over HTTP reads the context there alone, then runs on it as on a
      // prediction (its batch checks it again) — two HTTP round trips and no connection, where
      // BEGIN over the WebSocket took a connection and two.
      const rows = await readContextOverHttp(c, statement);
      if (rows) {
        const row = readNow(rows);
        predicted = { row, text: JSON.stringify(row) };
      }
    }
  }
  if (!predicted) {
    const row = readNow(await beginTenantTransaction(c, statement));
    applyContext(c, claims, row, workspaceId);
    await next();
    return;
  }
  let changed = false;
  const prediction = predicted;
  const tx = await openTenantTransactionLater(c, statement, (rows) => {
    const row = contextRow(rows);
    if (!row) {
      contexts.delete(key);
      unshareContext(waitUntil, key);
      throw unauthenticated();
    }
    const same = JSON.stringify(row) === prediction.text;
    if (!same) shareContext(waitUntil, key, row);
    remember(key, row);
    if (same) return;
    changed = true;
    throw new ContextChanged();
  });
  // Resolving the workspace may refuse (403) on the predicted context: judged again once confirmed.
  let refusal: unknown = null;
  try {
    applyContext(c, claims, prediction.row, workspaceId);
  } catch (error) {
    refusal = error;
  }
  if (!refusal) await next();
  // Nothing of the request leaves before the database has confirmed the predicted context.
  try {
    await tx.confirm();
  } catch (error) {
    if (changed) return replay(c);
    throw error;
  }
  if (refusal) throw refusal;
});

export function requireAuth(c: Context<AppEnv>) {
  const auth = c.get("auth");
  if (!auth) throw unauthenticated();
  return auth;
}
