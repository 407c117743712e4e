import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { findRow, pageOf } from "../../db/queries";
import { oneRow, rowFromJson, rowsOf } from "../../db/rows";
import * as schema from "../../db/schema";
import type { ListQuery } from "../../http/pagination";
import type { RequestScope } from "../../http/scope";
import { AppError, type FieldErrors, fieldError, notFound } from "../../lib/errors";
import { decimal2, exchangeRateText, timestamp } from "../../lib/format";
import type { InvoiceContext } from "../invoices/context";
import { createInvoice } from "../invoices/issue";
import {
  type ItemJson,
  insertLines,
  itemsBreakdown,
  itemsJson,
  lineRecords,
  pdfLines,
  printedTotals,
  replaceLines,
  serializeItems,
  storedLineItems,
} from "../sales/items";
import { documentAmounts, lineAmounts, type TaxBreakdown, taxBreakdown } from "../sales/lines";
import type { PdfDocumentData } from "../sales/pdf";
import { resolveDocument } from "../sales/references";
import { documentFields } from "../sales/serialize";
import { type ConvertQuotationInput, type CreateQuotationInput, MAX_BULK_PDF_LINES, type QuotationStatus, type UpdateQuotationInput } from "./schemas";

const q = schema.quotations;
type QuotationRow = typeof q.$inferSelect;

/** Statuses in which a quotation may still be changed or deleted. */
const EDITABLE: QuotationStatus[] = ["draft", "sent"];
/** Statuses from which a quotation can no longer become an invoice. */
const NOT_CONVERTIBLE: QuotationStatus[] = ["converted", "cancelled", "rejected"];

export const TRANSITIONS = {
  send: { from: ["draft"], to: "sent", verb: "sent" },
  approve: { from: ["sent"], to: "approved", verb: "approved" },
  reject: { from: ["sent"], to: "rejected", verb: "rejected" },
  cancel: { from: ["draft", "sent", "approved"], to: "cancelled", verb: "cancelled" },
} as const satisfies Record<string, { from: QuotationStatus[]; to: QuotationStatus; verb: string }>;
export type TransitionAction = keyof typeof TRANSITIONS;

/** A quotation as lists and writes show it. */
type QuotationData = ReturnType<typeof serializeQuotation>;

function serializeQuotation(row: QuotationRow) {
  return { ...documentFields(row), status: row.status as QuotationStatus, invoice_id: row.invoiceId };
}

/** Quotations belong to the request's workspace, like invoices. */
const visible = (scope: RequestScope) => and(eq(q.tenantId, scope.tenantId), eq(q.workspaceId, scope.workspaceId));

/**
 * Creates a draft quotation after one read: references resolved and the next number of the
 * quotation subtype taken under its row lock (resolveDocument), totals by the invoices' line
 * math; the quotation and its lines are then written in one statement. Stock is never touched.
 */
export async function createQuotation(db: AnyDb, scope: RequestScope, input: CreateQuotationInput, today: string): Promise<QuotationData> {
  const resolved = await resolveDocument(db, scope, input, { documentType: "quotation", takeNumber: true, today });
  const amounts = resolved.lines.map(lineAmounts);
  const totals = documentAmounts(amounts);
  const t = scope.tenantId;
  const result = await db.execute(sql`
    WITH quo AS (
      INSERT INTO quotations (tenant_id, workspace_id, contact_id, document_subtype_id, document_number, issue_date, due_date, status,
        subtotal_amount, discount_amount, tax_amount, total_amount, tax_breakdown, currency_id, notes, created_by)
      VALUES (${t}, ${scope.workspaceId}, ${resolved.contact.id}, ${resolved.subtype.id}, ${resolved.documentNumber}, ${input.issue_date},
        ${input.due_date ?? null}, 'draft', ${totals.subtotalAmount}, ${totals.discountAmount}, ${totals.taxAmount}, ${totals.totalAmount},
        ${JSON.stringify(taxBreakdown(amounts))}::jsonb, ${resolved.currencyId}, ${input.notes ?? null}, ${scope.userId})
      RETURNING *
    ), ${insertLines("quotation", t, sql`(SELECT id FROM quo)`, lineRecords(resolved.lines, amounts))}
    SELECT row_to_json(quo) AS quotation, (SELECT count(*) FROM items) AS lines FROM quo`);
  const row = oneRow(rowsOf<{ quotation: Record<string, unknown> }>(result));
  return serializeQuotation(rowFromJson(q, row.quotation));
}

