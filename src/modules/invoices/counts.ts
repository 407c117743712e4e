import { type SQL, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { rowsOf } from "../../db/rows";
import type { RequestScope } from "../../http/scope";

/**
 * The number of live invoices of the scope's workspace (of one status, if given), as a scalar
 * subquery: the sum of the deltas the invoices triggers write (drizzle/0012).
 */
export function liveInvoiceCount(scope: RequestScope, status: string | undefined): SQL<number> {
  // Written as SQL: built per list request, where the builder's rendering of columns showed in the
  // Worker's CPU profile (issue 46). The table is drizzle/0012's invoice_status_counts.
  const byStatus = status ? sql` AND status = ${status}` : sql``;
  return sql<number>`(SELECT coalesce(sum(delta), 0) FROM invoice_status_counts WHERE tenant_id = ${scope.tenantId} AND workspace_id = ${scope.workspaceId}${byStatus})`;
}

/** Folds the count deltas of every tenant (cron, every minute); returns the rows folded. */
export async function compactInvoiceStatusCounts(db: AnyDb): Promise<number> {
  const result = await db.execute(sql`SELECT compact_invoice_status_counts() AS folded`);
  return Number(rowsOf<{ folded: number }>(result)[0]?.folded ?? 0);
}
