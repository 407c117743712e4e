import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { AppError } from "../lib/errors";
import { type CompanyGrant, companyForbidden, companyGrantOf, missingAtCompanyLevel } from "../modules/members/grants";
import { requireAuth } from "./auth";
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

/** The caller's company role (members/grants.ts), read once per request and only by the routes that ask. */
export async function companyGrant(c: Context<AppEnv>): Promise<CompanyGrant | null> {
  let grant = c.get("company");
  if (grant === undefined) {
    grant = await companyGrantOf(c.var.db, requireAuth(c).userId);
    c.set("company", grant);
  }
  return grant;
}

/**
 * A company-level act (`level: "company"`): the permission held at company level — the owner, or a
 * company role that has it. The request's workspace plays no part: a branch role, even admin, never
 * passes (403 `company_forbidden`).
 */
export function requireCompanyPermission(permission: string) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (missingAtCompanyLevel(await companyGrant(c), [permission]).length) throw companyForbidden("do this", [permission]);
    await next();
  });
}

/**
 * A branch-scoped act (`level: "branches"`): the first gate, before the service checks every branch
 * the request names (members/grants.ts assertHeldForBranches) — the permission at company level or
 * in the request's workspace; neither → 403 `forbidden`.
 */
export function requireBranchesPermission(permission: string) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (missingAtCompanyLevel(await companyGrant(c), [permission]).length && !hasPermission(c, permission)) {
      throw new AppError("forbidden", `This action requires the ${permission} permission, at company level or in the branches it names.`);
    }
    await next();
  });
}
