import { eq, isNull, or, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { AppError } from "../lib/errors";

/**
 * The request's scope as services see it — tenant, caller and workspace; `c.var.scope`, set by
 * authenticate — and the workspace visibility rules of workspace-scoped rows (products, contacts).
 */
export interface RequestScope {
  tenantId: number;
  userId: number;
  /** The request's workspace (X-Workspace-ID or the user's current one). */
  workspaceId: number;
  /** The caller holds view_all_locations. */
  viewAll: boolean;
}

/** The refusal of a workspace the caller may not reach, or of rows of another workspace without view_all_locations. */
export const workspaceForbidden = () => new AppError("workspace_forbidden", "You do not have access to this workspace.");

/**
 * Workspace visibility of a workspace-scoped row (products, contacts) read or changed by id:
 * shared rows (workspace_id null) and rows of the request's workspace; every workspace's rows for
 * a caller with view_all_locations.
 */
export function visibleByIdCondition(column: PgColumn, scope: RequestScope): SQL | undefined {
  return scope.viewAll ? undefined : or(isNull(column), eq(column, scope.workspaceId));
}

/**
 * The list condition: by default the request's workspace and shared rows. `all` (every workspace)
 * and another workspace's id need view_all_locations (403 otherwise); `shared` lists only rows of
 * no workspace.
 */
export function listWorkspaceCondition(column: PgColumn, scope: RequestScope, filter: string | undefined): SQL | undefined {
  if (filter === undefined) return or(isNull(column), eq(column, scope.workspaceId));
  if (filter === "shared") return isNull(column);
  if (filter === "all") {
    if (!scope.viewAll) throw workspaceForbidden();
    return undefined;
  }
  const id = Number(filter);
  if (id !== scope.workspaceId && !scope.viewAll) throw workspaceForbidden();
  return eq(column, id);
}
