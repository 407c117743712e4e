import { z } from "@hono/zod-openapi";
import Big from "big.js";
import { MONEY_MAX } from "./bounds";

Big.RM = Big.roundHalfUp;

export { Big };

/**
 * What a decimal field admits, stated once: the OpenAPI document and the check are built from it,
 * so a client generated from the document sends only what the API takes (issue 44).
 * - `sign`: `nonnegative` (≥ 0, the default), `positive` (> 0), or `nonzero` (either sign, never 0).
 * - `max`: the largest magnitude, as text; its integer part any, its decimals all 9s (any decimals
 *   at that integer part) or all 0s (`100`: nothing above it).
 * - `scale`: decimals kept (2 unless told).
 */
export interface DecimalRule {
  sign?: "nonnegative" | "positive" | "nonzero";
  max: string;
  scale?: number;
}

/**
 * Spaces around a decimal string are forgiven; only JSON's whitespace, listed rather than `\s`
 * (whose meaning differs between regular-expression engines, and so between generated clients).
 */
const SPACE = "[ \\t\\n\\r]*";
const TRIM = /^[ \t\n\r]+|[ \t\n\r]+$/g;

/**
 * The largest JSON number every parser reads exactly at a given scale: a double carries 15
 * significant digits (DBL_DIG), so 9 integer digits beside 6 decimals. Beyond it a number is
 * rounded before the API sees it (999999999999.999999 reads as 1000000000000), so the document
 * bounds the number branch there and a larger value goes as a string.
 */
const EXACT_DIGITS = 15;

/** Canonical integers (no leading zeros) from 1 to below `max` (digits), as alternatives. */
function integersBelow(max: string): string[] {
  const alternatives = max.length > 1 ? [`[1-9][0-9]{0,${max.length - 2}}`.replace("{0,0}", "")] : [];
  for (let i = 0; i < max.length; i++) {
    const low = i === 0 ? 1 : 0;
    const high = Number(max[i]) - 1;
    if (high < low) continue;
    const rest = max.length - 1 - i;
    alternatives.push(`${max.slice(0, i)}${low === high ? low : `[${low}-${high}]`}${rest ? `[0-9]{${rest}}` : ""}`);
  }
  return alternatives;
}

/**
 * The regular expression of a decimal string within the rule, exactly: an integer part (leading
 * zeros forgiven), up to `scale` decimals (trailing zeros forgiven), the sign only where negatives
 * are taken, and no zero where it is refused. Built from digits, alternation and counts only (no
 * lookaround, no `\d`), so every engine, and every generator of examples, reads it the same way.
 */
/** A decimal text equal to 1, as decimalPattern's texts are written (spaces around, leading zeros, zero decimals). */
export const DECIMAL_ONE_PATTERN = `^${SPACE}0*1(?:\\.0+)?${SPACE}$`;

/**
 * The JSON Schema of a decimal field's value equal to one of `values` (whole numbers), in both its
 * branches: the number, or the text with the spaces and zeros the field takes around it ("18",
 * " 018.00 "). For rules across fields that fix a value (issue 44).
 */
export function decimalOneOf(values: readonly number[]): { anyOf: Record<string, unknown>[] } {
  return {
    anyOf: [
      { type: "number", enum: [...values] },
      { type: "string", pattern: `^${SPACE}0*(?:${values.map(String).join("|")})(?:\\.0+)?${SPACE}$` },
    ],
  };
}

export function decimalPattern(rule: DecimalRule): string {
  const scale = rule.scale ?? 2;
  const [maxInteger = "0", maxFraction = ""] = rule.max.split(".");
  if (!/^[1-9][0-9]*$/.test(maxInteger) || !/^(?:9*|0*)$/.test(maxFraction)) throw new Error(`decimalPattern: unsupported maximum ${rule.max}`);
  const fractionAtMax = /^9+$/.test(maxFraction) && maxFraction.length >= scale;
  const anyFraction = scale > 0 ? `(?:\\.[0-9]{1,${scale}}0*)?` : "(?:\\.0+)?";
  const zeroFraction = "(?:\\.0+)?";
  const withoutZero = rule.sign === "positive" || rule.sign === "nonzero";
  // The integer parts up to the maximum's: all of one length or fewer when it is all 9s.
  const upTo =
    /^9+$/.test(maxInteger) && fractionAtMax
      ? [`[1-9][0-9]{0,${maxInteger.length - 1}}${anyFraction}`.replace("{0,0}", "")]
      : [`(?:${integersBelow(maxInteger).join("|")})${anyFraction}`, `${maxInteger}${fractionAtMax ? anyFraction : zeroFraction}`];
  const alternatives = [
    // 0 itself, or 0.x with a digit that is not 0 among the first `scale`.
    withoutZero ? (scale > 0 ? `0\\.[0-9]{0,${scale - 1}}[1-9]0*` : undefined) : `0${anyFraction}`,
    ...upTo,
  ].filter((alternative): alternative is string => alternative !== undefined);
  const sign = rule.sign === "nonzero" ? "-?" : "";
  return `^${SPACE}${sign}0*(?:${alternatives.join("|")})${SPACE}$`;
}

const PLAIN_DECIMAL = /^-?[0-9]+(?:\.[0-9]+)?$/;