export async function listQuotations(
  db: AnyDb,
  scope: RequestScope,
  query: ListQuery<"status" | "contact_id", "issue_date" | "document_number" | "total_amount" | "created_at" | "updated_at">,
): Promise<{ data: QuotationData[]; total: number }> {
  const f = query.filters;
  const where = and(visible(scope), f.status ? eq(q.status, f.status) : undefined, f.contact_id ? eq(q.contactId, Number(f.contact_id)) : undefined);
  const column = { issue_date: q.issueDate, document_number: q.documentNumber, total_amount: q.totalAmount, created_at: q.createdAt, updated_at: q.updatedAt }[
    query.sort.field
  ];
  const order = query.sort.descending ? [desc(column), desc(q.id)] : [asc(column), asc(q.id)];
  const page = await pageOf(db, q, where, order, query);
  return { data: page.rows.map(serializeQuotation), total: page.total };
}

const quotationItems = itemsJson("quotation", sql`q.id`);

/** The whole quotation in one statement: contact and lines with their products. */
export async function getQuotation(
  db: AnyDb,
  scope: RequestScope,
  id: number,
): Promise<QuotationData & { contact: { id: number; name: string; email: string | null }; items: ItemJson[]; tax_breakdown: TaxBreakdown }> {
  const result = await db.execute(sql`
    SELECT row_to_json(q) AS quotation,
      (SELECT json_build_object('id', c.id, 'name', c.name, 'email', c.email) FROM contacts c WHERE c.id = q.contact_id) AS contact,
      ${quotationItems} AS items
    FROM quotations q
    WHERE q.tenant_id = ${scope.tenantId} AND q.workspace_id = ${scope.workspaceId} AND q.id = ${id}`);
  const row = rowsOf<{ quotation: Record<string, unknown>; contact: { id: number; name: string; email: string | null }; items: ItemJson[] }>(result)[0];
  if (!row) throw notFound("Quotation");
  return {
    ...serializeQuotation(rowFromJson(q, row.quotation)),
    contact: row.contact,
    items: serializeItems(row.items),
    tax_breakdown: (row.quotation.tax_breakdown as TaxBreakdown | null) ?? itemsBreakdown(row.items),
  };
}

/** The quotation row, locked for the rest of the transaction. */
async function lockQuotation(db: AnyDb, scope: RequestScope, id: number): Promise<QuotationRow> {
  return findRow(db, q, and(visible(scope), eq(q.id, id)), "Quotation", true);
}

function assertEditable(row: QuotationRow, action: string) {
  if (!EDITABLE.includes(row.status as QuotationStatus)) {
    throw new AppError("invalid_transition", `Only quotations in draft or sent can be ${action}; this one is ${row.status}.`);
  }
}

