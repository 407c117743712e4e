import { and, eq, type SQL, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { rowsOf } from "../../db/rows";
import { invoiceStatusCounts } from "../../db/schema";
import type { RequestScope } from "../../http/scope";

/**
 * The number of live invoices of the scope's workspace (of one status, if given), as a scalar
 * subquery: the sum of the deltas the invoices triggers write (drizzle/0012).
 */
export function liveInvoiceCount(scope: RequestScope, status: string | undefined): SQL<number> {
  const c = invoiceStatusCounts;
  const where = and(eq(c.tenantId, scope.tenantId), eq(c.workspaceId, scope.workspaceId), status ? eq(c.status, status) : undefined);
  return sql<number>`(SELECT coalesce(sum(${c.delta}), 0) FROM ${c} WHERE ${where})`;
}

/** Folds the count deltas of every tenant (cron, every minute); returns the rows folded. */
export async function compactInvoiceStatusCounts(db: AnyDb): Promise<number> {
  const result = await db.execute(sql`SELECT compact_invoice_status_counts() AS folded`);
  return Number(rowsOf<{ folded: number }>(result)[0]?.folded ?? 0);
}
