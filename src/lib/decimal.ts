import { z } from "@hono/zod-openapi";
import Big from "big.js";
import { MONEY_MAX } from "./bounds";

Big.RM = Big.roundHalfUp;

export { Big };

const PLAIN_DECIMAL = /^-?\d{1,12}(?:\.\d+)?$/;

/**
 * A decimal request field: a JSON number or a decimal string, with at most `scale` decimals, no
 * exponent, NaN or Infinity, within [min, max]. Parsed to a normalized string ("12.5" → "12.50"
 * is left to serialization); never a binary float in arithmetic.
 */
export function decimalInput(options: { min?: string; max?: string; scale?: number; positive?: boolean } = {}) {
  const scale = options.scale ?? 2;
  const document = decimalDocument(scale, options);
  return z
    .union([z.number().openapi(document.number), z.string().openapi(document.string)])
    .transform((value, ctx) => {
      const text = typeof value === "number" ? (Number.isFinite(value) ? String(value) : "NaN") : value.trim();
      if (!PLAIN_DECIMAL.test(text)) {
        ctx.addIssue({ code: "custom", message: "Must be a decimal number such as 10 or 10.50." });
        return z.NEVER;
      }
      const [, fraction = ""] = text.split(".");
      if (fraction.replace(/0+$/, "").length > scale) {
        ctx.addIssue({ code: "custom", message: `At most ${scale} decimal places.` });
        return z.NEVER;
      }
      const amount = new Big(text);
      if (options.positive && amount.lte(0)) {
        ctx.addIssue({ code: "custom", message: "Must be greater than 0." });
        return z.NEVER;
      }
      if (options.min !== undefined && amount.lt(options.min)) {
        ctx.addIssue({ code: "custom", message: `Must be at least ${options.min}.` });
        return z.NEVER;
      }
      if (options.max !== undefined && amount.gt(options.max)) {
        ctx.addIssue({ code: "custom", message: `Must be at most ${options.max}.` });
        return z.NEVER;
      }
      // "-0" is zero: never answer or store a signed zero ("-0.00").
      return (amount.eq(0) ? new Big(0) : amount).toFixed(scale);
    })
    .openapi({ example: "100.00", description: document.description });
}

/**
 * What the document says of a decimal field, as the transform above checks it: a JSON number within
 * the bounds, or a decimal string (surrounding spaces trimmed) of at most 12 integer digits and
 * `scale` significant decimals. A string's bounds can only be said in words.
 */
function decimalDocument(scale: number, options: { min?: string; max?: string; positive?: boolean }) {
  const fraction = scale > 0 ? `(?:\\.\\d{1,${scale}}0*|\\.0+)?` : "(?:\\.0+)?";
  const bounds = [
    options.positive ? "greater than 0" : undefined,
    options.min !== undefined ? `at least ${options.min}` : undefined,
    options.max !== undefined ? `at most ${options.max}` : undefined,
  ].filter(Boolean);
  const number: { exclusiveMinimum?: number; minimum?: number; maximum?: number } = {};
  if (options.positive) number.exclusiveMinimum = 0;
  if (options.min !== undefined && !(options.positive && Number(options.min) <= 0)) number.minimum = Number(options.min);
  if (options.max !== undefined) number.maximum = Number(options.max);
  return {
    number,
    string: { pattern: `^\\s*-?\\d{1,12}${fraction}\\s*$` },
    description: `Decimal as a string or number, at most ${scale} decimals${bounds.length ? `, ${bounds.join(", ")}` : ""}`,
  };
}

/** Money amounts: 0 to 999,999,999,999.99 (numeric(14,2)) unless told otherwise. */
export const moneyInput = (options: { min?: string; max?: string; positive?: boolean } = {}) =>
  decimalInput({ min: "0", max: MONEY_MAX, ...options, scale: 2 });
