import type { Context } from "hono";
import type { Database } from "../../db/client";
import { requireAuth } from "../../http/auth";
import type { AppEnv } from "../../http/context";
import { type AppRouteHandler, commonErrors, createRouter, defineRoute, errorResponses, IdParam, jsonBody, jsonResponse, V1 } from "../../http/openapi";
import { paginate, paginated } from "../../http/pagination";
import { MessageResponse } from "../../http/schemas";
import { requireWorkspace } from "../../http/workspace";
import { timestamp } from "../../lib/format";
import {
  CreateWorkspaceBody,
  TransferOwnershipBody,
  UpdateWorkspaceBody,
  WorkspaceContextResponse,
  WorkspaceCreatedResponse,
  WorkspaceDetailResponse,
  WorkspaceListItem,
  WorkspaceListQuery,
  WorkspaceTransferredResponse,
  WorkspaceUpdatedResponse,
} from "./schemas";
import {
  clearContext,
  createWorkspace,
  findVisibleWorkspace,
  listMembersOf,
  listWorkspaces,
  switchContext,
  transferOwnership,
  updateWorkspace,
  type Viewer,
  type WorkspaceListRow,
} from "./service";

export const workspacesRouter = createRouter();

/** The caller; `view_all_locations` held through any of their memberships widens what they see. */
function viewer(c: Context<AppEnv>): Viewer {
  return { userId: requireAuth(c).userId, allLocations: c.get("workspace")?.viewAllLocations ?? false };
}

function serializeListItem(row: Omit<WorkspaceListRow, "total">, userId: number) {
  return {
    id: row.id,
    name: row.name,
    owner_id: row.ownerId,
    owner: { id: row.ownerId, name: row.ownerName, email: row.ownerEmail },
    is_owner: row.ownerId === userId,
    role: row.role,
    created_at: timestamp(row.createdAt),
    updated_at: timestamp(row.updatedAt),
  };
}

const listRoute = defineRoute(
  { permission: "workspaces:view" },
  {
    method: "get",
    path: `${V1}/workspaces`,
    tags: ["Workspaces"],
    summary: "Workspaces the caller belongs to (every workspace of the tenant with view_all_locations)",
    request: { query: WorkspaceListQuery },
    responses: { 200: jsonResponse("Workspaces", paginated(WorkspaceListItem)), ...commonErrors },
  },
);

export const list: AppRouteHandler<typeof listRoute> = async (c) => {
  const query = c.req.valid("query");
  const who = viewer(c);
  const { rows, total } = await listWorkspaces(c.var.db, who, query);
  return c.json(
    paginate(
      c,
      query,
      total,
      rows.map((row) => serializeListItem(row, who.userId)),
    ),
    200,
  );
};
workspacesRouter.openapi(listRoute, list);

const createRoute = defineRoute(
  { permission: "workspaces:create" },
  {
    method: "post",
    path: `${V1}/workspaces`,
    tags: ["Workspaces"],
    summary: "Create a workspace: the caller becomes its owner and an admin member, and switches to it (409 duplicate_workspace_name for a name taken)",
    description: "Because the creator becomes admin there, the caller must hold every permission of the admin role.",
    "x-access-note": "and every permission of the admin role",
    request: jsonBody(CreateWorkspaceBody),
    responses: { 201: jsonResponse("Workspace created", WorkspaceCreatedResponse), ...commonErrors, ...errorResponses(409) },
  },
);

export const create: AppRouteHandler<typeof createRoute> = async (c) => {
  const { name, address, phone } = c.req.valid("json");
  const caller = { userId: requireAuth(c).userId, workspace: requireWorkspace(c) };
  const workspace = await createWorkspace(c.var.db, c.get("tenant").id, caller, name, { address, phone });
  return c.json(
    {
      data: { id: workspace.id, name: workspace.name, owner_id: workspace.ownerId, created_at: timestamp(workspace.createdAt) },
      message: "Workspace created.",
    },
    201,
  );
};
workspacesRouter.openapi(createRoute, create);

const showRoute = defineRoute(
  { permission: "workspaces:view" },
  {
    method: "get",
    path: `${V1}/workspaces/{id}`,
    tags: ["Workspaces"],
    summary: "A workspace the caller can see, with its members",
    request: { params: IdParam },
    responses: { 200: jsonResponse("Workspace", WorkspaceDetailResponse), ...commonErrors, ...errorResponses(404) },
  },
);

