import { and, asc, eq, gte, lte, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { isUniqueViolation } from "../../db/errors";
import { findRow, orderBy, pageOf } from "../../db/queries";
import { oneRow, rowFromJson, rowsOf } from "../../db/rows";
import * as schema from "../../db/schema";
import type { ListQuery } from "../../http/pagination";
import type { RequestScope } from "../../http/scope";
import { addDays } from "../../lib/dates";
import { Big } from "../../lib/decimal";
import { AppError, type FieldErrors, fieldError } from "../../lib/errors";
import { decimal2, exchangeRateText, timestamp } from "../../lib/format";
import { documentTypeName, isElectronicPrefix } from "../../lib/ncf";
import { assertFiscalProfile } from "../company/service";
import { numberCtes, refusalAfterTaking } from "../document-subtypes/numbering";
import { assertIssuedToday } from "../ecf/dating";
import { assertEcfReady, type EcfSource, insertEcfStatement, type ReadyEcfSettings, type SignedEcf, signEcf } from "../ecf/issue";
import type { EcfReference } from "../ecf/xml";
import { checkStockResult, type StockChange, type StockResult, stockCtes, stockResultColumns } from "../inventory/stock";
import type { InvoiceContext } from "../invoices/context";
import { recordInvoiceChange } from "../invoices/history";
import { checkReplacement } from "../invoices/replacement";
import type { NoteKind } from "../invoices/schemas";
import { lineMoneyText, pdfLines, printedTotals } from "../sales/items";
import { type AppliedTax, documentAmounts, EXCLUSIVE_TAX_TYPES, type LineAmounts, lineAmounts, type TaxBreakdown, taxBreakdown } from "../sales/lines";
import { invoiceAccount, paymentStatus } from "../sales/money";
import type { PdfDocumentData } from "../sales/pdf";
import { type ResolvedDocument, resolveDocument } from "../sales/references";
import { totalsFields } from "../sales/serialize";
import { type DocumentSnapshot, documentSnapshot, dopAmounts, pdfIssuer } from "../sales/snapshots";
import type { CreateNoteInput, NoteDetail, NoteSummary } from "./schemas";

const notes = schema.invoiceNotes;
const inv = schema.invoices;
type NoteRow = typeof notes.$inferSelect;

/** A credit note issued more than 30 days after its invoice gives no ITBIS back (Formato e-CF v1.0, IndicadorNotaCredito). */
const CREDIT_NOTE_ITBIS_DAYS = 30;

const SUBTYPE_TYPE = { credit: "credit_note", debit: "debit_note" } as const;
const LABEL = { credit: "credit note", debit: "debit note" } as const;

export function serializeNote(row: NoteRow): NoteSummary {
  return {
    id: row.id,
    kind: row.kind as NoteKind,
    invoice_id: row.invoiceId,
    workspace_id: row.workspaceId,
    contact_id: row.contactId,
    document_subtype_id: row.documentSubtypeId,
    document_number: row.documentNumber,
    issue_date: row.issueDate,
    status: row.status as NoteSummary["status"],
    modified_ncf: row.modifiedNcf,
    modified_issue_date: row.modifiedIssueDate,
    modification_code: row.modificationCode,
    reason: row.reason,
    credit_note_indicator: row.creditNoteIndicator,
    restock: row.restock,
    replaces: row.replacedNcf === null || row.replacedNcfDate === null ? null : { ncf: row.replacedNcf, issue_date: row.replacedNcfDate },
    ...totalsFields(row),
    currency_id: row.currencyId,
    exchange_rate: exchangeRateText(row.exchangeRate),
    total_amount_dop: decimal2(row.totalAmountDop),
    created_at: timestamp(row.createdAt),
  };
}

/** An invoice line with what credit notes already took of it (quantity and amounts, per tax too). */
interface InvoiceLine {
  id: number;
  product_id: number;
  track_inventory: boolean;
  is_service: boolean;
  description: string;
  quantity: string;
  unit_price: string;
  discount: string;
  subtotal: string;
  discount_amount: string;
  tax_amount: string;
  total: string;
  taxes: AppliedTax[];
  credited: { quantity: string; subtotal: string; discount_amount: string; tax_amount: string; total: string; taxes: Record<string, string> };
}

/** A note line ready to be written. */
interface NoteLineRecord {
  position: number;
  invoice_item_id: number | null;
  product_id: number | null;
  description: string;
  quantity: string;
  unit_price: string;
  discount: string;
  discount_amount: string;
  subtotal: string;
  tax_amount: string;
  total: string;
  taxes: AppliedTax[];
}

/**
 * The invoice's lines with what credit notes took of each, and the taxes free amount lines name:
 * one statement.
 */
async function loadLines(db: AnyDb, scope: RequestScope, invoiceId: number, taxIds: number[]) {
  const result = await db.execute(sql`
    SELECT
      (SELECT coalesce(json_agg(json_build_object('id', it.id, 'product_id', it.product_id, 'track_inventory', p.track_inventory,
          'is_service', p.product_type = 'service',
          'description', it.description, 'quantity', it.quantity, 'unit_price', it.unit_price, 'discount', it.discount,
          'subtotal', it.subtotal, 'discount_amount', it.discount_amount, 'tax_amount', it.tax_amount, 'total', it.total, 'taxes', it.taxes,
          'credited', (SELECT json_build_object('quantity', coalesce(sum(ni.quantity), 0), 'subtotal', coalesce(sum(ni.subtotal), 0),
              'discount_amount', coalesce(sum(ni.discount_amount), 0), 'tax_amount', coalesce(sum(ni.tax_amount), 0), 'total', coalesce(sum(ni.total), 0),
              'taxes', coalesce((SELECT json_object_agg(x.id, x.amount) FROM (
                  SELECT t->>'id' AS id, sum((t->>'amount')::numeric) AS amount
                  FROM invoice_note_items ni2 JOIN invoice_notes n2 ON n2.id = ni2.note_id AND n2.kind = 'credit' AND n2.status = 'issued', jsonb_array_elements(ni2.taxes) t
                  WHERE ni2.invoice_item_id = it.id GROUP BY 1) x), '{}'))
            FROM invoice_note_items ni JOIN invoice_notes n ON n.id = ni.note_id AND n.kind = 'credit' AND n.status = 'issued' WHERE ni.invoice_item_id = it.id))
          ORDER BY it.position), '[]')
       FROM invoice_items it JOIN products p ON p.id = it.product_id WHERE it.invoice_id = ${invoiceId}) AS lines,
      (SELECT coalesce(json_agg(json_build_object('id', id, 'name', name, 'type', type, 'rate', rate::text, 'is_active', is_active,
          'dgii_code', dgii_code, 'amount_per_unit', amount_per_unit::text)), '[]')
       FROM taxes WHERE tenant_id = ${scope.tenantId} AND id = ANY(${`{${taxIds.join(",")}}`}::int[])) AS taxes`);
  return oneRow(
    rowsOf<{
      lines: InvoiceLine[];
      taxes: { id: number; name: string; type: string; rate: string; is_active: boolean; dgii_code: string | null; amount_per_unit: string | null }[];
    }>(result),
  );
}

const minus = (a: string | number, b: string | number) => new Big(a).minus(b).toFixed(2);

/**
 * The amounts of crediting `quantity` of an invoice line. The part that completes the line is
 * what the line has left — amount by amount and tax by tax — so a line credited in several notes
 * adds up to the line exactly, whatever the rounding of each part (FISCAL.md: DGII checks totals as
 * sums of lines).
 */
function creditedLineAmounts(line: InvoiceLine, quantity: Big, alreadyInNote: Big): LineAmounts {
  const remaining = new Big(line.quantity).minus(line.credited.quantity).minus(alreadyInNote);
  if (alreadyInNote.eq(0) && quantity.eq(remaining)) {
    return {
      subtotal: minus(line.subtotal, line.credited.subtotal),
      discountAmount: minus(line.discount_amount, line.credited.discount_amount),
      taxAmount: minus(line.tax_amount, line.credited.tax_amount),
      total: minus(line.total, line.credited.total),
      taxes: line.taxes.map((tax) => ({ ...tax, amount: minus(tax.amount, line.credited.taxes[String(tax.id)] ?? 0) })),
    };
  }
  return lineAmounts({ quantity: quantity.toFixed(2), unitPrice: line.unit_price, discount: line.discount, taxes: line.taxes });
}

/** The note's lines from the request (or every line's rest, with `full`), checked against the invoice. */
function noteLines(
  kind: NoteKind,
  input: CreateNoteInput,
  loaded: Awaited<ReturnType<typeof loadLines>>,
): { records: NoteLineRecord[]; returns: { line: InvoiceLine; quantity: string; field: string }[] } {
  const byId = new Map(loaded.lines.map((line) => [line.id, line]));
  const taxes = new Map(loaded.taxes.map((tax) => [tax.id, tax]));
  const records: NoteLineRecord[] = [];
  const returns: { line: InvoiceLine; quantity: string; field: string }[] = [];
  const inNote = new Map<number, Big>();
  const errors: FieldErrors = {};
  const fromLine = (line: InvoiceLine, quantity: Big, field: string) => {
    const taken = inNote.get(line.id) ?? new Big(0);
    const amounts =
      kind === "credit"
        ? creditedLineAmounts(line, quantity, taken)
        : lineAmounts({ quantity: quantity.toFixed(2), unitPrice: line.unit_price, discount: line.discount, taxes: line.taxes });
    inNote.set(line.id, taken.plus(quantity));
    records.push({
      position: records.length,
      invoice_item_id: line.id,
      product_id: line.product_id,
      description: line.description,
      quantity: quantity.toFixed(2),
      unit_price: line.unit_price,
      discount: line.discount,
      discount_amount: amounts.discountAmount,
      subtotal: amounts.subtotal,
      tax_amount: amounts.taxAmount,
      total: amounts.total,
      taxes: amounts.taxes,
    });
    if (kind === "credit" && line.track_inventory) returns.push({ line, quantity: quantity.toFixed(2), field });
  };

  if (input.full) {
    for (const line of loaded.lines) {
      const remaining = new Big(line.quantity).minus(line.credited.quantity);
      if (remaining.gt(0)) fromLine(line, remaining, "full");
    }
    if (records.length === 0) throw fieldError("full", "Every line of this invoice is already credited.");
    return { records, returns };
  }
  (input.items ?? []).forEach((item, i) => {
    if ("invoice_item_id" in item) {
      const line = byId.get(item.invoice_item_id);
      if (!line) {
        errors[`items.${i}.invoice_item_id`] = ["Not a line of this invoice."];
        return;
      }
      const quantity = new Big(item.quantity);
      if (kind === "credit") {
        const left = new Big(line.quantity).minus(line.credited.quantity).minus(inNote.get(line.id) ?? 0);
        if (quantity.gt(left)) {
          errors[`items.${i}.quantity`] = [`Only ${left.toFixed(2)} of this line is left to credit.`];
          return;
        }
      }
      fromLine(line, quantity, `items.${i}.quantity`);
      return;
    }
    const ids = item.tax_ids ?? [];
    const lineTaxes = ids.map((id, k) => {
      const tax = taxes.get(id);
      if (!tax?.is_active) errors[`items.${i}.tax_ids.${k}`] = ["No such active tax."];
      return tax ?? { id, name: "", type: "", rate: "0" };
    });
    if (new Set(ids).size !== ids.length) errors[`items.${i}.tax_ids`] = ["A tax is listed twice."];
    if (lineTaxes.filter((tax) => EXCLUSIVE_TAX_TYPES.has(tax.type)).length > 1) {
      errors[`items.${i}.tax_ids`] = ["A line holds at most one of ITBIS, exento and no facturable (ISC and other additional taxes come on top)."];
    }
    const amounts = lineAmounts({ quantity: "1", unitPrice: item.amount, discount: "0", taxes: lineTaxes });
    records.push({
      position: records.length,
      invoice_item_id: null,
      product_id: null,
      description: item.description,
      quantity: "1.00",
      unit_price: new Big(item.amount).toFixed(2),
      discount: "0.00",
      discount_amount: amounts.discountAmount,
      subtotal: amounts.subtotal,
      tax_amount: amounts.taxAmount,
      total: amounts.total,
      taxes: amounts.taxes,
    });
  });
  if (Object.keys(errors).length) throw new AppError("validation_failed", "The given data was invalid.", errors);
  return { records, returns };
}

/** The request's combinations that make no note (422 naming the field). */
function assertNoteRequest(kind: NoteKind, input: CreateNoteInput) {
  if (input.full && input.items) throw fieldError("items", "Give either items or full: true, not both.");
  if (!input.full && !input.items) throw fieldError("items", "Give the note's items, or full: true to credit everything left.");
  if (kind === "debit") {
    if (input.full) throw fieldError("full", "A debit note adds amounts: give its items.");
    if (input.restock !== undefined) throw fieldError("restock", "A debit note moves no stock.");
    if (input.modification_code === 1) throw fieldError("modification_code", "A debit note cannot annul the invoice (code 1): use a credit note.");
  }
  if (kind === "credit" && input.modification_code === 1 && !input.full) {
    throw fieldError("modification_code", "A credit note that annuls the invoice (code 1) credits all of it: send full: true.");
  }
}

/** The tenant's default subtype of a note kind, or the one given (its type is checked by resolveDocument). */
async function noteSubtypeId(db: AnyDb, scope: RequestScope, kind: NoteKind, given: number | undefined): Promise<number> {
  if (given !== undefined) return given;
  const ds = schema.documentSubtypes;
  const [row] = await db
    .select({ id: ds.id })
    .from(ds)
    .where(and(eq(ds.tenantId, scope.tenantId), eq(ds.type, SUBTYPE_TYPE[kind]), eq(ds.isDefault, true)));
  if (!row) throw fieldError("document_subtype_id", `The company has no default ${LABEL[kind]} sequence: give document_subtype_id.`);
  return row.id;
}

/** Builds and signs a note's e-CF (E33/E34): its lines (goods or services as the invoice's were; amount lines are services) and the invoice it modifies. */
async function signNote(
  scope: RequestScope,
  resolved: ResolvedDocument,
  context: InvoiceContext,
  note: {
    issueDate: string;
    snapshot: DocumentSnapshot;
    records: NoteLineRecord[];
    amounts: LineAmounts[];
    breakdown: TaxBreakdown;
    total: string;
    services: Map<number, boolean>;
    reference: NonNullable<EcfSource["reference"]>;
    creditNoteIndicator: 0 | 1 | undefined;
    currency: EcfSource["currency"];
    /** The modified invoice's (TipoIngresos): a note is income of the invoice's kind. */
    incomeType: EcfSource["incomeType"];
  },
): Promise<SignedEcf> {
  // createNote asserted the settings (assertEcfReady) right after the read.
  return signEcf(resolved.ecf as ReadyEcfSettings, context.encryptionKey, {
    tenantId: scope.tenantId,
    encf: resolved.documentNumber!,
    issueDate: note.issueDate,
    sequenceExpiry: resolved.subtype.validUntil,
    dueDate: null,
    incomeType: note.incomeType,
    snapshot: note.snapshot,
    lines: note.records.map((record) => ({
      description: record.description,
      isService: record.invoice_item_id === null ? true : (note.services.get(record.invoice_item_id) ?? false),
      quantity: record.quantity,
      unitPrice: record.unit_price,
    })),
    amounts: note.amounts,
    breakdown: note.breakdown,
    total: note.total,
    reference: note.reference,
    ...(note.creditNoteIndicator === undefined ? {} : { creditNoteIndicator: note.creditNoteIndicator }),
    ...(note.currency ? { currency: note.currency } : {}),
  });
}

/**
 * POST /invoices/{id}/credit-notes and /debit-notes. Under the invoice's row lock (so concurrent
 * notes on one invoice take turns and never credit more than it has), one read of the sequence and
 * profile, one of the lines and what was credited of them, and ONE statement that takes the note's
 * NCF, writes it with its lines, returns the credited goods to the workspace that sold them and
 * moves the invoice's credited or debited amount and status.
 */
export async function createNote(
  db: AnyDb,
  scope: RequestScope,
  invoiceId: number,
  kind: NoteKind,
  input: CreateNoteInput,
  context: InvoiceContext,
): Promise<NoteSummary> {
  const { today } = context;
  assertNoteRequest(kind, input);
  const invoice = await findRow(
    db,
    inv,
    and(eq(inv.tenantId, scope.tenantId), eq(inv.workspaceId, scope.workspaceId), eq(inv.id, invoiceId), sql`${inv.deletedAt} IS NULL`),
    "Invoice",
    true,
  );
  if (invoice.documentNumber === null || invoice.status === "draft" || invoice.status === "cancelled") {
    throw new AppError("invoice_not_modifiable", `Notes modify issued invoices; this one is ${invoice.status}.`);
  }
  const issueDate = input.issue_date ?? today;
  if (issueDate < invoice.issueDate) throw fieldError("issue_date", `A note cannot precede the invoice it modifies (${invoice.issueDate}).`);
  const subtypeId = await noteSubtypeId(db, scope, kind, input.document_subtype_id);
  const resolved = await resolveDocument(
    db,
    scope,
    { contact_id: invoice.contactId, document_subtype_id: subtypeId, currency_id: invoice.currencyId, items: [] },
    { documentType: SUBTYPE_TYPE[kind], takeNumber: false, takeElectronicNumber: true, checkNumbering: true, today: issueDate },
  );
  if (isElectronicPrefix(resolved.subtype.prefix)) {
    assertEcfReady(resolved.subtype.prefix, resolved.ecf);
    // An E33/E34 bears the day it is signed (ecf/dating.ts; docs/fiscal.md, "The date of an e-CF"),
    // a replacement its paper note's day (checkReplacement, below).
    if (!input.replaces) assertIssuedToday(issueDate, resolved.subtype.authorizedAt, today);
  }
  assertFiscalProfile(resolved.issuer);
  // A paper note written in contingency, entered as the E33/E34 that replaces it (issue 43): its e-CF
  // names the paper NCF with CodigoModificacion 4 (Formato e-CF v1.0, section F); the note still
  // modifies this invoice (its stock, its amounts, modified_ncf).
  let replaced: EcfReference | null = null;
  if (input.replaces) {
    if (!isElectronicPrefix(resolved.subtype.prefix)) throw fieldError("replaces", "A paper note is replaced by an e-CF: choose an E33 or E34 subtype.");
    // The invoice's own paper date when it replaced one: the paper note followed the paper invoice.
    const invoiceDate = invoice.replacedNcfDate ?? invoice.issueDate;
    if (input.replaces.issue_date < invoiceDate) {
      throw fieldError("replaces.issue_date", `The paper note cannot precede the invoice it modifies (${invoiceDate}).`);
    }
    replaced = await checkReplacement(
      db,
      scope,
      resolved.subtype.prefix,
      issueDate,
      { ncf: input.replaces.ncf, issueDate: input.replaces.issue_date },
      today,
      "note",
    );
  }

  const taxIds = (input.items ?? []).flatMap((item) => ("tax_ids" in item ? (item.tax_ids ?? []) : []));
  const loaded = await loadLines(db, scope, invoiceId, [...new Set(taxIds)]);
  const { records, returns } = noteLines(kind, input, loaded);
  const amounts = records.map((r) => ({ subtotal: r.subtotal, discountAmount: r.discount_amount, taxAmount: r.tax_amount, total: r.total, taxes: r.taxes }));
  const totals = documentAmounts(amounts);
  if (new Big(totals.totalAmount).lte(0)) throw fieldError("items", "A note's total is more than 0.00.");
  if (kind === "credit") {
    const creditable = new Big(invoice.totalAmount).plus(invoice.debitedAmount).minus(invoice.creditedAmount);
    if (new Big(totals.totalAmount).gt(creditable)) {
      throw fieldError("items", `The note's total (${totals.totalAmount}) exceeds what is left to credit on the invoice (${creditable.toFixed(2)}).`);
    }
  }
  const rate = invoice.exchangeRate ?? "1";
  const dop = dopAmounts(totals, rate);
  const invoiceSnapshot = invoice.snapshot as DocumentSnapshot | null;
  const snapshot: DocumentSnapshot = {
    ...documentSnapshot(resolved, exchangeRateText(rate)),
    // The note is about the invoice's buyer and currency as the invoice was issued to them.
    ...(invoiceSnapshot ? { buyer: invoiceSnapshot.buyer, currency: invoiceSnapshot.currency } : {}),
  };
  const indicator = kind === "credit" ? (issueDate > addDays(invoice.issueDate, CREDIT_NOTE_ITBIS_DAYS) ? 1 : 0) : null;
  const restock = kind === "credit" && input.restock !== false;
  const changes: StockChange[] = restock
    ? returns.map((r) => ({
        productId: r.line.product_id,
        workspaceId: invoice.workspaceId,
        quantity: r.quantity,
        type: "return" as const,
        notes: input.reason,
        field: r.field,
      }))
    : [];

  const breakdown = taxBreakdown(amounts);
  // An E33/E34 is signed now, its number taken by the read above (docs/ecf.md, "Issuing").
  const ecf =
    resolved.documentNumber && isElectronicPrefix(resolved.subtype.prefix)
      ? await signNote(scope, resolved, context, {
          issueDate,
          snapshot,
          records,
          amounts,
          breakdown,
          total: totals.totalAmount,
          services: new Map(loaded.lines.map((line) => [line.id, line.is_service])),
          reference: replaced
            ? { ...replaced, reason: input.reason }
            : {
                ncf: invoice.documentNumber,
                date: invoice.issueDate,
                modificationCode: input.modification_code as 1 | 2 | 3 | 4 | 5,
                reason: input.reason,
              },
          creditNoteIndicator: indicator === null ? undefined : (indicator as 0 | 1),
          currency: resolved.currencyIsDefault || !resolved.currencyCode ? undefined : { code: resolved.currencyCode, exchangeRate: exchangeRateText(rate) },
          incomeType: invoice.incomeType as EcfSource["incomeType"],
        })
      : null;

  const t = scope.tenantId;
  const noteId = sql`(SELECT id FROM note)`;
  const documentNumber = sql`(SELECT document_number FROM num)`;
  const numbering = numberCtes(t, subtypeId, issueDate, SUBTYPE_TYPE[kind], ecf?.encf ?? null);
  const result = await db
    .execute(sql`
    WITH ${numbering}, note AS (
      INSERT INTO invoice_notes (tenant_id, workspace_id, invoice_id, contact_id, kind, document_subtype_id, document_number, issue_date,
        modified_ncf, modified_issue_date, modification_code, reason, credit_note_indicator, replaced_ncf, replaced_ncf_date, restock, subtotal_amount, discount_amount,
        tax_amount, total_amount, tax_breakdown, currency_id, exchange_rate, subtotal_amount_dop, discount_amount_dop, tax_amount_dop, total_amount_dop,
        snapshot, created_by)
      SELECT ${t}, ${invoice.workspaceId}, ${invoice.id}, ${invoice.contactId}, ${kind}, ${subtypeId}, num.document_number, ${issueDate},
        ${invoice.documentNumber}, ${invoice.issueDate}, ${input.modification_code}, ${input.reason}, ${indicator}, ${replaced?.ncf ?? null},
        ${replaced?.date ?? null}::date, ${restock},
        ${totals.subtotalAmount}, ${totals.discountAmount}, ${totals.taxAmount}, ${totals.totalAmount}, ${JSON.stringify(breakdown)}::jsonb,
        ${invoice.currencyId}, ${rate},
        ${dop.subtotalAmount}, ${dop.discountAmount}, ${dop.taxAmount}, ${dop.totalAmount}, ${JSON.stringify(snapshot)}::jsonb, ${scope.userId}
      FROM num
      RETURNING *
    ), lines AS (
      INSERT INTO invoice_note_items (tenant_id, note_id, position, invoice_item_id, product_id, description, quantity, unit_price, discount,
        discount_amount, subtotal, tax_amount, total, taxes)
      SELECT ${t}, ${noteId}, x.position, x.invoice_item_id, x.product_id, x.description, x.quantity, x.unit_price, x.discount,
        x.discount_amount, x.subtotal, x.tax_amount, x.total, x.taxes
      FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb) AS x(position int, invoice_item_id int, product_id int, description text,
        quantity numeric, unit_price numeric, discount numeric, discount_amount numeric, subtotal numeric, tax_amount numeric, total numeric, taxes jsonb)
      WHERE ${noteId} IS NOT NULL
    )${ecf ? sql`, ecf AS (${insertEcfStatement(t, invoice.workspaceId, "note", noteId, ecf, scope.userId)})` : sql``}, ${stockCtes(scope, changes, sql`${invoice.id}::int`, documentNumber)}
    SELECT (SELECT row_to_json(note) FROM note) AS note, ${ecf ? sql`(SELECT id FROM ecf)` : sql`NULL::int`} AS ecf_id, ${stockResultColumns}`)
    .catch((error: unknown) => {
      // Two concurrent replacements of one paper note: the unique index decides, the loser is told why.
      if (replaced && isUniqueViolation(error, "invoice_notes_tenant_replaced_ncf_key")) {
        throw new AppError("contingency_ncf_used", `${replaced.ncf} was replaced already.`, { "replaces.ncf": ["Replaced already."] });
      }
      throw error;
    });
  const row = oneRow(rowsOf<StockResult & { note: Record<string, unknown> | null; ecf_id: number | null }>(result));
  if (!row.note) throw await refusalAfterTaking(db, t, subtypeId, issueDate);
  await checkStockResult(db, changes, row);
  if (row.ecf_id !== null) {
    context.ecfIds.push(Number(row.ecf_id));
    await context.ecfSigned({
      id: Number(row.ecf_id),
      workspaceId: invoice.workspaceId,
      kind: kind === "credit" ? "credit_note" : "debit_note",
      documentId: Number(row.note.id),
    });
  }

  const credited = new Big(invoice.creditedAmount).plus(kind === "credit" ? totals.totalAmount : 0);
  const debited = new Big(invoice.debitedAmount).plus(kind === "debit" ? totals.totalAmount : 0);
  const updated = await db
    .update(inv)
    .set({
      creditedAmount: credited.toFixed(2),
      debitedAmount: debited.toFixed(2),
      status: paymentStatus(invoiceAccount({ ...invoice, creditedAmount: credited.toFixed(2), debitedAmount: debited.toFixed(2) })),
      updatedAt: new Date(),
    })
    .where(eq(inv.id, invoice.id))
    .returning()
    .then(oneRow);
  await recordInvoiceChange(db, scope, kind === "credit" ? "credit_note" : "debit_note", invoice, updated);
  return serializeNote(rowFromJson(notes, row.note));
}

const visible = (scope: RequestScope, kind: NoteKind) =>
  and(eq(notes.tenantId, scope.tenantId), eq(notes.workspaceId, scope.workspaceId), eq(notes.kind, kind));

type NoteFilter = "invoice_id" | "contact_id" | "issue_date_from" | "issue_date_to" | "status";
type NoteSort = "issue_date" | "document_number" | "total_amount" | "created_at";

export async function listNotes(db: AnyDb, scope: RequestScope, kind: NoteKind, query: ListQuery<NoteFilter, NoteSort>) {
  const f = query.filters;
  const where = and(
    visible(scope, kind),
    f.invoice_id ? eq(notes.invoiceId, Number(f.invoice_id)) : undefined,
    f.contact_id ? eq(notes.contactId, Number(f.contact_id)) : undefined,
    f.issue_date_from ? gte(notes.issueDate, f.issue_date_from) : undefined,
    f.issue_date_to ? lte(notes.issueDate, f.issue_date_to) : undefined,
    f.status ? eq(notes.status, f.status) : undefined,
  );
  const column = {
    issue_date: notes.issueDate,
    document_number: notes.documentNumber,
    total_amount: notes.totalAmount,
    created_at: notes.createdAt,
    updated_at: notes.updatedAt,
  }[query.sort.field];
  const page = await pageOf(db, notes, where, orderBy(column, notes.id, query.sort.descending), query);
  return { data: page.rows.map(serializeNote), total: page.total };
}

export async function getNote(db: AnyDb, scope: RequestScope, kind: NoteKind, id: number): Promise<NoteDetail> {
  const ni = schema.invoiceNoteItems;
  // Issued together, one round trip (issue 46): the lines, read by the id asked for, are answered
  // only once the note is found visible to the caller (404 otherwise).
  const [row, lines] = await Promise.all([
    findRow(db, notes, and(visible(scope, kind), eq(notes.id, id)), LABEL[kind] === "credit note" ? "Credit note" : "Debit note"),
    db
      .select({ line: ni, product: { id: schema.products.id, name: schema.products.name, sku: schema.products.sku } })
      .from(ni)
      .leftJoin(schema.products, eq(schema.products.id, ni.productId))
      .where(eq(ni.noteId, id))
      .orderBy(asc(ni.position)),
  ]);
  return {
    ...serializeNote(row),
    items: lines.map(({ line, product }) => ({
      id: line.id,
      invoice_item_id: line.invoiceItemId,
      description: line.description,
      ...lineMoneyText(
        {
          quantity: line.quantity,
          discount: line.discount,
          discount_amount: line.discountAmount,
          subtotal: line.subtotal,
          tax_amount: line.taxAmount,
          total: line.total,
        },
        "unit_price",
        line.unitPrice,
      ),
      taxes: line.taxes as AppliedTax[],
      product: product?.id ? product : null,
    })),
    snapshot: row.snapshot as DocumentSnapshot,
    tax_breakdown: row.taxBreakdown as TaxBreakdown,
  };
}

/** The note's PDF: its snapshot, its lines, the modified NCF and date, the reason (Norma General 06-2018). */
export async function notePdfData(db: AnyDb, scope: RequestScope, kind: NoteKind, id: number): Promise<{ note: NoteDetail; pdf: PdfDocumentData }> {
  const note = await getNote(db, scope, kind, id);
  const { issuer, buyer, sequence, currency } = note.snapshot;
  const foreign = currency.code !== null && note.exchange_rate !== "1.00";
  const ecfType = isElectronicPrefix(sequence.prefix) ? sequence.prefix.slice(1) : null;
  return {
    note,
    pdf: {
      title: documentTypeName(sequence.prefix) ?? (kind === "credit" ? "Nota de Crédito" : "Nota de Débito"),
      issuer: pdfIssuer(issuer),
      documentNumber: note.document_number,
      ecfType,
      numberLabel: ecfType ? "e-NCF" : undefined,
      subtypeName: sequence.name,
      validUntil: sequence.valid_until,
      issueDate: note.issue_date,
      dueDate: null,
      dueDateLabel: "",
      reference: { ncf: note.modified_ncf, date: note.modified_issue_date, reason: note.reason, code: note.modification_code },
      currency: foreign && currency.code !== null ? { code: currency.code, exchangeRate: note.exchange_rate } : null,
      customer: { name: buyer.name, identification: buyer.identification, identificationType: buyer.identification_type },
      ...pdfLines(note.items),
      totals: [
        ...printedTotals(note.items, { subtotal: note.subtotal_amount, discount: note.discount_amount, total: note.total_amount }, ecfType !== null),
        ...(foreign ? [{ label: "Total en DOP", value: note.total_amount_dop, dop: true }] : []),
      ],
      notes: null,
    },
  };
}
