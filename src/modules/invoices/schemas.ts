import { z } from "@hono/zod-openapi";
import { idFilter, listQuerySchema } from "../../http/pagination";
import { crossField } from "../../http/schemas";
import { ANNULMENT_REASON_CODES, DEFAULT_ANNULMENT_REASON } from "../../lib/annulments";
import { dateInput as dateFilter, dateTimeInput } from "../../lib/bounds";
import { decimalInput, moneyInput } from "../../lib/decimal";
import {
  CREATED_DOCUMENT_FIELDS,
  DocumentSnapshot,
  DocumentWarning,
  dateInput,
  id,
  incomeType,
  LineItemOutput,
  LineItems,
  TaxBreakdown,
} from "../sales/schemas";
import { HISTORY_ACTIONS } from "./history";

const INVOICE_STATUSES = ["pending_payment", "partially_paid", "paid", "cancelled", "draft"] as const;

const base = {
  income_type: incomeType.optional(),
  contact_id: id(),
  document_subtype_id: id(),
  issue_date: dateInput(),
  due_date: dateInput().nullable().optional(),
  payment_term: z.string().trim().max(255).nullable().optional(),
  notes: z.string().trim().max(5000).nullable().optional(),
  currency_id: id().nullable().optional(),
  items: LineItems,
  salesman_ids: z.array(id()).max(20).optional(),
};

/** A rate given for the document (DOP per unit of its currency); default: the currency's rate now. */
const exchangeRate = decimalInput({ sign: "positive", max: "999999999999.999999", scale: 6 }).openapi({
  example: "58.75",
  description: "DOP per unit of the invoice's currency on its issue date; default: the currency's current rate (1 in DOP)",
});

// Totals, status, number and workspace are the server's: unknown fields are ignored, never applied.
export const CreateInvoiceBody = z
  .object({
    ...base,
    draft: z.boolean().optional().openapi({ description: "true: a draft (no number, stock or email until POST /invoices/{id}/issue)" }),
    exchange_rate: exchangeRate.nullable().optional(),
    replaces: z
      .object({
        ncf: z
          .string()
          .trim()
          .toUpperCase()
          .regex(/^B\d{10}$/, "A paper NCF: B, its type (2 digits) and 8 digits.")
          .openapi({ example: "B0100000012" }),
        issue_date: dateInput().openapi({ description: "The date written on the paper NCF (FechaNCFModificado)" }),
      })
      .strict()
      .optional()
      .openapi({
        description:
          "Contingency replacement (issue 33; Formato e-CF v1.0 section F, CodigoModificacion 4): the paper B-series NCF, from this branch's contingency range, that this e-CF of the equivalent type (B01 → E31, B02 → E32, B14 → E44, B15 → E45, B16 → E46) replaces; each paper NCF once. A replacement is issued at once, never a draft: not with draft true",
      }),
    offline_issued_at: dateTimeInput().optional().openapi({
      description:
        "Deferred sending (tenants DGII authorized: PUT /api/v1/ecf/settings deferred_sending_authorization): when a branch device made this e-CF sale offline. The e-CF carries IndicadorEnvioDiferido 1 and must reach DGII within 24 hours of it (GET …/ecf deferred_sending.deadline)",
      example: "2026-11-23T14:05:00-04:00",
    }),
  })
  // A contingency replacement is issued at once (invoices/issue.ts): never with draft true.
  .openapi(crossField({ not: { required: ["replaces", "draft"], properties: { draft: { const: true } } } }))
  .openapi("CreateInvoiceRequest");

/** POST /invoices/{id}/issue: the date it is issued (default today in the Dominican Republic) and the rate. */
export const IssueInvoiceBody = z
  .object({ issue_date: dateInput().optional(), exchange_rate: exchangeRate.nullable().optional() })
  .strict()
  .openapi("IssueInvoiceRequest");
export type IssueInvoiceInput = z.output<typeof IssueInvoiceBody>;
export const UpdateInvoiceBody = z
  .object({
    contact_id: base.contact_id.optional(),
    document_subtype_id: base.document_subtype_id.optional(),
    issue_date: base.issue_date.optional(),
    due_date: base.due_date,
    payment_term: base.payment_term,
    notes: base.notes,
    currency_id: base.currency_id,
    items: LineItems.optional(),
    salesman_ids: base.salesman_ids,
    income_type: base.income_type,
  })
  .openapi("UpdateInvoiceRequest");

/**
 * PUT /invoices/{id}/withholdings: what the buyer (a withholding agent: Norma General 02-2005 for
 * ITBIS, Código Tributario art. 309 for ISR) withheld of the invoice and paid to DGII, in the
 * invoice's currency, as the buyer reports it. Replaces what was recorded; zeros clear it.
 */
export const InvoiceWithholdingsBody = z
  .object({
    itbis_withheld: moneyInput(),
    isr_withheld: moneyInput(),
    withholding_date: dateInput().nullable().openapi({
      description:
        "When the buyer withheld: required when either amount is above 0, not before the invoice's issue date nor after today (Dominican date), each a 422 on it; in a closed fiscal period, 409 period_closed",
    }),
  })
  .strict()
  .openapi("InvoiceWithholdingsRequest");
export type InvoiceWithholdingsInput = z.output<typeof InvoiceWithholdingsBody>;

export type CreateInvoiceInput = z.output<typeof CreateInvoiceBody>;
export type UpdateInvoiceInput = z.output<typeof UpdateInvoiceBody>;