/** The workspace with its members, as GET /workspaces/{id} answers it. */
async function detail(db: Database, who: Viewer, id: number) {
  // Issued together, one round trip (issue 46): the members are answered only once the workspace
  // is found visible to the caller (404 otherwise).
  const [row, members] = await Promise.all([findVisibleWorkspace(db, who, id), listMembersOf(db, id)]);
  return {
    ...serializeListItem(row, who.userId),
    address: row.address,
    phone: row.phone,
    members: members.map((m) => ({ id: m.id, name: m.name, email: m.email, role: m.role, added_at: timestamp(m.addedAt) })),
  };
}

export const show: AppRouteHandler<typeof showRoute> = async (c) => {
  const { id } = c.req.valid("param");
  return c.json({ data: await detail(c.var.db, viewer(c), id) }, 200);
};
workspacesRouter.openapi(showRoute, show);

const updateRoute = defineRoute("authenticated", {
  method: "patch",
  path: `${V1}/workspaces/{id}`,
  tags: ["Workspaces"],
  summary: "Rename a workspace (its owner only; 409 duplicate_workspace_name for a name taken)",
  "x-access-note": "owner of the workspace only",
  request: { params: IdParam, ...jsonBody(UpdateWorkspaceBody) },
  responses: { 200: jsonResponse("Workspace updated", WorkspaceUpdatedResponse), ...commonErrors, ...errorResponses(404, 409) },
});

export const update: AppRouteHandler<typeof updateRoute> = async (c) => {
  const { id } = c.req.valid("param");
  const body = c.req.valid("json");
  const workspace = await updateWorkspace(c.var.db, viewer(c), id, { name: body.name, address: body.address, phone: body.phone });
  return c.json({ data: { id: workspace.id, name: workspace.name, updated_at: timestamp(workspace.updatedAt) }, message: "Workspace updated." }, 200);
};
workspacesRouter.openapi(updateRoute, update);

const transferRoute = defineRoute("authenticated", {
  method: "post",
  path: `${V1}/workspaces/{id}/transfer-ownership`,
  tags: ["Workspaces"],
  summary: "Hand a workspace to another of its members (its owner only)",
  description:
    "The new owner becomes admin there; the former owner stays a member with admin or `previous_owner_role`, and can then be changed or removed like any member. The caller must hold (or be admin) in this workspace every permission of both roles.",
  "x-access-note": "owner of the workspace only",
  request: { params: IdParam, ...jsonBody(TransferOwnershipBody) },
  responses: { 200: jsonResponse("Ownership transferred", WorkspaceTransferredResponse), ...commonErrors, ...errorResponses(404) },
});

export const transfer: AppRouteHandler<typeof transferRoute> = async (c) => {
  const { id } = c.req.valid("param");
  const body = c.req.valid("json");
  const who = viewer(c);
  const db = c.var.db;
  await transferOwnership(db, who, id, { userId: body.user_id, previousOwnerRole: body.previous_owner_role });
  const data = await detail(db, who, id);
  return c.json({ data, message: `Ownership transferred to ${data.owner.name}.` }, 200);
};
workspacesRouter.openapi(transferRoute, transfer);

const switchToRoute = defineRoute("authenticated", {
  method: "patch",
  path: `${V1}/workspace-context/{id}`,
  tags: ["Workspaces"],
  summary: "Make a workspace the caller's current workspace",
  "x-access-note": "a workspace the caller can see",
  request: { params: IdParam },
  responses: { 200: jsonResponse("Current workspace set", WorkspaceContextResponse), ...commonErrors, ...errorResponses(404) },
});

export const switchTo: AppRouteHandler<typeof switchToRoute> = async (c) => {
  const { id } = c.req.valid("param");
  const workspace = await switchContext(c.var.db, viewer(c), id);
  return c.json(
    {
      data: { current_workspace_id: workspace.id, workspace: { id: workspace.id, name: workspace.name } },
      message: `Current workspace set to "${workspace.name}".`,
    },
    200,
  );
};
workspacesRouter.openapi(switchToRoute, switchTo);

const clearRoute = defineRoute("authenticated", {
  method: "delete",
  path: `${V1}/workspace-context/{id}`,
  tags: ["Workspaces"],
  summary: "Clear the caller's current workspace when it is this one (requests then use their first workspace)",
  request: { params: IdParam },
  responses: { 200: jsonResponse("Context cleared or unchanged", MessageResponse), ...commonErrors, ...errorResponses(404) },
});

export const clear: AppRouteHandler<typeof clearRoute> = async (c) => {
  const { id } = c.req.valid("param");
  const cleared = await clearContext(c.var.db, viewer(c), id);
  return c.json(
    {
      message: cleared
        ? "Workspace context cleared; requests now use the first workspace you belong to."
        : "That workspace is not your current workspace; nothing changed.",
    },
    200,
  );
};
workspacesRouter.openapi(clearRoute, clear);
