import { z } from "@hono/zod-openapi";
import { config } from "../../env";
import { idempotencyHeader, idempotent } from "../../http/idempotency";
import { type AppRouteHandler, commonErrors, createRouter, defineRoute, errorResponses, IdParam, jsonBody, jsonResponse, V1 } from "../../http/openapi";
import { paginate, paginated } from "../../http/pagination";
import { dataOnly, MessageResponse } from "../../http/schemas";
import { idParam } from "../../lib/bounds";
import { dominicanToday } from "../../lib/dates";
import { isElectronicNumber } from "../../lib/ncf";
import { printedEcf } from "../ecf/documents";
import { emitEcfTransitionEvent } from "../ecf/transitions";
import { deletedEventData, emitEvent } from "../events/service";
import { renderDocumentPdf } from "../sales/pdf";
import { CreatePaymentBody } from "../sales/schemas";
import * as changes from "./changes";
import * as enter from "./enter";
import * as payments from "./payments";
import {
  CreatePurchaseBody,
  PurchaseDetail,
  PurchaseListQuery,
  PurchasePayment,
  PurchaseSummary,
  UpdatePurchaseBody,
  VoidPurchaseBody,
  WrittenPurchase,
} from "./schemas";
import * as purchases from "./service";

export const purchasesRouter = createRouter();
const tags = ["Purchases"];

const written = (result: enter.WrittenPurchase, message: string) => ({ data: result.purchase, message, warnings: result.warnings });

const listPurchasesRoute = defineRoute(
  { permission: "purchases:view" },
  {
    method: "get",
    path: `${V1}/purchases`,
    tags,
    summary: "Purchases of the request's workspace (without lines and payments)",
    request: { query: PurchaseListQuery },
    responses: { 200: jsonResponse("Purchases", paginated(PurchaseSummary)), ...commonErrors },
  },
);
export const listPurchases: AppRouteHandler<typeof listPurchasesRoute> = async (c) => {
  const query = c.req.valid("query");
  const { data, total } = await purchases.listPurchases(c.var.db, c.var.scope, query);
  return c.json(paginate(c, query, total, data), 200);
};
purchasesRouter.openapi(listPurchasesRoute, listPurchases);

const getPurchaseRoute = defineRoute(
  { permission: "purchases:view" },
  {
    method: "get",
    path: `${V1}/purchases/{id}`,
    tags,
    summary: "A purchase with its supplier, lines and payments",
    request: { params: IdParam },
    responses: { 200: jsonResponse("Purchase", dataOnly(PurchaseDetail)), ...errorResponses(404), ...commonErrors },
  },
);
export const getPurchase: AppRouteHandler<typeof getPurchaseRoute> = async (c) =>
  c.json({ data: await purchases.getPurchase(c.var.db, c.var.scope, c.req.valid("param").id) }, 200);
purchasesRouter.openapi(getPurchaseRoute, getPurchase);

const createPurchaseRoute = defineRoute(
  { permission: "purchases:create" },
  {
    method: "post",
    path: `${V1}/purchases`,
    tags,
    summary: "Enter a supplier's bill (stock and cost of its products) or a document the company issues (B11/B13/B17), or a draft",
    request: { headers: idempotencyHeader, ...jsonBody(CreatePurchaseBody) },
    responses: { 201: jsonResponse("Purchase entered or draft created", WrittenPurchase), ...errorResponses(409), ...commonErrors },
  },
);
export const createPurchase: AppRouteHandler<typeof createPurchaseRoute> = async (c) => {
  const db = c.var.db;
  const input = c.req.valid("json");
  return idempotent(c, db, async () => {
    const result = await enter.createPurchase(db, c.var.scope, input, dominicanToday(), {
      encryptionKey: config(c.env).APP_ENCRYPTION_KEY,
      ecfSigned: (subject) => emitEcfTransitionEvent(c, subject, "signed"),
    });
    if (result.ecfId !== null) c.var.ecf.push(result.ecfId);
    return { status: 201, body: written(result, input.status === "draft" ? "Draft created." : "Purchase entered.") };
  });
};
purchasesRouter.openapi(createPurchaseRoute, createPurchase);

const updatePurchaseRoute = defineRoute(
  { permission: "purchases:edit" },
  {
    method: "patch",
    path: `${V1}/purchases/{id}`,
    tags,
    summary: "Change a draft purchase (409 purchase_not_draft once entered)",
    request: { params: IdParam, ...jsonBody(UpdatePurchaseBody) },
    responses: { 200: jsonResponse("Draft updated", WrittenPurchase), ...errorResponses(404, 409), ...commonErrors },
  },
);
export const updatePurchase: AppRouteHandler<typeof updatePurchaseRoute> = async (c) => {
  const result = await changes.updatePurchase(c.var.db, c.var.scope, c.req.valid("param").id, c.req.valid("json"), dominicanToday());
  return c.json(written(result, "Draft updated."), 200);
};
purchasesRouter.openapi(updatePurchaseRoute, updatePurchase);

