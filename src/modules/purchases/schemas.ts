import { z } from "@hono/zod-openapi";
import { idFilter, listQuerySchema } from "../../http/pagination";
import { dateInput as dateFilter } from "../../lib/bounds";
import { decimalInput, moneyInput } from "../../lib/decimal";
import { DocumentWarning, dateInput, id, PAYMENT_METHODS, TaxBreakdown } from "../sales/schemas";

export const PURCHASE_STATUSES = ["draft", "pending_payment", "partially_paid", "paid", "voided"] as const;

/**
 * DGII's 606 classification of what was bought (Formato 606, "Tipo de Bienes y Servicios
 * Comprados"), by code.
 */
export const EXPENSE_TYPES = {
  "01": "Gastos de personal",
  "02": "Gastos por trabajos, suministros y servicios",
  "03": "Arrendamientos",
  "04": "Gastos de activos fijos",
  "05": "Gastos de representación",
  "06": "Otras deducciones admitidas",
  "07": "Gastos financieros",
  "08": "Gastos extraordinarios",
  "09": "Compras y gastos que formarán parte del costo de venta",
  "10": "Adquisiciones de activos",
  "11": "Gastos de seguros",
} as const;
const EXPENSE_TYPE_CODES = Object.keys(EXPENSE_TYPES) as [keyof typeof EXPENSE_TYPES, ...(keyof typeof EXPENSE_TYPES)[]];

const PurchaseLineInput = z.object({
  product_id: id().nullable().optional().openapi({ description: "Omitted or null: an expense line (no product, no stock)" }),
  description: z.string().trim().max(1000).nullable().optional().openapi({ description: "Required without a product" }),
  quantity: decimalInput({ sign: "positive", max: "99999999.99" }),
  unit_cost: decimalInput({ max: "9999999999.9999", scale: 4 }),
  discount: decimalInput({ max: "100" }).default("0.00").openapi({ description: "Percentage 0-100 of the line subtotal" }),
  tax_ids: z
    .array(id())
    .max(10)
    .optional()
    .openapi({ description: "Taxes of the line; omitted: the product's default taxes (none without a product); []: none" }),
});

const withheld = moneyInput().default("0.00");

const fields = {
  supplier_id: id().nullable().optional().openapi({ description: "A contact of type supplier or both; may be absent only on a B13/E43 (gastos menores)" }),
  supplier_ncf: z
    .string()
    .trim()
    .toUpperCase()
    .max(13)
    .nullable()
    .optional()
    .openapi({ description: "The NCF (11 characters) or e-NCF (13) on the supplier's document; absent with self_issued_subtype_id", example: "B0100000123" }),
  self_issued_subtype_id: id()
    .nullable()
    .optional()
    .openapi({ description: "A sequence B11/B13/B17 (or E41/E43/E47) of the company: the buyer issues the document and takes its number" }),
  issue_date: dateInput(),
  due_date: dateInput().nullable().optional(),
  currency_id: id().nullable().optional(),
  exchange_rate: decimalInput({ sign: "positive", max: "999999999999.999999", scale: 6 })
    .nullable()
    .optional()
    .openapi({ description: "DOP per unit of the currency on the issue date; default: the currency's current rate (1 in DOP)" }),
  expense_type: z.enum(EXPENSE_TYPE_CODES).openapi({ description: "DGII 606 classification 01-11" }),
  items: z.array(PurchaseLineInput).min(1).max(500),
  itbis_withheld: withheld,
  isr_withheld: withheld,
  withholding_date: dateInput().nullable().optional().openapi({
    description:
      "When we withheld (the 606 and IR-17 report it in its month): required when itbis_withheld or isr_withheld is above 0 (422 on it); in a closed fiscal period, 409 period_closed",
  }),
  payment_method: z.enum(PAYMENT_METHODS).nullable().optional(),
  notes: z.string().trim().max(5000).nullable().optional(),
};

export const CreatePurchaseBody = z
  .object({
    ...fields,
    status: z
      .enum(["draft", "pending_payment"])
      .default("pending_payment")
      .openapi({ description: "draft: no number, no stock, editable; pending_payment (default): entered at once" }),
  })
  .openapi("CreatePurchaseRequest");
