import { z } from "@hono/zod-openapi";
import { and, eq, isNull, or, type SQL, sql } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Context } from "hono";
import type { AnyDb } from "../../db/client";
import * as schema from "../../db/schema";
import { requireAuth } from "../../http/auth";
import type { AppEnv } from "../../http/context";
import { AppError, fieldError } from "../../http/errors";
import { requireWorkspace } from "../../http/workspace";
import { isIdText } from "../../lib/bounds";
import { assertWritableIn } from "./ownership";

/**
 * Pieces shared by the catalog modules (products, contacts, taxes, currencies, document subtypes,
 * salesmen, bank accounts): the request's scope, workspace visibility, list helpers and
 * unique-violation detection.
 */
export interface CatalogScope {
  tenantId: number;
  userId: number;
  /** The request's workspace (X-Workspace-ID or the user's current one). */
  workspaceId: number;
  /** The caller holds view_all_locations. */
  viewAll: boolean;
}

export function catalogScope(c: Context<AppEnv>): CatalogScope {
  const workspace = requireWorkspace(c);
  return { tenantId: c.get("tenant").id, userId: requireAuth(c).userId, workspaceId: workspace.id, viewAll: workspace.viewAllLocations };
}

const workspaceForbidden = () => new AppError("workspace_forbidden", "You do not have access to this workspace.");

/**
 * Workspace visibility of a workspace-scoped row (products, contacts) read or changed by id:
 * shared rows (workspace_id null) and rows of the request's workspace; every workspace's rows for
 * a caller with view_all_locations.
 */
export function visibleByIdCondition(column: PgColumn, scope: CatalogScope): SQL | undefined {
  return scope.viewAll ? undefined : or(isNull(column), eq(column, scope.workspaceId));
}

/** `filter[workspace_id]` of workspace-scoped lists: `all`, `shared` or a workspace id. */
export const WorkspaceFilter = z
  .string()
  .refine((value) => value === "all" || value === "shared" || isIdText(value), "Use all, shared or a workspace id.")
  .optional()
  .openapi({ description: "all (view_all_locations only), shared, or a workspace id; default: the request's workspace and shared rows" });

/**
 * The list condition: by default the request's workspace and shared rows. `all` (every workspace)
 * and another workspace's id need view_all_locations (403 otherwise); `shared` lists only rows of
 * no workspace.
 */
export function listWorkspaceCondition(column: PgColumn, scope: CatalogScope, filter: string | undefined): SQL | undefined {
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

/**
 * The workspace a row may be assigned to: null (shared), the request's workspace, or — with
 * view_all_locations — any workspace of the tenant. Anything else → 422 on the field. With
 * `permission` (the route's), another workspace also needs it held there as a member (or admin
 * there): view_all_locations shows that workspace, it does not let anyone write in it → 403.
 */
export async function assertAssignableWorkspace(db: AnyDb, scope: CatalogScope, workspaceId: number | null, permission?: string, field = "workspace_id") {
  if (workspaceId === null || workspaceId === scope.workspaceId) return;
  if (!scope.viewAll) throw fieldError(field, "Must be the workspace of the request or null (shared by every workspace).");
  const [row] = await db
    .select({ id: schema.workspaces.id })
    .from(schema.workspaces)
    .where(and(eq(schema.workspaces.tenantId, scope.tenantId), eq(schema.workspaces.id, workspaceId)));
  if (!row) throw fieldError(field, "No such workspace.");
  if (permission) await assertWritableIn(db, scope, [workspaceId], permission, `place a row in workspace ${workspaceId}`);
}

/** `%`, `_` and `\` taken literally inside an ILIKE pattern. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

export const BooleanFilter = z.enum(["true", "false"]).optional();

/** ORDER BY a column with a stable tiebreak on id. */
export function orderBy(column: PgColumn | SQL, id: PgColumn, descending: boolean): SQL {
  return descending ? sql`${column} DESC NULLS LAST, ${id} DESC` : sql`${column} ASC NULLS FIRST, ${id} ASC`;
}

/** The `total` of a page that came back empty (page past the end): one count query. */
export async function countWhere(db: AnyDb, table: PgTable, where: SQL | undefined): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(table)
    .where(where);
  return row?.n ?? 0;
}

/** Postgres unique_violation (23505) on the named constraint or index, through drizzle's wrapper. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  for (let e: any = error; e; e = e.cause) {
    if (e.code === "23505" && (e.constraint === constraint || String(e.message ?? "").includes(constraint))) return true;
  }
  return false;
}

export const nullableText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .nullable()
    .optional()
    .transform((v) => (v === "" ? null : v));

export { MessageResponse } from "../auth/schemas";

export const dataWithMessage = <T extends z.ZodType>(item: T) => z.object({ data: item, message: z.string() });
export const dataOnly = <T extends z.ZodType>(item: T) => z.object({ data: item });

/** Postgres foreign_key_violation (23503), through drizzle's wrapper. */
export function isForeignKeyViolation(error: unknown): boolean {
  for (let e: any = error; e; e = e.cause) if (e.code === "23503") return true;
  return false;
}

/**
 * Backstop for deletes: a reference no check knew about (a table added later) still answers 409
 * in_use instead of a server error.
 */
export function inUseOnForeignKey(what: string) {
  return (error: unknown): never => {
    if (isForeignKeyViolation(error)) throw new AppError("in_use", `This ${what} cannot be deleted: other records refer to it. Deactivate it instead.`);
    throw error;
  };
}

/** The first reason whose EXISTS condition holds, in one query; null when none does. */
export async function firstReference(db: AnyDb, checks: [reason: string, exists: SQL][]): Promise<string | null> {
  if (!checks.length) return null;
  const [row] = await db
    .select(Object.fromEntries(checks.map(([, condition], i) => [`c${i}`, sql<boolean>`${condition}`])) as Record<string, SQL<boolean>>)
    .from(sql`(SELECT 1) AS one`);
  const hit = checks.findIndex((_, i) => Boolean((row as Record<string, unknown>)[`c${i}`]));
  return hit === -1 ? null : checks[hit]![0];
}

/** `EXISTS (SELECT 1 FROM table WHERE tenant_id = t AND column = id)`. */
export function referencedBy(table: PgTable, tenantColumn: PgColumn, column: PgColumn, tenantId: number, id: number): SQL {
  return sql`EXISTS (SELECT 1 FROM ${table} WHERE ${tenantColumn} = ${tenantId} AND ${column} = ${id})`;
}