/** Changes a quotation in draft or sent; lines and totals are recomputed when lines change. */
export async function updateQuotation(
  db: AnyDb,
  scope: RequestScope,
  id: number,
  input: UpdateQuotationInput,
  today: string,
): Promise<{ id: number; total_amount: string; updated_at: string }> {
  const quotation = await lockQuotation(db, scope, id);
  assertEditable(quotation, "changed");
  if (input.document_subtype_id !== undefined && input.document_subtype_id !== quotation.documentSubtypeId) {
    throw fieldError("document_subtype_id", "The document subtype (and so the number) of a quotation cannot change.");
  }
  const set: Partial<typeof q.$inferInsert> = { updatedAt: new Date() };
  if (input.issue_date !== undefined) set.issueDate = input.issue_date;
  if (input.due_date !== undefined) set.dueDate = input.due_date;
  if (input.notes !== undefined) set.notes = input.notes;

  if (input.items !== undefined || input.contact_id !== undefined || input.currency_id !== undefined) {
    const items = input.items ?? (await storedLineItems(db, "quotation", id));
    const resolved = await resolveDocument(
      db,
      scope,
      {
        contact_id: input.contact_id ?? quotation.contactId,
        document_subtype_id: quotation.documentSubtypeId,
        currency_id: input.currency_id === undefined ? quotation.currencyId : input.currency_id,
        items,
      },
      { documentType: "quotation", takeNumber: false, today },
    );
    set.contactId = resolved.contact.id;
    set.currencyId = resolved.currencyId;
    if (input.items) {
      const amounts = resolved.lines.map(lineAmounts);
      Object.assign(set, documentAmounts(amounts), { taxBreakdown: taxBreakdown(amounts) });
      await db.execute(replaceLines("quotation", scope.tenantId, id, lineRecords(resolved.lines, amounts)));
    }
  }
  const updated = await db.update(q).set(set).where(eq(q.id, id)).returning().then(oneRow);
  return { id: updated.id, total_amount: decimal2(updated.totalAmount), updated_at: timestamp(updated.updatedAt) };
}

/** Deletes a quotation in draft or sent (its lines go with it). */
export async function deleteQuotation(db: AnyDb, scope: RequestScope, id: number): Promise<void> {
  const quotation = await lockQuotation(db, scope, id);
  assertEditable(quotation, "deleted");
  await db.delete(q).where(eq(q.id, id));
}

/**
 * send / approve / reject / cancel in one conditional UPDATE; when it changes nothing, a second
 * read tells a missing quotation (404) from a status the action does not apply to (409).
 */
export async function transitionQuotation(db: AnyDb, scope: RequestScope, id: number, action: TransitionAction): Promise<QuotationData> {
  const rule = TRANSITIONS[action];
  const [updated] = await db
    .update(q)
    .set({ status: rule.to, updatedAt: new Date() })
    .where(and(visible(scope), eq(q.id, id), inArray(q.status, [...rule.from])))
    .returning();
  if (updated) return serializeQuotation(updated);
  const [current] = await db
    .select({ status: q.status })
    .from(q)
    .where(and(visible(scope), eq(q.id, id)));
  if (!current) throw notFound("Quotation");
  throw new AppError("invalid_transition", `A quotation that is ${current.status} cannot be ${rule.verb}; only one that is ${rule.from.join(", ")} can.`);
}

/** Notes of the invoice a quotation becomes: the quotation's number first, then its notes. */
function convertedNotes(documentNumber: string, notes: string | null): string {
  return notes ? `Cotización ${documentNumber}. ${notes}` : `Cotización ${documentNumber}`;
}

/**
 * Converts a quotation into an invoice under the quotation's row lock, so that two concurrent
 * converts make one invoice (the second waits, then sees `converted`). The invoice is created by
 * the invoice service (NCF, stock sales, email); if it refuses, its error propagates and the
 * request's rollback leaves the quotation as it was.
 */
