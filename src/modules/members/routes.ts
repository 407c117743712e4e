import { requireAuth } from "../../http/auth";
import { type AppRouteHandler, commonErrors, createRouter, defineRoute, errorResponses, jsonBody, jsonResponse, V1 } from "../../http/openapi";
import { paginate, paginated } from "../../http/pagination";
import { MessageResponse } from "../../http/schemas";
import { requireWorkspace } from "../../http/workspace";
import { timestamp } from "../../lib/format";
import { deletedEventData, emitEvent } from "../events/service";
import { WorkspaceMember } from "../workspaces/schemas";
import { MemberListQuery, UpdateMemberBody, UserIdParam } from "./schemas";
import { changeMemberRole, listMembers, removeMember } from "./service";

/** Members of the request's workspace (X-Workspace-ID, else the caller's current workspace). */
export const membersRouter = createRouter();

const listRoute = defineRoute(
  { permission: "members:view" },
  {
    method: "get",
    path: `${V1}/workspace/members`,
    tags: ["Members"],
    summary: "Members of the request's workspace",
    request: { query: MemberListQuery },
    responses: { 200: jsonResponse("Members", paginated(WorkspaceMember)), ...commonErrors },
  },
);

export const list: AppRouteHandler<typeof listRoute> = async (c) => {
  const query = c.req.valid("query");
  const { rows, total } = await listMembers(c.var.db, requireWorkspace(c).id, query);
  const data = rows.map((m) => ({ id: m.id, name: m.name, email: m.email, role: m.role, added_at: timestamp(m.addedAt) }));
  return c.json(paginate(c, query, total, data), 200);
};
membersRouter.openapi(listRoute, list);

const updateRoute = defineRoute(
  { permission: "members:edit" },
  {
    method: "patch",
    path: `${V1}/workspace/members/{user_id}`,
    tags: ["Members"],
    summary: "Change a member's role in the request's workspace (not the owner's)",
    description:
      "The caller must hold (or be admin) in this workspace every permission of the member's current role and of the role they assign. `role` names one of the company's roles (built-in or custom): another name is a 422 on it.",
    request: { params: UserIdParam, ...jsonBody(UpdateMemberBody) },
    responses: { 200: jsonResponse("Role changed", MessageResponse), ...commonErrors, ...errorResponses(404, 409) },
  },
);

export const update: AppRouteHandler<typeof updateRoute> = async (c) => {
  const { user_id } = c.req.valid("param");
  const { role } = c.req.valid("json");
  const assigned = await changeMemberRole(c.var.db, { userId: requireAuth(c).userId, workspace: requireWorkspace(c) }, user_id, role);
  return c.json({ message: `Role changed to "${assigned.name}".` }, 200);
};
membersRouter.openapi(updateRoute, update);

const removeRoute = defineRoute(
  { permission: "members:delete" },
  {
    method: "delete",
    path: `${V1}/workspace/members/{user_id}`,
    tags: ["Members"],
    summary: "Remove a member from the request's workspace (not the owner)",
    description: "The caller must hold (or be admin) in this workspace every permission of the member's current role.",
    request: { params: UserIdParam },
    responses: { 200: jsonResponse("Member removed", MessageResponse), ...commonErrors, ...errorResponses(404, 409) },
  },
);

export const remove: AppRouteHandler<typeof removeRoute> = async (c) => {
  const { user_id } = c.req.valid("param");
  const workspace = requireWorkspace(c);
  await removeMember(c.var.db, { userId: requireAuth(c).userId, workspace }, user_id);
  // It leaves the list: the event tells a syncing client (docs/api.md, Deletions).
  await emitEvent(c, "member.deleted", workspace.id, deletedEventData(user_id, workspace.id));
  return c.json({ message: "Member removed from the workspace." }, 200);
};
membersRouter.openapi(removeRoute, remove);
