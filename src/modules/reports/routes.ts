import { z } from "@hono/zod-openapi";
import type { Context, TypedResponse } from "hono";
import type { AppEnv } from "../../http/context";
import { type AppRouteHandler, commonErrors, createRouter, defineRoute, jsonResponse, V1 } from "../../http/openapi";
import { streamedBody } from "../../http/stream";
import { annulments608 } from "./annulments608";
import { type Ir17, ir17Report } from "./ir17";
import { type It1, it1Report } from "./it1";
import { renderIt1Pdf } from "./it1-pdf";
import { purchases606 } from "./purchases606";
import { salesSummary } from "./sales-summary";
import { sales607 } from "./sales607";
import {
  IR17_READING_DEFAULTS,
  Ir17Json,
  Ir17Query,
  IT1_READING_DEFAULTS,
  It1Json,
  It1Query,
  Report606,
  Report607,
  Report607Query,
  Report608,
  ReportQuery,
  SalesSummary,
  SalesSummaryQuery,
} from "./schemas";
import { openReport, periodOf, type ReportSource } from "./service";
import { type SnapshotReport, storedSnapshot } from "./snapshots";
import { jsonChunks, txtChunks } from "./writer";

export const reportsRouter = createRouter();
const tags = ["Reports"];

const reportResponses = (what: string, json: z.ZodType) => ({
  200: {
    description: `${what}: DGII's TXT (text/plain), or with format=json the same rows as JSON`,
    content: { "text/plain": { schema: z.string() }, "application/json": { schema: json } },
  },
  ...commonErrors,
});

/**
 * Opens the report and answers with its body streamed page by page from the request transaction.
 * Typed as the text answer the route declares: a streamed body is not a string the typing can see.
 */
async function answer<Row extends Record<string, string>, Query extends ReportQuery>(
  c: Context<AppEnv>,
  source: ReportSource<Row, Query>,
  query: Query,
): Promise<TypedResponse<string, 200, "text">> {
  // A closed period's file is the one kept at its close (docs/reports.md, "Closing the month"), byte
  // for byte; a branch's review (workspace_id) is not a filed file and is read from the books.
  if (query.workspace_id === undefined) {
    const key = (source.format === "607" && (query as { include_ecf?: boolean }).include_ecf ? "607-ecf" : source.format) as SnapshotReport;
    const kept = await storedSnapshot(c.var.db, c.var.scope.tenantId, periodOf(query.period).text, key, query.format);
    if (kept) {
      const headers: Record<string, string> = {
        "Content-Type": kept.contentType,
        "X-Content-SHA256": kept.sha256,
        "X-Fiscal-Period-Version": String(kept.version),
      };
      if (query.format === "txt") {
        const rnc = /^[^|]*\|([^|]*)\|/.exec(kept.body)?.[1] ?? "";
        headers["Content-Disposition"] = `attachment; filename="DGII_F_${source.format}_${rnc}_${query.period}.TXT"`;
      }
      const response = c.req.raw.method === "HEAD" ? c.body(null, 200, headers) : c.body(kept.body, 200, headers);
      return response as unknown as TypedResponse<string, 200, "text">;
    }
  }
  const report = await openReport(c.var.db, c.var.scope.tenantId, source, query);
  const chunks = query.format === "json" ? jsonChunks(report) : txtChunks(report, source.columns);
  const headers: Record<string, string> = { "Content-Type": chunks.contentType };
  // DGII's tool names its files DGII_F_<format>_<RNC>_<period>.TXT.
  if (query.format === "txt")
    headers["Content-Disposition"] = `attachment; filename="DGII_F_${source.format}_${report.header.rnc}_${report.header.period}.TXT"`;
  const body = streamedBody(c, chunks.first, chunks.next);
  const response = body ? c.body(body, 200, headers) : c.body(null, 200, headers);
  return response as unknown as TypedResponse<string, 200, "text">;
}

