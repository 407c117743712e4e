import { createMiddleware } from "hono/factory";
import { requireAuth } from "../../http/auth";
import type { AppEnv } from "../../http/context";
import { type AppRouteHandler, commonErrors, createRouter, defineRoute, errorResponses, IdParam, jsonBody, jsonResponse, V1 } from "../../http/openapi";
import { paginate, paginated } from "../../http/pagination";
import { guardLogin } from "../../http/rate-limit";
import { MessageResponse } from "../../http/schemas";
import { requireWorkspace } from "../../http/workspace";
import { AppError } from "../../lib/errors";
import { ChangePasswordBody, TenantUser, TenantUserResponse, UserListQuery } from "./schemas";
import { assertAdmin, changePassword, deactivateUser, listUsers, reactivateUser } from "./service";

/** The tenant's user accounts (administrators) and the caller's own password. */
export const usersRouter = createRouter();
const tags = ["Users"];

/** The admin check of these routes, stated in the README's permission table. */
const ADMIN_NOTE = "and the built-in `admin` role in the request's workspace";

/** Runs after the route's permission gate and before its input is read. */
const adminOnly = createMiddleware<AppEnv>(async (c, next) => {
  assertAdmin(requireWorkspace(c));
  await next();
});

const listRoute = defineRoute(
  { permission: "members:view" },
  {
    method: "get",
    path: `${V1}/users`,
    tags,
    summary: "The company's users, active and deactivated, with their workspaces and roles",
    "x-access-note": ADMIN_NOTE,
    middleware: [adminOnly] as const,
    request: { query: UserListQuery },
    responses: { 200: jsonResponse("Users", paginated(TenantUser)), ...commonErrors },
  },
);

export const list: AppRouteHandler<typeof listRoute> = async (c) => {
  const query = c.req.valid("query");
  const { data, total } = await listUsers(c.var.db, query);
  return c.json(paginate(c, query, total, data), 200);
};
usersRouter.openapi(listRoute, list);

const deactivateRoute = defineRoute(
  { permission: "members:delete" },
  {
    method: "post",
    path: `${V1}/users/{id}/deactivate`,
    tags,
    summary: "Deactivate a user: no login, every token revoked at once (not yourself, not a workspace owner)",
    description:
      "The caller must be an admin in the request's workspace and in every workspace where the user is a member (403 `forbidden`). " +
      "The owner of a workspace must transfer it first (409 `owner_cannot_be_deactivated`); deactivating yourself is 409 `conflict`.",
    "x-access-note": `${ADMIN_NOTE} and in every workspace of the user`,
    middleware: [adminOnly] as const,
    request: { params: IdParam },
    responses: { 200: jsonResponse("User deactivated", TenantUserResponse), ...commonErrors, ...errorResponses(404, 409) },
  },
);

export const deactivate: AppRouteHandler<typeof deactivateRoute> = async (c) => {
  const { id } = c.req.valid("param");
  const user = await deactivateUser(c.var.db, requireAuth(c).userId, id);
  return c.json({ data: user, message: "User deactivated; their access tokens were revoked." }, 200);
};
usersRouter.openapi(deactivateRoute, deactivate);

const reactivateRoute = defineRoute(
  { permission: "members:edit" },
  {
    method: "post",
    path: `${V1}/users/{id}/reactivate`,
    tags,
    summary: "Reactivate a user: they may log in again (tokens revoked at deactivation stay revoked)",
    description: "The caller must be an admin in the request's workspace and in every workspace where the user is a member (403 `forbidden`).",
    "x-access-note": `${ADMIN_NOTE} and in every workspace of the user`,
    middleware: [adminOnly] as const,
    request: { params: IdParam },
    responses: { 200: jsonResponse("User reactivated", TenantUserResponse), ...commonErrors, ...errorResponses(404) },
  },
);

export const reactivate: AppRouteHandler<typeof reactivateRoute> = async (c) => {
  const { id } = c.req.valid("param");
  const user = await reactivateUser(c.var.db, requireAuth(c).userId, id);
  return c.json({ data: user, message: "User reactivated; they must log in again." }, 200);
};
usersRouter.openapi(reactivateRoute, reactivate);

const passwordRoute = defineRoute("authenticated", {
  method: "post",
  path: `${V1}/me/password`,
  tags,
  summary: "Change the caller's password; their other tokens are revoked, this one keeps working",
  description:
    "A wrong `current_password` is 422 on that field and counts as a failed login of the account (10 in 15 minutes → 429 here and on login); `new_password` needs at least 12 characters.",
  request: jsonBody(ChangePasswordBody),
  responses: { 200: jsonResponse("Password changed", MessageResponse), ...commonErrors },
});

export const password: AppRouteHandler<typeof passwordRoute> = async (c) => {
  const body = c.req.valid("json");
  const auth = requireAuth(c);
  // A stolen token must not become a way to guess the password: wrong current passwords count as
  // failed logins of the account (and its login limit refuses password changes too).
  const recordFailure = await guardLogin(c, auth.email);
  const revoked = await changePassword(c.var.db, auth, body.current_password, body.new_password).catch(async (error: unknown) => {
    if (error instanceof AppError && error.errors?.current_password) await recordFailure();
    throw error;
  });
  const others = revoked === 1 ? "1 other access token was" : `${revoked} other access tokens were`;
  return c.json({ message: `Password changed; ${others} revoked.` }, 200);
};
usersRouter.openapi(passwordRoute, password);
