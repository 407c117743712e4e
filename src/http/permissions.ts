import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { AppError } from "../lib/errors";
import type { AppEnv } from "./context";
import { requireWorkspace } from "./workspace";

/** Permissions are evaluated in the request's workspace. */
export function hasPermission(c: Context<AppEnv>, permission: string): boolean {
  return c.get("workspace")?.permissions.has(permission) ?? false;
}

export function requirePermission(permission: string) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const workspace = requireWorkspace(c);
    if (!workspace.permissions.has(permission)) {
      throw new AppError("forbidden", `This action requires the ${permission} permission.`);
    }
    await next();
  });
}
