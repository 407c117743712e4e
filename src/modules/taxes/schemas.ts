import { z } from "@hono/zod-openapi";
import { decimalInput } from "../../lib/decimal";

export const TAX_TYPES = ["itbis", "isc", "exento", "no_facturable", "propina_legal", "other"] as const;

const fields = {
  name: z.string().trim().min(1).max(100),
  type: z.enum(TAX_TYPES),
  rate: decimalInput({ max: "100" }).openapi({
    description:
      "Percent, 0 to 100, at most 2 decimals. Follows the type: itbis 18, 16 or 0; exento and no_facturable 0; propina_legal 10; an ISC específico 0, an ISC ad valorem more than 0",
    example: "18.00",
  }),
  dgii_code: z
    .string()
    .regex(/^0(0[1-9]|[12]\d|3[0-9])$/, "A code of Formato e-CF's Tabla I: 001 to 039.")
    .nullable()
    .optional()
    .openapi({
      description:
        "Tabla I code: 001 propina legal, 002-005 other additional taxes, 006-022 ISC específico, 023-039 ISC ad valorem. Follows the type: only isc, propina_legal and other have a code; null for itbis, exento and no_facturable",
    }),
  amount_per_unit: decimalInput({ sign: "positive", max: "999999999999.99" })
    .nullable()
    .optional()
    .openapi({ description: "ISC específico (006-022): the tax per unit sold; required for it and only for it", example: "632.58" }),
  is_default: z.boolean().optional(),
  is_active: z.boolean().optional(),
};

export const CreateTaxBody = z.object(fields).openapi("CreateTaxRequest");
export const UpdateTaxBody = z
  .object({
    name: fields.name.optional(),
    type: fields.type.optional(),
    rate: fields.rate.optional(),
    dgii_code: fields.dgii_code,
    amount_per_unit: fields.amount_per_unit,
    is_default: fields.is_default,
    is_active: fields.is_active,
  })
  .openapi("UpdateTaxRequest");
export type CreateTaxInput = z.output<typeof CreateTaxBody>;
export type UpdateTaxInput = z.output<typeof UpdateTaxBody>;

export const Tax = z
  .object({
    id: z.number(),
    name: z.string(),
    type: z.enum(TAX_TYPES),
    rate: z.string().openapi({ example: "18.00" }),
    dgii_code: z.string().nullable(),
    amount_per_unit: z.string().nullable(),
    is_default: z.boolean(),
    is_active: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Tax");
export type Tax = z.output<typeof Tax>;
