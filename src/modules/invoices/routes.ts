import { z } from "@hono/zod-openapi";
import { config } from "../../env";
import { idempotencyHeader, idempotent } from "../../http/idempotency";
import {
  type AppRouteHandler,
  commonErrors,
  createRouter,
  defineRoute,
  errorResponse,
  errorResponses,
  IdParam,
  jsonBody,
  jsonResponse,
  V1,
} from "../../http/openapi";
import { jsonPage, paginated } from "../../http/pagination";
import { dataOnly, MessageResponse } from "../../http/schemas";
import { idParam } from "../../lib/bounds";
import { dominicanToday } from "../../lib/dates";
import { isElectronicNumber } from "../../lib/ncf";
import { printedEcf } from "../ecf/documents";
import { deletedEventData, emitEvent } from "../events/service";
import { renderDocumentPdf } from "../sales/pdf";
import { CreatePaymentBody } from "../sales/schemas";
import * as changes from "./changes";
import { invoiceContext } from "./context";
import * as issue from "./issue";
import { type InvoiceData, invoiceEventData, paymentEventData } from "./json";
import * as payments from "./payments";
import { cancellationNotes } from "./ports";
import {
  AnnulInvoiceBody,
  CreatedInvoice,
  CreateInvoiceBody,
  InvoiceDetail,
  InvoiceHistoryEntry,
  InvoiceListQuery,
  InvoiceSummary,
  InvoiceWithholdingsBody,
  IssueInvoiceBody,
  Payment,
  UpdateInvoiceBody,
} from "./schemas";
import * as invoices from "./service";

export const invoicesRouter = createRouter();
const tags = ["Invoices"];

const listInvoicesRoute = defineRoute(
  { permission: "invoices:view" },
  {
    method: "get",
    path: `${V1}/invoices`,
    tags,
    summary: "Invoices of the request's workspace (without lines and payments)",
    request: { query: InvoiceListQuery },
    responses: { 200: jsonResponse("Invoices", paginated(InvoiceSummary)), ...commonErrors },
  },
);
export const listInvoices: AppRouteHandler<typeof listInvoicesRoute> = async (c) => {
  const query = c.req.valid("query");
  const { dataJson, total } = await invoices.listInvoices(c.var.db, c.var.scope, query);
  return jsonPage<InvoiceData>(c, query, total, dataJson);
};
invoicesRouter.openapi(listInvoicesRoute, listInvoices);

const getInvoiceRoute = defineRoute(
  { permission: "invoices:view" },
  {
    method: "get",
    path: `${V1}/invoices/{id}`,
    tags,
    summary: "An invoice with its contact, lines, payments and salesmen",
    request: { params: IdParam },
    responses: { 200: jsonResponse("Invoice", dataOnly(InvoiceDetail)), ...errorResponses(404), ...commonErrors },
  },
);
export const getInvoice: AppRouteHandler<typeof getInvoiceRoute> = async (c) =>
  c.json({ data: await invoices.getInvoice(c.var.db, c.var.scope, c.req.valid("param").id) }, 200);
invoicesRouter.openapi(getInvoiceRoute, getInvoice);

const createInvoiceRoute = defineRoute(
  { permission: "invoices:create" },
  {
    method: "post",
    path: `${V1}/invoices`,
    tags,
    summary: "Issue an invoice (NCF, totals, stock and the customer's email), or with draft: true create a draft",
    request: { headers: idempotencyHeader, ...jsonBody(CreateInvoiceBody) },
    responses: {
      201: jsonResponse("Invoice issued or draft created", CreatedInvoice),
      409: errorResponse("contingency_ncf_used: the paper NCF named in replaces was replaced already"),
      ...commonErrors,
    },
  },
);
export const createInvoice: AppRouteHandler<typeof createInvoiceRoute> = async (c) => {
  const db = c.var.db;
  const input = c.req.valid("json");
  return idempotent(c, db, async () => {
    const written = await issue.createInvoice(db, c.var.scope, input, invoiceContext(c));
    await emitEvent(c, "invoice.created", written.workspace_id, invoiceEventData(c.var.scope, written.id));
    return { status: 201, body: createdBody(written, input.draft ? "Draft created." : "Invoice created.") };
  });
};
invoicesRouter.openapi(createInvoiceRoute, createInvoice);

