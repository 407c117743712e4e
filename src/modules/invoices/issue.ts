import { type SQL, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { isUniqueViolation } from "../../db/errors";
import { oneRow, rowFromJson, rowsOf } from "../../db/rows";
import * as schema from "../../db/schema";
import type { RequestScope } from "../../http/scope";
import { Big } from "../../lib/decimal";
import { AppError, fieldError } from "../../lib/errors";
import { isElectronicPrefix, isNcfPrefix } from "../../lib/ncf";
import { assertFiscalProfile } from "../company/service";
import { numberCtes, refusalAfterTaking } from "../document-subtypes/numbering";
import { assertSalesInvoicePrefix } from "../document-subtypes/service";
import { assertDeferredDate, assertIssuedToday } from "../ecf/dating";
import { assertEcfReady, type EcfSource, insertEcfStatement, type ReadyEcfSettings, type SignedEcf, signEcf } from "../ecf/issue";
import type { EcfReference } from "../ecf/xml";
import { checkStockResult, type StockChange, type StockResult, stockCtes, stockResultColumns } from "../inventory/stock";
import { insertLines, lineRecords, storedLineItems } from "../sales/items";
import { documentAmounts, type LineAmounts, lineAmounts, type TaxBreakdown, taxBreakdown } from "../sales/lines";
import { exchangeRateFor } from "../sales/money";
import { type ResolvedDocument, type ResolvedLine, resolveDocument } from "../sales/references";
import { type DocumentSnapshot, type DocumentWarning, documentSnapshot, dopAmounts, registryWarnings } from "../sales/snapshots";
import { assertBuyerRules } from "./buyer-rules";
import type { InvoiceContext } from "./context";
import { recordInvoiceChange } from "./history";
import { type InvoiceData, serializeInvoice } from "./json";
import { checkReplacement } from "./replacement";
import type { CreateInvoiceInput, IssueInvoiceInput } from "./schemas";
import { lockInvoice } from "./service";

/*
 * Creating an invoice (issued at once, or a draft) and issuing a draft: the checks and values of
 * issuing, the e-CF signed for an E-series number, and the one statement that takes the number
 * and writes the invoice, its lines, stock sales and email.
 */

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
  const exchangeRate = exchangeRateFor({ isDefault: resolved.currencyIsDefault, rate: resolved.currencyRate }, givenRate, "An invoice");
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
  invoice: { dueDate: string | null | undefined; incomeType: InvoiceRow["incomeType"]; offlineIssuedAt?: Date | undefined },
  context: InvoiceContext,
  reference?: EcfReference,
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
    ...(reference ? { reference } : {}),
    ...(invoice.offlineIssuedAt ? { offlineIssuedAt: invoice.offlineIssuedAt } : {}),
    ...(resolved.currencyIsDefault || !resolved.currencyCode
      ? {}
      : { currency: { code: resolved.currencyCode, exchangeRate: issue.snapshot.currency.exchange_rate } }),
  });
}

/**
 * Deferred sending (CERTIFICATION.md, "Deferred sending"): IndicadorEnvioDiferido is only for
 * taxpayers DGII authorized (ecf_settings.deferred_sending_authorization), on an e-CF, for a sale
 * already made within DGII's window, dated its own day (ecf/dating.ts; 422 on offline_issued_at
 * or issue_date otherwise).
 */