/**
 * A DGII format's endpoint (606, 607, 608): the same query, access and answer for each; declared once
 * here and built per format below, its source giving the rows (dgiiFormats.sales607.downloadFormat).
 */
function formatEndpoint<Row extends Record<string, string>, Query extends ReportQuery>(
  source: ReportSource<Row, Query>,
  json: z.ZodType,
  summary: string,
  query: z.ZodType = ReportQuery,
) {
  const downloadFormatRoute = defineRoute(
    { permission: "reports:view" },
    {
      method: "get",
      path: `${V1}/reports/${source.format}`,
      tags,
      summary,
      request: { query: query as typeof ReportQuery },
      responses: reportResponses(`Formato ${source.format}`, json),
    },
  );
  const downloadFormat: AppRouteHandler<typeof downloadFormatRoute> = (c) => answer(c, source, c.req.valid("query") as Query);
  return { downloadFormatRoute, downloadFormat };
}

/** One per DGII format, in the order they are mounted. */
export const dgiiFormats = {
  purchases606: formatEndpoint(purchases606, Report606, "DGII's Formato 606 (purchases of goods and services) of a month, for the whole company"),
  sales607: formatEndpoint(sales607, Report607, "DGII's Formato 607 (sales of goods and services) of a month, for the whole company", Report607Query),
  annulments608: formatEndpoint(annulments608, Report608, "DGII's Formato 608 (annulled NCFs) of a month, for the whole company"),
};
for (const { downloadFormatRoute, downloadFormat } of Object.values(dgiiFormats)) reportsRouter.openapi(downloadFormatRoute, downloadFormat);

const getSalesSummaryRoute = defineRoute(
  { permission: "reports:view" },
  {
    method: "get",
    path: `${V1}/reports/sales-summary`,
    tags,
    summary: "Sales of a date range in DOP (invoices, less credit notes, plus debit notes), grouped by workspace, NCF type or day",
    request: { query: SalesSummaryQuery },
    responses: { 200: jsonResponse("The groups and their totals", z.object({ data: SalesSummary })), ...commonErrors },
  },
);
export const getSalesSummary: AppRouteHandler<typeof getSalesSummaryRoute> = async (c) =>
  c.json({ data: await salesSummary(c.var.db, c.var.scope, c.req.valid("query")) }, 200);
reportsRouter.openapi(getSalesSummaryRoute, getSalesSummary);

/**
 * A closed period's IT-1 or IR-17 as its close kept it, when the request gives no figures of its own
 * (with inputs, it is computed again: the locked month's documents give the same figures).
 */
async function keptSnapshot(c: Context<AppEnv>, report: "it1" | "ir17", query: { period: string }) {
  // A reading at its default is no input: the close kept the IT-1 and the IR-17 computed with the
  // defaults (../shared/MONTHLY-CLOSE.md §5, §7); another reading, like any input or an IT-1's
  // deductible_as other than goods, is computed again from the locked month, never the kept JSON.
  const readings: Record<string, unknown> = report === "it1" ? IT1_READING_DEFAULTS : IR17_READING_DEFAULTS;
  const defaultReading = (name: string, value: unknown) => name in readings && readings[name] === value;
  const given = (name: string, value: unknown) => !["period", "deductible_as", "format"].includes(name) && !defaultReading(name, value);
  const inputs = Object.entries(query).some(([name, value]) => given(name, value) && value !== undefined);
  const defaults = !inputs && (report !== "it1" || (query as { deductible_as?: string }).deductible_as === "goods");
  return defaults ? await storedSnapshot(c.var.db, c.var.scope.tenantId, periodOf(query.period).text, report, "json") : null;
}

