import { z } from "@hono/zod-openapi";
import { crossField, ifThen } from "../../http/schemas";
import { dateInput, idInput } from "../../lib/bounds";
import {
  ELECTRONIC_DIGITS,
  ELECTRONIC_PREFIXES,
  PAPER_REPLACEABLE_PREFIXES,
  PREFIXES_BY_TYPE,
  prefixPattern,
  QUOTATION_PREFIX_PATTERN,
  SERIES_DIGITS,
} from "../../lib/ncf";

export const DOCUMENT_TYPES = ["invoice", "quotation", "credit_note", "debit_note"] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

const sequence = z.number().int().min(1).max(9_999_999_999);
const isoDate = dateInput().openapi({ format: "date", example: "2027-12-31" });
const authorizationNumber = z
  .string()
  .trim()
  .min(1)
  .max(50)
  .nullable()
  .optional()
  .openapi({ description: "DGII's authorization number of the range (Oficina Virtual)" });

export const CreateDocumentSubtypeBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    type: z.enum(DOCUMENT_TYPES),
    prefix: z
      .string()
      .trim()
      .min(1)
      .max(10)
      .transform((v) => v.toUpperCase())
      .openapi({
        example: "B01",
        description: "Invoices: B01-B04, B11-B17, E31-E34, E41, E43-E47; credit notes: B04 or E34; debit notes: B03 or E33; quotations: free",
      }),
    start_number: sequence.optional().openapi({ description: "Default 1" }),
    end_number: sequence.openapi({ description: "The range's last number: at least start_number (and next_number)" }),
    next_number: sequence.optional().openapi({
      description:
        "The next number to issue, default start_number: given at creation only (a range partly used on paper or elsewhere), then it advances only as documents are numbered; PATCH takes no next_number (422 on the unknown field)",
    }),
    valid_until: isoDate.nullable().optional().openapi({
      description:
        "The range's expiry date (DGII's authorization): required for every type but quotations (422 on it when missing); from the day after it the sequence numbers nothing (422 ncf_sequence_expired on document_subtype_id)",
    }),
    authorization_number: authorizationNumber,
    authorized_at: isoDate.nullable().optional().openapi({ description: "Date of DGII's authorization of the range" }),
    is_default: z.boolean().optional(),
    is_active: z.boolean().optional(),
    is_electronic: z.boolean().optional().openapi({ description: "Follows the prefix: true exactly for E-series (e-CF)" }),
    contingency_workspace_id: idInput().nullable().optional().openapi({
      description:
        "A paper B-series range kept for this branch's contingency (issue 33): never numbered by Sucursal; each paper NCF is entered later as a replacement e-CF (POST /invoices with replaces). Fixed once created.",
    }),
  })
  .openapi(
    crossField({
      // The prefix follows the type (service.ts checkPrefix), and end_number fits its digits (checkNumbering).
      allOf: [
        ...(["invoice", "credit_note", "debit_note"] as const).map((type) =>
          ifThen({ properties: { type: { const: type } } }, { properties: { prefix: { pattern: prefixPattern(PREFIXES_BY_TYPE[type]) } } }),
        ),
        ifThen({ properties: { type: { const: "quotation" } } }, { properties: { prefix: { pattern: QUOTATION_PREFIX_PATTERN } } }),
        // A contingency range (service.ts checkContingencyRange): a paper range of a type an e-CF replaces, never the default.
        ifThen(
          { required: ["contingency_workspace_id"], properties: { contingency_workspace_id: { type: "integer" } } },
          { properties: { prefix: { pattern: prefixPattern(PAPER_REPLACEABLE_PREFIXES) }, is_default: { const: false } } },
        ),
        // is_electronic follows the prefix too (checkNumbering): true exactly for E-series.
        ifThen(
          { properties: { prefix: { pattern: prefixPattern(ELECTRONIC_PREFIXES) } } },
          { properties: { end_number: { maximum: 10 ** ELECTRONIC_DIGITS - 1 }, is_electronic: { const: true } } },
          { properties: { end_number: { maximum: 10 ** SERIES_DIGITS - 1 }, is_electronic: { const: false } } },
        ),
      ],
    }),
  )
  .openapi("CreateDocumentSubtypeRequest");

