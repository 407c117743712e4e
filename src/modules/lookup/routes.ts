import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { config } from "../../env";
import type { AppEnv } from "../../http/context";
import { type AppRouteHandler, createRouter, defineRoute, ErrorBody, errorResponse, errorResponses } from "../../http/openapi";
import { guardLookup } from "../../http/rate-limit";
import { AppError } from "../../lib/errors";
import { LOOKUP_PATH } from "../ecf/documents";
import { renderDocumentPdf } from "../sales/pdf";
import { lookupHeaders } from "./headers";
import { lookupPage } from "./page";
import { type ConsumerInvoice, findConsumerInvoice, LOOKUP_INPUT_MAX, lookupNumber } from "./service";

/**
 * The consumer's lookup of an E32 on the tenant's host (issue 32; docs/ecf.md, "The consumer's
 * lookup"): a public HTML page and its downloads, no token. Limited per IP (an IPv6 client per /64)
 * and host as every anonymous request is (RATE_LIMIT_ANONYMOUS_PER_MINUTE, http/rate-limit.ts), and
 * per e-NCF: LOOKUP_FAILURES wrong codes lock it for the rest of a 15-minute window (guardLookup;
 * docs/security.md, "The consumer's lookup"). Every answer carries the headers of headers.ts.
 */
export const lookupRouter = createRouter();
const tags = ["Consumer lookup"];

const input = z.string().max(LOOKUP_INPUT_MAX).optional();
const LookupQuery = z.object({
  encf: input.openapi({ description: "The E32's e-NCF as printed on the receipt", example: "E320000000001" }),
  codigo: input.openapi({ description: "The security code printed on the receipt (6 characters)", example: "a1B2c3" }),
});
const DownloadParams = z.object({
  encf: z
    .string()
    .max(LOOKUP_INPUT_MAX)
    .openapi({ param: { name: "encf", in: "path" }, example: "E320000000001" }),
});
const DownloadQuery = z.object({ codigo: z.string().max(LOOKUP_INPUT_MAX).openapi({ description: "The receipt's security code", example: "a1B2c3" }) });

const html = (description: string) => ({ description, content: { "text/html": { schema: z.string() } } });
const NOT_FOUND = "No consumer invoice (E32) with this e-NCF and security code.";

/**
 * The E32 the request names, or null for any miss. A miss is counted against the e-NCF, and an
 * e-NCF locked by its misses answers every lookup as a miss, the right code included, after the
 * same query and comparison (findConsumerInvoice): to whoever lacks the code, a locked e-NCF is an
 * unknown one.
 */
async function lookUp(c: Context<AppEnv>, encf: string, code: string): Promise<ConsumerInvoice | null> {
  const tenantId = c.get("tenant").id;
  const number = lookupNumber(encf);
  const guard = number ? await guardLookup(c, tenantId, number) : null;
  const found = await findConsumerInvoice(c.var.db, tenantId, encf, code, config(c.env), new URL(c.req.url).origin, guard?.locked ?? false);
  if (!found) await guard?.recordFailure();
  return found;
}

/** A download's E32, or the one 404 every miss gets (unknown e-NCF, wrong code and a locked e-NCF alike). */
async function downloadable(c: Context<AppEnv>, encf: string, code: string): Promise<ConsumerInvoice> {
  lookupHeaders(c, "download");
  const found = await lookUp(c, encf, code);
  if (!found) throw new AppError("not_found", NOT_FOUND);
  return found;
}

const lookupRoute = defineRoute("public", {
  method: "get",
  path: LOOKUP_PATH,
  tags,
  summary:
    "The consumer's lookup page (HTML, no token): a form for the E32's e-NCF and security code; with both, the document (issuer, date, lines, totals, the QR) and links to its PDF and signed XML",
  description:
    "An unknown e-NCF, a wrong code and an e-NCF locked by 5 wrong codes in its 15-minute window get the same 404 page. Limited per IP (IPv6 per /64) and host (RATE_LIMIT_ANONYMOUS_PER_MINUTE): 429 beyond. Sent with a strict Content-Security-Policy, X-Frame-Options DENY, nosniff and no referrer.",
  request: { query: LookupQuery },
  responses: {
    200: html("The form, or the document found"),
    404: {
      description: "Any miss: to a browser (Accept: text/html) the form and the one not-found message; to other clients not_found",
      content: { "text/html": { schema: z.string() }, "application/json": { schema: ErrorBody } },
    },
    ...errorResponses(422, 429),
  },
});
export const lookup: AppRouteHandler<typeof lookupRoute> = async (c) => {
  lookupHeaders(c, "page");
  const { encf = "", codigo = "" } = c.req.valid("query");
  const searched = encf.trim() !== "" || codigo.trim() !== "";
  const found = searched ? await lookUp(c, encf, codigo) : null;
  // A browser gets the page again with the one message; a client that does not ask for HTML gets
  // the API's error body (the same for every miss, as the downloads').
  if (searched && !found && !/text\/html/i.test(c.req.header("accept") ?? "")) throw new AppError("not_found", NOT_FOUND);
  const page = lookupPage(c.get("tenant").name, { encf, code: codigo }, found, searched);
  return c.html(page, searched && !found ? 404 : 200, { "cache-control": "no-store" });
};
lookupRouter.openapi(lookupRoute, lookup);

const lookupPdfRoute = defineRoute("public", {
  method: "get",
  path: `${LOOKUP_PATH}/{encf}/pdf`,
  tags,
  summary: "The E32's PDF, for whoever holds its e-NCF and security code (the same 404 for an unknown e-NCF and a wrong code)",
  request: { params: DownloadParams, query: DownloadQuery },
  responses: {
    200: { description: "PDF", content: { "application/pdf": { schema: z.string().openapi({ format: "binary" }) } } },
    404: errorResponse("not_found: no E32 with this e-NCF and security code"),
    ...errorResponses(422, 429),
  },
});
export const lookupPdf: AppRouteHandler<typeof lookupPdfRoute> = async (c) => {
  const found = await downloadable(c, c.req.valid("param").encf, c.req.valid("query").codigo);
  return c.body(await renderDocumentPdf(found.pdf), 200, {
    "Content-Type": "application/pdf",
    "Content-Disposition": `attachment; filename="${found.encf}.pdf"`,
    "Cache-Control": "no-store",
  });
};
lookupRouter.openapi(lookupPdfRoute, lookupPdf);

const lookupXmlRoute = defineRoute("public", {
  method: "get",
  path: `${LOOKUP_PATH}/{encf}/xml`,
  tags,
  summary: "The E32's signed XML as issued, named RNCEmisor + e-NCF (the same 404 for an unknown e-NCF and a wrong code)",
  request: { params: DownloadParams, query: DownloadQuery },
  responses: {
    200: { description: "The signed e-CF", content: { "application/xml": { schema: z.string() } } },
    404: errorResponse("not_found: no E32 with this e-NCF and security code"),
    ...errorResponses(422, 429),
  },
});
export const lookupXml: AppRouteHandler<typeof lookupXmlRoute> = async (c) => {
  const found = await downloadable(c, c.req.valid("param").encf, c.req.valid("query").codigo);
  return c.body(found.xml, 200, {
    "Content-Type": "application/xml; charset=utf-8",
    "Content-Disposition": `attachment; filename="${found.issuerRnc}${found.encf}.xml"`,
    "Cache-Control": "no-store",
  });
};
lookupRouter.openapi(lookupXmlRoute, lookupXml);