/** Why a decimal text is refused, in the client's words; null when the rule takes it. */
function refusal(text: string, rule: Required<DecimalRule>, min: string): string | null {
  if (!PLAIN_DECIMAL.test(text)) return "Must be a decimal number such as 10 or 10.50.";
  const [, fraction = ""] = text.split(".");
  if (fraction.replace(/0+$/, "").length > rule.scale) return `At most ${rule.scale} decimal places.`;
  const amount = new Big(text);
  if (rule.sign === "nonnegative" && text.startsWith("-")) return "Must be at least 0.";
  if (rule.sign === "positive" && amount.lte(0)) return "Must be greater than 0.";
  if (rule.sign === "nonzero" && amount.eq(0)) return "Must not be 0.";
  if (amount.lt(min)) return `Must be at least ${min}.`;
  if (amount.gt(rule.max)) return `Must be at most ${rule.max}.`;
  return null;
}

/**
 * A decimal request field: a JSON number or a decimal string, within the rule, parsed to a string
 * with `scale` decimals; never a binary float in arithmetic. The document states both branches
 * exactly (decimalDocument): a string matches the pattern the check itself applies; a number is a
 * multiple of 10^-scale (read in decimal, as JSON writes it, not as a binary quotient) within
 * bounds, no larger than a double carries exactly.
 */
export function decimalInput(options: DecimalRule) {
  const rule: Required<DecimalRule> = { sign: options.sign ?? "nonnegative", max: options.max, scale: options.scale ?? 2 };
  const min = rule.sign === "nonzero" ? `-${rule.max}` : "0";
  const document = decimalDocument(rule);
  const pattern = new RegExp(document.string.pattern);
  const numberMax = document.number.maximum;
  return z
    .union([z.number().openapi(document.number), z.string().openapi(document.string)])
    .transform((value, ctx) => {
      let text: string;
      let reason: string | null;
      if (typeof value === "number") {
        // String() of a double is its shortest decimal form: what the client's JSON said, within 15 digits.
        text = Number.isFinite(value) ? String(value) : "NaN";
        reason = refusal(text, rule, min);
        if (reason === null && new Big(text).abs().gt(numberMax)) reason = `As a JSON number at most ${numberMax}; send a larger value as a string.`;
      } else {
        text = value.replace(TRIM, "");
        reason = refusal(text, rule, min) ?? (pattern.test(value) ? null : "Must be a decimal number such as 10 or 10.50.");
      }
      if (reason !== null) {
        ctx.addIssue({ code: "custom", message: reason });
        return z.NEVER;
      }
      const amount = new Big(text);
      // "-0" is zero: never answer or store a signed zero ("-0.00").
      return (amount.eq(0) ? new Big(0) : amount).toFixed(rule.scale);
    })
    .openapi({ example: rule.scale === 6 ? "58.750000" : (100).toFixed(rule.scale), description: document.description });
}

/** The JSON number bound of a rule: its maximum, or less where a double would not carry its decimals. */
function exactNumberMax(rule: Required<DecimalRule>): string {
  const integerDigits = EXACT_DIGITS - rule.scale;
  const exact = `${"9".repeat(integerDigits)}${rule.scale ? `.${"9".repeat(rule.scale)}` : ""}`;
  return new Big(rule.max).gt(exact) ? exact : rule.max;
}

/** What the document says of a decimal: each branch as the check takes it. */
function decimalDocument(rule: Required<DecimalRule>) {
  const numberMax = exactNumberMax(rule);
  const number: { multipleOf: number; maximum: number; minimum?: number; exclusiveMinimum?: number; not?: { const: number } } = {
    multipleOf: Number(`1e-${rule.scale}`),
    maximum: Number(numberMax),
  };
  if (rule.sign === "nonnegative") number.minimum = 0;
  if (rule.sign === "positive") number.exclusiveMinimum = 0;
  if (rule.sign === "nonzero") {
    number.minimum = -Number(numberMax);
    number.not = { const: 0 };
  }
  const bound = { nonnegative: `from 0 to ${rule.max}`, positive: `greater than 0, at most ${rule.max}`, nonzero: `not 0, from -${rule.max} to ${rule.max}` }[
    rule.sign
  ];
  const asNumber = numberMax === rule.max ? "" : ` (as a JSON number at most ${numberMax}: a larger one goes as a string)`;
  return {
    number,
    string: { pattern: decimalPattern(rule) },
    description: `Decimal as a string or number, at most ${rule.scale} decimals, ${bound}${asNumber}`,
  };
}

/** Money amounts: 0 to 999,999,999,999.99 (numeric(14,2)) unless told otherwise. */
export const moneyInput = (options: { max?: string; positive?: boolean } = {}) =>
  decimalInput({ sign: options.positive ? "positive" : "nonnegative", max: options.max ?? MONEY_MAX, scale: 2 });

/**
 * A decimal string as a Dominican printed document writes amounts: thousands separated by commas,
 * a point before the decimals (DGII's printed models, representacion-impresa.pdf: "334,300.00"),
 * at least `minScale` decimals and more only where the value has them ("30.1250" → "30.125").
 * Done on the digits (Big), never through a binary float: 9,999,999,999,999.99 prints exactly.
 */
export function groupedDecimal(value: string, minScale = 2): string {
  const big = new Big(value);
  const plain = big.abs().toFixed();
  const decimals = Math.max(minScale, plain.includes(".") ? plain.split(".")[1]!.length : 0);
  const [integer, fraction] = big.abs().toFixed(decimals).split(".");
  const grouped = integer!.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${big.lt(0) ? "-" : ""}${grouped}${fraction ? `.${fraction}` : ""}`;
}