const enterPurchaseRoute = defineRoute(
  { permission: "purchases:create" },
  {
    method: "post",
    path: `${V1}/purchases/{id}/enter`,
    tags,
    summary: "Enter a draft: its number, stock and cost are taken now, with the checks of POST /purchases",
    request: { params: IdParam },
    responses: { 200: jsonResponse("Purchase entered", WrittenPurchase), ...errorResponses(404, 409), ...commonErrors },
  },
);
export const enterPurchase: AppRouteHandler<typeof enterPurchaseRoute> = async (c) => {
  const result = await enter.enterDraft(c.var.db, c.var.scope, c.req.valid("param").id, dominicanToday(), {
    encryptionKey: config(c.env).APP_ENCRYPTION_KEY,
    ecfSigned: (subject) => emitEcfTransitionEvent(c, subject, "signed"),
  });
  if (result.ecfId !== null) c.var.ecf.push(result.ecfId);
  return c.json(written(result, "Purchase entered."), 200);
};
purchasesRouter.openapi(enterPurchaseRoute, enterPurchase);

const deletePurchaseRoute = defineRoute(
  { permission: "purchases:delete" },
  {
    method: "delete",
    path: `${V1}/purchases/{id}`,
    tags,
    summary: "Delete a draft, or void an entered purchase with a reason (its stock leaves again, its cost is taken out of the average)",
    request: { params: IdParam, body: { content: { "application/json": { schema: VoidPurchaseBody } }, required: false } },
    responses: { 200: jsonResponse("Purchase deleted or voided", MessageResponse), ...errorResponses(404, 409), ...commonErrors },
  },
);
export const deletePurchase: AppRouteHandler<typeof deletePurchaseRoute> = async (c) => {
  const id = c.req.valid("param").id;
  const done = await changes.deletePurchase(c.var.db, c.var.scope, id, c.req.valid("json").reason);
  // A deleted draft leaves the list (the event tells a syncing client); a voided purchase stays, its status changed.
  if (done === "deleted") await emitEvent(c, "purchase.deleted", c.var.scope.workspaceId, deletedEventData(id, c.var.scope.workspaceId));
  return c.json({ message: done === "deleted" ? "Draft deleted." : "Purchase voided." }, 200);
};
purchasesRouter.openapi(deletePurchaseRoute, deletePurchase);

const addPurchasePaymentRoute = defineRoute(
  { permission: "purchases:edit" },
  {
    method: "post",
    path: `${V1}/purchases/{id}/payments`,
    tags,
    summary: "Record a payment to the supplier (never more than what is due: total − withholdings − paid)",
    request: { params: IdParam, headers: idempotencyHeader, ...jsonBody(CreatePaymentBody) },
    responses: {
      201: jsonResponse("Payment recorded", z.object({ data: z.object({ payment: PurchasePayment, purchase: PurchaseSummary }), message: z.string() })),
      ...errorResponses(404, 409),
      ...commonErrors,
    },
  },
);
export const addPurchasePayment: AppRouteHandler<typeof addPurchasePaymentRoute> = async (c) => {
  const db = c.var.db;
  const id = c.req.valid("param").id;
  const input = c.req.valid("json");
  return idempotent(c, db, async () => ({
    status: 201,
    body: { data: await payments.addPurchasePayment(db, c.var.scope, id, input), message: "Payment recorded." },
  }));
};
purchasesRouter.openapi(addPurchasePaymentRoute, addPurchasePayment);

const deletePurchasePaymentRoute = defineRoute(
  { permission: "purchases:edit" },
  {
    method: "delete",
    path: `${V1}/purchases/{id}/payments/{payment_id}`,
    tags,
    summary: "Remove a payment; the purchase's status follows",
    request: { params: IdParam.extend({ payment_id: idParam("payment_id") }) },
    responses: {
      200: jsonResponse("Payment removed", z.object({ data: PurchaseSummary, message: z.string() })),
      ...errorResponses(404, 409),
      ...commonErrors,
    },
  },
);
export const deletePurchasePayment: AppRouteHandler<typeof deletePurchasePaymentRoute> = async (c) => {
  const { id, payment_id } = c.req.valid("param");
  return c.json({ data: await payments.deletePurchasePayment(c.var.db, c.var.scope, id, payment_id), message: "Payment removed." }, 200);
};
purchasesRouter.openapi(deletePurchasePaymentRoute, deletePurchasePayment);

const getPurchasePdfRoute = defineRoute(
  { permission: "purchases:view" },
  {
    method: "get",
    path: `${V1}/purchases/{id}/pdf`,
    tags,
    summary: "The receipt of a document the company issued about a purchase (B11, B13, B17; E41, E43, E47 with the e-CF's QR and security code) as a PDF",
    request: { params: IdParam },
    responses: {
      200: { description: "PDF", content: { "application/pdf": { schema: z.string().openapi({ format: "binary" }) } } },
      ...errorResponses(404, 409),
      ...commonErrors,
    },
  },
);
export const getPurchasePdf: AppRouteHandler<typeof getPurchasePdfRoute> = async (c) => {
  const { purchase, pdf } = await purchases.purchasePdfData(c.var.db, c.var.scope, c.req.valid("param").id);
  // An E41/E43/E47 prints its e-CF's timbre QR, security code and signature time (Norma 06-2018 and DGII's printed representation).
  if (isElectronicNumber(purchase.ncf)) pdf.ecf = (await printedEcf(c.var.db, { purchaseId: purchase.id }, config(c.env))) ?? undefined;
  return c.body(await renderDocumentPdf(pdf), 200, {
    "Content-Type": "application/pdf",
    "Content-Disposition": `attachment; filename="${purchase.ncf}.pdf"`,
  });
};
purchasesRouter.openapi(getPurchasePdfRoute, getPurchasePdf);