/** The create and issue responses: the created fields, a message, and the remarks that did not refuse it. */
function createdBody(written: issue.WrittenInvoice, message: string) {
  const { id, workspace_id, contact_id, document_subtype_id, document_number, issue_date, due_date, status, total_amount, created_at } = written;
  return {
    data: { id, workspace_id, contact_id, document_subtype_id, document_number, issue_date, due_date, status, total_amount, created_at },
    message,
    warnings: written.warnings,
  };
}

const issueInvoiceRoute = defineRoute(
  { permission: "invoices:create" },
  {
    method: "post",
    path: `${V1}/invoices/{id}/issue`,
    tags,
    summary: "Issue a draft: its NCF, stock and email are taken now, with the checks of POST /invoices",
    request: { params: IdParam, body: { content: { "application/json": { schema: IssueInvoiceBody } }, required: false } },
    responses: { 200: jsonResponse("Invoice issued", CreatedInvoice), ...errorResponses(404, 409), ...commonErrors },
  },
);
export const issueInvoice: AppRouteHandler<typeof issueInvoiceRoute> = async (c) => {
  const db = c.var.db;
  const written = await issue.issueDraft(db, c.var.scope, c.req.valid("param").id, c.req.valid("json"), invoiceContext(c));
  // The draft's invoice.created was sent when it was saved: issuing it changes that invoice (docs/webhooks.md).
  await emitEvent(c, "invoice.updated", written.workspace_id, invoiceEventData(c.var.scope, written.id));
  return c.json(createdBody(written, "Invoice issued."), 200);
};
invoicesRouter.openapi(issueInvoiceRoute, issueInvoice);

const updateInvoiceRoute = defineRoute(
  { permission: "invoices:edit" },
  {
    method: "patch",
    path: `${V1}/invoices/{id}`,
    tags,
    summary: "Change an invoice pending payment (lines, stock and totals follow)",
    request: { params: IdParam, ...jsonBody(UpdateInvoiceBody) },
    responses: {
      200: jsonResponse(
        "Invoice updated",
        z.object({
          data: z.object({ id: z.number(), document_number: z.string().nullable(), total_amount: z.string(), updated_at: z.string() }),
          message: z.string(),
        }),
      ),
      ...errorResponses(404, 409),
      ...commonErrors,
    },
  },
);
export const updateInvoice: AppRouteHandler<typeof updateInvoiceRoute> = async (c) => {
  const db = c.var.db;
  const data = await changes.updateInvoice(db, c.var.scope, c.req.valid("param").id, c.req.valid("json"), invoiceContext(c));
  await emitEvent(c, "invoice.updated", c.var.scope.workspaceId, invoiceEventData(c.var.scope, data.id));
  return c.json({ data, message: "Invoice updated." }, 200);
};
invoicesRouter.openapi(updateInvoiceRoute, updateInvoice);

const deleteInvoiceRoute = defineRoute(
  { permission: "invoices:delete" },
  {
    method: "delete",
    path: `${V1}/invoices/{id}`,
    tags,
    summary: "Delete an invoice pending payment or in draft (stock returns; the NCF stays used and is recorded as annulled)",
    request: { params: IdParam, body: { content: { "application/json": { schema: AnnulInvoiceBody } }, required: false } },
    responses: { 200: jsonResponse("Invoice deleted", MessageResponse), ...errorResponses(404, 409), ...commonErrors },
  },
);
export const deleteInvoice: AppRouteHandler<typeof deleteInvoiceRoute> = async (c) => {
  const id = c.req.valid("param").id;
  const deleted = await changes.deleteInvoice(c.var.db, c.var.scope, id, c.req.valid("json").annulment_reason);
  // It leaves the lists: the event tells a syncing client (docs/api.md, Deletions).
  await emitEvent(c, "invoice.deleted", c.var.scope.workspaceId, deletedEventData(id, c.var.scope.workspaceId, { document_number: deleted.documentNumber }));
  return c.json({ message: "Invoice deleted." }, 200);
};
invoicesRouter.openapi(deleteInvoiceRoute, deleteInvoice);

