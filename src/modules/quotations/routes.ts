import { z } from "@hono/zod-openapi";
import { idempotencyHeader, idempotent } from "../../http/idempotency";
import { type AppRouteHandler, commonErrors, createRouter, defineRoute, errorResponses, IdParam, jsonBody, jsonResponse, V1 } from "../../http/openapi";
import { paginate, paginated } from "../../http/pagination";
import { hasPermission } from "../../http/permissions";
import { dataOnly, MessageResponse } from "../../http/schemas";
import { dominicanToday } from "../../lib/dates";
import { AppError } from "../../lib/errors";
import { deletedEventData, emitEvent } from "../events/service";
import { invoiceContext } from "../invoices/context";
import { invoiceEventData } from "../invoices/json";
import { renderDocumentPdf } from "../sales/pdf";
import {
  BulkPdfBody,
  ConvertedQuotation,
  ConvertQuotationBody,
  CreatedQuotation,
  CreateQuotationBody,
  QuotationDetail,
  QuotationListQuery,
  QuotationSummary,
  UpdatedQuotation,
  UpdateQuotationBody,
} from "./schemas";
import * as quotations from "./service";
import { pdfZipStream } from "./zip";

export const quotationsRouter = createRouter();
const tags = ["Quotations"];

const pdfResponse = { description: "PDF", content: { "application/pdf": { schema: z.string().openapi({ format: "binary" }) } } };

// Registered before the /quotations/{id}/… routes so that "bulk" is never read as an id.
const bulkPdfRoute = defineRoute(
  { permission: "quotations:view" },
  {
    method: "post",
    path: `${V1}/quotations/bulk/pdf`,
    tags,
    summary: "A ZIP of the PDFs of 1 to 100 quotations, streamed as each PDF is rendered",
    description: "At most 100 ids and 5,000 lines across the chosen quotations (repeated ids counted once); more → 422 naming `quotation_ids`.",
    request: jsonBody(BulkPdfBody),
    responses: {
      200: { description: "ZIP of <document_number>.pdf files", content: { "application/zip": { schema: z.string().openapi({ format: "binary" }) } } },
      ...commonErrors,
    },
  },
);
export const bulkPdf: AppRouteHandler<typeof bulkPdfRoute> = async (c) => {
  // Every database read happens here, inside the request's transaction; the stream below only renders.
  const documents = await quotations.bulkPdfData(c.var.db, c.var.scope, c.req.valid("json").quotation_ids);
  const zip = pdfZipStream(documents, { requestId: c.get("requestId") });
  return c.body(zip, 200, {
    "Content-Type": "application/zip",
    "Content-Disposition": `attachment; filename="cotizaciones.zip"`,
  });
};
quotationsRouter.openapi(bulkPdfRoute, bulkPdf);

const listQuotationsRoute = defineRoute(
  { permission: "quotations:view" },
  {
    method: "get",
    path: `${V1}/quotations`,
    tags,
    summary: "Quotations of the request's workspace (without lines)",
    request: { query: QuotationListQuery },
    responses: { 200: jsonResponse("Quotations", paginated(QuotationSummary)), ...commonErrors },
  },
);
export const listQuotations: AppRouteHandler<typeof listQuotationsRoute> = async (c) => {
  const query = c.req.valid("query");
  const { data, total } = await quotations.listQuotations(c.var.db, c.var.scope, query);
  return c.json(paginate(c, query, total, data), 200);
};
quotationsRouter.openapi(listQuotationsRoute, listQuotations);

const getQuotationRoute = defineRoute(
  { permission: "quotations:view" },
  {
    method: "get",
    path: `${V1}/quotations/{id}`,
    tags,
    summary: "A quotation with its contact and lines",
    request: { params: IdParam },
    responses: { 200: jsonResponse("Quotation", dataOnly(QuotationDetail)), ...errorResponses(404), ...commonErrors },
  },
);
export const getQuotation: AppRouteHandler<typeof getQuotationRoute> = async (c) =>
  c.json({ data: await quotations.getQuotation(c.var.db, c.var.scope, c.req.valid("param").id) }, 200);
