import { type SQL, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { rowsOf } from "../../db/rows";
import { type RequestScope, workspaceForbidden } from "../../http/scope";
import { Big } from "../../lib/decimal";
import { fieldError } from "../../lib/errors";
import { invoiceBalanceSql } from "../sales/money";
import type { SalesSummary, SalesSummaryQuery } from "./schemas";

/**
 * GET /reports/sales-summary (issue 20, docs/reports.md "Sales summary"): a branch's or the
 * company's sales of a date range in DOP, grouped by workspace, NCF type or day, added up by
 * Postgres in one statement.
 *
 * Documents: invoices issued (not drafts, not deleted) by issue date, and credit and debit notes
 * by their own issue date, as their own NCF types. A credit note subtracts (its amounts count
 * negative), a debit note adds: the totals are net sales, as the books have them. An invoice
 * cancelled without a credit note had its NCF annulled (Formato 608) and is no sale; one cancelled
 * through a credit note (an e-CF, reversed by its E34) stays, and its note takes it back out.
 * Paid and due are the invoices' (a note's effect on what is due is already in its invoice's due;
 * due never below 0, as amount_due: what a credit note took back beyond it is the invoice's refund_due).
 * Amounts in another currency: each document's amounts × its rate, half-up to the cent, as the
 * stored DOP totals were made.
 */

interface GroupRow {
  key: string;
  label: string;
  count: number;
  subtotal: string;
  discounts: string;
  exempt_base: string;
  isc: string;
  other_taxes: string;
  legal_tip: string;
  total: string;
  paid: string;
  due: string;
  itbis: { rate: string; base: string; amount: string }[] | null;
}

type Totals = Omit<SalesSummary["totals"], never>;

const KEYS: Record<SalesSummaryQuery["group_by"], { key: SQL; label: SQL }> = {
  workspace: { key: sql`d.workspace_id::text`, label: sql`(SELECT w.name FROM workspaces w WHERE w.id = d.workspace_id AND w.tenant_id = d.tenant_id)` },
  document_type: { key: sql`left(d.ncf, 3)`, label: sql`left(d.ncf, 3)` },
  day: { key: sql`d.issue_date::text`, label: sql`d.issue_date::text` },
};

/** Which workspaces: the one asked for (another than the request's needs view_all_locations), else all of them with view_all_locations, else the request's. */
function workspaceCondition(scope: RequestScope, workspaceId: number | undefined, column: SQL): SQL {
  if (workspaceId !== undefined) {
    if (workspaceId !== scope.workspaceId && !scope.viewAll) throw workspaceForbidden();
    return sql`${column} = ${workspaceId}`;
  }
  return scope.viewAll ? sql`true` : sql`${column} = ${scope.workspaceId}`;
}

export async function salesSummary(db: AnyDb, scope: RequestScope, query: SalesSummaryQuery): Promise<SalesSummary> {
  if (query.workspace_id !== undefined) {
    const [exists] = rowsOf<{ found: boolean }>(
      await db.execute(sql`SELECT EXISTS (SELECT 1 FROM workspaces w WHERE w.id = ${query.workspace_id} AND w.tenant_id = ${scope.tenantId}) AS found`),
    );
    if (!exists?.found) throw fieldError("workspace_id", "Not a workspace of this company.");
  }
  const { key, label } = KEYS[query.group_by];
  const range = (column: SQL) => sql`${column} BETWEEN ${query.from}::date AND ${query.to}::date`;
  const dop = (amount: SQL) => sql`round(${amount} * d.rate, 2)`;
  const breakdown = (field: string) => sql`coalesce((d.tax_breakdown->>${field})::numeric, 0)`;
  const rows = rowsOf<GroupRow>(
    await db.execute(sql`
    WITH d AS (
      SELECT i.tenant_id, i.workspace_id, i.document_number AS ncf, i.issue_date, 1 AS sign, coalesce(i.exchange_rate, 1) AS rate,
        coalesce(i.subtotal_amount_dop, i.subtotal_amount) AS subtotal, coalesce(i.discount_amount_dop, i.discount_amount) AS discounts,
        coalesce(i.total_amount_dop, i.total_amount) AS total, coalesce(i.tax_breakdown, '{}'::jsonb) AS tax_breakdown,
        round(i.amount_paid * coalesce(i.exchange_rate, 1), 2) AS paid,
        round(greatest(${sql.raw(invoiceBalanceSql("i"))}, 0) * coalesce(i.exchange_rate, 1), 2) AS due
      FROM invoices i
      WHERE i.tenant_id = ${scope.tenantId} AND i.status <> 'draft' AND i.deleted_at IS NULL AND (i.status <> 'cancelled' OR i.credited_amount > 0)
        AND ${range(sql`i.issue_date`)} AND ${workspaceCondition(scope, query.workspace_id, sql`i.workspace_id`)}
      UNION ALL
      SELECT n.tenant_id, n.workspace_id, n.document_number, n.issue_date, CASE n.kind WHEN 'credit' THEN -1 ELSE 1 END, n.exchange_rate,
        n.subtotal_amount_dop, n.discount_amount_dop, n.total_amount_dop, coalesce(n.tax_breakdown, '{}'::jsonb), 0, 0
      FROM invoice_notes n
      WHERE n.tenant_id = ${scope.tenantId} AND n.status = 'issued' AND ${range(sql`n.issue_date`)} AND ${workspaceCondition(scope, query.workspace_id, sql`n.workspace_id`)}
    ), keyed AS (
      SELECT ${key} AS key, ${label} AS label, d.* FROM d
    )
    SELECT d.key, min(d.label) AS label, count(*)::int AS count,
      sum(d.sign * d.subtotal)::text AS subtotal, sum(d.sign * d.discounts)::text AS discounts,
      sum(d.sign * ${dop(breakdown("exempt_base"))})::text AS exempt_base,
      sum(d.sign * ${dop(sql`${breakdown("isc_specific")} + ${breakdown("isc_ad_valorem")}`)})::text AS isc,
      sum(d.sign * ${dop(breakdown("other_additional"))})::text AS other_taxes,
      sum(d.sign * ${dop(breakdown("propina"))})::text AS legal_tip,
      sum(d.sign * d.total)::text AS total, sum(d.paid)::text AS paid, sum(d.due)::text AS due,
      (SELECT json_agg(json_build_object('rate', r.rate, 'base', r.base::text, 'amount', r.amount::text) ORDER BY r.rate::numeric DESC)
       FROM (SELECT e->>'rate' AS rate, sum(k.sign * round((e->>'base')::numeric * k.rate, 2)) AS base,
               sum(k.sign * round((e->>'amount')::numeric * k.rate, 2)) AS amount
             FROM keyed k, jsonb_array_elements(coalesce(k.tax_breakdown->'itbis', '[]'::jsonb)) e
             WHERE k.key = d.key GROUP BY e->>'rate') r) AS itbis
    FROM keyed d
    GROUP BY d.key
    ORDER BY d.key`),
  );
  const money = (value: Big.BigSource) => new Big(value).toFixed(2);
  const groups = rows.map((row) => ({
    key: String(row.key),
    label: String(row.label ?? row.key),
    count: Number(row.count),
    subtotal: money(row.subtotal),
    discounts: money(row.discounts),
    itbis: (row.itbis ?? []).map((entry) => ({ rate: money(entry.rate), base: money(entry.base), amount: money(entry.amount) })),
    exempt_base: money(row.exempt_base),
    isc: money(row.isc),
    other_taxes: money(row.other_taxes),
    legal_tip: money(row.legal_tip),
    total: money(row.total),
    paid: money(row.paid),
    due: money(row.due),
  }));
  return { from: query.from, to: query.to, group_by: query.group_by, currency: "DOP", groups, totals: addUp(groups) };
}

/** The groups added up: the whole range's totals (a few hundred groups at most, exact decimals). */
function addUp(groups: Totals[]): Totals {
  const fields = ["subtotal", "discounts", "exempt_base", "isc", "other_taxes", "legal_tip", "total", "paid", "due"] as const;
  const sums = Object.fromEntries(fields.map((field) => [field, groups.reduce((sum, group) => sum.plus(group[field]), new Big(0)).toFixed(2)])) as Record<
    (typeof fields)[number],
    string
  >;
  const byRate = new Map<string, { base: Big; amount: Big }>();
  for (const entry of groups.flatMap((group) => group.itbis)) {
    const sum = byRate.get(entry.rate) ?? { base: new Big(0), amount: new Big(0) };
    byRate.set(entry.rate, { base: sum.base.plus(entry.base), amount: sum.amount.plus(entry.amount) });
  }
  const itbis = [...byRate.entries()]
    .sort(([a], [b]) => new Big(b).cmp(a))
    .map(([rate, sum]) => ({ rate, base: sum.base.toFixed(2), amount: sum.amount.toFixed(2) }));
  return { count: groups.reduce((count, group) => count + group.count, 0), ...sums, itbis };
}
