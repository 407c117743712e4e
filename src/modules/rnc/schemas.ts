import { z } from "@hono/zod-openapi";
import { SEARCH_MIN_LENGTH } from "./service";

const RncRecord = z
  .object({
    identification: z.string().openapi({ example: "131234567" }),
    name: z.string(),
    comercial_name: z.string(),
    status: z.string().openapi({ example: "ACTIVO" }),
  })
  .openapi("RncRecord");

export const RncLookupResponse = z.object({ data: RncRecord, warning: z.string().optional() }).openapi("RncLookup");

export const RncSearchResponse = z.object({ data: z.array(RncRecord.extend({ warning: z.string().optional() })) }).openapi("RncSearch");

export const RncIdentificationParam = z.object({
  identification: z
    .string()
    // normalizeIdentification's rule (src/modules/rnc/service.ts) exactly, as a pattern the document can state: 9 or 11 digits, dashes between them.
    .regex(/^\s*\d(?:-*\d){8}(?:(?:-*\d){2})?\s*$/, "The identification must have 9 (RNC) or 11 (cédula) digits; dashes are allowed.")
    .openapi({ param: { name: "identification", in: "path" }, example: "131-23456-7", description: "9 (RNC) or 11 (cédula) digits; dashes allowed" }),
});

export const RncSearchQuery = z
  .object({
    search: z
      .string({ error: "The search term is required." })
      // clean(value).length >= SEARCH_MIN_LENGTH (3) exactly, as a pattern: three characters once runs of spaces count as one and ends are trimmed.
      .regex(/^\s*(?:\S\s*\S\s*\S|\S\s+\S)[\s\S]*$/, `The search term must have at least ${SEARCH_MIN_LENGTH} characters.`)
      .max(100, "The search term may have at most 100 characters.")
      .openapi({
        param: { name: "search", in: "query" },
        example: "maria",
        description: "At least 3 characters; matched as a substring of identification, name or comercial_name",
      }),
  })
  .strict();