export async function convertQuotation(
  db: AnyDb,
  scope: RequestScope,
  id: number,
  input: ConvertQuotationInput,
  context: InvoiceContext,
): Promise<{ invoice_id: number; document_number: string }> {
  const t = scope.tenantId;
  const result = await db.execute(sql`
    SELECT row_to_json(q) AS quotation,
      (SELECT coalesce(json_agg(json_build_object('product_id', it.product_id, 'description', it.description, 'quantity', it.quantity::text,
          'unit_price', it.unit_price::text, 'discount', it.discount::text,
          'tax_ids', (SELECT coalesce(json_agg((tax->>'id')::int), '[]') FROM jsonb_array_elements(it.taxes) AS tax)) ORDER BY it.position), '[]')
       FROM quotation_items it WHERE it.quotation_id = q.id) AS items,
      (SELECT document_subtype_id FROM workspace_document_preferences p
       WHERE p.tenant_id = ${t} AND p.workspace_id = q.workspace_id AND p.type = 'invoice') AS preferred_subtype_id,
      (SELECT id FROM document_subtypes WHERE tenant_id = ${t} AND type = 'invoice' AND is_default ORDER BY id LIMIT 1) AS default_subtype_id
    FROM quotations q
    WHERE q.tenant_id = ${t} AND q.workspace_id = ${scope.workspaceId} AND q.id = ${id}
    FOR UPDATE OF q`);
  const row = rowsOf<{
    quotation: Record<string, unknown>;
    items: { product_id: number; description: string; quantity: string; unit_price: string; discount: string; tax_ids: number[] }[];
    preferred_subtype_id: number | null;
    default_subtype_id: number | null;
  }>(result)[0];
  if (!row) throw notFound("Quotation");
  const quotation = rowFromJson(q, row.quotation);
  if (NOT_CONVERTIBLE.includes(quotation.status as QuotationStatus)) {
    throw new AppError("quotation_not_convertible", `A quotation that is ${quotation.status} cannot be converted to an invoice.`);
  }
  const subtypeId = input.document_subtype_id ?? row.preferred_subtype_id ?? row.default_subtype_id;
  if (subtypeId == null) {
    throw fieldError("document_subtype_id", "There is no preferred or default invoice subtype: give document_subtype_id.");
  }
  const invoice = await createInvoice(
    db,
    scope,
    {
      contact_id: quotation.contactId,
      document_subtype_id: subtypeId,
      issue_date: context.today,
      due_date: null,
      payment_term: null,
      notes: convertedNotes(quotation.documentNumber, quotation.notes),
      currency_id: quotation.currencyId,
      items: row.items,
      income_type: input.income_type,
    },
    context,
    { quotationId: quotation.id },
  );
  await db.update(q).set({ status: "converted", invoiceId: invoice.id, updatedAt: new Date() }).where(eq(q.id, id));
  // Converting issues at once (never a draft): the invoice has its number.
  return { invoice_id: invoice.id, document_number: invoice.document_number! };
}

interface QuotationPdf {
  id: number;
  documentNumber: string;
  updatedAt: Date;
  pdf: PdfDocumentData;
}

/**
 * Everything the PDFs of the given quotations show, in one statement: quotation, lines, customer,
 * issuer, branch and sequence name. Quotations not visible in the request's workspace are absent.
 * With `maxLines`, the same statement first counts the lines of the visible quotations and builds
 * none of them when they exceed it (422 on `quotation_ids`): a request naming 100 quotations of 500
 * long lines each is refused before 50,000 lines are read into the Worker's memory.
 */