const cancelInvoiceRoute = defineRoute(
  { permission: "invoices:edit" },
  {
    method: "post",
    path: `${V1}/invoices/{id}/cancel`,
    tags,
    summary:
      "Cancel an invoice pending payment (stock returns; the NCF stays used and is recorded as annulled; an e-CF is cancelled by an E34 credit note, one DGII rejected as void without one; 409 ecf_not_cancellable when DGII holds no valid copy)",
    request: { params: IdParam, body: { content: { "application/json": { schema: AnnulInvoiceBody } }, required: false } },
    responses: {
      200: jsonResponse("Invoice cancelled", z.object({ data: InvoiceSummary, message: z.string() })),
      ...errorResponses(404, 409),
      ...commonErrors,
    },
  },
);
export const cancelInvoice: AppRouteHandler<typeof cancelInvoiceRoute> = async (c) => {
  const db = c.var.db;
  const { invoice, creditNote, creditNoteId } = await changes.cancelInvoice(
    db,
    c.var.scope,
    c.req.valid("param").id,
    c.req.valid("json").annulment_reason,
    invoiceContext(c),
  );
  if (creditNoteId !== null)
    await emitEvent(c, "credit_note.created", invoice.workspace_id, () => cancellationNotes.use.eventData(db, c.var.scope, creditNoteId));
  await emitEvent(c, "invoice.cancelled", invoice.workspace_id, invoiceEventData(c.var.scope, invoice.id));
  return c.json({ data: invoice, message: creditNote ? `Invoice cancelled by credit note ${creditNote}.` : "Invoice cancelled." }, 200);
};
invoicesRouter.openapi(cancelInvoiceRoute, cancelInvoice);

const getInvoicePdfRoute = defineRoute(
  { permission: "invoices:view" },
  {
    method: "get",
    path: `${V1}/invoices/{id}/pdf`,
    tags,
    summary: "The invoice as a PDF",
    request: { params: IdParam },
    responses: {
      200: { description: "PDF", content: { "application/pdf": { schema: z.string().openapi({ format: "binary" }) } } },
      ...errorResponses(404),
      ...commonErrors,
    },
  },
);
export const getInvoicePdf: AppRouteHandler<typeof getInvoicePdfRoute> = async (c) => {
  const { invoice, pdf } = await invoices.invoicePdfData(c.var.db, { ...c.var.scope }, c.req.valid("param").id);
  // An e-CF prints its QR, security code and signature time (one more read, for e-CF only).
  if (isElectronicNumber(invoice.document_number)) {
    pdf.ecf = (await printedEcf(c.var.db, { invoiceId: invoice.id }, config(c.env), new URL(c.req.url).origin)) ?? undefined;
  }
  const bytes = await renderDocumentPdf(pdf);
  return c.body(bytes, 200, {
    "Content-Type": "application/pdf",
    "Content-Disposition": `attachment; filename="${invoice.document_number}.pdf"`,
  });
};
invoicesRouter.openapi(getInvoicePdfRoute, getInvoicePdf);

const getInvoiceHistoryRoute = defineRoute(
  { permission: "invoices:view" },
  {
    method: "get",
    path: `${V1}/invoices/{id}/history`,
    tags,
    summary: "An issued invoice's record (issue, updates, payments, cancel), oldest first: who, when, changed fields before and after",
    request: { params: IdParam },
    responses: { 200: jsonResponse("History", z.object({ data: z.array(InvoiceHistoryEntry) })), ...errorResponses(404), ...commonErrors },
  },
);
export const getInvoiceHistory: AppRouteHandler<typeof getInvoiceHistoryRoute> = async (c) => {
  const data = await invoices.getInvoiceHistory(c.var.db, c.var.scope, c.req.valid("param").id);
  return c.json({ data }, 200);
};
invoicesRouter.openapi(getInvoiceHistoryRoute, getInvoiceHistory);

