import { z } from "@hono/zod-openapi";
import { idFilter, listQuerySchema } from "../../http/pagination";
import { crossField, ifThen } from "../../http/schemas";
import { dateInput as dateFilter } from "../../lib/bounds";
import { decimalInput } from "../../lib/decimal";
import { NOTE_KINDS, NOTE_STATUSES } from "../invoices/schemas";
import { DocumentSnapshot, dateInput, id, LineItemOutput, TaxBreakdown } from "../sales/schemas";

/**
 * Formato e-CF v1.0, InformacionReferencia, CodigoModificacion: 1 anula el NCF modificado, 2 corrige
 * texto, 3 corrige montos, 4 reemplazo de un NCF emitido en contingencia. 5 (referencia a una factura
 * de consumo electrónica) applies only to a Factura de Crédito Fiscal (the format's note 81), so a
 * note refuses it.
 */
export const MODIFICATION_CODES = [1, 2, 3, 4] as const;
const MODIFICATION_MESSAGE = "One of 1 (anula), 2 (corrige texto), 3 (corrige montos), 4 (reemplazo de NCF en contingencia).";

/** A quantity of one of the invoice's lines, at that line's price, discount and taxes. */
const InvoiceLineItem = z
  .object({
    invoice_item_id: id(),
    quantity: decimalInput({ sign: "positive", max: "99999999.99" }),
  })
  .strict();

/** An amount not tied to a line (a discount granted afterwards, a charge), with its own taxes. */
const AmountItem = z
  .object({
    description: z.string().trim().min(1).max(1000),
    amount: decimalInput({ sign: "positive", max: "9999999999.99" }).openapi({ description: "The amount before taxes" }),
    tax_ids: z.array(id()).max(10).optional().openapi({ description: "Taxes on the amount; default none" }),
  })
  .strict();

export const NoteItem = z.union([InvoiceLineItem, AmountItem]).openapi("NoteItem");

const CreateNoteFields = z
  .object({
    document_subtype_id: id().optional().openapi({ description: "A credit_note (B04/E34) or debit_note (B03/E33) subtype; default: the tenant's default one" }),
    issue_date: dateInput().optional().openapi({ description: "Default: today in the Dominican Republic" }),
    modification_code: z
      .number()
      .int()
      .min(MODIFICATION_CODES[0], MODIFICATION_MESSAGE)
      .max(MODIFICATION_CODES[MODIFICATION_CODES.length - 1]!, MODIFICATION_MESSAGE)
      .openapi({ description: "DGII's CodigoModificacion: 1 anula, 2 corrige texto, 3 corrige montos, 4 reemplazo de NCF de contingencia" }),
    reason: z.string().trim().min(1).max(90).openapi({ description: "RazonModificacion, e.g. 'error en precio'" }),
    items: z
      .array(NoteItem)
      .min(1)
      .max(500)
      .optional()
      .openapi({ description: "The lines credited or debited. Give either items or full: true, not both (one of the two is required)" }),
    full: z
      .boolean()
      .optional()
      .openapi({ description: "Credit notes: everything the invoice still has uncredited. Give either items or full: true, not both" }),
    restock: z.boolean().optional().openapi({ description: "Credit notes: return the credited products to the invoice's workspace (default true)" }),
    replaces: z
      .object({
        ncf: z
          .string()
          .trim()
          .toUpperCase()
          .regex(/^B0[34]\d{8}$/, "A paper note's NCF: B03 (debit) or B04 (credit) and 8 digits.")
          .openapi({ example: "B0400000007" }),
        issue_date: dateInput().openapi({ description: "The date written on the paper note (FechaNCFModificado)" }),
      })
      .strict()
      .optional()
      .openapi({
        description:
          "Contingency replacement (issue 43; Formato e-CF v1.0 section F, CodigoModificacion 4): the paper note, from this branch's contingency range, that this E33 (a B03) or E34 (a B04) replaces; each paper NCF once. Its e-CF names the paper note in InformacionReferencia; the note still modifies this invoice",
      }),
  })
  .strict();

