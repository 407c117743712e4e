import { type SQL, sql } from "drizzle-orm";
import { Big } from "../../lib/decimal";
import { NOTE_PREFIXES, SALES_INVOICE_PREFIXES } from "../../lib/ncf";
import { CONSUMER_ID_THRESHOLD } from "../invoices/buyer-rules";
import type { TaxBreakdown } from "../sales/lines";
import { inDop } from "../sales/money";
import { ConsumerSummary607, type Report607Query, Row607 } from "./schemas";
import type { Period, ReportSource } from "./service";

/**
 * Formato 607, "Formato de Envío de Ventas de Bienes y Servicios" (Norma General 07-2018): one row
 * per sales document issued in the period — invoices (not drafts, not cancelled or deleted: an
 * annulled NCF belongs to the 608), credit notes (B04, E34) and debit notes (B03, E33) — with its
 * stored DOP amounts. Consumer invoices (B02, E32) under RD$250,000 are not itemized: since Norma
 * 07-2018 DGII takes them as one total in the Oficina Virtual's consumer section (art. 4 and 13 as
 * modified by NG 10-18), whereas notes are reported one by one whatever their amount. e-CF are left
 * out unless include_ecf (DGII receives each one). Columns and rules: docs/reports.md, "607".
 */

interface Raw607 {
  ncf: string;
  modified_ncf: string | null;
  kind: "invoice" | "credit" | "debit";
  issue_date: string;
  identification_type: string | null;
  identification: string | null;
  exchange_rate: string;
  net_amount_dop: string;
  total_amount_dop: string;
  tax_breakdown: TaxBreakdown | null;
  payments: Record<string, string> | null;
  income_type: string;
  /** Set when the buyer's withholdings are reported in this period (their date is by its end). */
  withholding_date: string | null;
  itbis_withheld: string;
  isr_withheld: string;
}

const CONSUMER_PREFIXES = ["B02", "E32"];

/** Our payment methods in the 607's payment-form columns; `other` names no instrument: "otras formas de ventas". */
const FORM_OF_METHOD: Record<string, "cash" | "bank" | "card" | "other_forms"> = {
  cash: "cash",
  check: "bank",
  bank_transfer: "bank",
  credit_card: "card",
  debit_card: "card",
  other: "other_forms",
};

/** Tipo de Identificación: 1 RNC, 2 cédula, 3 another (a passport). */
const ID_TYPES: Record<string, string> = { rnc: "1", cedula: "2", passport: "3" };

const ZERO = new Big(0);
const dop = inDop;
const money = (amount: Big) => amount.toFixed(2);

export function row607(raw: Raw607): Row607 {
  const rate = raw.exchange_rate;
  const breakdown = raw.tax_breakdown;
  const itbis = breakdown
    ? dop(
        breakdown.itbis.reduce((sum, entry) => sum.plus(entry.amount), new Big(0)),
        rate,
      )
    : ZERO;
  const isc = breakdown ? dop(new Big(breakdown.isc_specific).plus(breakdown.isc_ad_valorem), rate) : ZERO;
  const otherTaxes = breakdown ? dop(breakdown.other_additional, rate) : ZERO;
  const tip = breakdown ? dop(breakdown.propina, rate) : ZERO;

  // What the buyer withheld (ITBIS, ISR) and paid to DGII for us, in DOP at the invoice's rate:
  // reported in the invoice's row once its date is by the period's end (the statement says), as
  // the 606 reports a purchase's (docs/reports.md).
  const reported = raw.withholding_date !== null;
  const itbisWithheld = reported ? dop(raw.itbis_withheld, rate) : ZERO;
  const isrWithheld = reported ? dop(raw.isr_withheld, rate) : ZERO;

  // Payment forms: an invoice's payments dated by the period's end, by form, in DOP at its rate;
  // what they and the reported withholdings leave unpaid of its DOP total was sold on credit
  // (withheld amounts were not received by any form: the buyer paid them to DGII). A credit note
  // fills none (DGII: not required); a debit note's amount is owed on the invoice it raises: on credit.
  const forms = { cash: ZERO, bank: ZERO, card: ZERO, other_forms: ZERO };
  let onCredit = ZERO;
  if (raw.kind === "invoice") {
    for (const [method, amount] of Object.entries(raw.payments ?? {})) {
      const form = FORM_OF_METHOD[method] ?? "other_forms";
      forms[form] = forms[form].plus(dop(amount, rate));
    }
    const paid = forms.cash.plus(forms.bank).plus(forms.card).plus(forms.other_forms);
    onCredit = new Big(raw.total_amount_dop).minus(paid).minus(itbisWithheld).minus(isrWithheld);
    if (onCredit.lt(0)) onCredit = ZERO;
  } else if (raw.kind === "debit") {
    onCredit = new Big(raw.total_amount_dop);
  }

  return {
    buyer_id: raw.identification ?? "",
    buyer_id_type: raw.identification ? (ID_TYPES[raw.identification_type ?? ""] ?? "3") : "",
    ncf: raw.ncf,
    modified_ncf: raw.modified_ncf ?? "",
    // A note's is its invoice's (the statement reads it).
    income_type: raw.income_type,
    issue_date: raw.issue_date,
    withholding_date: raw.withholding_date ?? "",
    amount: raw.net_amount_dop,
    itbis_invoiced: money(itbis),
    itbis_withheld: money(itbisWithheld),
    // As the 606's: not enabled while no perception regime exists.
    itbis_perceived: "",
    isr_withheld: money(isrWithheld),
    isr_perceived: "",
    isc: money(isc),
    other_taxes: money(otherTaxes),
    legal_tip: money(tip),
    cash: money(forms.cash),
    bank: money(forms.bank),
    card: money(forms.card),
    on_credit: money(onCredit),
    gift_vouchers: money(ZERO),
    barter: money(ZERO),
    other_forms: money(forms.other_forms),
  };
}

