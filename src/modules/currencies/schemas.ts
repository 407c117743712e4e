import { z } from "@hono/zod-openapi";
import { crossField, ifThen } from "../../http/schemas";
import { CURRENCY_CODE_PATTERN, isCurrencyCode } from "../../lib/currencies";
import { DECIMAL_ONE_PATTERN, decimalInput } from "../../lib/decimal";

/**
 * A currency's ISO 4217 code, one of CURRENCY_CODES (src/lib/currencies.ts), which the document
 * states in the field's pattern (issue 44; it was checked against the runtime's ICU, which differs
 * between workerd and Node and which the document could not state). Any case, trimmed, kept upper-cased.
 */
const CurrencyCode = z
  .string()
  .regex(/^\s*[A-Za-z]{3}\s*$/, "An ISO 4217 code has three letters.")
  .transform((v) => v.trim().toUpperCase())
  .refine(isCurrencyCode, "Not one of ISO 4217's current currency codes.")
  .openapi({
    type: "string",
    pattern: CURRENCY_CODE_PATTERN,
    example: "USD",
    description: "One of ISO 4217's current alphabetic codes (List One, without XTS and XXX), in any case: it is kept upper-cased",
  });

const ExchangeRate = decimalInput({ sign: "positive", scale: 6, max: "999999999999.999999" }).openapi({
  example: "58.750000",
  description: "Units of the default currency per unit of this one; up to 6 decimals",
});

const fields = {
  code: CurrencyCode,
  name: z.string().trim().min(1).max(100),
  symbol: z.string().trim().min(1).max(10),
  exchange_rate: ExchangeRate.optional(),
  is_default: z.boolean().optional(),
};

/** The default currency is the unit of every rate (currencies/service.ts checkDefaultRate): becoming it, the rate given is 1. */
const DEFAULT_RATE_IS_ONE = crossField(
  ifThen(
    { required: ["is_default"], properties: { is_default: { const: true } } },
    { properties: { exchange_rate: { anyOf: [{ const: 1 }, { type: "string", pattern: DECIMAL_ONE_PATTERN }] } } },
  ),
);

export const CreateCurrencyBody = z.object(fields).openapi(DEFAULT_RATE_IS_ONE).openapi("CreateCurrencyRequest");
export const UpdateCurrencyBody = z
  .object({
    code: fields.code.optional(),
    name: fields.name.optional(),
    symbol: fields.symbol.optional(),
    exchange_rate: fields.exchange_rate,
    is_default: fields.is_default,
  })
  .openapi(DEFAULT_RATE_IS_ONE)
  .openapi("UpdateCurrencyRequest");
export type CreateCurrencyInput = z.output<typeof CreateCurrencyBody>;
export type UpdateCurrencyInput = z.output<typeof UpdateCurrencyBody>;

export const Currency = z
  .object({
    id: z.number(),
    code: z.string(),
    name: z.string(),
    symbol: z.string(),
    exchange_rate: z.string().openapi({ example: "58.75", description: "At least 2 decimals, up to 6" }),
    is_default: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Currency");
export type Currency = z.output<typeof Currency>;