export const UpdateDocumentSubtypeBody = z
  .object({
    name: z.string().trim().min(1).max(100).optional(),
    type: z.enum(DOCUMENT_TYPES).optional().openapi({ description: "Cannot change" }),
    prefix: CreateDocumentSubtypeBody.shape.prefix.optional().openapi({ description: "Only while no number was issued" }),
    start_number: sequence.optional().openapi({ description: "Fixed once a number was issued (409 ncf_range_in_use)" }),
    end_number: sequence.optional().openapi({ description: "Fixed once a number was issued (409 ncf_range_in_use); at least start_number" }),
    valid_until: isoDate.nullable().optional(),
    authorization_number: authorizationNumber,
    authorized_at: isoDate.nullable().optional(),
    is_default: z.boolean().optional(),
    is_active: z.boolean().optional(),
    is_electronic: z.boolean().optional().openapi({ description: "Follows the prefix: true exactly for E-series (e-CF)" }),
  })
  .openapi(
    crossField({
      // A prefix given decides is_electronic (and the digits of end_number); without one, the stored prefix does (the operation's description).
      allOf: [
        ifThen(
          { required: ["prefix"], properties: { prefix: { pattern: prefixPattern(ELECTRONIC_PREFIXES) } } },
          { properties: { end_number: { maximum: 10 ** ELECTRONIC_DIGITS - 1 }, is_electronic: { const: true } } },
        ),
        ifThen(
          { required: ["prefix"], properties: { prefix: { not: { pattern: prefixPattern(ELECTRONIC_PREFIXES) } } } },
          { properties: { end_number: { maximum: 10 ** SERIES_DIGITS - 1 }, is_electronic: { const: false } } },
        ),
      ],
    }),
  )
  .openapi("UpdateDocumentSubtypeRequest");

export type CreateDocumentSubtypeInput = z.output<typeof CreateDocumentSubtypeBody>;
export type UpdateDocumentSubtypeInput = z.output<typeof UpdateDocumentSubtypeBody>;

const SubtypeWarning = z.object({
  code: z.enum(["expired", "expiring_soon", "exhausted", "running_low"]),
  message: z.string(),
});

export const DocumentSubtype = z
  .object({
    id: z.number(),
    name: z.string(),
    type: z.enum(DOCUMENT_TYPES),
    prefix: z.string(),
    start_number: z.number(),
    end_number: z.number(),
    next_number: z.number().openapi({ readOnly: true, description: "Advances only as documents are numbered; set at creation, never by PATCH" }),
    next_document_number: z.string().nullable().openapi({ example: "B0100000001", description: "null when the range is exhausted" }),
    remaining: z.number().openapi({ description: "Numbers left in the range" }),
    valid_until: z.string().nullable(),
    authorization_number: z.string().nullable(),
    authorized_at: z.string().nullable(),
    is_demo: z.boolean().openapi({ description: "A made-up range seeded for trying the API (tenant:create --demo-sequences), not DGII's" }),
    is_default: z.boolean(),
    is_active: z.boolean(),
    is_electronic: z.boolean(),
    contingency_workspace_id: z.number().nullable().openapi({ description: "The branch whose paper contingency range this is, or null" }),
    warnings: z.array(SubtypeWarning).openapi({ description: "Expires within 30 days or expired; fewer than 100 numbers left or none" }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("DocumentSubtype");

export const PreferredSubtypeBody = z
  .object({
    type: z.enum(DOCUMENT_TYPES),
    document_subtype_id: idInput().nullable().openapi({ description: "null clears the preference" }),
  })
  .openapi("PreferredDocumentSubtypeRequest");

export const PreferredSubtype = z
  .object({
    workspace_id: z.number(),
    type: z.enum(DOCUMENT_TYPES),
    document_subtype_id: z.number().nullable(),
    document_subtype: z.object({ id: z.number(), name: z.string(), prefix: z.string() }).nullable(),
  })
  .openapi("PreferredDocumentSubtype");

export const ValidateNcfBody = z
  .object({
    ncf: z.string().trim().min(1).max(40).openapi({ example: "B0100000001" }),
    document_subtype_id: idInput(),
  })
  .openapi("ValidateNcfRequest");

export const ValidateNcfResponse = z.object({ valid: z.boolean(), message: z.string() }).openapi("ValidateNcfResult");
export type DocumentSubtype = z.output<typeof DocumentSubtype>;
export type SubtypeWarning = z.output<typeof SubtypeWarning>;
export type PreferredSubtype = z.output<typeof PreferredSubtype>;
