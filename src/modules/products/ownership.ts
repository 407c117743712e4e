import { and, eq, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { grantsOf, missingIn } from "../../db/grants";
import { rowsOf } from "../../db/rows";
import * as schema from "../../db/schema";
import type { RequestScope } from "../../http/scope";
import { AppError, fieldError } from "../../lib/errors";

/**
 * Writes are authorized in the workspace that owns what they change, not only in the request's
 * workspace: a permission held in W1 never lets a user change a row of W2. `view_all_locations`
 * makes W2's rows visible from W1 (so a refusal is 403, not 404), never writable.
 */

/**
 * Refuses with 403 `forbidden` unless the caller holds `permission` as a member (or is admin) in
 * every workspace of `workspaceIds` (null entries, shared rows, are skipped). `permission` is the
 * route's own: its guard already checked it in the request's workspace, which is skipped here (one
 * query saved on the common path). A workspace the caller can neither see nor belongs to is not
 * named in the message.
 */
export async function assertWritableIn(db: AnyDb, scope: RequestScope, workspaceIds: Iterable<number | null>, permission: string, what: string): Promise<void> {
  const others = [...new Set(workspaceIds)].filter((id): id is number => id !== null && id !== scope.workspaceId).sort((a, b) => a - b);
  if (!others.length) return;
  const grants = await grantsOf(db, scope.userId);
  for (const id of others) {
    if (!missingIn(grants.get(id), [permission]).length) continue;
    const where = scope.viewAll || grants.has(id) ? `in workspace ${id}` : "in a workspace that uses it";
    throw new AppError("forbidden", `You cannot ${what}: it needs ${permission} ${where}, which you do not hold there.`);
  }
}

/**
 * The workspaces that use a product: every workspace holding a stock row (level or minimum) or a
 * stock movement of it, or an invoice or quotation with a line of it (deleted invoices included:
 * they stay on record).
 */
export async function productUsers(db: AnyDb, tenantId: number, productId: number): Promise<number[]> {
  const result = await db.execute(sql`
    SELECT workspace_id FROM stock_levels WHERE tenant_id = ${tenantId} AND product_id = ${productId}
    UNION SELECT workspace_id FROM stock_movements WHERE tenant_id = ${tenantId} AND product_id = ${productId}
    UNION SELECT i.workspace_id FROM invoice_items it JOIN invoices i ON i.id = it.invoice_id
      WHERE it.tenant_id = ${tenantId} AND it.product_id = ${productId}
    UNION SELECT q.workspace_id FROM quotation_items qi JOIN quotations q ON q.id = qi.quotation_id
      WHERE qi.tenant_id = ${tenantId} AND qi.product_id = ${productId}`);
  return rowsOf<{ workspace_id: number }>(result).map((r) => Number(r.workspace_id));
}

/** The workspaces that use a contact: every workspace with an invoice (deleted ones included) or a quotation issued to it. */
export async function contactUsers(db: AnyDb, tenantId: number, contactId: number): Promise<number[]> {
  const result = await db.execute(sql`
    SELECT workspace_id FROM invoices WHERE tenant_id = ${tenantId} AND contact_id = ${contactId}
    UNION SELECT workspace_id FROM quotations WHERE tenant_id = ${tenantId} AND contact_id = ${contactId}`);
  return rowsOf<{ workspace_id: number }>(result).map((r) => Number(r.workspace_id));
}

/**
 * The workspace a row may be assigned to: null (shared), the request's workspace, or — with
 * view_all_locations — any workspace of the tenant. Anything else → 422 on the field. With
 * `permission` (the route's), another workspace also needs it held there as a member (or admin
 * there): view_all_locations shows that workspace, it does not let anyone write in it → 403.
 */
export async function assertAssignableWorkspace(
  db: AnyDb,
  scope: RequestScope,
  workspaceId: number | null,
  permission?: string,
  field = "workspace_id",
): Promise<void> {
  if (workspaceId === null || workspaceId === scope.workspaceId) return;
  if (!scope.viewAll) throw fieldError(field, "Must be the workspace of the request or null (shared by every workspace).");
  const [row] = await db
    .select({ id: schema.workspaces.id })
    .from(schema.workspaces)
    .where(and(eq(schema.workspaces.tenantId, scope.tenantId), eq(schema.workspaces.id, workspaceId)));
  if (!row) throw fieldError(field, "No such workspace.");
  if (permission) await assertWritableIn(db, scope, [workspaceId], permission, `place a row in workspace ${workspaceId}`);
}