function assertDeferredSending(resolved: ResolvedDocument, offlineIssuedAt: Date, issueDate: string, now: Date): void {
  if (!isElectronicPrefix(resolved.subtype.prefix)) {
    throw fieldError("offline_issued_at", "Only an e-CF (E-series sequence) is sent deferred: a paper NCF has nothing to send to DGII.");
  }
  if (!resolved.ecf?.deferred_sending_authorization) {
    throw fieldError(
      "offline_issued_at",
      "This company is not authorized by DGII to send deferred: record DGII's authorization (PUT /api/v1/ecf/settings deferred_sending_authorization) first.",
      "deferred_sending_not_authorized",
    );
  }
  assertDeferredDate(issueDate, offlineIssuedAt, resolved.subtype.authorizedAt, now);
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
  const ecf = issue.ecf ? sql`, ecf AS (${insertEcfStatement(t, scope.workspaceId, "invoice", invoiceId, issue.ecf, scope.userId)})` : sql``;
  const result = await db.execute(sql`
    WITH ${numbering}, inv AS (${invoice(sql`num`)}
    ), ${extra(invoiceId)}${insertLines("invoice", t, invoiceId, issue.records)}, mail AS (
      INSERT INTO outbox_messages (tenant_id, kind, payload)
      SELECT ${t}, 'email', replace(replace(${issue.email ?? "{}"}, '{{invoice_id}}', ${invoiceId}::text), '{{document_number}}', ${documentNumber})::jsonb
      WHERE ${issue.email !== null} AND ${invoiceId} IS NOT NULL
    )${ecf}, ${stockCtes(scope, issue.changes, invoiceId, documentNumber)}
    SELECT (SELECT row_to_json(inv) FROM inv) AS invoice, ${issue.ecf ? sql`(SELECT id FROM ecf)` : sql`NULL::int`} AS ecf_id, ${stockResultColumns}`);
  const row = oneRow(rowsOf<StockResult & { invoice: Record<string, unknown> | null; ecf_id: number | null }>(result));
  // No number: the sequence ran out or expired since it was read (the stock moved above rolls back).
  if (!row.invoice) throw await refusalAfterTaking(db, t, issue.resolved.subtype.id, issue.issueDate);
  await checkStockResult(db, issue.changes, row);
  if (row.ecf_id !== null) {
    context.ecfIds.push(Number(row.ecf_id));
    await context.ecfSigned({ id: Number(row.ecf_id), workspaceId: scope.workspaceId, kind: "invoice", documentId: Number(row.invoice.id) });
  }
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
  if (input.replaces && input.draft) throw fieldError("replaces", "A contingency replacement is issued at once, never a draft.");
  // A sequence's expiry is checked against the document's date, not the server's (Norma 06-2018).
  const resolved = await resolveDocument(db, scope, input, {
    documentType: "invoice",
    takeNumber: false,
    takeElectronicNumber: !input.draft,
    checkNumbering: !input.draft,
    today: input.issue_date,
  });
  const offlineIssuedAt = input.offline_issued_at === undefined ? undefined : new Date(input.offline_issued_at);
  if (offlineIssuedAt && input.draft) throw fieldError("offline_issued_at", "A draft is not a sale: only an issued e-CF made offline is sent deferred.");
  if (input.draft) return { ...(await createDraft(db, scope, input, resolved)), warnings: [] };
  const issue = prepareIssue(scope, resolved, input.issue_date, input.exchange_rate, context);
  if (offlineIssuedAt && input.replaces)
    throw fieldError("offline_issued_at", "A contingency replacement is not a deferred sale: it bears the paper NCF's date.");
  if (offlineIssuedAt) assertDeferredSending(resolved, offlineIssuedAt, input.issue_date, new Date());
  // A contingency replacement: an e-CF naming the paper NCF it replaces (invoices/replacement.ts).
  let reference: EcfReference | undefined;
  if (input.replaces) {
    if (!isElectronicPrefix(resolved.subtype.prefix)) throw fieldError("replaces", "A paper NCF is replaced by an e-CF: choose an E-series subtype.");
    reference = await checkReplacement(
      db,
      scope,
      resolved.subtype.prefix,
      input.issue_date,
      { ncf: input.replaces.ncf, issueDate: input.replaces.issue_date },
      context.today,
    );
    issue.columns.push(["replaced_ncf", sql`${reference.ncf}`], ["replaced_ncf_date", sql`${reference.date}::date`]);
  } else if (!offlineIssuedAt && isElectronicPrefix(resolved.subtype.prefix)) {
    // An e-CF bears the day it is signed (ecf/dating.ts; docs/fiscal.md, "The date of an e-CF").
    assertIssuedToday(input.issue_date, resolved.subtype.authorizedAt, context.today);
  }
  await signIssue(scope, issue, { dueDate: input.due_date, incomeType: input.income_type ?? "01", offlineIssuedAt }, context, reference);
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
  ).catch((error: unknown) => {
    // Two concurrent replacements of one paper NCF: the unique index decides, the loser is told why.
    if (reference && isUniqueViolation(error, "invoices_tenant_replaced_ncf_key")) {
      throw new AppError("contingency_ncf_used", `${reference.ncf} was replaced already.`, { "replaces.ncf": ["Replaced already."] });
    }
    throw error;
  });
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
  return serializeInvoice(rowFromJson(inv, oneRow(rowsOf<{ invoice: Record<string, unknown> }>(result)).invoice));
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
  // The draft's e-CF bears the day it is issued, not the draft's (ecf/dating.ts).
  if (isElectronicPrefix(resolved.subtype.prefix)) assertIssuedToday(issueDate, resolved.subtype.authorizedAt, context.today);
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