quotationsRouter.openapi(getQuotationRoute, getQuotation);

const createQuotationRoute = defineRoute(
  { permission: "quotations:create" },
  {
    method: "post",
    path: `${V1}/quotations`,
    tags,
    summary: "Create a draft quotation numbered from a quotation subtype (no effect on stock)",
    request: { headers: idempotencyHeader, ...jsonBody(CreateQuotationBody) },
    responses: { 201: jsonResponse("Quotation created", CreatedQuotation), ...commonErrors },
  },
);
export const createQuotation: AppRouteHandler<typeof createQuotationRoute> = async (c) => {
  const db = c.var.db;
  const input = c.req.valid("json");
  return idempotent(c, db, async () => {
    const created = await quotations.createQuotation(db, c.var.scope, input, dominicanToday());
    const { id, workspace_id, contact_id, document_subtype_id, document_number, issue_date, due_date, status, total_amount, created_at } = created;
    return {
      status: 201,
      body: {
        data: { id, workspace_id, contact_id, document_subtype_id, document_number, issue_date, due_date, status, total_amount, created_at },
        message: "Quotation created.",
      },
    };
  });
};
quotationsRouter.openapi(createQuotationRoute, createQuotation);

const updateQuotationRoute = defineRoute(
  { permission: "quotations:edit" },
  {
    method: "patch",
    path: `${V1}/quotations/{id}`,
    tags,
    summary: "Change a quotation in draft or sent (lines and totals follow)",
    description: "The document subtype (and so the number) of a quotation cannot change: a document_subtype_id other than its own is a 422 on it.",
    request: { params: IdParam, ...jsonBody(UpdateQuotationBody) },
    responses: { 200: jsonResponse("Quotation updated", UpdatedQuotation), ...errorResponses(404, 409), ...commonErrors },
  },
);
export const updateQuotation: AppRouteHandler<typeof updateQuotationRoute> = async (c) => {
  const data = await quotations.updateQuotation(c.var.db, c.var.scope, c.req.valid("param").id, c.req.valid("json"), dominicanToday());
  return c.json({ data, message: "Quotation updated." }, 200);
};
quotationsRouter.openapi(updateQuotationRoute, updateQuotation);

const deleteQuotationRoute = defineRoute(
  { permission: "quotations:delete" },
  {
    method: "delete",
    path: `${V1}/quotations/{id}`,
    tags,
    summary: "Delete a quotation in draft or sent",
    request: { params: IdParam },
    responses: { 200: jsonResponse("Quotation deleted", MessageResponse), ...errorResponses(404, 409), ...commonErrors },
  },
);
export const deleteQuotation: AppRouteHandler<typeof deleteQuotationRoute> = async (c) => {
  const id = c.req.valid("param").id;
  await quotations.deleteQuotation(c.var.db, c.var.scope, id);
  // It leaves the list: the event tells a syncing client (docs/api.md, Deletions).
  await emitEvent(c, "quotation.deleted", c.var.scope.workspaceId, deletedEventData(id, c.var.scope.workspaceId));
  return c.json({ message: "Quotation deleted." }, 200);
};
quotationsRouter.openapi(deleteQuotationRoute, deleteQuotation);

const transitionSummaries: Record<quotations.TransitionAction, string> = {
  send: "Mark a draft quotation as sent",
  approve: "Approve a sent quotation",
  reject: "Reject a sent quotation",
  cancel: "Cancel a quotation in draft, sent or approved",
};

