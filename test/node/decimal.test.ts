import { type Schema, Validator } from "@cfworker/json-schema";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createApp, OPENAPI_DOCUMENT } from "../../src/app";
import { MONEY_MAX } from "../../src/lib/bounds";
import { type DecimalRule, decimalInput } from "../../src/lib/decimal";

/**
 * One decimal type, stated once (issue 44): what the document says of a decimal (a string pattern, a
 * number's bounds and multipleOf) is exactly what decimalInput takes. Judged by @cfworker/json-schema
 * (an independent validator) on the schema decimalInput documents, over generated strings and numbers.
 */
const RULES: DecimalRule[] = [
  { max: MONEY_MAX },
  { max: "100" },
  { sign: "positive", max: "99999999.99" },
  { sign: "positive", max: MONEY_MAX },
  { max: "9999999999.9999", scale: 4 },
  { sign: "positive", max: "999999999999.999999", scale: 6 },
  { sign: "nonzero", max: MONEY_MAX },
];

/** The JSON Schema the document prints for a rule: the route's own rendering, through a tiny app. */
function documented(rule: DecimalRule): Schema {
  const app = createApp();
  const schema = decimalInput(rule).openapi("Probe");
  app.openAPIRegistry.register("Probe", schema);
  const document = app.getOpenAPI31Document(OPENAPI_DOCUMENT) as unknown as { components: { schemas: Record<string, Schema> } };
  return document.components.schemas.Probe!;
}

const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: min, maxLength: max });
/** Text near the shape of a decimal: where the rule's edges are (signs, zeros, digit counts, decimals, spaces). */
const decimalText = fc
  .tuple(
    fc.constantFrom("", " ", "\t", "\n", "\u00a0"),
    fc.constantFrom("", "-", "+", "--"),
    fc.constantFrom("", "0", "00"),
    digits(0, 14),
    fc.option(fc.tuple(fc.constantFrom(".", ","), digits(0, 8)), { nil: undefined }),
    fc.constantFrom("", " ", "\n", "e2", "x"),
  )
  .map(([lead, sign, zeros, whole, fraction, tail]) => `${lead}${sign}${zeros}${whole}${fraction ? fraction.join("") : ""}${tail}`);

/** Numbers near the rule's edges: integers scaled by a power of ten, and any double. */
const decimalNumber = fc.oneof(
  fc.tuple(fc.integer({ min: -1e15, max: 1e15 }), fc.integer({ min: 0, max: 8 })).map(([n, k]) => Number(`${n}e-${k}`)),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 100, 100.01, 999999999.999999, 1e9, 999999999999.99, 1e12, 5e-324),
);

describe("decimalInput and the document say the same (issue 44)", () => {
  for (const rule of RULES) {
    it(`${rule.sign ?? "nonnegative"} up to ${rule.max}, ${rule.scale ?? 2} decimals: strings and numbers`, () => {
      const schema = documented(rule);
      const validator = new Validator(schema, "2020-12");
      const input = decimalInput(rule);
      let accepted = 0;
      fc.assert(
        fc.property(fc.oneof(decimalText, decimalNumber), (value) => {
          const documentSays = validator.validate(value).valid;
          const apiTakes = input.safeParse(value).success;
          if (apiTakes) accepted++;
          expect(apiTakes, `${JSON.stringify(value)}: the document says ${documentSays}`).toBe(documentSays);
        }),
        { seed: 44, numRuns: 4000 },
      );
      // Both sides of the line were tried.
      expect(accepted).toBeGreaterThan(100);
    });
  }
});
