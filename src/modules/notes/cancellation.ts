import type { CancellationNotes } from "../invoices/ports";
import { createNote, getNote } from "./service";

/** What cancelling an invoice's e-CF issues (invoices/ports.ts): a full credit note, code 1. */
export const fullCreditNotes: CancellationNotes = {
  issueFullCredit: (db, scope, invoiceId, input, context) =>
    createNote(db, scope, invoiceId, "credit", { ...input, modification_code: 1, full: true }, context),
  eventData: (db, scope, noteId) => getNote(db, scope, "credit", noteId),
};