/** The same endpoint for each transition (send, approve, reject, cancel): declared once, built per action below. */
function transitionEndpoint(action: quotations.TransitionAction) {
  const transitionQuotationRoute = defineRoute(
    { permission: "quotations:edit" },
    {
      method: "post",
      path: `${V1}/quotations/{id}/${action}`,
      tags,
      summary: transitionSummaries[action],
      request: { params: IdParam },
      responses: { 200: jsonResponse("Quotation", z.object({ data: QuotationSummary, message: z.string() })), ...errorResponses(404, 409), ...commonErrors },
    },
  );
  const transitionQuotation: AppRouteHandler<typeof transitionQuotationRoute> = async (c) => {
    const data = await quotations.transitionQuotation(c.var.db, c.var.scope, c.req.valid("param").id, action);
    return c.json({ data, message: `Quotation ${quotations.TRANSITIONS[action].verb}.` }, 200);
  };
  return { transitionQuotationRoute, transitionQuotation };
}

/** One per action of quotations.TRANSITIONS, in its order (quotationTransitions.approve.transitionQuotation). */
export const quotationTransitions = {
  send: transitionEndpoint("send"),
  approve: transitionEndpoint("approve"),
  reject: transitionEndpoint("reject"),
  cancel: transitionEndpoint("cancel"),
} satisfies Record<quotations.TransitionAction, ReturnType<typeof transitionEndpoint>>;
for (const { transitionQuotationRoute, transitionQuotation } of Object.values(quotationTransitions)) {
  quotationsRouter.openapi(transitionQuotationRoute, transitionQuotation);
}

const convertQuotationRoute = defineRoute(
  { permission: "quotations:edit" },
  {
    method: "post",
    path: `${V1}/quotations/{id}/convert-to-invoice`,
    tags,
    summary: "Convert a quotation into an invoice: NCF, stock and email as for any invoice; once only",
    "x-access-note": "and `invoices:create`",
    request: { params: IdParam, body: { content: { "application/json": { schema: ConvertQuotationBody } }, required: false } },
    responses: { 201: jsonResponse("Invoice created from the quotation", ConvertedQuotation), ...errorResponses(404, 409), ...commonErrors },
  },
);
export const convertQuotation: AppRouteHandler<typeof convertQuotationRoute> = async (c) => {
  if (!hasPermission(c, "invoices:create")) throw new AppError("forbidden", "This action requires the invoices:create permission.");
  const input = c.req.valid("json") ?? {};
  const db = c.var.db;
  const id = c.req.valid("param").id;
  const data = await quotations.convertQuotation(db, c.var.scope, id, input, invoiceContext(c));
  // The invoice is created like any other (invoice.created), then the quotation says which invoice it became.
  await emitEvent(c, "invoice.created", c.var.scope.workspaceId, invoiceEventData(c.var.scope, data.invoice_id));
  await emitEvent(c, "quotation.converted", c.var.scope.workspaceId, () => quotations.getQuotation(db, c.var.scope, id));
  return c.json({ message: `Quotation converted into invoice ${data.document_number}.`, redirect_url: `/invoices/${data.invoice_id}`, data }, 201);
};
quotationsRouter.openapi(convertQuotationRoute, convertQuotation);

const getQuotationPdfRoute = defineRoute(
  { permission: "quotations:view" },
  {
    method: "get",
    path: `${V1}/quotations/{id}/pdf`,
    tags,
    summary: "The quotation as a PDF",
    request: { params: IdParam },
    responses: { 200: pdfResponse, ...errorResponses(404), ...commonErrors },
  },
);
export const getQuotationPdf: AppRouteHandler<typeof getQuotationPdfRoute> = async (c) => {
  const [doc] = await quotations.quotationPdfData(c.var.db, c.var.scope, [c.req.valid("param").id]);
  if (!doc) throw new AppError("not_found", "Quotation not found.");
  const bytes = await renderDocumentPdf(doc.pdf);
  return c.body(bytes, 200, {
    "Content-Type": "application/pdf",
    "Content-Disposition": `attachment; filename="${doc.documentNumber}.pdf"`,
  });
};
quotationsRouter.openapi(getQuotationPdfRoute, getQuotationPdf);
