import type { z } from "@hono/zod-openapi";
import { type SQL, sql } from "drizzle-orm";
import { rowFromJson } from "../../db/rows";
import * as schema from "../../db/schema";
import type { RequestScope } from "../../http/scope";
import { decimal2, exchangeRateSql, exchangeRateText } from "../../lib/format";
import { type ItemJson, itemsBreakdown, itemsJson, serializeItems } from "../sales/items";
import type { TaxBreakdown } from "../sales/lines";
import { dueAmounts, INVOICE_DUE_SQL, invoiceAccount } from "../sales/money";
import type { DocumentSnapshot } from "../sales/schemas";
import { documentFields, totalsSql } from "../sales/serialize";
import type { EmbeddedNote as EmbeddedNoteSchema, InvoiceDetail, InvoiceSummary, NoteKind, Payment } from "./schemas";

/*
 * How an invoice is shown: its row as the API writes it, the list's page built by Postgres, the
 * whole invoice (lines, payments, salesmen and the credit and debit notes it embeds) read as JSON
 * in one statement, and the `data` of invoice and payment events, which store that statement's
 * JSON and make it the API's shape when they are listed or delivered (webhooks/data-formats.ts).
 * Apart from the invoice's services, so that notes (above invoices), quotations and the webhooks'
 * formats read these shapes without reaching into a service.
 */

const inv = schema.invoices;
type InvoiceRow = typeof inv.$inferSelect;

type InvoicePayment = z.output<typeof Payment>;
type EmbeddedNote = z.output<typeof EmbeddedNoteSchema>;

/** An invoice as lists and writes show it. */
export type InvoiceData = ReturnType<typeof serializeInvoice>;

/** An invoice as GET /invoices/{id} shows it. */
export type InvoiceDetailData = ReturnType<typeof serializeInvoice> & Omit<z.output<typeof InvoiceDetail>, keyof z.output<typeof InvoiceSummary>>;

/** An invoice row as the API shows it (lists, writes, and the base of GET /invoices/{id}). */
export function serializeInvoice(row: InvoiceRow) {
  return {
    ...documentFields(row),
    status: row.status as InvoiceSummary["status"],
    ...dueAmounts(invoiceAccount(row)),
    amount_paid: decimal2(row.amountPaid),
    itbis_withheld: decimal2(row.itbisWithheld),
    isr_withheld: decimal2(row.isrWithheld),
    withholding_date: row.withholdingDate,
    income_type: row.incomeType as InvoiceSummary["income_type"],
    credited_amount: decimal2(row.creditedAmount),
    debited_amount: decimal2(row.debitedAmount),
    payment_term: row.paymentTerm,
    exchange_rate: row.exchangeRate === null ? null : exchangeRateText(row.exchangeRate),
    subtotal_amount_dop: decimal2(row.subtotalAmountDop),
    discount_amount_dop: decimal2(row.discountAmountDop),
    tax_amount_dop: decimal2(row.taxAmountDop),
    total_amount_dop: decimal2(row.totalAmountDop),
    replaces: row.replacedNcf === null || row.replacedNcfDate === null ? null : { ncf: row.replacedNcf, issue_date: row.replacedNcfDate },
  };
}

/**
 * An invoice as the list shows it (serializeInvoice's fields), built by Postgres: the page arrives
 * as one JSON value and is answered as written (invoices/service.ts listInvoices), instead of 22
 * text columns per row parsed, mapped and formatted in JavaScript — the largest part of the
 * Worker's CPU for a list in `npm run bench`. A row of named columns, not `json_build_object`: its
 * JSON is as compact as the rest of the API's (`{"id":1,…}`, where json_build_object writes
 * `{"id" : 1, …}`), the keys in serializeInvoice's order. numeric(14,2) as text already has two
 * places; timestamps as ISO 8601 UTC to the second, as `timestamp()` writes them.
 * test/invoices/counts.test.ts checks that both agree field by field.
 */
export const invoiceListJson = sql.raw(`(SELECT listed FROM (SELECT
  i.id, i.workspace_id, i.contact_id, i.document_subtype_id,
  i.document_number, i.issue_date, i.due_date,
  ${totalsSql("i")}, i.currency_id, i.notes,
  to_char(i.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS created_at,
  to_char(i.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS updated_at,
  i.status, ${INVOICE_DUE_SQL.amount_due} AS amount_due, ${INVOICE_DUE_SQL.refund_due} AS refund_due,
  i.amount_paid::text AS amount_paid, i.itbis_withheld::text AS itbis_withheld, i.isr_withheld::text AS isr_withheld,
  i.withholding_date, i.income_type, i.credited_amount::text AS credited_amount, i.debited_amount::text AS debited_amount, i.payment_term,
  ${exchangeRateSql("i.exchange_rate")} AS exchange_rate, i.subtotal_amount_dop::text AS subtotal_amount_dop,
  i.discount_amount_dop::text AS discount_amount_dop, i.tax_amount_dop::text AS tax_amount_dop, i.total_amount_dop::text AS total_amount_dop,
  CASE WHEN i.replaced_ncf IS NOT NULL THEN (SELECT replaced FROM (SELECT i.replaced_ncf AS ncf, i.replaced_ncf_date AS issue_date) AS replaced) END AS replaces
) AS listed)`);

