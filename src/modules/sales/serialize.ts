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

/**
 * A document's totals as the API shows them: the same four keys, in this order (the
 * specification's, SPEC.md "Invoice"), with two decimals, on invoices, quotations, notes and
 * purchases (docs/money.md, "Totals"); `totalsSql` renders them alike where Postgres builds the JSON.
 */
const TOTALS = [
  ["subtotal_amount", "subtotalAmount"],
  ["tax_amount", "taxAmount"],
  ["discount_amount", "discountAmount"],
  ["total_amount", "totalAmount"],
] as const;

type Totals = { [K in (typeof TOTALS)[number][0]]: string };

export function totalsFields(row: { [K in (typeof TOTALS)[number][1]]: string }): Totals {
  return Object.fromEntries(TOTALS.map(([name, column]) => [name, decimal2(row[column])])) as Totals;
}

/** totalsFields as the columns of a select over the row aliased `alias` (numeric(14,2) as text has its two places). */
export const totalsSql = (alias: string) => TOTALS.map(([name]) => `${alias}.${name}::text AS ${name}`).join(", ");

export function documentFields<N extends string | null>(row: DocumentRow<N>) {
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    contact_id: row.contactId,
    document_subtype_id: row.documentSubtypeId,
    document_number: row.documentNumber,
    issue_date: row.issueDate,
    due_date: row.dueDate,
    ...totalsFields(row),
    currency_id: row.currencyId,
    notes: row.notes,
    created_at: timestamp(row.createdAt),
    updated_at: timestamp(row.updatedAt),
  };
}