async function keptOrComputed(c: Context<AppEnv>, report: "it1" | "ir17", query: { period: string }, compute: () => Promise<unknown>) {
  const kept = await keptSnapshot(c, report, query);
  if (kept) {
    return c.body(kept.body, 200, {
      "Content-Type": kept.contentType,
      "X-Content-SHA256": kept.sha256,
      "X-Fiscal-Period-Version": String(kept.version),
    }) as unknown as TypedResponse<unknown, 200, "json">;
  }
  return c.json(await compute(), 200) as unknown as TypedResponse<unknown, 200, "json">;
}

/**
 * A report computed with the request's figures. A closed period's locked documents give the figures
 * its close kept; its RNC and razón social are the ones its close kept too, not today's profile (a
 * report kept before the razón social was kept has none, and says so: never today's name).
 */
async function asKept<Report extends It1 | Ir17>(c: Context<AppEnv>, report: "it1" | "ir17", computed: Report): Promise<Report> {
  const kept = await storedSnapshot(c.var.db, c.var.scope.tenantId, computed.period, report, "json");
  if (!kept) return computed;
  const { rnc, legal_name } = JSON.parse(kept.body) as Report;
  return { ...computed, rnc, legal_name };
}

const computedIt1 = async (c: Context<AppEnv>, query: It1Query): Promise<It1> => asKept(c, "it1", await it1Report(c.var.db, c.var.scope.tenantId, query));

/**
 * The IT-1 as a PDF laid out like DGII's form: drawn from the very JSON the route answers (a closed
 * period's from its snapshot, so its figures and its razón social never move after the close;
 * X-Content-SHA256 is left out: the kept bytes are the JSON's, not these).
 */
async function it1Pdf(c: Context<AppEnv>, query: It1Query) {
  const kept = await keptSnapshot(c, "it1", query);
  const report = kept ? (JSON.parse(kept.body) as It1) : await computedIt1(c, query);
  const bytes = await renderIt1Pdf(report);
  const headers: Record<string, string> = {
    "Content-Type": "application/pdf",
    "Content-Disposition": `attachment; filename="IT-1_${report.rnc}_${report.period}.pdf"`,
  };
  if (kept) headers["X-Fiscal-Period-Version"] = String(kept.version);
  return c.body(bytes, 200, headers);
}

const getIt1Route = defineRoute(
  { permission: "reports:view" },
  {
    method: "get",
    path: `${V1}/reports/it1`,
    tags,
    summary:
      "DGII's IT-1 with its Anexo A (2020 edition) of a month, casilla by casilla, from the period's 607 and 606; what the books cannot know is given by casilla",
    request: { query: It1Query },
    responses: {
      200: {
        description: "The IT-1's casillas (JSON), or with format=pdf the IT-1 and its Anexo A laid out like DGII's form",
        content: { "application/json": { schema: It1Json }, "application/pdf": { schema: z.string().openapi({ format: "binary" }) } },
      },
      ...commonErrors,
    },
  },
);
export const getIt1: AppRouteHandler<typeof getIt1Route> = async (c) => {
  const query = c.req.valid("query");
  if (query.format === "pdf") return (await it1Pdf(c, query)) as never;
  return keptOrComputed(c, "it1", query, () => computedIt1(c, query)) as never;
};
reportsRouter.openapi(getIt1Route, getIt1);

const getIr17Route = defineRoute(
  { permission: "reports:view" },
  {
    method: "get",
    path: `${V1}/reports/ir17`,
    tags,
    summary:
      "DGII's IR-17 of a month: the ISR withheld from suppliers by concept, with the rates in force, from the purchases withheld in it as the 606 reports them (payroll out of scope)",
    request: { query: Ir17Query },
    responses: { 200: jsonResponse("The IR-17's casillas", Ir17Json), ...commonErrors },
  },
);
export const getIr17: AppRouteHandler<typeof getIr17Route> = async (c) => {
  const query = c.req.valid("query");
  return keptOrComputed(c, "ir17", query, async () => asKept(c, "ir17", await ir17Report(c.var.db, c.var.scope.tenantId, query))) as never;
};
reportsRouter.openapi(getIr17Route, getIr17);