/** What invoiceJsonStatement reads of an invoice: its row and what it embeds, as JSON. */
export interface InvoiceJson {
  invoice: Record<string, unknown>;
  contact: { id: number; name: string; email: string | null; phone: string | null };
  items: ItemJson[];
  payments: InvoicePayment[];
  salesmen: { id: number; full_name: string }[];
  credit_notes: EmbeddedNote[];
  debit_notes: EmbeddedNote[];
}

/**
 * A visible invoice with its contact, lines, payments, salesmen and notes, in one statement (GET
 * /invoices/{id}; also read inside an invoice event's own statement, modules/events/service.ts).
 */
export function invoiceJsonStatement(scope: RequestScope, id: number): SQL {
  return sql`
    SELECT row_to_json(i) AS invoice,
      (SELECT json_build_object('id', c.id, 'name', c.name, 'email', c.email, 'phone', c.phone) FROM contacts c WHERE c.id = i.contact_id) AS contact,
      ${itemsJson("invoice", sql`i.id`)} AS items,
      (SELECT coalesce(json_agg(json_build_object('id', pm.id, 'amount', pm.amount, 'payment_date', pm.payment_date,
          'payment_method', pm.payment_method, 'bank_account', CASE WHEN b.id IS NULL THEN NULL ELSE json_build_object('id', b.id, 'name', b.name) END)
          ORDER BY pm.id), '[]')
       FROM invoice_payments pm LEFT JOIN bank_accounts b ON b.id = pm.bank_account_id WHERE pm.invoice_id = i.id) AS payments,
      (SELECT coalesce(json_agg(json_build_object('id', s.id, 'full_name', s.full_name) ORDER BY s.id), '[]')
       FROM invoice_salesmen x JOIN salesmen s ON s.id = x.salesman_id WHERE x.invoice_id = i.id) AS salesmen,
      ${invoiceNotesJson(sql`i.id`, "credit")} AS credit_notes, ${invoiceNotesJson(sql`i.id`, "debit")} AS debit_notes
    FROM invoices i
    WHERE i.tenant_id = ${scope.tenantId} AND i.workspace_id = ${scope.workspaceId} AND i.id = ${id} AND i.deleted_at IS NULL`;
}

/** GET /invoices/{id}'s `data` from what invoiceJsonStatement read. */
export function invoiceFromJson(row: InvoiceJson): InvoiceDetailData {
  return {
    ...serializeInvoice(rowFromJson(inv, row.invoice)),
    contact: row.contact,
    items: serializeItems(row.items),
    payments: row.payments.map((p) => ({ ...p, amount: decimal2(p.amount) })),
    salesmen: row.salesmen,
    snapshot: (row.invoice.snapshot as DocumentSnapshot | null) ?? null,
    tax_breakdown: (row.invoice.tax_breakdown as TaxBreakdown | null) ?? itemsBreakdown(row.items),
    credit_notes: row.credit_notes,
    debit_notes: row.debit_notes,
  };
}

/** An invoice event's `data`, read in the event's own statement (events/service.ts). */
export const invoiceEventData = (scope: RequestScope, id: number) => ({
  format: "invoice" as const,
  statement: invoiceJsonStatement(scope, id),
  resourceId: id,
});

/** A payment.received event's `data`, read in the event's own statement: the invoice's, and which payment. */
export const paymentEventData = (scope: RequestScope, invoiceId: number, paymentId: number) => ({
  format: "payment" as const,
  statement: sql`SELECT invoice_json.*, ${paymentId}::int AS payment_id FROM (${invoiceJsonStatement(scope, invoiceId)}) invoice_json`,
  resourceId: invoiceId,
});

/** payment.received's `data` from what paymentEventData read: the payment as the invoice lists it, and the invoice. */
export function paymentFromJson(raw: InvoiceJson & { payment_id: number }) {
  const invoice = invoiceFromJson(raw);
  return { ...invoice.payments.find((p) => p.id === raw.payment_id), invoice_id: invoice.id, invoice };
}

/** The notes an invoice's GET embeds, per kind, oldest first. */
export function invoiceNotesJson(invoiceId: SQL, kind: NoteKind): SQL {
  return sql`(SELECT coalesce(json_agg(json_build_object('id', n.id, 'document_number', n.document_number, 'issue_date', n.issue_date,
      'modification_code', n.modification_code, 'reason', n.reason, 'status', n.status, 'total_amount', n.total_amount::text) ORDER BY n.id), '[]')
    FROM invoice_notes n WHERE n.invoice_id = ${invoiceId} AND n.kind = ${kind})`;
}