const PaymentParams = IdParam.extend({
  payment_id: idParam("payment_id"),
});

const setWithholdingsRoute = defineRoute(
  { permission: "payments:create" },
  {
    method: "put",
    path: `${V1}/invoices/{id}/withholdings`,
    tags,
    summary: "Record what the buyer withheld (ITBIS, ISR) and paid to DGII: it settles the invoice as a payment does and goes to the 607",
    request: { params: IdParam, ...jsonBody(InvoiceWithholdingsBody) },
    responses: {
      200: jsonResponse("Withholdings recorded", z.object({ data: InvoiceSummary, message: z.string() })),
      ...errorResponses(404, 409),
      ...commonErrors,
    },
  },
);
export const setWithholdings: AppRouteHandler<typeof setWithholdingsRoute> = async (c) => {
  const id = c.req.valid("param").id;
  const { invoice, paidNow } = await payments.setWithholdings(c.var.db, c.var.scope, id, c.req.valid("json"), dominicanToday());
  await emitEvent(c, "invoice.updated", invoice.workspace_id, invoiceEventData(c.var.scope, id));
  if (paidNow) await emitEvent(c, "invoice.paid", invoice.workspace_id, invoiceEventData(c.var.scope, id));
  return c.json({ data: invoice, message: "Withholdings recorded." }, 200);
};
invoicesRouter.openapi(setWithholdingsRoute, setWithholdings);

const addPaymentRoute = defineRoute(
  { permission: "payments:create" },
  {
    method: "post",
    path: `${V1}/invoices/{id}/payments`,
    tags,
    summary: "Record a payment (never more than what is due)",
    request: { params: IdParam, headers: idempotencyHeader, ...jsonBody(CreatePaymentBody) },
    responses: {
      201: jsonResponse(
        "Payment recorded",
        z.object({
          data: z.object({ payment: Payment.omit({ bank_account: true }).extend({ bank_account_id: z.number().nullable() }), invoice: InvoiceSummary }),
          message: z.string(),
        }),
      ),
      ...errorResponses(404, 409),
      ...commonErrors,
    },
  },
);
export const addPayment: AppRouteHandler<typeof addPaymentRoute> = async (c) => {
  const db = c.var.db;
  const id = c.req.valid("param").id;
  const input = c.req.valid("json");
  return idempotent(c, db, async () => {
    const data = await payments.addPayment(db, c.var.scope, id, input);
    await emitEvent(c, "payment.received", data.invoice.workspace_id, paymentEventData(c.var.scope, id, data.payment.id));
    if (data.invoice.status === "paid") await emitEvent(c, "invoice.paid", data.invoice.workspace_id, invoiceEventData(c.var.scope, id));
    return { status: 201, body: { data, message: "Payment recorded." } };
  });
};
invoicesRouter.openapi(addPaymentRoute, addPayment);

const deletePaymentRoute = defineRoute(
  { permission: "payments:delete" },
  {
    method: "delete",
    path: `${V1}/invoices/{id}/payments/{payment_id}`,
    tags,
    summary: "Remove a payment; the invoice's status follows",
    request: { params: PaymentParams },
    responses: {
      200: jsonResponse("Payment removed", z.object({ data: InvoiceSummary, message: z.string() })),
      ...errorResponses(404, 409),
      ...commonErrors,
    },
  },
);
export const deletePayment: AppRouteHandler<typeof deletePaymentRoute> = async (c) => {
  const { id, payment_id } = c.req.valid("param");
  const data = await payments.deletePayment(c.var.db, c.var.scope, id, payment_id);
  await emitEvent(c, "invoice.updated", data.workspace_id, invoiceEventData(c.var.scope, id));
  return c.json({ data, message: "Payment removed." }, 200);
};
invoicesRouter.openapi(deletePaymentRoute, deletePayment);
