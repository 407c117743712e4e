import type { AnyDb } from "../../db/client";
import type { RequestScope } from "../../http/scope";
import { port } from "../../lib/port";
import type { InvoiceContext } from "./context";

/**
 * The credit note that cancels an invoice's e-CF (changes.ts, cancelElectronic). Notes are built
 * on invoices (they credit an invoice's lines and balance, and write its history), so invoices do
 * not import them: notes provide this (notes/cancellation.ts), plugged in by src/app.ts.
 */
export interface CancellationNotes {
  /** Issues a credit note for all of the invoice with DGII's modification code 1 ("anula el NCF modificado"). */
  issueFullCredit(
    db: AnyDb,
    scope: RequestScope,
    invoiceId: number,
    input: { document_subtype_id: number; issue_date: string; reason: string },
    context: InvoiceContext,
  ): Promise<{ id: number; document_number: string }>;
  /** The credit note as its `credit_note.created` event carries it. */
  eventData(db: AnyDb, scope: RequestScope, noteId: number): Promise<unknown>;
}

export const cancellationNotes = port<CancellationNotes>("Invoices' cancellation notes");
