import { createMiddleware } from "hono/factory";
import { config } from "../../env";
import { authenticate, requireAuth } from "../../http/auth";
import type { AppEnv } from "../../http/context";
import { type AppRouteHandler, commonErrors, createRouter, defineRoute, errorResponses, IdParam, jsonBody, jsonResponse, V1 } from "../../http/openapi";
import { paginate, paginated } from "../../http/pagination";
import { MessageResponse } from "../../http/schemas";
import { requireWorkspace } from "../../http/workspace";
import { timestamp } from "../../lib/format";
import { issueAccessToken } from "../auth/service";
import {
  AcceptedInvitationResponse,
  AcceptInvitationBody,
  CreatedInvitationResponse,
  CreateInvitationBody,
  Invitation,
  InvitationListQuery,
  TokenParam,
} from "./schemas";
import { acceptInvitation, createInvitation, type InvitationRow, listInvitations, revokeInvitation } from "./service";

export const invitationsRouter = createRouter();

function serializeInvitation(row: InvitationRow) {
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    email: row.email,
    role: row.role,
    status: row.status,
    expires_at: timestamp(row.expiresAt),
    created_at: timestamp(row.createdAt),
  };
}

const createRoute = defineRoute(
  { permission: "invitations:create" },
  {
    method: "post",
    path: `${V1}/workspace/invitations`,
    tags: ["Invitations"],
    summary: "Invite someone to the request's workspace; the token is shown only in this response",
    description: "The invitee gets an email (through the outbox) with the acceptance link. The caller must hold every permission of the role offered.",
    request: jsonBody(CreateInvitationBody),
    responses: { 201: jsonResponse("Invitation sent", CreatedInvitationResponse), ...commonErrors },
  },
);

export const create: AppRouteHandler<typeof createRoute> = async (c) => {
  const body = c.req.valid("json");
  const auth = requireAuth(c);
  const { invitation, token, outboxId } = await createInvitation(c.var.db, {
    tenant: c.get("tenant"),
    workspace: requireWorkspace(c),
    inviter: { id: auth.userId, name: auth.name },
    email: body.email,
    roleName: body.role,
    appUrl: config(c.env).APP_URL,
  });
  c.var.outbox.push(outboxId);
  return c.json({ data: { ...serializeInvitation(invitation), token }, message: `Invitation sent to ${invitation.email}.` }, 201);
};
invitationsRouter.openapi(createRoute, create);

const listRoute = defineRoute(
  { permission: "invitations:view" },
  {
    method: "get",
    path: `${V1}/workspace/invitations`,
    tags: ["Invitations"],
    summary: "Invitations of the request's workspace (never their tokens)",
    request: { query: InvitationListQuery },
    responses: { 200: jsonResponse("Invitations", paginated(Invitation)), ...commonErrors },
  },
);

export const list: AppRouteHandler<typeof listRoute> = async (c) => {
  const query = c.req.valid("query");
  const { rows, total } = await listInvitations(c.var.db, requireWorkspace(c).id, query);
  return c.json(paginate(c, query, total, rows.map(serializeInvitation)), 200);
};
invitationsRouter.openapi(listRoute, list);

const revokeRoute = defineRoute(
  { permission: "invitations:delete" },
  {
    method: "delete",
    path: `${V1}/workspace/invitations/{id}`,
    tags: ["Invitations"],
    summary: "Revoke an invitation of the request's workspace",
    request: { params: IdParam },
    responses: { 200: jsonResponse("Invitation revoked", MessageResponse), ...commonErrors, ...errorResponses(404, 410) },
  },
);

export const revoke: AppRouteHandler<typeof revokeRoute> = async (c) => {
  const { id } = c.req.valid("param");
  await revokeInvitation(c.var.db, requireWorkspace(c).id, id);
  return c.json({ message: "Invitation revoked." }, 200);
};
invitationsRouter.openapi(revokeRoute, revoke);

/** A bearer token is optional here; when one is sent it must be valid (else 401). */
const optionalAuthentication = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.header("authorization") !== undefined) return authenticate(c, next);
  await next();
});

const acceptRoute = defineRoute("public", {
  method: "post",
  path: `${V1}/invitations/{token}/accept`,
  tags: ["Invitations"],
  summary: "Accept an invitation",
  description:
    "Someone without an account sends name and password and gets an account in the tenant (201, with an access token). " +
    "Someone who has an account sends their bearer token, whose email must be the invitation's (200). " +
    "An expired, revoked or already used invitation → 410 invitation_not_usable.",
  "x-access-note": "the invitation token; a bearer token too when the invitee already has an account",
  middleware: [optionalAuthentication] as const,
  request: { params: TokenParam, body: { content: { "application/json": { schema: AcceptInvitationBody } }, required: false } },
  responses: {
    200: jsonResponse("Accepted by an existing user", AcceptedInvitationResponse),
    201: jsonResponse("Accepted; account created", AcceptedInvitationResponse),
    ...errorResponses(401, 403, 404, 410, 422, 429),
  },
});

export const accept: AppRouteHandler<typeof acceptRoute> = async (c) => {
  const { token } = c.req.valid("param");
  const body = c.req.valid("json");
  const auth = c.get("auth");
  const tenant = c.get("tenant");
  const db = c.var.db;
  const result = await acceptInvitation(db, {
    token,
    tenantId: tenant.id,
    caller: auth ? { userId: auth.userId, email: auth.email } : null,
    name: body.name,
    password: body.password,
  });
  const issued = result.created
    ? await issueAccessToken(db, config(c.env).JWT_SECRET, {
        tenantId: tenant.id,
        userId: result.user.id,
        name: "invitation",
        ttlDays: config(c.env).ACCESS_TOKEN_TTL_DAYS,
      })
    : null;
  const data = {
    user: { id: result.user.id, name: result.user.name, email: result.user.email },
    workspace: { id: result.invitation.workspaceId, name: result.invitation.workspaceName },
    role: result.role,
    account_created: result.created,
    token: issued?.token ?? null,
    token_expires_at: issued ? timestamp(issued.expiresAt) : null,
  };
  const message = `You joined "${result.invitation.workspaceName}".`;
  return result.created ? c.json({ data, message }, 201) : c.json({ data, message }, 200);
};
invitationsRouter.openapi(acceptRoute, accept);
