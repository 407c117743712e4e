import { z } from "@hono/zod-openapi";
import { dateInput, idInput } from "../../lib/bounds";
import { decimalInput, moneyInput } from "../../lib/decimal";

const MAX_LINES = 500;
const id = () => idInput();

/** A line of an invoice or quotation request. `discount` is a percentage of the line subtotal. */
const LineItemInput = z.object({
  product_id: id(),
  description: z.string().trim().max(1000).nullable().optional(),
  quantity: decimalInput({ sign: "positive", max: "99999999.99" }),
  // Up to 4 decimals, as the e-CF's PrecioUnitarioItem (Formato e-CF v1.0); each line's amounts
  // still round half-up to the cent (sales/lines.ts).
  unit_price: decimalInput({ max: "9999999999.9999", scale: 4 }),
  discount: decimalInput({ max: "100" }).default("0.00").openapi({ description: "Percentage 0-100 of the line subtotal" }),
  tax_ids: z.array(id()).max(10).optional().openapi({ description: "Taxes of the line; omitted: the product's default taxes; []: none" }),
});

export const LineItems = z.array(LineItemInput).min(1).max(MAX_LINES);

/**
 * DGII's Tipo de Ingreso (Formato 607, column 5; Norma General 07-2018; the e-CF's TipoIngresos,
 * Formato e-CF v1.0 field 8): 01 ingresos por operaciones (no financieros), 02 financieros,
 * 03 extraordinarios, 04 por arrendamientos, 05 por venta de activo depreciable, 06 otros ingresos.
 * An invoice's, given on create, PATCH or a quotation's conversion.
 */
export const INCOME_TYPES = ["01", "02", "03", "04", "05", "06"] as const;
export const incomeType = z.enum(INCOME_TYPES).openapi({
  description:
    "DGII's income type (607 column 5): 01 operaciones (default), 02 financieros, 03 extraordinarios, 04 arrendamientos, 05 venta de activo depreciable, 06 otros",
});

export const LineItemOutput = z
  .object({
    id: z.number(),
    product_id: z.number(),
    description: z.string(),
    quantity: z.string(),
    unit_price: z.string(),
    discount: z.string(),
    discount_amount: z.string(),
    subtotal: z.string(),
    tax_amount: z.string(),
    total: z.string(),
    product: z.object({ id: z.number(), name: z.string(), sku: z.string().nullable() }),
    taxes: z.array(
      z.object({
        id: z.number(),
        name: z.string(),
        type: z.string(),
        rate: z.string(),
        dgii_code: z.string().optional().openapi({ description: "Formato e-CF Tabla I code" }),
        amount_per_unit: z.string().optional().openapi({ description: "ISC específico: per unit" }),
        base: z.string().optional().openapi({ description: "What the rate applied to (ITBIS: includes the ISC of codes 006-039)" }),
        amount: z.string(),
      }),
    ),
  })
  .openapi("LineItem");

const text = () => z.string().nullable();

/** What an issued document froze of its issuer, buyer, sequence and currency (sales/snapshots.ts). */
export const DocumentSnapshot = z
  .object({
    issuer: z.object({
      rnc: text(),
      legal_name: text(),
      trade_name: text(),
      address: text(),
      municipality_code: text(),
      province_code: text(),
      phone: text(),
      email: text(),
      branch: z.object({ id: z.number(), name: z.string(), address: text(), phone: text() }),
    }),
    buyer: z.object({
      contact_id: z.number(),
      name: z.string(),
      identification_type: text(),
      identification: text(),
      address: text(),
      email: text(),
    }),
    sequence: z.object({ prefix: z.string(), name: z.string(), valid_until: text(), authorization_number: text() }),
    currency: z.object({ id: z.number().nullable(), code: text(), exchange_rate: z.string() }),
  })
  .openapi("DocumentSnapshot", { description: "The fiscal data frozen when the document was issued; the PDF and the e-CF read it" });
export type DocumentSnapshot = z.output<typeof DocumentSnapshot>;

/** A document's taxes by kind (sales/lines.ts taxBreakdown). */
export const TaxBreakdown = z
  .object({
    itbis: z.array(z.object({ rate: z.string(), base: z.string(), amount: z.string() })),
    exempt_base: z.string(),
    non_billable: z.string(),
    additional: z.array(
      z.object({
        code: z.string().nullable(),
        kind: z.enum(["isc_specific", "isc_ad_valorem", "propina", "other"]),
        name: z.string(),
        rate: z.string().openapi({ description: "Percent, or the amount per unit of an ISC específico" }),
        amount: z.string(),
      }),
    ),
    isc_specific: z.string(),
    isc_ad_valorem: z.string(),
    propina: z.string(),
    other_additional: z.string(),
  })
  .openapi("TaxBreakdown", { description: "ITBIS per rate with its taxed base, exempt base, ISC and other additional taxes by DGII code, propina" });

export { dateInput, id };
export type LineItemOutput = z.output<typeof LineItemOutput>;

/** The fields of a created invoice or quotation that the create response shows (spec: Create). */
export const CREATED_DOCUMENT_FIELDS = {
  id: true,
  workspace_id: true,
  contact_id: true,
  document_subtype_id: true,
  document_number: true,
  issue_date: true,
  due_date: true,
  status: true,
  total_amount: true,
  created_at: true,
} as const;

/** How a payment is made, on a sale or a purchase. */
export const PAYMENT_METHODS = ["cash", "bank_transfer", "credit_card", "debit_card", "check", "other"] as const;

/** A payment of an invoice or a purchase. */
export const CreatePaymentBody = z
  .object({
    amount: moneyInput({ positive: true }),
    payment_date: dateInput(),
    payment_method: z.enum(PAYMENT_METHODS),
    bank_account_id: id().nullable().optional(),
  })
  .openapi("CreatePaymentRequest");
export type CreatePaymentInput = z.output<typeof CreatePaymentBody>;

/** A remark that does not refuse the write (e.g. the buyer is not ACTIVO in DGII's registry). */
export const DocumentWarning = z.object({ code: z.string(), field: z.string(), message: z.string() }).openapi("DocumentWarning");
