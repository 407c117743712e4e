import { z } from "@hono/zod-openapi";
import { ID_PATTERN } from "../lib/bounds";

/** Zod pieces shared by the modules' request and response schemas. */

/** `filter[workspace_id]` of workspace-scoped lists: `all`, `shared` or a workspace id. */
export const WorkspaceFilter = z
  .string()
  .regex(new RegExp(`^(?:all|shared|${ID_PATTERN.source.slice(1, -1)})$`), "Use all, shared or a workspace id.")
  .optional()
  .openapi({ description: "all (view_all_locations only), shared, or a workspace id; default: the request's workspace and shared rows" });

export const BooleanFilter = z.enum(["true", "false"]).optional();

export const nullableText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .nullable()
    .optional()
    .transform((v) => (v === "" ? null : v));

/** A JSON Schema, as written into the document by crossField. */
export type JsonSchemaRule = { [keyword: string]: unknown };

/**
 * A rule across fields (or across an array's items) as JSON Schema states it, for the document
 * (issue 44): `if`/`then`/`else`, `oneOf`, `not`, `uniqueItems`, `contains`. zod cannot say these
 * (its refinements check them), and the metadata type of zod-to-openapi does not list the
 * conditional keywords, which it writes into the schema as given: typed here once. The zod check
 * beside it must refuse exactly what the rule refuses (the tests send each refused body and hold it
 * to the document's schema too).
 */
export const crossField = (rules: JsonSchemaRule): { description?: string } => rules as { description?: string };

/**
 * JSON Schema's `if`/`then`/`else`, written in one place: an object with a `then` property would be
 * a thenable to `await` (biome's noThenProperty), and this one is only ever written into the document.
 */
export function ifThen(condition: JsonSchemaRule, consequence: JsonSchemaRule, otherwise?: JsonSchemaRule): JsonSchemaRule {
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's keyword, never awaited.
  const rule: JsonSchemaRule = { if: condition, then: consequence };
  if (otherwise) rule.else = otherwise;
  return rule;
}

/**
 * The e-mail addresses zod's `.email()` takes (its default pattern), with the spaces around them the
 * field trims: the document's pattern. `\s` is exactly what `String.prototype.trim` removes (both
 * ECMA-262's WhiteSpace and LineTerminator), so the pattern admits what the API takes, no more.
 */
export const EMAIL_PATTERN = `^\\s*(?:${z.regexes.email.source.replace(/^\^|\$$/g, "")})\\s*$`;

/**
 * An e-mail field of a request (issue 44): trimmed, at most 254 characters as sent, and zod's e-mail
 * pattern, checked as a pattern rather than with `.email()`, whose `format: email` in the document
 * refused the spaces around the address that the API trims and takes (" a@b.com "): a client that
 * validates formats refused what the API admits. The document states the rule with EMAIL_PATTERN.
 */
export const emailAddress = () => z.string().trim().max(254).regex(z.regexes.email, "Invalid email address").openapi({ pattern: EMAIL_PATTERN });

export const MessageResponse = z.object({ message: z.string() }).openapi("Message");

export const dataWithMessage = <T extends z.ZodType>(item: T) => z.object({ data: item, message: z.string() });
export const dataOnly = <T extends z.ZodType>(item: T) => z.object({ data: item });