export const prefixPattern = (prefixes: readonly string[], includeEcf: boolean) =>
  `^(${prefixes.filter((prefix) => includeEcf || prefix.startsWith("B")).join("|")})`;

const inWorkspace = (alias: string, workspaceId: number | undefined) =>
  workspaceId === undefined ? sql`` : sql`AND ${sql.raw(alias)}.workspace_id = ${workspaceId}`;

/**
 * The invoices of the 607 (alias `i`): issued in the period, not drafts, not annulled (the 608's),
 * of a sales NCF type. A cancelled invoice with credit is an e-CF cancelled by its E34 (a B-series
 * invoice is cancelled only without notes, its NCF annulled in the 608; invoices/changes.ts): DGII
 * holds it as a valid sale, so it is reported and its E34 reported against it (Norma General
 * 07-2018 art. 4: each NCF issued, notes one by one). An e-CF annulled (ANECF) or void (rejected)
 * is cancelled with no credit: left out.
 */
export const reportedInvoices = (period: Period, workspaceId: number | undefined, query: Report607Query) => sql`
  i.deleted_at IS NULL AND i.status <> 'draft' AND (i.status <> 'cancelled' OR i.credited_amount > 0)
  AND i.issue_date BETWEEN ${period.from}::date AND ${period.to}::date
  AND i.document_number ~ ${prefixPattern(SALES_INVOICE_PREFIXES, query.include_ecf)}
  ${inWorkspace("i", workspaceId)}`;

/**
 * A consumer invoice under RD$250,000 (its DOP total): part of the consumer summary, not a row (Norma
 * General 07-2018 art. 4 and 13, as NG 10-18 left them). The threshold from which its buyer must be
 * identified, so that every itemized consumer row has a buyer id.
 */
const summarizedConsumer = sql`(left(i.document_number, 3) IN (${sql.join(
  CONSUMER_PREFIXES.map((prefix) => sql`${prefix}`),
  sql`, `,
)}) AND i.total_amount_dop < ${CONSUMER_ID_THRESHOLD.toFixed(2)}::numeric)`;

/** A payment method's 607 column, in SQL (FORM_OF_METHOD). */
const formSql = sql`CASE pp.payment_method ${sql.join(
  Object.entries(FORM_OF_METHOD).map(([method, form]) => sql`WHEN ${method} THEN ${form}`),
  sql` `,
)} ELSE 'other_forms' END`;

const money2 = (expression: SQL) => sql`coalesce(${expression}, 0)::numeric(18, 2)::text`;

