import { requireAuth } from "../../http/auth";
import { type AppRouteHandler, commonErrors, createRouter, defineRoute, errorResponses, IdParam, jsonBody, jsonResponse, V1 } from "../../http/openapi";
import { paginate, paginated } from "../../http/pagination";
import { MessageResponse } from "../../http/schemas";
import { requireWorkspace } from "../../http/workspace";
import { timestamp } from "../../lib/format";
import { permissionCatalog } from "../../lib/permissions";
import { deletedEventData, emitEvent } from "../events/service";
import { CreateRoleBody, PermissionListResponse, Role, RoleListQuery, RoleResponse, UpdateRoleBody } from "./schemas";
import { createRole, deleteRole, listRoles, type RoleRow, updateRole } from "./service";

export const rolesRouter = createRouter();

export function serializeRole(role: RoleRow) {
  return {
    id: role.id,
    name: role.name,
    display_name: role.displayName,
    permissions: [...role.permissions].sort(),
    is_builtin: role.isBuiltin,
    members_count: role.membersCount,
    created_at: timestamp(role.createdAt),
    updated_at: timestamp(role.updatedAt),
  };
}

const listRoute = defineRoute(
  { permission: "roles:view" },
  {
    method: "get",
    path: `${V1}/roles`,
    tags: ["Roles"],
    summary: "List the tenant's roles (built-in and custom)",
    request: { query: RoleListQuery },
    responses: { 200: jsonResponse("Roles", paginated(Role)), ...commonErrors },
  },
);

export const list: AppRouteHandler<typeof listRoute> = async (c) => {
  const query = c.req.valid("query");
  const { rows, total } = await listRoles(c.var.db, query);
  return c.json(paginate(c, query, total, rows.map(serializeRole)), 200);
};
rolesRouter.openapi(listRoute, list);

const createRoute = defineRoute(
  { permission: "roles:create" },
  {
    method: "post",
    path: `${V1}/roles`,
    tags: ["Roles"],
    summary: "Create a custom role (409 duplicate_role_name for a name taken)",
    description: "The caller must hold every permission the role grants.",
    request: jsonBody(CreateRoleBody),
    responses: { 201: jsonResponse("Role created", RoleResponse), ...commonErrors, ...errorResponses(409) },
  },
);

export const create: AppRouteHandler<typeof createRoute> = async (c) => {
  const body = c.req.valid("json");
  const role = await createRole(c.var.db, c.get("tenant").id, requireWorkspace(c), {
    name: body.name,
    displayName: body.display_name,
    permissions: body.permissions,
  });
  return c.json({ data: serializeRole(role), message: "Role created." }, 201);
};
rolesRouter.openapi(createRoute, create);

const updateRoute = defineRoute(
  { permission: "roles:edit" },
  {
    method: "patch",
    path: `${V1}/roles/{id}`,
    tags: ["Roles"],
    summary: "Update a custom role's display name or permissions (built-in roles are refused)",
    description:
      "The caller must hold every permission of the role's current and new sets (or be admin) in every workspace where the role is held or offered by a pending invitation; a role held nowhere is checked in the request's workspace.",
    request: { params: IdParam, ...jsonBody(UpdateRoleBody) },
    responses: { 200: jsonResponse("Role updated", RoleResponse), ...commonErrors, ...errorResponses(404) },
  },
);

export const update: AppRouteHandler<typeof updateRoute> = async (c) => {
  const { id } = c.req.valid("param");
  const body = c.req.valid("json");
  const role = await updateRole(c.var.db, { userId: requireAuth(c).userId, workspace: requireWorkspace(c) }, id, {
    displayName: body.display_name,
    permissions: body.permissions,
  });
  return c.json({ data: serializeRole(role), message: "Role updated." }, 200);
};
rolesRouter.openapi(updateRoute, update);

const removeRoute = defineRoute(
  { permission: "roles:delete" },
  {
    method: "delete",
    path: `${V1}/roles/{id}`,
    tags: ["Roles"],
    summary: "Delete a custom role no member holds (built-in roles are refused)",
    description: "The caller must hold every permission of the role (or be admin) where it is held, else in the request's workspace.",
    request: { params: IdParam },
    responses: { 200: jsonResponse("Role deleted", MessageResponse), ...commonErrors, ...errorResponses(404, 409) },
  },
);

export const remove: AppRouteHandler<typeof removeRoute> = async (c) => {
  const { id } = c.req.valid("param");
  const { role, invitations } = await deleteRole(c.var.db, { userId: requireAuth(c).userId, workspace: requireWorkspace(c) }, id);
  // It leaves the list: the event tells a syncing client (docs/api.md, Deletions); so do the past
  // invitations that offered it, deleted with it, each from its workspace's list.
  await emitEvent(c, "role.deleted", null, deletedEventData(id, null));
  for (const invitation of invitations) {
    await emitEvent(c, "invitation.deleted", invitation.workspaceId, deletedEventData(invitation.id, invitation.workspaceId));
  }
  return c.json({ message: `Role "${role.name}" deleted.` }, 200);
};
rolesRouter.openapi(removeRoute, remove);

const permissionsRoute = defineRoute("authenticated", {
  method: "get",
  path: `${V1}/permissions`,
  tags: ["Roles"],
  summary: "The catalog of permission identifiers, each with a description",
  responses: { 200: jsonResponse("Permissions", PermissionListResponse), ...commonErrors },
});

export const permissions: AppRouteHandler<typeof permissionsRoute> = (c) =>
  c.json({ data: Object.entries(permissionCatalog).map(([name, description]) => ({ name, description })) }, 200);
rolesRouter.openapi(permissionsRoute, permissions);
