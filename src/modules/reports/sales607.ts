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

/** The amounts of a row, as the 607 writes them (two decimals). */
type Amounts607 = Pick<
  Row607,
  "itbis_invoiced" | "itbis_withheld" | "isr_withheld" | "isc" | "other_taxes" | "legal_tip" | "cash" | "bank" | "card" | "on_credit" | "other_forms"
>;

export function row607(raw: Raw607): Row607 {
  const amounts = (RATE_ONE.test(raw.exchange_rate) && amountsInPesos(raw)) || amountsAtRate(raw);
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
    itbis_invoiced: amounts.itbis_invoiced,
    itbis_withheld: amounts.itbis_withheld,
    // As the 606's: not enabled while no perception regime exists.
    itbis_perceived: "",
    isr_withheld: amounts.isr_withheld,
    isr_perceived: "",
    isc: amounts.isc,
    other_taxes: amounts.other_taxes,
    legal_tip: amounts.legal_tip,
    cash: amounts.cash,
    bank: amounts.bank,
    card: amounts.card,
    on_credit: amounts.on_credit,
    gift_vouchers: "0.00",
    barter: "0.00",
    other_forms: amounts.other_forms,
  };
}

function amountsAtRate(raw: Raw607): Amounts607 {
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
    itbis_invoiced: money(itbis),
    itbis_withheld: money(itbisWithheld),
    isr_withheld: money(isrWithheld),
    isc: money(isc),
    other_taxes: money(otherTaxes),
    legal_tip: money(tip),
    cash: money(forms.cash),
    bank: money(forms.bank),
    card: money(forms.card),
    on_credit: money(onCredit),
    other_forms: money(forms.other_forms),
  };
}

/** An exchange rate of 1 (a peso document: `coalesce(rate, 1)`, or a numeric(18, 6) 1.000000). */
const RATE_ONE = /^1(?:\.0*)?$/;

/**
 * A non-negative amount of at most two decimals (more only as trailing zeros) and 12 integer
 * digits (MONEY_MAX's): held exactly as a whole number of cents, sums included.
 */
const PLAIN_AMOUNT = /^(\d{1,12})(?:\.(\d\d?)0*)?$/;

function centsOf(amount: string): number {
  const match = PLAIN_AMOUNT.exec(amount);
  if (!match) return Number.NaN;
  const fraction = match[2];
  return Number(match[1]) * 100 + (fraction === undefined ? 0 : fraction.length === 1 ? Number(fraction) * 10 : Number(fraction));
}

const text = (cents: number) => {
  const units = Math.floor(cents / 100);
  const rest = cents - units * 100;
  return `${units}.${rest < 10 ? "0" : ""}${rest}`;
};

/**
 * amountsAtRate's figures for a document in pesos, in whole cents instead of big.js (its ~30 Big
 * operations a row were the largest part of the 607's own work, issue 46): at a rate of 1 each
 * conversion to DOP rounds an amount that has two decimals already, so sums of exact cents give
 * the same figures to the cent. Null when an amount is not of that form (more decimals, negative,
 * larger): the row then takes amountsAtRate.
 */
function amountsInPesos(raw: Raw607): Amounts607 | null {
  const breakdown = raw.tax_breakdown;
  let itbis = 0;
  let isc = 0;
  let otherTaxes = 0;
  let tip = 0;
  if (breakdown) {
    for (const entry of breakdown.itbis) itbis += centsOf(entry.amount);
    isc = centsOf(breakdown.isc_specific) + centsOf(breakdown.isc_ad_valorem);
    otherTaxes = centsOf(breakdown.other_additional);
    tip = centsOf(breakdown.propina);
  }
  const reported = raw.withholding_date !== null;
  const itbisWithheld = reported ? centsOf(raw.itbis_withheld) : 0;
  const isrWithheld = reported ? centsOf(raw.isr_withheld) : 0;
  const forms = { cash: 0, bank: 0, card: 0, other_forms: 0 };
  let onCredit = 0;
  if (raw.kind === "invoice") {
    if (raw.payments) for (const method in raw.payments) forms[FORM_OF_METHOD[method] ?? "other_forms"] += centsOf(raw.payments[method]!);
    onCredit = centsOf(raw.total_amount_dop) - forms.cash - forms.bank - forms.card - forms.other_forms - itbisWithheld - isrWithheld;
    if (onCredit < 0) onCredit = 0;
  } else if (raw.kind === "debit") {
    onCredit = centsOf(raw.total_amount_dop);
  }
  const all = [itbis, isc, otherTaxes, tip, itbisWithheld, isrWithheld, forms.cash, forms.bank, forms.card, forms.other_forms, onCredit];
  // NaN (an amount not plain) fails both; so would a sum past 2^53 cents, which 12-digit amounts cannot reach.
  if (!all.every(Number.isSafeInteger)) return null;
  return {
    itbis_invoiced: text(itbis),
    itbis_withheld: text(itbisWithheld),
    isr_withheld: text(isrWithheld),
    isc: text(isc),
    other_taxes: text(otherTaxes),
    legal_tip: text(tip),
    cash: text(forms.cash),
    bank: text(forms.bank),
    card: text(forms.card),
    on_credit: text(onCredit),
    other_forms: text(forms.other_forms),
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
