import { z } from "@hono/zod-openapi";
import { config } from "../../env";
import { requireAuth } from "../../http/auth";
import { errorStatus } from "../../http/errors";
import { type AppRouteHandler, commonErrors, createRouter, defineRoute, errorResponses, jsonBody, jsonResponse, V1 } from "../../http/openapi";
import { listQuerySchema, paginate, paginated } from "../../http/pagination";
import { companyGrant } from "../../http/permissions";
import { guardLogin } from "../../http/rate-limit";
import { MessageResponse } from "../../http/schemas";
import { AppError, notFound } from "../../lib/errors";
import { timestamp } from "../../lib/format";
import { AccessTokenItem, CreateTokenBody, MeResponse, TokenResponse } from "./schemas";
import { checkCredentials, describeUser, issueAccessToken, listAccessTokens, revokeAccessToken, revokeOwnToken } from "./service";

export const authRouter = createRouter();

const createTokenRoute = defineRoute("public", {
  method: "post",
  path: `${V1}/auth/tokens`,
  tags: ["Auth"],
  summary: "Exchange email and password for an access token",
  request: jsonBody(CreateTokenBody),
  responses: { 201: jsonResponse("Token issued", TokenResponse), ...errorResponses(401, 422, 429) },
});

export const createToken: AppRouteHandler<typeof createTokenRoute> = async (c) => {
  const body = c.req.valid("json");
  // Before any database work: 429 once this account (tenant + email) has had 10 failures in 15 minutes.
  const recordFailure = await guardLogin(c, body.email);
  const db = c.var.db;
  const userId = await checkCredentials(db, body.email, body.password).catch(async (error: unknown) => {
    if (error instanceof AppError && errorStatus[error.code] === 401) await recordFailure();
    throw error;
  });
  const { JWT_SECRET, ACCESS_TOKEN_TTL_DAYS } = config(c.env);
  const issued = await issueAccessToken(db, JWT_SECRET, { tenantId: c.get("tenant").id, userId, name: body.name ?? "api", ttlDays: ACCESS_TOKEN_TTL_DAYS });
  return c.json({ data: { token: issued.token, token_type: "Bearer" as const, expires_at: timestamp(issued.expiresAt) } }, 201);
};
authRouter.openapi(createTokenRoute, createToken);

const revokeCurrentRoute = defineRoute("authenticated", {
  method: "delete",
  path: `${V1}/auth/tokens/current`,
  tags: ["Auth"],
  summary: "Revoke the token used for this request",
  responses: { 200: jsonResponse("Token revoked", MessageResponse), ...commonErrors },
});

export const revokeCurrent: AppRouteHandler<typeof revokeCurrentRoute> = async (c) => {
  await revokeAccessToken(c.var.db, requireAuth(c).tokenId);
  return c.json({ message: "Token revoked." }, 200);
};
authRouter.openapi(revokeCurrentRoute, revokeCurrent);

const meRoute = defineRoute("authenticated", {
  method: "get",
  path: `${V1}/me`,
  tags: ["Auth"],
  summary: "The calling user, their workspaces and their permissions in the request's workspace",
  responses: { 200: jsonResponse("The caller", MeResponse), ...commonErrors },
});

export const me: AppRouteHandler<typeof meRoute> = async (c) => {
  // Issued together: one round trip (issue 46).
  const [{ user, memberships }, company] = await Promise.all([describeUser(c.var.db, requireAuth(c).userId), companyGrant(c)]);
  const workspace = c.get("workspace");
  return c.json(
    {
      data: {
        id: user.id,
        name: user.name,
        email: user.email,
        current_workspace_id: user.currentWorkspaceId,
        current_workspace: workspace ? { id: workspace.id, name: workspace.name } : null,
        workspaces: memberships,
        permissions: workspace ? [...workspace.permissions].sort() : [],
        company: company && { role: company.roleName, is_owner: company.isOwner, permissions: [...company.permissions].sort() },
      },
    },
    200,
  );
};
authRouter.openapi(meRoute, me);

const TokenListQuery = listQuerySchema({ filters: {}, sorts: ["created_at", "last_used_at", "expires_at"] as const, defaultSort: "-created_at" });

const listTokensRoute = defineRoute("authenticated", {
  method: "get",
  path: `${V1}/auth/tokens`,
  tags: ["Auth"],
  summary: "The caller's access tokens (never the token strings)",
  request: { query: TokenListQuery },
  responses: { 200: jsonResponse("Tokens", paginated(AccessTokenItem)), ...commonErrors },
});

export const listTokens: AppRouteHandler<typeof listTokensRoute> = async (c) => {
  const query = c.req.valid("query");
  const auth = requireAuth(c);
  const { rows, total } = await listAccessTokens(c.var.db, auth.userId, query, query.sort);
  const data = rows.map((t) => ({
    id: t.id,
    name: t.name,
    expires_at: timestamp(t.expiresAt),
    last_used_at: timestamp(t.lastUsedAt),
    revoked_at: timestamp(t.revokedAt),
    created_at: timestamp(t.createdAt),
    is_current: t.id === auth.tokenId,
  }));
  return c.json(paginate(c, query, total, data), 200);
};
authRouter.openapi(listTokensRoute, listTokens);

const revokeTokenRoute = defineRoute("authenticated", {
  method: "delete",
  path: `${V1}/auth/tokens/{token_id}`,
  tags: ["Auth"],
  summary: "Revoke one of the caller's tokens",
  request: { params: z.object({ token_id: z.uuid().openapi({ param: { name: "token_id", in: "path" } }) }) },
  responses: { 200: jsonResponse("Token revoked", MessageResponse), 404: jsonResponse("No such token", MessageResponse), ...commonErrors },
});

export const revokeToken: AppRouteHandler<typeof revokeTokenRoute> = async (c) => {
  const { token_id } = c.req.valid("param");
  if (!(await revokeOwnToken(c.var.db, requireAuth(c).userId, token_id))) throw notFound("Token");
  return c.json({ message: "Token revoked." }, 200);
};
authRouter.openapi(revokeTokenRoute, revokeToken);