/** `full: true` given; `items` given. */
const FULL = { required: ["full"], properties: { full: { const: true } } };
const ITEMS = { required: ["items"] };

/**
 * One body for both kinds, each stating its own combinations (notes/service.ts assertNoteRequest):
 * a credit note takes its items or `full: true`, never both, and annulling the invoice (code 1)
 * credits all of it; a debit note adds amounts, so it takes items, never `full` nor `restock`, and
 * never annuls.
 */
export const CreateCreditNoteBody = CreateNoteFields.openapi(
  crossField({
    oneOf: [
      { ...ITEMS, not: FULL },
      { ...FULL, not: ITEMS },
    ],
    ...ifThen({ required: ["modification_code"], properties: { modification_code: { const: 1 } } }, FULL),
  }),
).openapi("CreateCreditNoteRequest");
export const CreateDebitNoteBody = CreateNoteFields.openapi(
  crossField({
    // In allOf: a `required` of its own would replace the object's (modification_code, reason).
    allOf: [ITEMS],
    not: { anyOf: [FULL, { required: ["restock"] }, { required: ["modification_code"], properties: { modification_code: { const: 1 } } }] },
  }),
).openapi("CreateDebitNoteRequest");
export type CreateNoteInput = z.output<typeof CreateNoteFields>;

export const NoteLine = LineItemOutput.omit({ product_id: true, product: true })
  .extend({
    invoice_item_id: z.number().nullable(),
    product: z.object({ id: z.number(), name: z.string(), sku: z.string().nullable() }).nullable(),
  })
  .openapi("NoteLine");

export const NoteSummary = z
  .object({
    id: z.number(),
    kind: z.enum(NOTE_KINDS),
    invoice_id: z.number(),
    workspace_id: z.number(),
    contact_id: z.number(),
    document_subtype_id: z.number(),
    document_number: z.string(),
    issue_date: z.string(),
    status: z
      .enum(NOTE_STATUSES)
      .openapi({ description: "cancelled: DGII rejected its e-CF as void and it was cancelled (POST …/cancel); it no longer counts on its invoice" }),
    modified_ncf: z.string(),
    modified_issue_date: z.string(),
    modification_code: z.number(),
    reason: z.string(),
    credit_note_indicator: z
      .number()
      .nullable()
      .openapi({ description: "IndicadorNotaCredito: 1 when issued more than 30 days after the invoice; null on debit notes" }),
    restock: z.boolean(),
    replaces: z
      .object({ ncf: z.string(), issue_date: z.string() })
      .nullable()
      .openapi({ description: "A contingency replacement: the paper note its e-CF replaces (CodigoModificacion 4) and its date; null otherwise" }),
    subtotal_amount: z.string(),
    discount_amount: z.string(),
    tax_amount: z.string(),
    total_amount: z.string(),
    currency_id: z.number().nullable(),
    exchange_rate: z.string(),
    total_amount_dop: z.string(),
    created_at: z.string(),
  })
  .openapi("Note");

export const NoteDetail = NoteSummary.extend({
  items: z.array(NoteLine),
  snapshot: DocumentSnapshot,
  tax_breakdown: TaxBreakdown,
}).openapi("NoteDetail");

export type NoteSummary = z.output<typeof NoteSummary>;
export type NoteDetail = z.output<typeof NoteDetail>;

export const NoteListQuery = listQuerySchema({
  filters: {
    invoice_id: idFilter("Must be an invoice id."),
    contact_id: idFilter("Must be a contact id."),
    issue_date_from: dateFilter().optional(),
    issue_date_to: dateFilter().optional(),
    status: z.enum(NOTE_STATUSES).optional(),
  },
  sorts: ["issue_date", "document_number", "total_amount", "created_at"] as const,
  defaultSort: "-issue_date",
});
