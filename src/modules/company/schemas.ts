import { z } from "@hono/zod-openapi";
import { emailAddress, nullableText } from "../../http/schemas";
import { idInput, idParam } from "../../lib/bounds";
import { MUNICIPALITY_CODE_PATTERN, PROVINCE_CODE_PATTERN } from "../../lib/territory";

const code = (example: string, description: string, pattern: string) =>
  z
    .string()
    .trim()
    .regex(/^\d{6}$/, "A DGII territorial code has 6 digits.")
    .nullable()
    .optional()
    // The table's codes (company/service.ts checks each against it), not only six digits.
    .openapi({ example, description, pattern });

export const UpdateCompanyBody = z
  .object({
    rnc: z.string().trim().max(20).nullable().optional().openapi({ example: "131246796", description: "The company's RNC (check digit validated)" }),
    legal_name: nullableText(250).openapi({ description: "Razón social, as registered with DGII" }),
    trade_name: nullableText(250).openapi({ description: "Nombre comercial" }),
    address: nullableText(250).openapi({ description: "Address of the head office (Norma 06-2018)" }),
    municipality_code: code(
      "010101",
      "DGII's Tabla III code of the municipality or municipal district (PPMMDD), of the province given (or the company's)",
      MUNICIPALITY_CODE_PATTERN,
    ),
    province_code: code("010000", "DGII's Tabla III code of the province (PP0000)", PROVINCE_CODE_PATTERN),
    phone: nullableText(30),
    email: emailAddress().nullable().optional(),
    website: nullableText(250),
    economic_activity: nullableText(250).openapi({ description: "Actividad económica" }),
  })
  .strict()
  .openapi("UpdateCompanyRequest");

export type UpdateCompanyInput = z.output<typeof UpdateCompanyBody>;

export const Company = z
  .object({
    rnc: z.string().nullable(),
    legal_name: z.string().nullable(),
    trade_name: z.string().nullable(),
    address: z.string().nullable(),
    municipality_code: z.string().nullable(),
    province_code: z.string().nullable(),
    phone: z.string().nullable(),
    email: z.string().nullable(),
    website: z.string().nullable(),
    economic_activity: z.string().nullable(),
    is_complete: z.boolean().openapi({ description: "rnc, legal_name and address are set: fiscal documents may be issued" }),
    missing_fields: z.array(z.string()).openapi({ description: "What is missing to issue fiscal documents" }),
    updated_at: z.string().nullable(),
  })
  .openapi("Company");

export const CompanyMember = z
  .object({
    user_id: z.number().int(),
    name: z.string(),
    email: z.string(),
    role: z
      .string()
      .openapi({ description: "The role held at company level: the routes of company level read their permission from it, and nothing else does" }),
    is_owner: z.boolean().openapi({ description: "The company's owner: holds admin at company level, and alone grants the others" }),
    status: z.enum(["active", "deactivated"]),
    added_at: z.string(),
  })
  .openapi("CompanyMember");
export type CompanyMember = z.output<typeof CompanyMember>;

export const CompanyMemberParam = z.object({ user_id: idParam("user_id", 2) });

/** A role's name, as members and invitations name it. */
const roleName = () => z.string().trim().min(1).max(50);

export const PutCompanyMemberBody = z
  .object({ role: roleName().openapi({ description: "A role name (admin, or a custom role): what the user may do at company level" }) })
  .strict()
  .openapi("PutCompanyMemberRequest");

export const TransferCompanyOwnershipBody = z
  .object({
    user_id: idInput().openapi({ description: "The new owner: an active user of the company, not its current owner" }),
    previous_owner_role: roleName()
      .optional()
      .openapi({ description: "The former owner's role at company level afterwards (a role name); admin when omitted" }),
  })
  .strict()
  .openapi("TransferCompanyOwnershipRequest");
