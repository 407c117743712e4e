import { decimal2, timestamp } from "../../lib/format";

/** The columns invoices and quotations share, as the API shows them. */
/** `N`: a quotation always has its number; an invoice has none while it is a draft. */
interface DocumentRow<N extends string | null> {
  id: number;
  workspaceId: number;
  contactId: number;
  documentSubtypeId: number;
  documentNumber: N;
  issueDate: string;
  dueDate: string | null;
  subtotalAmount: string;
  taxAmount: string;
  discountAmount: string;
  totalAmount: string;
  currencyId: number | null;
  notes: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export function documentFields<N extends string | null>(row: DocumentRow<N>) {
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    contact_id: row.contactId,
    document_subtype_id: row.documentSubtypeId,
    document_number: row.documentNumber,
    issue_date: row.issueDate,
    due_date: row.dueDate,
    subtotal_amount: decimal2(row.subtotalAmount),
    tax_amount: decimal2(row.taxAmount),
    discount_amount: decimal2(row.discountAmount),
    total_amount: decimal2(row.totalAmount),
    currency_id: row.currencyId,
    notes: row.notes,
    created_at: timestamp(row.createdAt),
    updated_at: timestamp(row.updatedAt),
  };
}
