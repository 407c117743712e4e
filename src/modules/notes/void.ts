import { and, eq, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { findRow } from "../../db/queries";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import type { RequestScope } from "../../http/scope";
import { Big } from "../../lib/decimal";
import { AppError } from "../../lib/errors";
import { ecfStanding } from "../ecf/documents";
import { applyStockChanges, type StockChange } from "../inventory/stock";
import { recordInvoiceChange } from "../invoices/history";
import type { NoteKind } from "../invoices/schemas";
import { lockInvoice } from "../invoices/service";
import { invoiceAccount, paymentStatus } from "../sales/money";
import type { NoteSummary } from "./schemas";
import { serializeNote } from "./service";

const notes = schema.invoiceNotes;
const COLLECTION = { credit: "credit-notes", debit: "debit-notes" } as const;

/**
 * A note whose e-CF DGII rejected with its e-NCF counted as used is void for tax purposes
 * (Descripción técnica, "Consulta resultado": Rechazado), yet it still credits or debits its
 * invoice and a credit note's restocked goods are still in stock: issuing it again would count
 * twice, and a full credit note could not be issued again at all ("never more than the invoice").
 * Cancelling it takes its amounts off the invoice (status recomputed), takes back out what it
 * restocked (the very movements it made), and leaves its lines out of what the invoice's lines
 * have had credited. Any other note stands once issued (409 note_not_cancellable: another note
 * corrects it); one DGII holds no valid copy of is sent again (409 ecf_not_cancellable).
 */
export async function cancelVoidNote(db: AnyDb, scope: RequestScope, kind: NoteKind, id: number): Promise<NoteSummary> {
  const visible = and(eq(notes.tenantId, scope.tenantId), eq(notes.workspaceId, scope.workspaceId), eq(notes.kind, kind), eq(notes.id, id));
  const note = await findRow(db, notes, visible, kind === "credit" ? "Credit note" : "Debit note", true);
  if (note.status === "cancelled") throw new AppError("note_not_cancellable", `${note.documentNumber} is cancelled already.`);
  const standing = await ecfStanding(db, { noteId: note.id });
  if (standing === "unsent") {
    throw new AppError(
      "ecf_not_cancellable",
      `DGII holds no valid copy of this note's e-CF: send it again (POST /api/v1/${COLLECTION[kind]}/${note.id}/ecf/retry) once its cause is fixed.`,
    );
  }
  if (standing !== "void") {
    throw new AppError(
      "note_not_cancellable",
      `A ${kind} note stands once issued; only one whose e-CF DGII rejected as void can be cancelled. Correct ${note.documentNumber} with another note.`,
    );
  }

  const invoice = await lockInvoice(db, scope, note.invoiceId);
  const m = schema.stockMovements;
  const restocked = await db
    .select({ productId: m.productId, workspaceId: m.workspaceId, quantity: sql<string>`sum(${m.quantity})::text` })
    .from(m)
    .where(and(eq(m.tenantId, scope.tenantId), eq(m.invoiceId, invoice.id), eq(m.type, "return"), eq(m.reference, note.documentNumber)))
    .groupBy(m.productId, m.workspaceId);
  const changes: StockChange[] = restocked
    .filter((r) => !new Big(r.quantity).eq(0))
    .map((r) => ({
      productId: r.productId,
      workspaceId: r.workspaceId,
      quantity: new Big(r.quantity).neg().toFixed(2),
      type: "return" as const,
      reference: note.documentNumber,
      notes: "credit note cancelled: its e-CF was rejected by DGII",
      invoiceId: invoice.id,
      field: "id",
    }));
  await applyStockChanges(db, scope, changes);

  const cancelled = await db.update(notes).set({ status: "cancelled", updatedAt: new Date() }).where(eq(notes.id, note.id)).returning().then(oneRow);
  const credited = new Big(invoice.creditedAmount).minus(kind === "credit" ? note.totalAmount : 0).toFixed(2);
  const debited = new Big(invoice.debitedAmount).minus(kind === "debit" ? note.totalAmount : 0).toFixed(2);
  const updated = await db
    .update(schema.invoices)
    .set({
      creditedAmount: credited,
      debitedAmount: debited,
      status: paymentStatus(invoiceAccount({ ...invoice, creditedAmount: credited, debitedAmount: debited })),
      updatedAt: new Date(),
    })
    .where(eq(schema.invoices.id, invoice.id))
    .returning()
    .then(oneRow);
  await recordInvoiceChange(db, scope, "note_cancelled", invoice, updated);
  return serializeNote(cancelled);
}
