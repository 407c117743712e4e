import { z } from "@hono/zod-openapi";
import { crossField, ifThen, type JsonSchemaRule } from "../../http/schemas";
import { decimalInput, decimalOneOf } from "../../lib/decimal";

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

/**
 * What each type takes (service.ts checkKind), for the document (issue 44): the rate, the Tabla I
 * code and the amount per unit follow the type. On a PATCH (`partial`) only the fields given are
 * held to a type given: what it leaves out is the stored value, and without a type the stored one
 * decides (the field descriptions say so).
 */
const none = { enum: [null] };
const ESPECIFICO = "^0(?:0[6-9]|1\\d|2[0-2])$";
const AD_VALOREM = "^0(?:2[3-9]|3\\d)$";
function typeRules(partial: boolean) {
  const required = (fields: string[]) => (partial ? {} : { required: fields });
  const onType = (types: string[], rule: JsonSchemaRule) => ifThen({ required: ["type"], properties: { type: { enum: types } } }, rule);
  return crossField({
    allOf: [
      // Whatever the type: only an ISC específico's code (006-022) goes with an amount per unit.
      ifThen(
        { required: ["dgii_code"], properties: { dgii_code: { not: { type: "string", pattern: ESPECIFICO } } } },
        { properties: { amount_per_unit: none } },
      ),
      onType(["itbis"], { properties: { rate: decimalOneOf([18, 16, 0]), dgii_code: none, amount_per_unit: none } }),
      onType(["exento", "no_facturable"], { properties: { rate: decimalOneOf([0]), dgii_code: none, amount_per_unit: none } }),
      onType(["propina_legal"], {
        properties: { rate: decimalOneOf([10]), dgii_code: { anyOf: [none, { type: "string", pattern: "^001$" }] }, amount_per_unit: none },
      }),
      onType(["other"], { ...required(["dgii_code"]), properties: { dgii_code: { type: "string", pattern: "^00[2-5]$" }, amount_per_unit: none } }),
      onType(["isc"], {
        ...required(["dgii_code"]),
        properties: { dgii_code: { type: "string", pattern: `${ESPECIFICO}|${AD_VALOREM}` } },
        // 006-022 (específico): an amount per unit and rate 0; 023-039 (ad valorem): a rate above 0 and no amount.
        allOf: [
          ifThen(
            { required: ["dgii_code"], properties: { dgii_code: { pattern: ESPECIFICO } } },
            { ...required(["amount_per_unit"]), properties: { rate: decimalOneOf([0]), amount_per_unit: { not: none } } },
          ),
          ifThen(
            { required: ["dgii_code"], properties: { dgii_code: { pattern: AD_VALOREM } } },
            { properties: { rate: { not: decimalOneOf([0]) }, amount_per_unit: none } },
          ),
        ],
      }),
    ],
  });
}

export const CreateTaxBody = z.object(fields).openapi(typeRules(false)).openapi("CreateTaxRequest");
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
  .openapi(typeRules(true))
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