export const sales607: ReportSource<Row607, Report607Query> = {
  format: "607",
  columns: Object.keys(Row607) as (keyof Row607)[],
  statement: (tenantId, period, workspaceId, query) => sql`
    SELECT d.*, to_char(d.date, 'YYYYMMDD') AS issue_date, count(*) OVER () AS total
    FROM (
      SELECT i.id, 0 AS source, i.document_number AS ncf, i.replaced_ncf AS modified_ncf, 'invoice' AS kind, i.issue_date AS date,
        coalesce(i.snapshot->'buyer'->>'identification_type', c.identification_type) AS identification_type,
        coalesce(i.snapshot->'buyer'->>'identification', c.identification) AS identification,
        coalesce(i.exchange_rate, 1)::text AS exchange_rate, (i.subtotal_amount_dop - i.discount_amount_dop)::text AS net_amount_dop,
        i.total_amount_dop::text AS total_amount_dop, i.tax_breakdown, pay.payments, i.income_type,
        CASE WHEN i.withholding_date <= ${period.to}::date THEN to_char(i.withholding_date, 'YYYYMMDD') END AS withholding_date,
        i.itbis_withheld::text AS itbis_withheld, i.isr_withheld::text AS isr_withheld
      FROM invoices i
      JOIN contacts c ON c.id = i.contact_id AND c.tenant_id = ${tenantId}
      -- The payments dated by the period's end, summed by method (in the invoice's currency).
      LEFT JOIN LATERAL (
        SELECT jsonb_object_agg(m.payment_method, m.amount::text) AS payments FROM (
          SELECT pp.payment_method, sum(pp.amount) AS amount FROM invoice_payments pp
          WHERE pp.invoice_id = i.id AND pp.tenant_id = ${tenantId} AND pp.payment_date <= ${period.to}::date GROUP BY pp.payment_method
        ) m
      ) pay ON true
      WHERE i.tenant_id = ${tenantId} AND ${reportedInvoices(period, workspaceId, query)} AND NOT ${summarizedConsumer}
      UNION ALL
      SELECT n.id, 1, n.document_number, n.modified_ncf, n.kind, n.issue_date,
        n.snapshot->'buyer'->>'identification_type', n.snapshot->'buyer'->>'identification',
        n.exchange_rate::text, (n.subtotal_amount_dop - n.discount_amount_dop)::text, n.total_amount_dop::text, n.tax_breakdown, NULL::jsonb,
        (SELECT ni.income_type FROM invoices ni WHERE ni.id = n.invoice_id AND ni.tenant_id = ${tenantId}), NULL, '0', '0'
      FROM invoice_notes n
      WHERE n.tenant_id = ${tenantId} AND n.status = 'issued' AND n.issue_date BETWEEN ${period.from}::date AND ${period.to}::date
        AND n.document_number ~ ${prefixPattern(NOTE_PREFIXES, query.include_ecf)}
        ${inWorkspace("n", workspaceId)}
    ) d
    ORDER BY d.date, d.source, d.id`,
  row: (raw) => row607(raw as unknown as Raw607),
  // The same amounts as row607 gives each invoice (taxes and payments converted at the invoice's
  // rate, half-up: Postgres rounds a positive half away from zero), summed in one aggregate.
  summary: {
    name: "consumer_summary",
    statement: (tenantId, period, workspaceId, query) => sql`
      SELECT count(*)::text AS count,
        ${money2(sql`sum(i.subtotal_amount_dop - i.discount_amount_dop)`)} AS amount,
        ${money2(sql`sum(round(coalesce(t.itbis, 0) * r.rate, 2))`)} AS itbis_invoiced,
        ${money2(sql`sum(round((coalesce((i.tax_breakdown->>'isc_specific')::numeric, 0) + coalesce((i.tax_breakdown->>'isc_ad_valorem')::numeric, 0)) * r.rate, 2))`)} AS isc,
        ${money2(sql`sum(round(coalesce((i.tax_breakdown->>'other_additional')::numeric, 0) * r.rate, 2))`)} AS other_taxes,
        ${money2(sql`sum(round(coalesce((i.tax_breakdown->>'propina')::numeric, 0) * r.rate, 2))`)} AS legal_tip,
        ${money2(sql`sum(f.cash)`)} AS cash, ${money2(sql`sum(f.bank)`)} AS bank, ${money2(sql`sum(f.card)`)} AS card,
        ${money2(sql`sum(greatest(i.total_amount_dop - coalesce(f.paid, 0) - CASE WHEN i.withholding_date <= ${period.to}::date
          THEN round(i.itbis_withheld * r.rate, 2) + round(i.isr_withheld * r.rate, 2) ELSE 0 END, 0))`)} AS on_credit,
        '0.00' AS gift_vouchers, '0.00' AS barter, ${money2(sql`sum(f.other_forms)`)} AS other_forms
      FROM invoices i
      CROSS JOIN LATERAL (SELECT coalesce(i.exchange_rate, 1) AS rate) r
      LEFT JOIN LATERAL (SELECT sum((e->>'amount')::numeric) AS itbis FROM jsonb_array_elements(i.tax_breakdown->'itbis') e) t ON true
      LEFT JOIN LATERAL (
        SELECT sum(m.amount) FILTER (WHERE m.form = 'cash') AS cash, sum(m.amount) FILTER (WHERE m.form = 'bank') AS bank,
          sum(m.amount) FILTER (WHERE m.form = 'card') AS card, sum(m.amount) FILTER (WHERE m.form = 'other_forms') AS other_forms,
          sum(m.amount) AS paid
        FROM (
          SELECT ${formSql} AS form, round(sum(pp.amount) * r.rate, 2) AS amount FROM invoice_payments pp
          WHERE pp.invoice_id = i.id AND pp.tenant_id = ${tenantId} AND pp.payment_date <= ${period.to}::date GROUP BY pp.payment_method
        ) m
      ) f ON true
      WHERE i.tenant_id = ${tenantId} AND ${reportedInvoices(period, workspaceId, query)} AND ${summarizedConsumer}`,
    of: (raw) => ConsumerSummary607.parse(raw),
  },
};
