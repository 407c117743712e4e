import { and, eq, inArray, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import type { RequestScope } from "../../http/scope";
import { ANNULMENT_REASONS, type AnnulmentReason, DEFAULT_ANNULMENT_REASON } from "../../lib/annulments";
import { dominicanToday } from "../../lib/dates";
import { Big } from "../../lib/decimal";
import { AppError, fieldError } from "../../lib/errors";
import { decimal2, timestamp } from "../../lib/format";
import { isElectronicNumber, isNcfPrefix } from "../../lib/ncf";
import { assertNoEcf, ecfStanding } from "../ecf/documents";
import { applyStockChanges, type StockChange } from "../inventory/stock";
import { lineRecords, replaceLines, storedLineItems } from "../sales/items";
import { documentAmounts, lineAmounts, taxBreakdown } from "../sales/lines";
import { invoiceAccount, paymentStatus } from "../sales/money";
import { type ResolvedLine, resolveDocument } from "../sales/references";
import { buyerSnapshot, type DocumentSnapshot, dopAmounts } from "../sales/snapshots";
import { assertBuyerRules } from "./buyer-rules";
import type { InvoiceContext } from "./context";
import { recordInvoiceChange } from "./history";
import { type InvoiceData, serializeInvoice } from "./json";
import { cancellationNotes } from "./ports";
import type { UpdateInvoiceInput } from "./schemas";
import { lockInvoice } from "./service";

/*
 * Changing an invoice after it is written: PATCH (a draft freely, an issued invoice within the
 * rules of an issued document), deleting, cancelling (an e-CF by an E34 credit note) and the
 * cancellation that follows an e-NCF annulled with DGII; the stock each gives back or moves.
 */

const inv = schema.invoices;
type InvoiceRow = typeof inv.$inferSelect;

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
 * the subtype (its NCF), its issue date, the currency and the buyer's id type stay; the type's buyer and tax rules
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
    // The date an NCF was issued on is part of the fiscal record (Norma General 06-2018): moved, the
    // sale would fall in another 607 period, possibly filed already, or after its range expired.
    if (input.issue_date !== undefined && input.issue_date !== invoice.issueDate) {
      throw fieldError("issue_date", "The issue date of an issued invoice cannot change: its NCF was issued on that date.");
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
  const updated = await db.update(inv).set(set).where(eq(inv.id, id)).returning().then(oneRow);
  if (!draft) await recordInvoiceChange(db, scope, "updated", invoice, updated);
  return {
    id: updated.id,
    document_number: updated.documentNumber,
    total_amount: decimal2(updated.totalAmount),
    updated_at: timestamp(updated.updatedAt),
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
  const deleted = await db.update(inv).set({ deletedAt: new Date(), updatedAt: new Date() }).where(eq(inv.id, id)).returning().then(oneRow);
  await recordAnnulment(db, scope, invoice, reason, "deleted");
  await recordInvoiceChange(db, scope, "deleted", invoice, deleted);
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
  if (isElectronicNumber(invoice.documentNumber)) {
    const standing = await ecfStanding(db, { invoiceId: invoice.id });
    if (standing === "unsent") {
      throw new AppError(
        "ecf_not_cancellable",
        `DGII holds no valid copy of this invoice's e-CF, so no credit note can modify it: send it again (POST /api/v1/invoices/${invoice.id}/ecf/retry) once its cause is fixed, or annul its e-NCF with DGII (POST /api/v1/ecf/annulments), which cancels the invoice.`,
      );
    }
    if (standing === "void") return cancelVoidEcf(db, scope, invoice);
    return cancelElectronic(db, scope, invoice, reason, context);
  }
  await returnStock(db, scope, invoice, "invoice cancelled");
  await recordAnnulment(db, scope, invoice, reason, "cancelled");
  const updated = await db.update(inv).set({ status: "cancelled", updatedAt: new Date() }).where(eq(inv.id, id)).returning().then(oneRow);
  await recordInvoiceChange(db, scope, "cancelled", invoice, updated);
  return { invoice: serializeInvoice(updated), creditNote: null, creditNoteId: null };
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
  const updated = await db.update(inv).set({ status: "cancelled", updatedAt: new Date() }).where(eq(inv.id, invoice.id)).returning().then(oneRow);
  await recordInvoiceChange(db, scope, "cancelled", invoice, updated);
}

/**
 * An invoice whose e-CF DGII rejected with its e-NCF counted as used is void for tax purposes
 * (Descripción técnica, "Consulta resultado": Rechazado): there is nothing to credit — an E34 would
 * modify an e-CF DGII does not hold as valid, and DGII refuses it — and nothing to annul (ANECF
 * annuls unused numbers only; Formato Anulación de e-NCF). Cancelling it returns its stock and
 * marks it cancelled, so the sale issued again under the next e-NCF is not counted twice in stock,
 * in receivables or in the reports. No 608 entry: e-NCF are not reported in the 608.
 */
async function cancelVoidEcf(db: AnyDb, scope: RequestScope, invoice: InvoiceRow) {
  await returnStock(db, scope, invoice, "invoice cancelled: its e-CF was rejected by DGII");
  const updated = await db.update(inv).set({ status: "cancelled", updatedAt: new Date() }).where(eq(inv.id, invoice.id)).returning().then(oneRow);
  await recordInvoiceChange(db, scope, "cancelled", invoice, updated);
  return { invoice: serializeInvoice(updated), creditNote: null, creditNoteId: null };
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
  const note = await cancellationNotes.use.issueFullCredit(
    db,
    scope,
    invoice.id,
    { document_subtype_id: subtype.id, issue_date: context.today > invoice.issueDate ? context.today : invoice.issueDate, reason: ANNULMENT_REASONS[reason] },
    context,
  );
  const updated = await db.update(inv).set({ status: "cancelled", updatedAt: new Date() }).where(eq(inv.id, invoice.id)).returning().then(oneRow);
  // Before: the invoice as the note left it (fully credited).
  await recordInvoiceChange(db, scope, "cancelled", { ...updated, status: paymentStatus(invoiceAccount(updated)) }, updated);
  return { invoice: serializeInvoice(updated), creditNote: note.document_number, creditNoteId: note.id };
}