export type CreatePurchaseInput = z.output<typeof CreatePurchaseBody>;

/** PATCH of a draft: any field of the create body; items replace the lines. */
export const UpdatePurchaseBody = z
  .object({
    ...fields,
    issue_date: fields.issue_date.optional(),
    expense_type: fields.expense_type.optional(),
    items: fields.items.optional(),
    itbis_withheld: moneyInput().optional(),
    isr_withheld: moneyInput().optional(),
  })
  .strict()
  .openapi("UpdatePurchaseRequest");
export type UpdatePurchaseInput = z.output<typeof UpdatePurchaseBody>;

/** DELETE: a draft needs nothing; an entered purchase is voided and needs the reason. */
export const VoidPurchaseBody = z
  .object({ reason: z.string().trim().min(1).max(1000).optional().openapi({ description: "Required to void an entered purchase" }) })
  .strict();

export const PurchaseSummary = z
  .object({
    id: z.number(),
    workspace_id: z.number(),
    supplier_id: z.number().nullable(),
    supplier_ncf: z.string().nullable(),
    self_issued_subtype_id: z.number().nullable(),
    ncf: z.string().nullable().openapi({ description: "The number the buyer issued (B11/B13/B17…); null for a supplier's bill or a draft" }),
    issue_date: z.string(),
    due_date: z.string().nullable(),
    status: z.enum(PURCHASE_STATUSES),
    expense_type: z.string(),
    payment_method: z.string().nullable(),
    currency_id: z.number().nullable(),
    exchange_rate: z.string(),
    subtotal_amount: z.string(),
    discount_amount: z.string(),
    tax_amount: z.string(),
    total_amount: z.string(),
    total_amount_dop: z.string(),
    itbis_withheld: z.string(),
    isr_withheld: z.string(),
    withholding_date: z.string().nullable(),
    amount_paid: z.string(),
    amount_due: z.string().openapi({ description: "total − itbis_withheld − isr_withheld − paid" }),
    notes: z.string().nullable(),
    void_reason: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Purchase");
export type PurchaseSummary = z.output<typeof PurchaseSummary>;

export const PurchaseLine = z
  .object({
    id: z.number(),
    product_id: z.number().nullable(),
    description: z.string(),
    quantity: z.string(),
    unit_cost: z.string(),
    discount: z.string(),
    discount_amount: z.string(),
    subtotal: z.string(),
    tax_amount: z.string(),
    total: z.string(),
    taxes: z.array(z.object({ id: z.number(), name: z.string(), type: z.string(), rate: z.string(), amount: z.string() }).passthrough()),
  })
  .openapi("PurchaseLine");

export const PurchasePayment = z
  .object({ id: z.number(), amount: z.string(), payment_date: z.string(), payment_method: z.string(), bank_account_id: z.number().nullable() })
  .openapi("PurchasePayment");

export const PurchaseDetail = PurchaseSummary.extend({
  supplier: z.object({ id: z.number(), name: z.string(), identification_type: z.string().nullable(), identification: z.string().nullable() }).nullable(),
  items: z.array(PurchaseLine),
  payments: z.array(PurchasePayment),
  tax_breakdown: TaxBreakdown,
}).openapi("PurchaseDetail");
export type PurchaseDetail = z.output<typeof PurchaseDetail>;

export const WrittenPurchase = z.object({ data: PurchaseSummary, message: z.string(), warnings: z.array(DocumentWarning) });

export const PurchaseListQuery = listQuerySchema({
  filters: {
    supplier_id: idFilter("Must be a contact id."),
    status: z.enum(PURCHASE_STATUSES).optional(),
    expense_type: z.enum(EXPENSE_TYPE_CODES).optional(),
    issue_date_from: dateFilter().optional(),
    issue_date_to: dateFilter().optional(),
  },
  sorts: ["issue_date", "total_amount", "created_at"] as const,
  defaultSort: "-issue_date",
});
