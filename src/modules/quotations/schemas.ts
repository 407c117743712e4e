import { z } from "@hono/zod-openapi";
import { idFilter, listQuerySchema } from "../../http/pagination";
import { CREATED_DOCUMENT_FIELDS, dateInput, id, incomeType, LineItemOutput, LineItems, TaxBreakdown } from "../sales/schemas";

const QUOTATION_STATUSES = ["draft", "sent", "approved", "rejected", "converted", "cancelled"] as const;
export type QuotationStatus = (typeof QUOTATION_STATUSES)[number];

/** The most quotations one bulk PDF request may name. */
const MAX_BULK_PDF = 100;
/** The most lines, across all its quotations, one bulk PDF request may render (each PDF costs CPU per line). */
export const MAX_BULK_PDF_LINES = 5000;

const base = {
  contact_id: id(),
  document_subtype_id: id().openapi({ description: "A quotation-type subtype (COT…): it numbers the quotation" }),
  issue_date: dateInput(),
  due_date: dateInput().nullable().optional().openapi({ description: "Expiration date" }),
  notes: z.string().trim().max(5000).nullable().optional(),
  currency_id: id().nullable().optional().openapi({ description: "Default: the tenant's default currency" }),
  items: LineItems,
};

// Totals, status, number and workspace are the server's: unknown fields are ignored, never applied.
export const CreateQuotationBody = z.object(base).openapi("CreateQuotationRequest");
export const UpdateQuotationBody = z
  .object({
    contact_id: base.contact_id.optional(),
    document_subtype_id: base.document_subtype_id.optional(),
    issue_date: base.issue_date.optional(),
    due_date: base.due_date,
    notes: base.notes,
    currency_id: base.currency_id,
    items: LineItems.optional(),
  })
  .openapi("UpdateQuotationRequest");

export type CreateQuotationInput = z.output<typeof CreateQuotationBody>;
export type UpdateQuotationInput = z.output<typeof UpdateQuotationBody>;

export const ConvertQuotationBody = z
  .object({
    document_subtype_id: id()
      .optional()
      .openapi({ description: "Invoice subtype (NCF sequence); default: the workspace's preferred invoice subtype, else the tenant's default" }),
    // Given here because an e-CF is signed with it at once and cannot be changed afterwards.
    income_type: incomeType.optional(),
  })
  .openapi("ConvertQuotationRequest");
export type ConvertQuotationInput = z.output<typeof ConvertQuotationBody>;

export const BulkPdfBody = z
  .object({
    quotation_ids: z.array(id()).min(1, "Give at least one quotation id.").max(MAX_BULK_PDF, `At most ${MAX_BULK_PDF} quotations at a time.`),
  })
  .openapi("BulkQuotationPdfRequest");

export const QuotationSummary = z
  .object({
    id: z.number(),
    workspace_id: z.number(),
    contact_id: z.number(),
    document_subtype_id: z.number(),
    document_number: z.string(),
    issue_date: z.string(),
    due_date: z.string().nullable(),
    status: z.enum(QUOTATION_STATUSES),
    subtotal_amount: z.string(),
    tax_amount: z.string(),
    discount_amount: z.string(),
    total_amount: z.string(),
    currency_id: z.number().nullable(),
    notes: z.string().nullable(),
    invoice_id: z.number().nullable().openapi({ description: "The invoice it was converted to" }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("QuotationSummary");

export const QuotationDetail = QuotationSummary.extend({
  contact: z.object({ id: z.number(), name: z.string(), email: z.string().nullable() }),
  items: z.array(LineItemOutput),
  tax_breakdown: TaxBreakdown,
}).openapi("Quotation");

export const CreatedQuotation = z.object({
  data: QuotationSummary.pick(CREATED_DOCUMENT_FIELDS),
  message: z.string(),
});

export const UpdatedQuotation = z.object({
  data: z.object({ id: z.number(), total_amount: z.string(), updated_at: z.string() }),
  message: z.string(),
});

export const ConvertedQuotation = z
  .object({
    message: z.string(),
    redirect_url: z.string().openapi({ example: "/invoices/42" }),
    data: z.object({ invoice_id: z.number(), document_number: z.string() }),
  })
  .openapi("ConvertedQuotation");

export const QuotationListQuery = listQuerySchema({
  filters: {
    status: z.enum(QUOTATION_STATUSES).optional(),
    contact_id: idFilter("Must be a contact id."),
  },
  sorts: ["issue_date", "document_number", "total_amount", "created_at"] as const,
  defaultSort: "-issue_date",
});
export type QuotationSummary = z.output<typeof QuotationSummary>;
export type QuotationDetail = z.output<typeof QuotationDetail>;
