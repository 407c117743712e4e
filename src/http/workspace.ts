import type { Context } from "hono";
import { isIdText } from "../lib/bounds";
import { fieldError } from "../lib/errors";
import type { AppEnv, WorkspaceContext } from "./context";
import { workspaceForbidden } from "./scope";

export interface WorkspaceRow {
  workspace_id: number | null;
  workspace_name: string | null;
  role_name: string | null;
  member_permissions: string[] | null;
  all_locations_permissions: string[] | null;
}

/** `X-Workspace-ID`: absent → null; anything but a positive integer → 422. */
export function requestedWorkspaceId(c: Context<AppEnv>): number | null {
  const raw = c.req.header("x-workspace-id");
  if (raw === undefined || raw === "") return null;
  if (!isIdText(raw.trim())) {
    throw fieldError("X-Workspace-ID", "The X-Workspace-ID header must be a workspace id (a positive integer).");
  }
  return Number(raw);
}

/**
 * What a caller may do in a workspace reached only through `view_all_locations`: see it, never
 * write in it. Of the permissions of the roles granting view_all_locations, only the `:view` ones
 * (and view_all_locations itself) apply there; a write needs a role held in that workspace.
 */
export function visibilityOnly(permissions: readonly string[]): string[] {
  return permissions.filter((p) => p.endsWith(":view") || p === "view_all_locations");
}

/**
 * The workspace of the request: reachable by membership (its role's permissions apply) or by
 * `view_all_locations` (then only the `:view` permissions of the roles granting it apply: writes
 * there are 403 forbidden). A header naming a workspace that is missing, of another tenant
 * (invisible under RLS) or not reachable → 403 workspace_forbidden.
 */
export function resolveWorkspace(row: WorkspaceRow, requested: number | null): WorkspaceContext | null {
  const allLocations = row.all_locations_permissions;
  if (row.workspace_id === null) {
    if (requested !== null) throw workspaceForbidden();
    return null;
  }
  const permissions = row.member_permissions ?? (allLocations && visibilityOnly(allLocations));
  if (!permissions) {
    if (requested !== null) throw workspaceForbidden();
    return null;
  }
  return {
    id: Number(row.workspace_id),
    name: String(row.workspace_name),
    roleName: row.role_name,
    permissions: new Set(permissions),
    viewAllLocations: allLocations !== null,
  };
}

export function requireWorkspace(c: Context<AppEnv>): WorkspaceContext {
  const workspace = c.get("workspace");
  if (!workspace) throw workspaceForbidden();
  return workspace;
}
