import { z } from "@hono/zod-openapi";
import { normalizeIdentification, SEARCH_MIN_LENGTH } from "./service";
import { clean } from "./sync/parse";

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
    .refine((value) => normalizeIdentification(value) !== null, "The identification must have 9 (RNC) or 11 (cédula) digits; dashes are allowed.")
    .openapi({ param: { name: "identification", in: "path" }, example: "131-23456-7", description: "9 (RNC) or 11 (cédula) digits; dashes allowed" }),
});

export const RncSearchQuery = z
  .object({
    search: z
      .string({ error: "The search term is required." })
      .refine((value) => clean(value).length >= SEARCH_MIN_LENGTH, `The search term must have at least ${SEARCH_MIN_LENGTH} characters.`)
      .refine((value) => value.length <= 100, "The search term may have at most 100 characters.")
      .openapi({
        param: { name: "search", in: "query" },
        example: "maria",
        description: "At least 3 characters; matched as a substring of identification, name or comercial_name",
      }),
  })
  .strict();
