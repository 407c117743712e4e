import { z } from "@hono/zod-openapi";
import { crossField, emailAddress, ifThen, nullableText } from "../../http/schemas";
import { idInput } from "../../lib/bounds";
import { moneyInput } from "../../lib/decimal";
import { IDENTIFICATION_TYPES } from "../../lib/identification";

export const CONTACT_TYPES = ["customer", "supplier", "both"] as const;
/** How DGII's IT-1 section A classifies the ITBIS withheld from a supplier (docs/reports.md, "IT-1"). */
export const TAX_REGIMES = ["ordinary", "rst", "non_profit"] as const;
const TAX_REGIME_DESCRIPTION =
  "As a supplier, where the IT-1's section A declares the ITBIS withheld from it: `ordinary` (by its id type and the share withheld: 39, 42, 43), `rst` (Régimen Simplificado de Tributación, as DGII's registry shows the taxpayer: 44/45 and 53/54) or `non_profit` (entidad sin fines de lucro, Norma 01-11: 40). Read when the IT-1 is computed; a closed month's IT-1 is the one its close kept";

const fields = {
  name: z.string().trim().min(1).max(255),
  contact_type: z.enum(CONTACT_TYPES).optional(),
  identification_type: z.enum(IDENTIFICATION_TYPES).nullable().optional(),
  identification: z
    .string()
    .max(40)
    .nullable()
    .optional()
    .openapi({ description: "RNC (9 digits) or cédula (11 digits); spaces and dashes are accepted and removed", example: "1-31-24679-6" }),
  email: emailAddress().nullable().optional(),
  phone: nullableText(50),
  address: nullableText(1000),
  notes: nullableText(5000),
  credit_limit: moneyInput().nullable().optional(),
  tax_regime: z
    .enum(TAX_REGIMES)
    .optional()
    .openapi({ description: `${TAX_REGIME_DESCRIPTION}. Default \`ordinary\`` }),
  workspace_id: idInput().nullable().optional().openapi({ description: "Default: the request's workspace; null shares the contact with every workspace" }),
};

/** A number that is not blank (a blank one is taken as none). */
const GIVEN_IDENTIFICATION = { required: ["identification"], properties: { identification: { type: "string", pattern: "\\S" } } };

/**
 * The type and the number together (contacts/service.ts identificationOf): a type needs a number, a
 * number a type. A PATCH combines what it gives with the contact's current values, which a schema of
 * the body alone cannot see: its operation's description says it.
 */
export const CreateContactBody = z
  .object(fields)
  .openapi(
    crossField(
      ifThen({ required: ["identification_type"], properties: { identification_type: { type: "string" } } }, GIVEN_IDENTIFICATION, {
        not: GIVEN_IDENTIFICATION,
      }),
    ),
  )
  .openapi("CreateContactRequest");
export const UpdateContactBody = z.object({ ...fields, name: fields.name.optional() }).openapi("UpdateContactRequest");
export type CreateContactInput = z.output<typeof CreateContactBody>;
export type UpdateContactInput = z.output<typeof UpdateContactBody>;

export const Contact = z
  .object({
    id: z.number(),
    workspace_id: z.number().nullable(),
    name: z.string(),
    contact_type: z.enum(CONTACT_TYPES),
    identification_type: z.enum(IDENTIFICATION_TYPES).nullable(),
    identification: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    address: z.string().nullable(),
    notes: z.string().nullable(),
    credit_limit: z.string().nullable(),
    tax_regime: z.enum(TAX_REGIMES).openapi({ description: TAX_REGIME_DESCRIPTION }),
    created_at: z.string(),
    updated_at: z.string(),
    taxpayer: z
      .object({ name: z.string(), comercial_name: z.string(), status: z.string() })
      .nullable()
      .openapi({ description: "The DGII registry's record of this RNC or cédula; null when unknown" }),
  })
  .openapi("Contact");
export type Contact = z.output<typeof Contact>;