export const InvoiceSummary = z
  .object({
    id: z.number(),
    workspace_id: z.number(),
    contact_id: z.number(),
    document_subtype_id: z.number(),
    document_number: z.string().nullable().openapi({ description: "The NCF; null only for a draft" }),
    issue_date: z.string(),
    due_date: z.string().nullable(),
    status: z.enum(INVOICE_STATUSES),
    subtotal_amount: z.string(),
    tax_amount: z.string(),
    discount_amount: z.string(),
    total_amount: z.string(),
    amount_due: z.string().openapi({ description: "total + debited − credited − paid − withheld, never below 0" }),
    refund_due: z.string().openapi({ description: "What credit notes took back beyond what was left to pay: owed to the buyer" }),
    amount_paid: z.string(),
    itbis_withheld: z.string().openapi({ description: "ITBIS the buyer withheld and paid to DGII (PUT /invoices/{id}/withholdings)" }),
    isr_withheld: z.string().openapi({ description: "ISR the buyer withheld and paid to DGII" }),
    withholding_date: z.string().nullable(),
    income_type: incomeType,
    credited_amount: z.string().openapi({ description: "Sum of the invoice's credit notes" }),
    debited_amount: z.string().openapi({ description: "Sum of the invoice's debit notes" }),
    currency_id: z.number().nullable(),
    payment_term: z.string().nullable(),
    notes: z.string().nullable(),
    exchange_rate: z.string().nullable().openapi({ description: "DOP per unit of the currency, fixed at issue; null for a draft", example: "1.00" }),
    subtotal_amount_dop: z.string().nullable(),
    discount_amount_dop: z.string().nullable(),
    tax_amount_dop: z.string().nullable(),
    total_amount_dop: z.string().nullable().openapi({ description: "The total in DOP at exchange_rate; null for a draft" }),
    replaces: z
      .object({ ncf: z.string(), issue_date: z.string() })
      .nullable()
      .openapi({ description: "A contingency replacement: the paper NCF its e-CF replaces (CodigoModificacion 4) and its date; null otherwise" }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("InvoiceSummary");

export const Payment = z
  .object({
    id: z.number(),
    amount: z.string(),
    payment_date: z.string(),
    payment_method: z.string(),
    bank_account: z.object({ id: z.number(), name: z.string() }).nullable(),
  })
  .openapi("Payment");

/** The notes an invoice may carry: credit notes (E34/B04) and debit notes (E33/B03). */
export const NOTE_KINDS = ["credit", "debit"] as const;
export type NoteKind = (typeof NOTE_KINDS)[number];
/** A note is issued; one whose e-CF DGII rejected as void can be cancelled (notes/void.ts), and then no longer counts on its invoice. */
export const NOTE_STATUSES = ["issued", "cancelled"] as const;

/** A note as its invoice's GET embeds it. */
export const EmbeddedNote = z.object({
  id: z.number(),
  document_number: z.string(),
  issue_date: z.string(),
  modification_code: z.number(),
  reason: z.string(),
  status: z.enum(NOTE_STATUSES),
  total_amount: z.string(),
});

export const InvoiceDetail = InvoiceSummary.extend({
  contact: z.object({ id: z.number(), name: z.string(), email: z.string().nullable(), phone: z.string().nullable() }),
  items: z.array(LineItemOutput),
  payments: z.array(Payment),
  salesmen: z.array(z.object({ id: z.number(), full_name: z.string() })),
  tax_breakdown: TaxBreakdown,
  credit_notes: z.array(EmbeddedNote),
  debit_notes: z.array(EmbeddedNote),
  snapshot: DocumentSnapshot.nullable().openapi({ description: "Frozen at issue; null for a draft or an invoice issued before snapshots existed" }),
}).openapi("Invoice");

export const CreatedInvoice = z.object({
  data: InvoiceSummary.pick(CREATED_DOCUMENT_FIELDS),
  message: z.string(),
  warnings: z.array(DocumentWarning),
});

export const InvoiceListQuery = listQuerySchema({
  filters: {
    status: z.enum(["pending_payment", "partially_paid", "paid", "cancelled", "draft"]).optional(),
    contact_id: idFilter("Must be a contact id."),
    issue_date: dateFilter().optional(),
  },
  sorts: ["issue_date", "document_number", "total_amount", "created_at"] as const,
  defaultSort: "-issue_date",
});
export type InvoiceSummary = z.output<typeof InvoiceSummary>;
export type InvoiceDetail = z.output<typeof InvoiceDetail>;

/** The optional body of DELETE /invoices/{id} and POST /invoices/{id}/cancel. */
export const AnnulInvoiceBody = z
  .object({
    annulment_reason: z
      .enum(ANNULMENT_REASON_CODES)
      .optional()
      .openapi({ description: `DGII's 608 reason code (01-10); default ${DEFAULT_ANNULMENT_REASON}, "corrección de la información"` }),
  })
  .strict();
export type AnnulInvoiceInput = z.infer<typeof AnnulInvoiceBody>;

const HistoryValues = z.record(z.string(), z.union([z.string(), z.number(), z.null()]));

/** One change of an issued invoice: who, when, and the changed fields before and after. */
export const InvoiceHistoryEntry = z
  .object({
    id: z.number(),
    action: z.enum(HISTORY_ACTIONS),
    user: z.object({ id: z.number(), name: z.string() }),
    before: HistoryValues,
    after: HistoryValues,
    created_at: z.string(),
  })
  .openapi("InvoiceHistoryEntry");
