import { z } from "@hono/zod-openapi";

/**
 * The ranges of the database columns that request values end up in, defined once: every value a
 * schema accepts must be one Postgres can store, so that out-of-range input is a 422 on its field
 * and never a database error (a 500 before src/db/errors.ts, a field-less 422 after it).
 */

/** Ids are Postgres `integer` (int4): 1 to 2,147,483,647. A larger id cannot exist. */
export const INT4_MAX = 2_147_483_647;

/** numeric(14,2): money amounts and quantities (12 integer digits, 2 decimals). */
export const MONEY_MAX = "999999999999.99";

/**
 * Dates (`date` columns, and filters compared with them or with timestamps): Postgres itself takes
 * 4713 BC to 5874897 AD, but not year 0 and not every calendar the client might mean; a business
 * date outside 1900-2199 is a typo, so the API keeps to that range.
 */
const DATE_MIN = "1900-01-01";
const DATE_MAX = "2199-12-31";

/**
 * An int4 id written the one canonical way, as a regular expression: 1 to 2147483647 without sign,
 * leading zeros or spaces. Exact, so that the OpenAPI document (which can only say "pattern" of a
 * string) declares the very set the API accepts.
 */
export const ID_PATTERN =
  /^(?:[1-9]\d{0,8}|1\d{9}|20\d{8}|21[0-3]\d{7}|214[0-6]\d{6}|2147[0-3]\d{5}|21474[0-7]\d{4}|214748[0-2]\d{3}|2147483[0-5]\d{2}|21474836[0-3]\d|214748364[0-7])$/;
const DATE_TEXT = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A real day from DATE_MIN to DATE_MAX as a regular expression, for the document (which can only
 * say "pattern"): 30-day months, February's 28 days and its 29th in leap years (1900 and 2100 are
 * not, 2000 is). isCalendarDate is the check itself; test/node/openapi.test.ts holds them together.
 */
const DAY_SOURCE =
  "(?:(?:19|2[01])\\d{2}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))|(?:(?:19|20|21)(?:0[48]|[2468][048]|[13579][26])|2000)-02-29)";
export const DATE_PATTERN = new RegExp(`^${DAY_SOURCE}$`);

/** Whether `text` (a positive integer in canonical decimal form) is an int4 id. */
export const isIdText = (text: string) => ID_PATTERN.test(text);

/**
 * A path id written the one canonical way, as a number; null otherwise. `Number()` would also read
 * "01", "0x1", "+1", "1.0" and " 1" as 1, giving one endpoint many spellings (and a rate-limit
 * bucket per spelling).
 */
export const canonicalId = (text: string): number | null => (isIdText(text) ? Number(text) : null);

/** An id in a JSON body: an integer 1..INT4_MAX. */
export const idInput = (message = `Must be an id (an integer from 1 to ${INT4_MAX}).`) =>
  z.number({ error: message }).int(message).min(1, message).max(INT4_MAX, message);

const ID_MESSAGE = `Must be an id (an integer from 1 to ${INT4_MAX}).`;

/** An id as text (path, query): the canonical digits of ID_PATTERN, declared as such in the document. */
export const idText = (message = ID_MESSAGE) => z.string().regex(ID_PATTERN, message);

/**
 * An id in the path: canonical decimal digits ("12", not "012", "1e1" or " 12") within int4, as a
 * number. Anything else is a 422 naming the parameter, before any database work.
 */
export const idParam = (name: string, example = 1) =>
  idText()
    .transform(Number)
    // An integer 1..INT4_MAX written in decimal is exactly ID_PATTERN: the document says it as an integer
    // so that generated clients take a number.
    .openapi({ param: { name, in: "path" }, type: "integer", minimum: 1, maximum: INT4_MAX, example });

/** An id in the query string (not a list filter): as in the path, optional. */
export const idQuery = () => idText().transform(Number).optional().openapi({ type: "integer", minimum: 1, maximum: INT4_MAX });

/** Whether a YYYY-MM-DD string names a real day of the Gregorian calendar (no 2026-02-30). */
function isCalendarDate(text: string): boolean {
  if (!DATE_TEXT.test(text)) return false;
  const [year, month, day] = text.split("-").map(Number) as [number, number, number];
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return day <= days;
}

/**
 * A date (body field or filter): YYYY-MM-DD, a real calendar day, from DATE_MIN to DATE_MAX
 * (zero-padded ISO dates compare as strings). Kept as the string.
 */
export const dateInput = () =>
  z
    .string()
    .superRefine((value, ctx) => {
      if (!isCalendarDate(value)) ctx.addIssue({ code: "custom", message: "Must be a real date in the form YYYY-MM-DD." });
      else if (value < DATE_MIN || value > DATE_MAX) ctx.addIssue({ code: "custom", message: `Must be between ${DATE_MIN} and ${DATE_MAX}.` });
    })
    .openapi({ type: "string", format: "date", pattern: DATE_PATTERN.source, example: "2026-11-20", description: `A date from ${DATE_MIN} to ${DATE_MAX}` });

/** A YYYY-MM-DD that a `date` column takes and the API keeps to: a real day from DATE_MIN to DATE_MAX. */
export const isStorableDate = (value: string) => isCalendarDate(value) && value >= DATE_MIN && value <= DATE_MAX;

/** A decimal text that a numeric(14,2) money column takes: at most MONEY_MAX in absolute value, at most 2 decimals. */
export const isStorableMoney = (value: string) => {
  const match = /^-?(\d+)(?:\.(\d+))?$/.exec(value);
  if (!match) return false;
  const whole = match[1]!.replace(/^0+(?=\d)/, "");
  const decimals = (match[2] ?? "").replace(/0+$/, "");
  return decimals.length <= 2 && whole.length <= 12;
};

/**
 * An instant (`filter[updated_since]`): ISO-8601 with its offset (`2026-01-31T12:00:00Z`, `…-04:00`),
 * its day a real one from DATE_MIN to DATE_MAX as dateInput's. A local time without an offset is
 * refused: it would be read in the server's zone. Year 0 or month 00 would reach Postgres, which
 * refuses them (a field-less 422): here they are a 422 on the field.
 */
export const DATE_TIME_PATTERN = new RegExp(`^${DAY_SOURCE}T(?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d{1,6})?)?(?:Z|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)$`);

export const dateTimeInput = () =>
  z
    .string()
    .regex(DATE_TIME_PATTERN, `Must be an ISO-8601 date-time with an offset, from ${DATE_MIN} to ${DATE_MAX}, e.g. 2026-01-31T12:00:00Z.`)
    .refine((text) => isCalendarDate(text.slice(0, 10)) && !Number.isNaN(Date.parse(text)), "Must be a real date-time.")
    // No `format: date-time`: RFC 3339 requires the seconds, which the API does not.
    .openapi({ example: "2026-01-31T12:00:00Z", description: "An ISO-8601 instant with its offset; its day from 1900-01-01 to 2199-12-31" });
