import { and, eq, inArray, isNull, type SQL, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { findRow, pageOffset, updatedSince } from "../../db/queries";
import { rowFromJson, rowsOf } from "../../db/rows";
import * as schema from "../../db/schema";
import type { ListQuery } from "../../http/pagination";
import type { RequestScope } from "../../http/scope";
import { ANNULMENT_REASONS, type AnnulmentReason, DEFAULT_ANNULMENT_REASON } from "../../lib/annulments";
import { dominicanToday } from "../../lib/dates";
import { Big } from "../../lib/decimal";
import { AppError, fieldError, notFound } from "../../lib/errors";
import { decimal2, exchangeRateText, timestamp } from "../../lib/format";
import { documentTypeName, isElectronicNumber, isElectronicPrefix, isNcfPrefix } from "../../lib/ncf";
import { assertActiveBankAccount } from "../bank-accounts/service";
import { assertFiscalProfile } from "../company/service";
import { numberCtes, refusalAfterTaking } from "../document-subtypes/numbering";
import { assertSalesInvoicePrefix } from "../document-subtypes/service";
import { assertNoEcf } from "../ecf/documents";
import { assertEcfReady, type EcfSource, insertEcfStatement, type ReadyEcfSettings, type SignedEcf, signEcf } from "../ecf/issue";
import { applyStockChanges, checkStockResult, type StockChange, type StockResult, stockCtes, stockResultColumns } from "../inventory/stock";
import { createNote } from "../notes/service";
import {
  type InvoiceData,
  type InvoiceDetailData,
  type InvoiceJson,
  invoiceFromJson,
  invoiceJsonStatement,
  invoiceListJson,
  serializeInvoice,
} from "../sales/invoice-json";
import { insertLines, lineRecords, pdfLines, replaceLines, storedLineItems } from "../sales/items";
import { documentAmounts, type LineAmounts, lineAmounts, type TaxBreakdown, taxBreakdown } from "../sales/lines";
import type { PdfDocumentData } from "../sales/pdf";
import { type ResolvedDocument, type ResolvedLine, resolveDocument } from "../sales/references";
import { buyerSnapshot, type DocumentSnapshot, type DocumentWarning, documentSnapshot, dopAmounts, pdfIssuer, registryWarnings } from "../sales/snapshots";
import { assertBuyerRules } from "./buyer-rules";
import type { InvoiceContext } from "./context";
import { liveInvoiceCount } from "./counts";
import { invoiceHistory, recordInvoiceChange } from "./history";
import type { CreateInvoiceInput, CreatePaymentInput, InvoiceWithholdingsInput, IssueInvoiceInput, UpdateInvoiceInput } from "./schemas";
import { balanceOf, invoiceStatus } from "./status";

const inv = schema.invoices;
type InvoiceRow = typeof inv.$inferSelect;

/** Sale movements for the lines of products that track inventory: outgoing (negative) quantities. */
function saleChanges(lines: ResolvedLine[], workspaceId: number, sign: 1 | -1, reference: string | null): StockChange[] {
  return lines.flatMap((line, i) =>
    line.trackInventory
      ? [
          {
            productId: line.productId,
            workspaceId,
            quantity: new Big(line.quantity).times(-sign).toFixed(2),
            type: "sale" as const,
            reference,
            field: `items.${i}.quantity`,
          },
        ]
      : [],
  );
}

/** What issuing a document fixes, computed before its one write statement. */
interface Issue {
  resolved: ResolvedDocument;
  issueDate: string;
  totals: ReturnType<typeof documentAmounts>;
  records: ReturnType<typeof lineRecords>;
  changes: StockChange[];
  email: string | null;
  /** The issued columns, in SQL: number, status, amounts, snapshot, rate and DOP amounts. */
  columns: [string, SQL][];
  warnings: DocumentWarning[];
  snapshot: DocumentSnapshot;
  amounts: LineAmounts[];
  breakdown: TaxBreakdown;
  /** An E-series document: its signed e-CF (signIssue), written by the same statement. */
  ecf: SignedEcf | null;
}

/**
 * The checks and values of issuing (create or a draft's issue): a fiscal NCF needs a sales prefix
 * and a complete issuer (docs/fiscal.md), the type's buyer and tax rules (Norma General 06-2018),
 * then the totals, the DOP amounts at the rate of the day (or the one given), the snapshot, the
 * stock sales and the "invoice created" email. Nothing here touches the database.
 */
function prepareIssue(
  scope: RequestScope,
  resolved: ResolvedDocument,
  issueDate: string,
  givenRate: string | null | undefined,
  context: InvoiceContext,
): Issue {
  const fiscal = isNcfPrefix(resolved.subtype.prefix);
  if (fiscal) {
    assertSalesInvoicePrefix(resolved.subtype.prefix);
    if (isElectronicPrefix(resolved.subtype.prefix)) assertEcfReady(resolved.subtype.prefix, resolved.ecf);
    assertFiscalProfile(resolved.issuer);
  }
  const amounts = resolved.lines.map(lineAmounts);
  const totals = documentAmounts(amounts);
  const exchangeRate = exchangeRateText(exchangeRateFor(resolved, givenRate));
  if (fiscal) assertBuyerRules(resolved.subtype.prefix, resolved.contact, amounts, totals.totalAmount, exchangeRate);
  const dop = dopAmounts(totals, exchangeRate);
  const snapshot = documentSnapshot(resolved, exchangeRate);
  const breakdown = taxBreakdown(amounts);
  // {{invoice_id}} and {{document_number}} are filled in by the statement that creates them.
  const email = resolved.contact.email
    ? JSON.stringify({
        template: "invoice_created",
        to: resolved.contact.email,
        subject: `Factura {{document_number}} por RD$ ${totals.totalAmount}`,
        text: `Hola ${resolved.contact.name},\n\nSe ha emitido la factura con NCF {{document_number}} por un total de ${totals.totalAmount}.\nPuede verla en ${context.appUrl}/invoices/{{invoice_id}}\n`,
        invoice_id: "{{invoice_id}}",
        document_number: "{{document_number}}",
        total_amount: totals.totalAmount,
        link: `${context.appUrl}/invoices/{{invoice_id}}`,
      })
    : null;
  return {
    resolved,
    issueDate,
    totals,
    records: lineRecords(resolved.lines, amounts),
    changes: saleChanges(resolved.lines, scope.workspaceId, 1, null),
    email,
    columns: [
      ["document_number", sql`num.document_number`],
      ["status", sql`'pending_payment'`],
      ["issue_date", sql`${issueDate}::date`],
      ["subtotal_amount", sql`${totals.subtotalAmount}::numeric`],
      ["discount_amount", sql`${totals.discountAmount}::numeric`],
      ["tax_amount", sql`${totals.taxAmount}::numeric`],
      ["total_amount", sql`${totals.totalAmount}::numeric`],
      ["tax_breakdown", sql`${JSON.stringify(breakdown)}::jsonb`],
      ["snapshot", sql`${JSON.stringify(snapshot)}::jsonb`],
      ["exchange_rate", sql`${exchangeRate}::numeric`],
      ["subtotal_amount_dop", sql`${dop.subtotalAmount}::numeric`],
      ["discount_amount_dop", sql`${dop.discountAmount}::numeric`],
      ["tax_amount_dop", sql`${dop.taxAmount}::numeric`],
      ["total_amount_dop", sql`${dop.totalAmount}::numeric`],
    ],
    warnings: fiscal ? registryWarnings(resolved.contact) : [],
    snapshot,
    amounts,
    breakdown,
    ecf: null,
  };
}

/**
 * An E-series invoice is signed now, between the read that took its number and the write that
 * stores it (docs/ecf.md, "Issuing").
 */
async function signIssue(
  scope: RequestScope,
  issue: Issue,
  invoice: { dueDate: string | null | undefined; incomeType: InvoiceRow["incomeType"] },
  context: InvoiceContext,
): Promise<void> {
  const { resolved } = issue;
  if (!resolved.documentNumber || !isElectronicPrefix(resolved.subtype.prefix)) return;
  // prepareIssue asserted the settings (assertEcfReady) before anything else was computed.
  issue.ecf = await signEcf(resolved.ecf as ReadyEcfSettings, context.encryptionKey, {
    tenantId: scope.tenantId,
    encf: resolved.documentNumber,
    issueDate: issue.issueDate,
    sequenceExpiry: resolved.subtype.validUntil,
    dueDate: invoice.dueDate ?? null,
    incomeType: invoice.incomeType as EcfSource["incomeType"],
    snapshot: issue.snapshot,
    lines: resolved.lines,
    amounts: issue.amounts,
    breakdown: issue.breakdown,
    total: issue.totals.totalAmount,
    ...(resolved.currencyIsDefault || !resolved.currencyCode
      ? {}
      : { currency: { code: resolved.currencyCode, exchangeRate: issue.snapshot.currency.exchange_rate } }),
  });
}

/**
 * The rate of a document's currency (FISCAL.md, "Amounts": the rate of its issue date): the one
 * given, else the currency's current rate; always 1 in the default currency (DOP), where another
 * given rate is a 422.
 */
function exchangeRateFor(resolved: ResolvedDocument, given: string | null | undefined): string {
  if (resolved.currencyIsDefault) {
    if (given != null && !new Big(given).eq(1)) throw fieldError("exchange_rate", "An invoice in the default currency (DOP) has an exchange rate of 1.");
    return "1";
  }
  return given ?? resolved.currencyRate;
}

/**
 * ONE statement issues: it takes the NCF (an UPDATE … RETURNING of the subtype, whose row lock is
 * held until COMMIT), writes the invoice (`invoice`: an INSERT for POST /invoices, an UPDATE of the
 * draft for POST /invoices/{id}/issue) with its lines, their taxes, the stock sales and the
 * "invoice created" email. Any refusal rolls everything back, the number included, so numbers
 * stay consecutive. Returns the invoice row (null when the sequence could not number).
 */
async function runIssue(db: AnyDb, scope: RequestScope, issue: Issue, invoice: (num: SQL) => SQL, extra: (invoiceId: SQL) => SQL, context: InvoiceContext) {
  const t = scope.tenantId;
  const invoiceId = sql`(SELECT id FROM inv)`;
  const documentNumber = sql`(SELECT document_number FROM num)`;
  // An e-CF's number was taken by the read (resolveDocument) and is signed in its XML already.
  const numbering = numberCtes(t, issue.resolved.subtype.id, issue.issueDate, "invoice", issue.resolved.documentNumber);
  const ecf = issue.ecf ? sql`, ecf AS (${insertEcfStatement(t, scope.workspaceId, "invoice", invoiceId, issue.ecf)})` : sql``;
  const result = await db.execute(sql`
    WITH ${numbering}, inv AS (${invoice(sql`num`)}
    ), ${extra(invoiceId)}${insertLines("invoice", t, invoiceId, issue.records)}, mail AS (
      INSERT INTO outbox_messages (tenant_id, kind, payload)
      SELECT ${t}, 'email', replace(replace(${issue.email ?? "{}"}, '{{invoice_id}}', ${invoiceId}::text), '{{document_number}}', ${documentNumber})::jsonb
      WHERE ${issue.email !== null} AND ${invoiceId} IS NOT NULL
    )${ecf}, ${stockCtes(scope, issue.changes, invoiceId, documentNumber)}
    SELECT (SELECT row_to_json(inv) FROM inv) AS invoice, ${issue.ecf ? sql`(SELECT id FROM ecf)` : sql`NULL::int`} AS ecf_id, ${stockResultColumns}`);
  const row = rowsOf<StockResult & { invoice: Record<string, unknown> | null; ecf_id: number | null }>(result)[0]!;
  // No number: the sequence ran out or expired since it was read (the stock moved above rolls back).
  if (!row.invoice) throw await refusalAfterTaking(db, t, issue.resolved.subtype.id, issue.issueDate);
  await checkStockResult(db, issue.changes, row);
  if (row.ecf_id !== null) context.ecfIds.push(Number(row.ecf_id));
  return rowFromJson(inv, row.invoice);
}

/** An invoice written by create or issue, with the response's non-refusing remarks. */
export type WrittenInvoice = InvoiceData & { warnings: DocumentWarning[] };

/**
 * Creates an invoice: issued at once (the spec's behaviour), or with `draft: true` a draft with no
 * number, no stock movement and no email. One read statement (resolveDocument: references, the
 * sequence, the fiscal profile, the buyer's registry status) and one write statement.
 */
export async function createInvoice(
  db: AnyDb,
  scope: RequestScope,
  input: CreateInvoiceInput,
  context: InvoiceContext,
  options: { quotationId?: number } = {},
): Promise<WrittenInvoice> {
  // A sequence's expiry is checked against the document's date, not the server's (Norma 06-2018).
  const resolved = await resolveDocument(db, scope, input, {
    documentType: "invoice",
    takeNumber: false,
    takeElectronicNumber: !input.draft,
    checkNumbering: !input.draft,
    today: input.issue_date,
  });
  if (input.draft) return { ...(await createDraft(db, scope, input, resolved)), warnings: [] };
  const issue = prepareIssue(scope, resolved, input.issue_date, input.exchange_rate, context);
  await signIssue(scope, issue, { dueDate: input.due_date, incomeType: input.income_type ?? "01" }, context);
  const t = scope.tenantId;
  const names = sql.raw(issue.columns.map(([name]) => name).join(", "));
  const values = sql.join(
    issue.columns.map(([, value]) => value),
    sql`, `,
  );
  const row = await runIssue(
    db,
    scope,
    issue,
    (num) => sql`
      INSERT INTO invoices (tenant_id, workspace_id, contact_id, document_subtype_id, due_date, amount_paid, currency_id, payment_term, notes,
        quotation_id, created_by, income_type, ${names})
      SELECT ${t}, ${scope.workspaceId}, ${resolved.contact.id}, ${resolved.subtype.id}, ${input.due_date ?? null}, 0, ${resolved.currencyId},
        ${input.payment_term ?? null}, ${input.notes ?? null}, ${options.quotationId ?? null}, ${scope.userId}, ${input.income_type ?? "01"}, ${values}
      FROM ${num}
      RETURNING *`,
    (invoiceId) => sql`sellers AS (
      INSERT INTO invoice_salesmen (tenant_id, invoice_id, salesman_id)
      SELECT ${t}, ${invoiceId}, s FROM unnest(${`{${resolved.salesmanIds.join(",")}}`}::int[]) AS s WHERE ${invoiceId} IS NOT NULL
    ), `,
    context,
  );
  return { ...serializeInvoice(row), warnings: issue.warnings };
}

/** A draft in one statement: the invoice (no number, no snapshot), its lines and salesmen. */
async function createDraft(db: AnyDb, scope: RequestScope, input: CreateInvoiceInput, resolved: ResolvedDocument): Promise<InvoiceData> {
  const amounts = resolved.lines.map(lineAmounts);
  const totals = documentAmounts(amounts);
  const t = scope.tenantId;
  const invoiceId = sql`(SELECT id FROM inv)`;
  const result = await db.execute(sql`
    WITH inv AS (
      INSERT INTO invoices (tenant_id, workspace_id, contact_id, document_subtype_id, document_number, issue_date, due_date, status,
        subtotal_amount, discount_amount, tax_amount, total_amount, tax_breakdown, amount_paid, currency_id, payment_term, notes, created_by, income_type)
      VALUES (${t}, ${scope.workspaceId}, ${resolved.contact.id}, ${resolved.subtype.id}, NULL, ${input.issue_date}, ${input.due_date ?? null}, 'draft',
        ${totals.subtotalAmount}, ${totals.discountAmount}, ${totals.taxAmount}, ${totals.totalAmount}, ${JSON.stringify(taxBreakdown(amounts))}::jsonb,
        0, ${resolved.currencyId},
        ${input.payment_term ?? null}, ${input.notes ?? null}, ${scope.userId}, ${input.income_type ?? "01"})
      RETURNING *
    ), ${insertLines("invoice", t, invoiceId, lineRecords(resolved.lines, amounts))}, sellers AS (
      INSERT INTO invoice_salesmen (tenant_id, invoice_id, salesman_id)
      SELECT ${t}, ${invoiceId}, s FROM unnest(${`{${resolved.salesmanIds.join(",")}}`}::int[]) AS s
    )
    SELECT row_to_json(inv) AS invoice FROM inv`);
  return serializeInvoice(rowFromJson(inv, rowsOf<{ invoice: Record<string, unknown> }>(result)[0]!.invoice));
}

/**
 * Issues a draft (POST /invoices/{id}/issue): the number, the stock and the email are taken now,
 * with the same checks and errors as POST /invoices, on the issue date given (default: today in
 * the Dominican Republic — an NCF bears the date it is issued, Norma 06-2018). The draft's lines
 * are resolved again, so a tax or product deactivated since is refused as on create. The draft's
 * row lock makes a second concurrent issue wait, then find it issued (409 invoice_not_draft).
 */
export async function issueDraft(db: AnyDb, scope: RequestScope, id: number, input: IssueInvoiceInput, context: InvoiceContext): Promise<WrittenInvoice> {
  const draft = await lockInvoice(db, scope, id);
  if (draft.status !== "draft") throw new AppError("invoice_not_draft", `Only a draft can be issued; this invoice is ${draft.status}.`);
  const issueDate = input.issue_date ?? context.today;
  const resolved = await resolveDocument(
    db,
    scope,
    {
      contact_id: draft.contactId,
      document_subtype_id: draft.documentSubtypeId,
      currency_id: draft.currencyId,
      items: await storedLineItems(db, "invoice", id),
    },
    { documentType: "invoice", takeNumber: false, takeElectronicNumber: true, checkNumbering: true, today: issueDate },
  );
  const issue = prepareIssue(scope, resolved, issueDate, input.exchange_rate, context);
  await signIssue(scope, issue, draft, context);
  const set = sql.join(
    issue.columns.map(([name, value]) => sql`${sql.raw(name)} = ${value}`),
    sql`, `,
  );
  const row = await runIssue(
    db,
    scope,
    issue,
    (num) => sql`
      UPDATE invoices SET ${set}, updated_at = now() FROM ${num} WHERE invoices.id = ${id} AND invoices.status = 'draft'
      RETURNING invoices.*`,
    (invoiceId) => sql`gone AS (DELETE FROM invoice_items WHERE invoice_id = ${id} AND ${invoiceId} IS NOT NULL), `,
    context,
  );
  await recordInvoiceChange(db, scope, "issued", draft, row);
  return { ...serializeInvoice(row), warnings: issue.warnings };
}

const visible = (scope: RequestScope) => and(eq(inv.tenantId, scope.tenantId), eq(inv.workspaceId, scope.workspaceId), isNull(inv.deletedAt));

/**
 * One statement: the page as JSON and the total. Filtered by status alone (or not at all), the
 * total is the sum of the maintained counts (drizzle/0012); a contact or a date narrows the set
 * enough for the indexes to count it. A page past the end still carries the total.
 */
export async function listInvoices(
  db: AnyDb,
  scope: RequestScope,
  query: ListQuery<"status" | "contact_id" | "issue_date", keyof typeof LIST_SORT>,
): Promise<{ data: InvoiceData[]; total: number }> {
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
    SELECT coalesce(json_agg(${invoiceListJson} ORDER BY ${order}), '[]') AS data, ${total}::integer AS total
    FROM (SELECT * FROM invoices WHERE ${where} ORDER BY ${order} LIMIT ${query.perPage} OFFSET ${pageOffset(query)}) AS i`);
  const row = rowsOf<{ data: InvoiceData[]; total: number }>(result)[0]!;
  return { data: row.data, total: Number(row.total) };
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
  await findRow(db, inv, and(visible(scope), eq(inv.id, id)), "Invoice");
  return invoiceHistory(db, id);
}

/** The invoice row, locked for the rest of the transaction (updates, payments, cancel, delete). */
async function lockInvoice(db: AnyDb, scope: RequestScope, id: number): Promise<InvoiceRow> {
  return findRow(db, inv, and(visible(scope), eq(inv.id, id)), "Invoice", true);
}

/** Net quantity sold per product by an invoice's lines, less what its credit notes returned (products that track inventory only). */
async function soldQuantities(db: AnyDb, invoiceId: number): Promise<Map<number, Big>> {
  const rows = await db
    .select({ productId: schema.stockMovements.productId, quantity: sql<string>`sum(${schema.stockMovements.quantity})` })
    .from(schema.stockMovements)
    .where(and(eq(schema.stockMovements.invoiceId, invoiceId), inArray(schema.stockMovements.type, ["sale", "return"])))
    .groupBy(schema.stockMovements.productId);
  return new Map(rows.map((r) => [r.productId, new Big(r.quantity).neg()]));
}

/** Gives back to stock everything the invoice still holds sold (cancel, delete). */
async function returnStock(db: AnyDb, scope: RequestScope, invoice: InvoiceRow, reason: string) {
  const sold = await soldQuantities(db, invoice.id);
  const changes: StockChange[] = [...sold.entries()]
    .filter(([, quantity]) => !quantity.eq(0))
    .map(([productId, quantity]) => ({
      productId,
      workspaceId: invoice.workspaceId,
      quantity: quantity.toFixed(2),
      type: "sale" as const,
      reference: invoice.documentNumber,
      notes: reason,
      invoiceId: invoice.id,
      field: "status",
    }));
  await applyStockChanges(db, scope, changes);
}

/**
 * The buyer's id type (RNC, cédula, …) decides what the issued NCF may be (Norma General 06-2018:
 * crédito fiscal needs an RNC or cédula), so an issued invoice may move to another contact only of
 * the same id type; a different one is a new document (issue 17).
 */
async function assertSameIdentificationType(db: AnyDb, currentId: number, nextId: number) {
  const rows = await db
    .select({ id: schema.contacts.id, type: schema.contacts.identificationType })
    .from(schema.contacts)
    .where(inArray(schema.contacts.id, [currentId, nextId]));
  const typeOf = (id: number) => rows.find((row) => row.id === id)?.type ?? null;
  // An unknown contact is left to resolveDocument's 422 on contact_id.
  if (rows.some((row) => row.id === nextId) && typeOf(currentId) !== typeOf(nextId)) {
    throw fieldError("contact_id", "The buyer's identification type of an issued invoice cannot change.");
  }
}

/**
 * PATCH /invoices/{id}. A draft changes freely (it is not a fiscal document yet: no number, no
 * stock, no checks of the type's rules until it is issued). An issued invoice pending payment
 * changes as the spec allows, recorded in its history, within the rules of an issued document:
 * the subtype (its NCF), the currency and the buyer's id type stay; the type's buyer and tax rules
 * still hold (Norma General 06-2018); a new buyer replaces the buyer in the snapshot and new lines
 * recompute the DOP amounts at the invoice's fixed rate.
 */
export async function updateInvoice(
  db: AnyDb,
  scope: RequestScope,
  id: number,
  input: UpdateInvoiceInput,
  context: InvoiceContext,
): Promise<{ id: number; document_number: string | null; total_amount: string; updated_at: string }> {
  const invoice = await lockInvoice(db, scope, id);
  const draft = invoice.status === "draft";
  if (!draft && invoice.status !== "pending_payment") {
    throw new AppError("invoice_not_editable", `Only invoices pending payment or in draft can be changed; this one is ${invoice.status}.`);
  }
  if (!draft) {
    if (isElectronicNumber(invoice.documentNumber)) await assertNoEcf(db, invoice.id, "changed", "invoice_not_editable");
    if (input.document_subtype_id !== undefined && input.document_subtype_id !== invoice.documentSubtypeId) {
      throw fieldError("document_subtype_id", "The document subtype (and so the NCF) of an issued invoice cannot change.");
    }
    // The currency is part of the issued document's amounts as printed and reported (issue 17:
    // issued documents are records); a different currency is a new document.
    if (input.currency_id !== undefined && input.currency_id !== invoice.currencyId) {
      throw fieldError("currency_id", "The currency of an issued invoice cannot change.");
    }
    if (input.contact_id !== undefined && input.contact_id !== invoice.contactId) {
      await assertSameIdentificationType(db, invoice.contactId, input.contact_id);
    }
  }
  if (input.items !== undefined) assertNoNotes(invoice, "Its lines");
  const set: Partial<typeof inv.$inferInsert> = { updatedAt: new Date() };
  if (input.issue_date !== undefined) set.issueDate = input.issue_date;
  if (input.due_date !== undefined) set.dueDate = input.due_date;
  if (input.payment_term !== undefined) set.paymentTerm = input.payment_term;
  if (input.notes !== undefined) set.notes = input.notes;
  if (input.income_type !== undefined) set.incomeType = input.income_type;
  if (draft && input.document_subtype_id !== undefined) set.documentSubtypeId = input.document_subtype_id;

  const needsResolve =
    input.items !== undefined ||
    input.contact_id !== undefined ||
    input.currency_id !== undefined ||
    input.salesman_ids !== undefined ||
    set.documentSubtypeId !== undefined;
  if (needsResolve) {
    const currentItems = input.items ?? (await storedLineItems(db, "invoice", id));
    const resolved = await resolveDocument(
      db,
      scope,
      {
        contact_id: input.contact_id ?? invoice.contactId,
        document_subtype_id: set.documentSubtypeId ?? invoice.documentSubtypeId,
        currency_id: input.currency_id === undefined ? invoice.currencyId : input.currency_id,
        salesman_ids: input.salesman_ids,
        items: currentItems,
      },
      { documentType: "invoice", takeNumber: false, today: context.today },
    );
    set.contactId = resolved.contact.id;
    set.currencyId = resolved.currencyId;
    const amounts = resolved.lines.map(lineAmounts);
    const totals = documentAmounts(amounts);
    if (!draft && isNcfPrefix(resolved.subtype.prefix)) {
      assertBuyerRules(resolved.subtype.prefix, resolved.contact, amounts, totals.totalAmount, invoice.exchangeRate ?? resolved.currencyRate);
    }
    if (!draft && invoice.snapshot && set.contactId !== invoice.contactId) {
      set.snapshot = { ...(invoice.snapshot as DocumentSnapshot), buyer: buyerSnapshot(resolved.contact) };
    }
    if (input.salesman_ids !== undefined) {
      await db.delete(schema.invoiceSalesmen).where(eq(schema.invoiceSalesmen.invoiceId, id));
      if (resolved.salesmanIds.length) {
        await db.insert(schema.invoiceSalesmen).values(resolved.salesmanIds.map((salesmanId) => ({ tenantId: scope.tenantId, invoiceId: id, salesmanId })));
      }
    }
    if (input.items) {
      Object.assign(set, totals, { taxBreakdown: taxBreakdown(amounts) });
      if (!draft && invoice.exchangeRate !== null) {
        const dop = dopAmounts(totals, invoice.exchangeRate);
        Object.assign(set, {
          subtotalAmountDop: dop.subtotalAmount,
          discountAmountDop: dop.discountAmount,
          taxAmountDop: dop.taxAmount,
          totalAmountDop: dop.totalAmount,
        });
      }
      await db.execute(replaceLines("invoice", scope.tenantId, id, lineRecords(resolved.lines, amounts)));
      // A draft holds no stock; an issued invoice's stock follows its new lines.
      if (!draft) await applyStockChanges(db, scope, stockDifference(await soldQuantities(db, id), resolved.lines, invoice));
    }
  }
  const [updated] = await db.update(inv).set(set).where(eq(inv.id, id)).returning();
  if (!draft) await recordInvoiceChange(db, scope, "updated", invoice, updated!);
  return {
    id: updated!.id,
    document_number: updated!.documentNumber,
    total_amount: decimal2(updated!.totalAmount)!,
    updated_at: timestamp(updated!.updatedAt)!,
  };
}

/** Stock follows the difference between what the invoice held sold and what its new lines sell. */
function stockDifference(sold: Map<number, Big>, lines: ResolvedLine[], invoice: InvoiceRow): StockChange[] {
  const wanted = new Map<number, { quantity: Big; field: string }>();
  lines.forEach((line, i) => {
    if (!line.trackInventory) return;
    const entry = wanted.get(line.productId) ?? { quantity: new Big(0), field: `items.${i}.quantity` };
    entry.quantity = entry.quantity.plus(line.quantity);
    wanted.set(line.productId, entry);
  });
  const productIds = new Set([...sold.keys(), ...wanted.keys()]);
  return [...productIds]
    .sort((a, b) => a - b)
    .map((productId) => {
      const delta = (sold.get(productId) ?? new Big(0)).minus(wanted.get(productId)?.quantity ?? new Big(0));
      return {
        productId,
        workspaceId: invoice.workspaceId,
        quantity: delta.toFixed(2),
        type: "sale" as const,
        reference: invoice.documentNumber,
        notes: "invoice updated",
        invoiceId: invoice.id,
        field: wanted.get(productId)?.field ?? "items",
      };
    })
    .filter((change) => !new Big(change.quantity).eq(0));
}

/**
 * Notes name the invoice's lines and amounts (their modified NCF, InformacionReferencia): an
 * invoice with notes keeps its lines, and is corrected or annulled by further notes, not by
 * changing or annulling it (Norma General 06-2018: a note is how an issued NCF is modified).
 */
function assertNoNotes(invoice: InvoiceRow, what: string) {
  if (new Big(invoice.creditedAmount).gt(0) || new Big(invoice.debitedAmount).gt(0)) {
    throw new AppError("invoice_has_notes", `This invoice has credit or debit notes. ${what} cannot change: issue another note instead.`);
  }
}

/**
 * An issued invoice that is deleted or cancelled keeps its NCF, used and never reissued, recorded
 * as annulled with DGII's 608 reason (Formato 608; src/lib/annulments.ts). A draft has no number:
 * nothing to record.
 */
async function recordAnnulment(db: AnyDb, scope: RequestScope, invoice: InvoiceRow, reason: AnnulmentReason, action: "deleted" | "cancelled") {
  if (invoice.documentNumber === null) return;
  await db.insert(schema.ncfAnnulments).values({
    tenantId: scope.tenantId,
    workspaceId: invoice.workspaceId,
    invoiceId: invoice.id,
    ncf: invoice.documentNumber,
    annulledOn: dominicanToday(),
    reasonCode: reason,
    action,
    createdBy: scope.userId,
  });
}

/** Deletes (a draft) or hides (an issued invoice, its NCF annulled) an invoice; answers the NCF it had. */
export async function deleteInvoice(
  db: AnyDb,
  scope: RequestScope,
  id: number,
  reason: AnnulmentReason = DEFAULT_ANNULMENT_REASON,
): Promise<{ documentNumber: string | null }> {
  const invoice = await lockInvoice(db, scope, id);
  if (invoice.status !== "pending_payment" && invoice.status !== "draft") {
    throw new AppError("invoice_not_deletable", `Only invoices pending payment or in draft can be deleted; this one is ${invoice.status}.`);
  }
  assertNoNotes(invoice, "It");
  if (isElectronicNumber(invoice.documentNumber)) await assertNoEcf(db, invoice.id, "deleted", "invoice_not_deletable");
  // A draft is not a fiscal document: nothing numbered, sold or recorded; it is simply removed.
  if (invoice.status === "draft") {
    await db.delete(inv).where(eq(inv.id, id));
    return { documentNumber: null };
  }
  await returnStock(db, scope, invoice, "invoice deleted");
  const [deleted] = await db.update(inv).set({ deletedAt: new Date(), updatedAt: new Date() }).where(eq(inv.id, id)).returning();
  await recordAnnulment(db, scope, invoice, reason, "deleted");
  await recordInvoiceChange(db, scope, "deleted", invoice, deleted!);
  return { documentNumber: invoice.documentNumber };
}

export async function cancelInvoice(
  db: AnyDb,
  scope: RequestScope,
  id: number,
  reason: AnnulmentReason = DEFAULT_ANNULMENT_REASON,
  context: InvoiceContext,
): Promise<{ invoice: InvoiceData; creditNote: string | null; creditNoteId: number | null }> {
  const invoice = await lockInvoice(db, scope, id);
  if (invoice.status !== "pending_payment") {
    throw new AppError("invoice_not_editable", `Only invoices pending payment can be cancelled; this one is ${invoice.status}.`);
  }
  assertNoNotes(invoice, "It");
  if (isElectronicNumber(invoice.documentNumber)) return cancelElectronic(db, scope, invoice, reason, context);
  await returnStock(db, scope, invoice, "invoice cancelled");
  await recordAnnulment(db, scope, invoice, reason, "cancelled");
  const [updated] = await db.update(inv).set({ status: "cancelled", updatedAt: new Date() }).where(eq(inv.id, id)).returning();
  await recordInvoiceChange(db, scope, "cancelled", invoice, updated!);
  return { invoice: serializeInvoice(updated!), creditNote: null, creditNoteId: null };
}

/**
 * An invoice whose e-CF DGII never received and whose e-NCF was annulled with DGII (ANECF,
 * ecf/annulments.ts): it is cancelled, its stock returns, and its history says so. Only an
 * invoice still pending payment of the request's branch (409 otherwise: a paid sale is corrected
 * by a credit note once its e-CF is sent).
 */
export async function cancelForAnnulledEcf(db: AnyDb, scope: RequestScope, invoiceId: number, encf: string): Promise<void> {
  const invoice = await lockInvoice(db, scope, invoiceId).catch((error: unknown) => {
    if (error instanceof AppError && error.code === "not_found") {
      throw new AppError("conflict", `The invoice of ${encf} belongs to another branch: annul it from there.`);
    }
    throw error;
  });
  if (invoice.status !== "pending_payment") {
    throw new AppError("conflict", `The invoice of ${encf} is ${invoice.status}: only an invoice pending payment is cancelled by annulling its e-NCF.`);
  }
  assertNoNotes(invoice, "It");
  await returnStock(db, scope, invoice, "e-NCF annulled");
  const [updated] = await db.update(inv).set({ status: "cancelled", updatedAt: new Date() }).where(eq(inv.id, invoice.id)).returning();
  await recordInvoiceChange(db, scope, "cancelled", invoice, updated!);
}

/**
 * An e-CF is never voided in place: DGII has it (or will), so cancelling it issues an E34 credit
 * note for all of it with modification code 1, "anula el NCF modificado" (Formato e-CF v1.0,
 * CodigoModificacion; Formato Anulación de e-NCF, section 1), which returns the stock as any full
 * credit note does; the invoice is then marked cancelled. Without an active E34 sequence → 409
 * naming it.
 */
async function cancelElectronic(db: AnyDb, scope: RequestScope, invoice: InvoiceRow, reason: AnnulmentReason, context: InvoiceContext) {
  const ds = schema.documentSubtypes;
  const [subtype] = await db
    .select({ id: ds.id })
    .from(ds)
    .where(and(eq(ds.tenantId, scope.tenantId), eq(ds.type, "credit_note"), eq(ds.prefix, "E34"), eq(ds.isActive, true)))
    .orderBy(sql`${ds.isDefault} DESC`, ds.id)
    .limit(1);
  if (!subtype) {
    throw new AppError(
      "conflict",
      "Cancelling an e-CF issues an E34 credit note (modification code 1), and the company has no active E34 sequence: create one (POST /api/v1/document-subtypes, type credit_note, prefix E34).",
    );
  }
  const note = await createNote(
    db,
    scope,
    invoice.id,
    "credit",
    {
      document_subtype_id: subtype.id,
      issue_date: context.today > invoice.issueDate ? context.today : invoice.issueDate,
      modification_code: 1,
      reason: ANNULMENT_REASONS[reason],
      full: true,
    },
    context,
  );
  const [updated] = await db.update(inv).set({ status: "cancelled", updatedAt: new Date() }).where(eq(inv.id, invoice.id)).returning();
  // Before: the invoice as the note left it (fully credited).
  await recordInvoiceChange(db, scope, "cancelled", { ...updated!, status: invoiceStatus(updated!) }, updated!);
  return { invoice: serializeInvoice(updated!), creditNote: note.document_number, creditNoteId: note.id };
}

/** Applies a payment under the invoice's row lock, so concurrent payments never exceed the total. */
export async function addPayment(
  db: AnyDb,
  scope: RequestScope,
  id: number,
  input: CreatePaymentInput,
): Promise<{ payment: { id: number; amount: string; payment_date: string; payment_method: string; bank_account_id: number | null }; invoice: InvoiceData }> {
  const invoice = await lockInvoice(db, scope, id);
  if (invoice.status !== "pending_payment" && invoice.status !== "partially_paid") {
    throw new AppError("invoice_not_payable", `Payments apply only to invoices pending payment or partially paid; this one is ${invoice.status}.`);
  }
  const due = balanceOf(invoice);
  if (new Big(input.amount).gt(due)) throw fieldError("amount", `The amount exceeds what is due (${due.toFixed(2)}).`);
  await assertActiveBankAccount(db, scope.tenantId, input.bank_account_id);
  const paid = new Big(invoice.amountPaid).plus(input.amount);
  const [payment] = await db
    .insert(schema.invoicePayments)
    .values({
      tenantId: scope.tenantId,
      invoiceId: id,
      amount: input.amount,
      paymentDate: input.payment_date,
      paymentMethod: input.payment_method,
      bankAccountId: input.bank_account_id ?? null,
      createdBy: scope.userId,
    })
    .returning();
  const [updated] = await db
    .update(inv)
    .set({ amountPaid: paid.toFixed(2), status: invoiceStatus({ ...invoice, amountPaid: paid.toFixed(2) }), updatedAt: new Date() })
    .where(eq(inv.id, id))
    .returning();
  await recordInvoiceChange(db, scope, "payment_added", invoice, updated!);
  return {
    payment: {
      id: payment!.id,
      amount: decimal2(payment!.amount)!,
      payment_date: payment!.paymentDate,
      payment_method: payment!.paymentMethod,
      bank_account_id: payment!.bankAccountId,
    },
    invoice: serializeInvoice(updated!),
  };
}

export async function deletePayment(db: AnyDb, scope: RequestScope, id: number, paymentId: number): Promise<InvoiceData> {
  const invoice = await lockInvoice(db, scope, id);
  if (invoice.status === "cancelled") throw new AppError("invoice_not_payable", "The invoice is cancelled.");
  const [payment] = await db
    .delete(schema.invoicePayments)
    .where(and(eq(schema.invoicePayments.invoiceId, id), eq(schema.invoicePayments.id, paymentId)))
    .returning();
  if (!payment) throw notFound("Payment");
  const paid = new Big(invoice.amountPaid).minus(payment.amount);
  const [updated] = await db
    .update(inv)
    .set({ amountPaid: paid.toFixed(2), status: invoiceStatus({ ...invoice, amountPaid: paid.toFixed(2) }), updatedAt: new Date() })
    .where(eq(inv.id, id))
    .returning();
  await recordInvoiceChange(db, scope, "payment_removed", invoice, updated!);
  return serializeInvoice(updated!);
}

/**
 * Records what the buyer withheld of an issued invoice (ITBIS: Norma General 02-2005 and 07-2007;
 * ISR: Código Tributario art. 309) and paid to DGII for the seller, as the buyer reports it:
 * replaces what was recorded (zeros clear it). Like a payment it settles the invoice — amount_due
 * and status follow — and the 607 reports it in the month of its date. Refused on drafts and
 * cancelled invoices; ITBIS withheld at most the invoice's ITBIS; never more than is left to pay.
 */
export async function setWithholdings(
  db: AnyDb,
  scope: RequestScope,
  id: number,
  input: InvoiceWithholdingsInput,
  today: string,
): Promise<{ invoice: InvoiceData; paidNow: boolean }> {
  const invoice = await lockInvoice(db, scope, id);
  if (invoice.status === "draft" || invoice.status === "cancelled") {
    throw new AppError(
      "invoice_not_payable",
      `Withholdings apply only to issued invoices; this one is ${invoice.status === "draft" ? "a draft" : "cancelled"}.`,
    );
  }
  const itbis = new Big(input.itbis_withheld);
  const isr = new Big(input.isr_withheld);
  const any = itbis.gt(0) || isr.gt(0);
  if (any && !input.withholding_date) throw fieldError("withholding_date", "Required when an amount is withheld.");
  const date = any ? input.withholding_date : null;
  if (date && date < invoice.issueDate) throw fieldError("withholding_date", `Cannot be before the invoice's issue date (${invoice.issueDate}).`);
  if (date && date > today) throw fieldError("withholding_date", "Cannot be in the future (Dominican date).");
  const breakdown = (invoice.taxBreakdown as TaxBreakdown | null) ?? null;
  const invoiceItbis = (breakdown?.itbis ?? []).reduce((sum, entry) => sum.plus(entry.amount), new Big(0));
  if (itbis.gt(invoiceItbis)) throw fieldError("itbis_withheld", `Cannot exceed the invoice's ITBIS (${invoiceItbis.toFixed(2)}).`);
  const next = { ...invoice, itbisWithheld: itbis.toFixed(2), isrWithheld: isr.toFixed(2) };
  if (balanceOf(next).lt(0)) {
    const left = balanceOf({ ...invoice, itbisWithheld: "0", isrWithheld: "0" });
    throw fieldError(
      isr.gt(0) ? "isr_withheld" : "itbis_withheld",
      `The withholdings exceed what is left to pay after payments and notes (${left.toFixed(2)}).`,
    );
  }
  const [updated] = await db
    .update(inv)
    .set({ itbisWithheld: next.itbisWithheld, isrWithheld: next.isrWithheld, withholdingDate: date, status: invoiceStatus(next), updatedAt: new Date() })
    .where(eq(inv.id, id))
    .returning();
  await recordInvoiceChange(db, scope, "withholdings", invoice, updated!);
  return { invoice: serializeInvoice(updated!), paidNow: updated!.status === "paid" && invoice.status !== "paid" };
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
  const totals = [
    { label: "Subtotal", value: invoice.subtotal_amount },
    { label: "Descuento", value: invoice.discount_amount },
    { label: "Impuestos", value: invoice.tax_amount },
    { label: "Total", value: invoice.total_amount, bold: true },
    ...(foreign && invoice.total_amount_dop ? [{ label: "Total en DOP", value: invoice.total_amount_dop }] : []),
    // Notes move what is owed: shown, so the page's amounts add up (total + debits − credits − paid).
    ...(invoice.debited_amount !== "0.00" ? [{ label: "Notas de débito", value: invoice.debited_amount }] : []),
    ...(invoice.credited_amount !== "0.00" ? [{ label: "Notas de crédito", value: `-${invoice.credited_amount}` }] : []),
    { label: "Pagado", value: invoice.amount_paid },
    { label: "Pendiente", value: invoice.amount_due, bold: true },
    ...(invoice.refund_due !== "0.00" ? [{ label: "Reembolso al cliente", value: invoice.refund_due, bold: true }] : []),
  ];
  return {
    invoice,
    pdf: {
      title: draft ? "Borrador de factura" : (documentTypeName(sequence.prefix) ?? "Factura"),
      issuer: pdfIssuer(issuer),
      documentNumber: invoice.document_number ?? "(sin número hasta su emisión)",
      subtypeName: sequence.name,
      validUntil: draft ? null : sequence.valid_until,
      issueDate: invoice.issue_date,
      dueDate: invoice.due_date,
      dueDateLabel: "Vence",
      currency: foreign ? { code: currency.code!, exchangeRate: invoice.exchange_rate! } : null,
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
  return rowsOf<{ snapshot: DocumentSnapshot }>(result)[0]!.snapshot;
}
