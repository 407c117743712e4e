import { z } from "@hono/zod-openapi";

/**
 * What every request body and query of the API admits beyond its own schema (issue 44), applied
 * once by defineRoute (http/openapi.ts) to the schemas a route declares, so a new endpoint has it
 * without asking:
 * - an object takes only its declared fields: an unknown one (a typo, a field of another version)
 *   is a 422 naming it, never a silent no-op; the document says `additionalProperties: false`.
 *   An object that declares what else it takes (`.catchall(…)`, `z.record`) keeps its rule.
 * - text never holds the NUL character, which Postgres cannot store in `text`: a 422 on the field,
 *   and a pattern in the document, on every string that has no pattern or format of its own (one
 *   that has says already which characters it takes).
 * - a trimmed text's maximum length counts the text as sent, spaces around it included, as the
 *   document's maxLength does (it counted the trimmed text: 100 letters and a space passed a
 *   maxLength of 100); one that must not be blank says so with a pattern (minLength 1 admitted "  ",
 *   which the trim then refused).
 * The schemas are rebuilt, not changed: one shared with a response stays as it was there. A
 * rebuilt schema keeps its metadata (name, description, example) through zod's parent link.
 */
export function strictRequest<T extends z.ZodType>(schema: T): T {
  return rebuild(schema) as T;
}

/**
 * Any character but NUL, as a pattern every engine reads alike; built from text so that its source,
 * which the document prints, keeps the escape `\u0000` rather than the character itself.
 */
const NUL_ESCAPE = "\\u0000";
export const NO_NUL_PATTERN = new RegExp(`^[^${NUL_ESCAPE}]*$`);
const NO_NUL_MESSAGE = "Must not contain the NUL character (\\u0000).";

type Def = z.ZodType["_zod"]["def"] & Record<string, unknown>;

const copy = (schema: z.ZodType, changes: Record<string, unknown>) => schema.clone({ ...(schema._zod.def as Def), ...changes } as Def, { parent: true });

function rebuild(schema: z.ZodType): z.ZodType {
  const def = schema._zod.def as Def;
  switch (def.type) {
    case "object": {
      const shape = Object.fromEntries(Object.entries(def.shape as Record<string, z.ZodType>).map(([key, value]) => [key, rebuild(value)]));
      return copy(schema, { shape, catchall: def.catchall ?? z.never() });
    }
    case "array":
      return copy(schema, { element: rebuild(def.element as z.ZodType) });
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "nonoptional":
    case "readonly":
    case "catch":
      return copy(schema, { innerType: rebuild(def.innerType as z.ZodType) });
    case "pipe":
      return copy(schema, { in: rebuild(def.in as z.ZodType), out: rebuild(def.out as z.ZodType) });
    case "union":
      return copy(schema, { options: (def.options as z.ZodType[]).map(rebuild) });
    case "intersection":
      return copy(schema, { left: rebuild(def.left as z.ZodType), right: rebuild(def.right as z.ZodType) });
    case "record":
      return copy(schema, { valueType: rebuild(def.valueType as z.ZodType) });
    case "tuple":
      return copy(schema, { items: (def.items as z.ZodType[]).map(rebuild), rest: def.rest ? rebuild(def.rest as z.ZodType) : def.rest });
    case "string": {
      const measured = lengthBeforeTrim(schema);
      if (hasOwnShape(measured)) return measured;
      // Not blank either where the trimmed text has a minimum of 1, checked only once the minimum
      // passed: "  " keeps the minimum's message, and text that fails only this holds NUL.
      if (trims(schema) && minLength(schema) === 1) {
        const notBlank = z.regex(NOT_BLANK_PATTERN, NO_NUL_MESSAGE);
        notBlank._zod.def.when = (payload) => payload.issues.length === 0;
        return measured.check(notBlank);
      }
      return measured.check(z.regex(NO_NUL_PATTERN, NO_NUL_MESSAGE));
    }
    default:
      return schema;
  }
}

/** Text with a character that is neither a space nor NUL: what a trimmed field of minimum length 1 takes. */
const NOT_BLANK_PATTERN = new RegExp(`^[^${NUL_ESCAPE}]*[^\\s${NUL_ESCAPE}][^${NUL_ESCAPE}]*$`);

type Check = { _zod: { def: { check: string; tx?: (value: string) => string; minimum?: number } } };
const checksOf = (schema: z.ZodType) => ((schema._zod.def as Def).checks ?? []) as Check[];
const isTrim = (check: Check) => check._zod.def.check === "overwrite" && check._zod.def.tx?.(" a ") === "a";
const trims = (schema: z.ZodType) => checksOf(schema).some(isTrim);
const minLength = (schema: z.ZodType) => checksOf(schema).find((check) => check._zod.def.check === "min_length")?._zod.def.minimum;

/** A trimmed string with its maximum length checked before the trim, on the text as sent. */
function lengthBeforeTrim(schema: z.ZodType): z.ZodType {
  const checks = checksOf(schema);
  const trim = checks.findIndex(isTrim);
  if (trim < 0) return schema;
  const maxima = checks.filter((check, at) => at > trim && check._zod.def.check === "max_length");
  if (maxima.length === 0) return schema;
  return copy(schema, { checks: [...checks.slice(0, trim), ...maxima, ...checks.slice(trim).filter((check) => !maxima.includes(check))] });
}

/** Whether a string schema already says which characters it takes: a pattern or a format (email, url…). */
function hasOwnShape(schema: z.ZodType): boolean {
  const def = schema._zod.def as Def;
  if (def.format !== undefined) return true;
  return ((def.checks ?? []) as { _zod: { def: { check: string } } }[]).some((check) => check._zod.def.check === "string_format");
}
