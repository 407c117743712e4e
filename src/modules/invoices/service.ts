import { and, eq, isNull, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { findRow, pageOffset, updatedSince } from "../../db/queries";
import { oneRow, rowsOf } from "../../db/rows";
import * as schema from "../../db/schema";
import type { ListQuery } from "../../http/pagination";
import type { RequestScope } from "../../http/scope";
import { notFound } from "../../lib/errors";
import { documentTypeName, isElectronicPrefix } from "../../lib/ncf";
import { pdfLines, printedTotals } from "../sales/items";
import type { PdfDocumentData } from "../sales/pdf";
import { type DocumentSnapshot, pdfIssuer } from "../sales/snapshots";
import { liveInvoiceCount } from "./counts";
import { invoiceHistory } from "./history";
import { type InvoiceDetailData, type InvoiceJson, invoiceFromJson, invoiceJsonStatement, invoiceListJson } from "./json";

/*
 * Reading invoices: the list, one invoice, its history and what its PDF prints; and the row a
 * change works on (lockInvoice). Creating and issuing are in issue.ts, changing, deleting and
 * cancelling in changes.ts, payments and withholdings in payments.ts; how an invoice is shown is
 * json.ts.
 */

const inv = schema.invoices;
type InvoiceRow = typeof inv.$inferSelect;

const visible = (scope: RequestScope) => and(eq(inv.tenantId, scope.tenantId), eq(inv.workspaceId, scope.workspaceId), isNull(inv.deletedAt));

/**
 * One statement: the page as JSON and the total. Filtered by status alone (or not at all), the
 * total is the sum of the maintained counts (drizzle/0012); a contact or a date narrows the set
 * enough for the indexes to count it. A page past the end still carries the total.
 * The page is the JSON text Postgres wrote (`dataJson`, an array of invoiceListJson), handed to the
 * answer as it is (http/pagination.ts jsonPage): parsing it only to write it again was the list's
 * largest CPU cost in the Worker after the runtime's own (issue 46).
 */
export async function listInvoices(
  db: AnyDb,
  scope: RequestScope,
  query: ListQuery<"status" | "contact_id" | "issue_date", keyof typeof LIST_SORT>,
): Promise<{ dataJson: string; total: number }> {
  const f = query.filters;
  // Written as SQL rather than with the select builder: building the statement is per request,
  // and the builder's rendering of 22 columns was a measurable part of the Worker's CPU.
  const where = sql.join(
    [
      sql`tenant_id = ${scope.tenantId} AND workspace_id = ${scope.workspaceId} AND deleted_at IS NULL`,
      f.status ? sql`status = ${f.status}` : undefined,
      f.contact_id ? sql`contact_id = ${Number(f.contact_id)}` : undefined,
      f.issue_date ? sql`issue_date = ${f.issue_date}::date` : undefined,
      updatedSince(sql`updated_at`, query),
    ].filter((part) => part !== undefined),
    sql` AND `,
  );
  const total = f.contact_id || f.issue_date || query.updatedSince ? sql`(SELECT count(*) FROM invoices WHERE ${where})` : liveInvoiceCount(scope, f.status);
  const direction = query.sort.descending ? "DESC" : "ASC";
  const order = sql.raw(`${LIST_SORT[query.sort.field]} ${direction}, id ${direction}`);
  const result = await db.execute(sql`
    SELECT coalesce(array_to_json(array_agg(${invoiceListJson} ORDER BY ${order})), '[]')::text AS data, ${total}::integer AS total
    FROM (SELECT * FROM invoices WHERE ${where} ORDER BY ${order} LIMIT ${query.perPage} OFFSET ${pageOffset(query)}) AS i`);
  const row = oneRow(rowsOf<{ data: string; total: number }>(result));
  return { dataJson: row.data, total: Number(row.total) };
}

/** Sortable fields → columns (a closed set: the only text inlined in the statement). */
const LIST_SORT = {
  issue_date: "issue_date",
  document_number: "document_number",
  total_amount: "total_amount",
  created_at: "created_at",
  updated_at: "updated_at",
} as const;

/** The whole invoice in one statement: contact, lines with products, payments, salesmen. */
export async function getInvoice(db: AnyDb, scope: RequestScope, id: number): Promise<InvoiceDetailData> {
  const row = rowsOf<InvoiceJson>(await db.execute(invoiceJsonStatement(scope, id)))[0];
  if (!row) throw notFound("Invoice");
  return invoiceFromJson(row);
}

/** The history of a visible invoice (404 for another workspace's or a deleted one, as GET). */
export async function getInvoiceHistory(db: AnyDb, scope: RequestScope, id: number) {
  // Issued together, one round trip (issue 46): the history is answered only once the invoice is
  // found visible to the caller (404 otherwise).
  const [, history] = await Promise.all([findRow(db, inv, and(visible(scope), eq(inv.id, id)), "Invoice"), invoiceHistory(db, id)]);
  return history;
}

/** The invoice row, locked for the rest of the transaction (updates, payments, cancel, delete). */
export async function lockInvoice(db: AnyDb, scope: RequestScope, id: number): Promise<InvoiceRow> {
  return findRow(db, inv, and(visible(scope), eq(inv.id, id)), "Invoice", true);
}

/**
 * What the PDF prints beyond the invoice itself: issuer, branch, sequence, buyer, currency. An
 * issued invoice prints its snapshot (what was true when it was issued); a draft, or an invoice
 * issued before snapshots existed, prints the current records, and a draft says it is one.
 */
export async function invoicePdfData(db: AnyDb, scope: RequestScope, id: number): Promise<{ invoice: InvoiceDetailData; pdf: PdfDocumentData }> {
  const invoice = await getInvoice(db, scope, id);
  const snapshot = invoice.snapshot ?? (await liveSnapshot(db, scope, invoice));
  const { issuer, buyer, sequence, currency } = snapshot;
  const draft = invoice.status === "draft";
  const foreign = currency.code !== null && invoice.exchange_rate !== null && invoice.exchange_rate !== "1.00";
  // An e-CF is printed as DGII's models lay it out (representacion-impresa.pdf): the document's
  // amounts only. A B-series invoice also says what notes and payments changed of what is owed.
  const ecfType = !draft && isElectronicPrefix(sequence.prefix) ? sequence.prefix.slice(1) : null;
  const totals: PdfDocumentData["totals"] = [
    ...printedTotals(invoice.items, { subtotal: invoice.subtotal_amount, discount: invoice.discount_amount, total: invoice.total_amount }, ecfType !== null),
    ...(foreign && invoice.total_amount_dop ? [{ label: "Total en DOP", value: invoice.total_amount_dop, dop: true }] : []),
    ...(ecfType
      ? []
      : [
          // Notes move what is owed: shown, so the page's amounts add up (total + debits − credits − paid).
          ...(invoice.debited_amount !== "0.00" ? [{ label: "Notas de débito", value: invoice.debited_amount }] : []),
          ...(invoice.credited_amount !== "0.00" ? [{ label: "Notas de crédito", value: `-${invoice.credited_amount}` }] : []),
          { label: "Pagado", value: invoice.amount_paid },
          { label: "Pendiente", value: invoice.amount_due, bold: true },
          ...(invoice.refund_due !== "0.00" ? [{ label: "Reembolso al cliente", value: invoice.refund_due, bold: true }] : []),
        ]),
  ];
  return {
    invoice,
    pdf: {
      title: draft ? "Borrador de factura" : (documentTypeName(sequence.prefix) ?? "Factura"),
      issuer: pdfIssuer(issuer),
      documentNumber: invoice.document_number ?? "(sin número hasta su emisión)",
      ecfType,
      numberLabel: ecfType ? "e-NCF" : undefined,
      subtypeName: sequence.name,
      validUntil: draft ? null : sequence.valid_until,
      issueDate: invoice.issue_date,
      dueDate: invoice.due_date,
      dueDateLabel: ecfType ? "Fecha Límite de Pago" : "Vence",
      // A contingency replacement names the paper NCF it replaces (CodigoModificacion 4).
      reference: ecfType && invoice.replaces ? { ncf: invoice.replaces.ncf, date: invoice.replaces.issue_date, reason: "", code: 4 } : null,
      currency: foreign && currency.code !== null && invoice.exchange_rate !== null ? { code: currency.code, exchangeRate: invoice.exchange_rate } : null,
      customer: { name: buyer.name, identification: buyer.identification, identificationType: buyer.identification_type },
      ...pdfLines(invoice.items),
      totals,
      notes: invoice.notes,
    },
  };
}

/** The current records in the snapshot's shape, for what has no snapshot (drafts, invoices issued before migration 0019). */
async function liveSnapshot(db: AnyDb, scope: RequestScope, invoice: InvoiceDetailData): Promise<DocumentSnapshot> {
  const result = await db.execute(sql`
    SELECT json_build_object(
      'issuer', json_build_object('rnc', cp.rnc, 'legal_name', coalesce(cp.legal_name, t.name), 'trade_name', cp.trade_name, 'address', cp.address,
        'municipality_code', cp.municipality_code, 'province_code', cp.province_code, 'phone', cp.phone, 'email', cp.email,
        'branch', json_build_object('id', w.id, 'name', w.name, 'address', w.address, 'phone', w.phone)),
      'buyer', json_build_object('contact_id', c.id, 'name', c.name, 'identification_type', c.identification_type, 'identification', c.identification,
        'address', c.address, 'email', c.email),
      'sequence', json_build_object('prefix', s.prefix, 'name', s.name, 'valid_until', s.valid_until, 'authorization_number', s.authorization_number),
      'currency', json_build_object('id', cur.id, 'code', cur.code, 'exchange_rate', coalesce(${invoice.exchange_rate}::text, '1'))) AS snapshot
    FROM tenants t LEFT JOIN company_profiles cp ON cp.tenant_id = t.id
      JOIN workspaces w ON w.id = ${invoice.workspace_id} JOIN document_subtypes s ON s.id = ${invoice.document_subtype_id}
      JOIN contacts c ON c.id = ${invoice.contact_id} LEFT JOIN currencies cur ON cur.id = ${invoice.currency_id}
    WHERE t.id = ${scope.tenantId}`);
  return oneRow(rowsOf<{ snapshot: DocumentSnapshot }>(result)).snapshot;
}
