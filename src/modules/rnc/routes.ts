import { type AppRouteHandler, commonErrors, createRouter, defineRoute, errorResponses, jsonResponse, V1 } from "../../http/openapi";
import { notFound } from "../../lib/errors";
import { RncIdentificationParam, RncLookupResponse, RncSearchQuery, RncSearchResponse } from "./schemas";
import { findRnc, normalizeIdentification, searchRnc, statusWarning } from "./service";
import type { RegistryDb } from "./sync/runs";

export const rncRouter = createRouter();

const lookupRoute = defineRoute(
  { permission: "rnc:view" },
  {
    method: "get",
    path: `${V1}/rnc/{identification}`,
    tags: ["RNC"],
    summary: "Look up a taxpayer in the DGII registry by RNC or cédula",
    request: { params: RncIdentificationParam },
    responses: { 200: jsonResponse("The taxpayer; `warning` when the status is not ACTIVO", RncLookupResponse), ...errorResponses(404), ...commonErrors },
  },
);

export const lookup: AppRouteHandler<typeof lookupRoute> = async (c) => {
  const identification = normalizeIdentification(c.req.valid("param").identification)!;
  const record = await findRnc(c.var.db as unknown as RegistryDb, identification);
  if (!record) throw notFound("RNC");
  const warning = statusWarning(record);
  return c.json(warning ? { data: record, warning } : { data: record }, 200);
};
rncRouter.openapi(lookupRoute, lookup);

const searchRoute = defineRoute(
  { permission: "rnc:view" },
  {
    method: "get",
    path: `${V1}/rnc`,
    tags: ["RNC"],
    summary: "Search the DGII registry by identification, name or comercial name (at most 10)",
    request: { query: RncSearchQuery },
    responses: { 200: jsonResponse("Matching taxpayers, best first", RncSearchResponse), ...commonErrors },
  },
);

export const search: AppRouteHandler<typeof searchRoute> = async (c) => {
  const records = await searchRnc(c.var.db as unknown as RegistryDb, c.req.valid("query").search);
  return c.json(
    {
      data: records.map((record) => {
        const warning = statusWarning(record);
        return warning ? { ...record, warning } : record;
      }),
    },
    200,
  );
};
rncRouter.openapi(searchRoute, search);
