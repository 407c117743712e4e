import { z } from "@hono/zod-openapi";
import type { TypedResponse } from "hono";
import { requireAuth } from "../../http/auth";
import { type AppRouteHandler, commonErrors, createRouter, defineRoute, errorResponse, errorResponses, jsonBody, jsonResponse, V1 } from "../../http/openapi";
import { dataOnly, dataWithMessage } from "../../http/schemas";
import { FiscalPeriod, FiscalPeriodsQuery, PeriodParam, ReopenBody, SnapshotQuery } from "./schemas";
import * as periods from "./service";

export const fiscalPeriodsRouter = createRouter();
const tags = ["Fiscal periods"];

const listFiscalPeriodsRoute = defineRoute(
  { permission: "reports:view" },
  {
    method: "get",
    path: `${V1}/fiscal-periods`,
    tags,
    summary: "Each month's state (open or closed, when and by whom), its closes and the deadlines of its filings",
    request: { query: FiscalPeriodsQuery },
    responses: { 200: jsonResponse("The months, newest first", dataOnly(z.array(FiscalPeriod))), ...commonErrors },
  },
);
export const listFiscalPeriods: AppRouteHandler<typeof listFiscalPeriodsRoute> = async (c) =>
  c.json({ data: await periods.listPeriods(c.var.db, c.var.scope.tenantId, c.req.valid("query")) }, 200);
fiscalPeriodsRouter.openapi(listFiscalPeriodsRoute, listFiscalPeriods);

const getFiscalPeriodRoute = defineRoute(
  { permission: "reports:view" },
  {
    method: "get",
    path: `${V1}/fiscal-periods/{period}`,
    tags,
    summary: "A month's state, its closes (each with the SHA-256 of the reports it kept) and its deadlines",
    request: { params: PeriodParam },
    responses: { 200: jsonResponse("The month", dataOnly(FiscalPeriod)), ...commonErrors },
  },
);
export const getFiscalPeriod: AppRouteHandler<typeof getFiscalPeriodRoute> = async (c) =>
  c.json({ data: await periods.getPeriod(c.var.db, c.var.scope.tenantId, c.req.valid("param").period) }, 200);
fiscalPeriodsRouter.openapi(getFiscalPeriodRoute, getFiscalPeriod);

const closeFiscalPeriodRoute = defineRoute(
  { permission: "fiscal_periods:close", level: "company" },
  {
    method: "post",
    path: `${V1}/fiscal-periods/{period}/close`,
    tags,
    summary: "Close a month once its returns are filed: nothing may be written into it any more, and its 606, 607 and 608 are kept as they are now",
    request: { params: PeriodParam },
    responses: {
      200: jsonResponse("Closed", dataWithMessage(FiscalPeriod)),
      409: errorResponse("period_closed: the month is closed already; conflict: e-CF of the month still await DGII's answer"),
      ...commonErrors,
    },
  },
);
export const closeFiscalPeriod: AppRouteHandler<typeof closeFiscalPeriodRoute> = async (c) => {
  const { period } = c.req.valid("param");
  const data = await periods.closePeriod(c.var.db, c.var.scope.tenantId, requireAuth(c).userId, period);
  return c.json({ data, message: `${period} is closed: its reports are kept as they are now.` }, 200);
};
fiscalPeriodsRouter.openapi(closeFiscalPeriodRoute, closeFiscalPeriod);

const reopenFiscalPeriodRoute = defineRoute("authenticated", {
  method: "delete",
  path: `${V1}/fiscal-periods/{period}/close`,
  tags,
  summary: "Re-open a closed month (to file an amended return), with the reason; its next close keeps a new version beside this one",
  "x-access-note": "the company's owner only (403 `company_forbidden` otherwise)",
  request: { params: PeriodParam, ...jsonBody(ReopenBody) },
  responses: {
    200: jsonResponse("Re-opened", dataWithMessage(FiscalPeriod)),
    409: errorResponse("conflict: the month is not closed"),
    ...commonErrors,
  },
});
export const reopenFiscalPeriod: AppRouteHandler<typeof reopenFiscalPeriodRoute> = async (c) => {
  const { period } = c.req.valid("param");
  const data = await periods.reopenPeriod(c.var.db, c.var.scope.tenantId, requireAuth(c).userId, period, c.req.valid("json").reason);
  return c.json({ data, message: `${period} is open again.` }, 200);
};
fiscalPeriodsRouter.openapi(reopenFiscalPeriodRoute, reopenFiscalPeriod);

const getPeriodSnapshotRoute = defineRoute(
  { permission: "reports:view" },
  {
    method: "get",
    path: `${V1}/fiscal-periods/{period}/snapshot`,
    tags,
    summary: "A report as a close of the month kept it (the latest close, or `version`), byte for byte",
    request: { params: PeriodParam, query: SnapshotQuery },
    responses: {
      200: {
        description: "The bytes kept; X-Content-SHA256 is their SHA-256",
        content: { "text/plain": { schema: z.string() }, "application/json": { schema: z.object({}).passthrough() } },
      },
      ...errorResponses(404),
      ...commonErrors,
    },
  },
);
export const getPeriodSnapshot: AppRouteHandler<typeof getPeriodSnapshotRoute> = async (c) => {
  const { period } = c.req.valid("param");
  const { report, format, version } = c.req.valid("query");
  const kept = await periods.periodSnapshot(c.var.db, c.var.scope.tenantId, period, report, format, version);
  const headers = { "Content-Type": kept.contentType, "X-Content-SHA256": kept.sha256, "X-Fiscal-Period-Version": String(kept.version) };
  return c.body(kept.body, 200, headers) as unknown as TypedResponse<string, 200, "text">;
};
fiscalPeriodsRouter.openapi(getPeriodSnapshotRoute, getPeriodSnapshot);