export async function quotationPdfData(db: AnyDb, scope: RequestScope, ids: number[], options: { maxLines?: number } = {}): Promise<QuotationPdf[]> {
  if (!ids.length) return [];
  const visible = sql`q.tenant_id = ${scope.tenantId} AND q.workspace_id = ${scope.workspaceId}
      AND q.id = ANY(${`{${ids.map((id) => Math.trunc(id)).join(",")}}`}::int[])`;
  const max = options.maxLines;
  // CASE evaluates the items' subquery only when the total is within the cap.
  const result = await db.execute(sql`
    ${max === undefined ? sql`` : sql`WITH total AS (SELECT count(*)::int AS lines FROM quotation_items it WHERE it.quotation_id IN (SELECT q.id FROM quotations q WHERE ${visible}))`}
    SELECT row_to_json(q) AS quotation,
      ${max === undefined ? sql`${quotationItems} AS items, NULL::int AS total_lines` : sql`CASE WHEN total.lines <= ${max}::int THEN ${quotationItems} END AS items, total.lines AS total_lines`},
      c.name AS customer_name, c.identification, c.identification_type,
      s.name AS subtype_name, w.name AS workspace_name, w.address AS workspace_address, w.phone AS workspace_phone, t.name AS tenant_name,
      cp.legal_name, cp.trade_name, cp.rnc AS issuer_rnc, cp.address AS issuer_address, cp.phone AS issuer_phone, cp.email AS issuer_email,
      CASE WHEN NOT cur.is_default THEN cur.code END AS currency_code, CASE WHEN NOT cur.is_default THEN cur.exchange_rate::text END AS exchange_rate
    FROM quotations q
      JOIN contacts c ON c.id = q.contact_id
      JOIN document_subtypes s ON s.id = q.document_subtype_id
      JOIN workspaces w ON w.id = q.workspace_id
      JOIN tenants t ON t.id = q.tenant_id
      LEFT JOIN company_profiles cp ON cp.tenant_id = q.tenant_id
      LEFT JOIN currencies cur ON cur.id = q.currency_id
      ${max === undefined ? sql`` : sql`CROSS JOIN total`}
    WHERE ${visible}`);
  const rows = rowsOf<{
    quotation: Record<string, unknown>;
    items: ItemJson[];
    total_lines: number | null;
    customer_name: string;
    identification: string | null;
    identification_type: string | null;
    subtype_name: string;
    workspace_name: string;
    workspace_address: string | null;
    workspace_phone: string | null;
    tenant_name: string;
    legal_name: string | null;
    trade_name: string | null;
    issuer_rnc: string | null;
    issuer_address: string | null;
    issuer_phone: string | null;
    issuer_email: string | null;
    currency_code: string | null;
    exchange_rate: string | null;
  }>(result);
  const totalLines = Number(rows[0]?.total_lines ?? 0);
  if (max !== undefined && totalLines > max) {
    throw fieldError("quotation_ids", `The selected quotations have ${totalLines} lines in all; at most ${max} lines can be rendered in one request.`);
  }
  return rows.map((row) => {
    const quotation = serializeQuotation(rowFromJson(q, row.quotation));
    const items = serializeItems(row.items);
    return {
      id: quotation.id,
      documentNumber: quotation.document_number,
      updatedAt: new Date(row.quotation.updated_at as string),
      pdf: {
        title: "Cotización",
        numberLabel: "No.",
        issuer: {
          legalName: row.legal_name ?? row.tenant_name,
          tradeName: row.trade_name,
          rnc: row.issuer_rnc,
          address: row.issuer_address,
          phone: row.issuer_phone,
          email: row.issuer_email,
          branchName: row.workspace_name,
          branchAddress: row.workspace_address,
          branchPhone: row.workspace_phone,
        },
        documentNumber: quotation.document_number,
        subtypeName: row.subtype_name,
        issueDate: quotation.issue_date,
        dueDate: quotation.due_date,
        dueDateLabel: "Válida hasta",
        // A quotation in a foreign currency prints it with the currency's rate today (a quotation fixes no rate).
        currency: row.currency_code && row.exchange_rate ? { code: row.currency_code, exchangeRate: exchangeRateText(row.exchange_rate) } : null,
        customer: { name: row.customer_name, identification: row.identification, identificationType: row.identification_type },
        ...pdfLines(items),
        // A quotation is no fiscal document: its totals print as a B-series document's (one home for them).
        totals: printedTotals(items, { subtotal: quotation.subtotal_amount, discount: quotation.discount_amount, total: quotation.total_amount }, false),
        notes: quotation.notes,
      },
    };
  });
}

/**
 * The PDFs of a bulk request, in the order asked (repeated ids once). Every id must be visible in
 * the request's workspace; each one that is not is a 422 naming `quotation_ids.N`. More than
 * MAX_BULK_PDF_LINES lines in all (repeated ids counted once) is a 422 naming `quotation_ids`.
 */
export async function bulkPdfData(db: AnyDb, scope: RequestScope, ids: number[]): Promise<QuotationPdf[]> {
  const unique = [...new Set(ids)];
  const byId = new Map((await quotationPdfData(db, scope, unique, { maxLines: MAX_BULK_PDF_LINES })).map((doc) => [doc.id, doc]));
  const errors: FieldErrors = {};
  ids.forEach((id, i) => {
    if (!byId.has(id)) errors[`quotation_ids.${i}`] = ["No such quotation in this workspace."];
  });
  if (Object.keys(errors).length) throw new AppError("validation_failed", "Some quotations are not available.", errors);
  return unique.map((id) => byId.get(id)!);
}
