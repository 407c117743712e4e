import { z } from "@hono/zod-openapi";
import { config } from "../../env";
import { idempotencyHeader, idempotent } from "../../http/idempotency";
import { commonErrors, createRouter, defineRoute, errorResponses, IdParam, jsonBody, jsonResponse, V1 } from "../../http/openapi";
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
import { deletePurchase, updatePurchase } from "./changes";
import { createPurchase, enterDraft, type WrittenPurchase as Written } from "./enter";
import { addPurchasePayment, deletePurchasePayment } from "./payments";
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
import { getPurchase, listPurchases, purchasePdfData } from "./service";

export const purchasesRouter = createRouter();
const tags = ["Purchases"];

const written = (result: Written, message: string) => ({ data: result.purchase, message, warnings: result.warnings });

purchasesRouter.openapi(
  defineRoute(
    { permission: "purchases:view" },
    {
      method: "get",
      path: `${V1}/purchases`,
      tags,
      summary: "Purchases of the request's workspace (without lines and payments)",
      request: { query: PurchaseListQuery },
      responses: { 200: jsonResponse("Purchases", paginated(PurchaseSummary)), ...commonErrors },
    },
  ),
  async (c) => {
    const query = c.req.valid("query");
    const { data, total } = await listPurchases(c.var.db, c.var.scope, query);
    return c.json(paginate(c, query, total, data), 200);
  },
);

purchasesRouter.openapi(
  defineRoute(
    { permission: "purchases:view" },
    {
      method: "get",
      path: `${V1}/purchases/{id}`,
      tags,
      summary: "A purchase with its supplier, lines and payments",
      request: { params: IdParam },
      responses: { 200: jsonResponse("Purchase", dataOnly(PurchaseDetail)), ...errorResponses(404), ...commonErrors },
    },
  ),
  async (c) => c.json({ data: await getPurchase(c.var.db, c.var.scope, c.req.valid("param").id) }, 200),
);

purchasesRouter.openapi(
  defineRoute(
    { permission: "purchases:create" },
    {
      method: "post",
      path: `${V1}/purchases`,
      tags,
      summary: "Enter a supplier's bill (stock and cost of its products) or a document the company issues (B11/B13/B17), or a draft",
      request: { headers: idempotencyHeader, ...jsonBody(CreatePurchaseBody) },
      responses: { 201: jsonResponse("Purchase entered or draft created", WrittenPurchase), ...errorResponses(409), ...commonErrors },
    },
  ),
  async (c) => {
    const db = c.var.db;
    const input = c.req.valid("json");
    return idempotent(c, db, async () => {
      const result = await createPurchase(db, c.var.scope, input, dominicanToday(), {
        encryptionKey: config(c.env).APP_ENCRYPTION_KEY,
        ecfSigned: (subject) => emitEcfTransitionEvent(c, subject, "signed"),
      });
      if (result.ecfId !== null) c.var.ecf.push(result.ecfId);
      return { status: 201, body: written(result, input.status === "draft" ? "Draft created." : "Purchase entered.") };
    });
  },
);

purchasesRouter.openapi(
  defineRoute(
    { permission: "purchases:edit" },
    {
      method: "patch",
      path: `${V1}/purchases/{id}`,
      tags,
      summary: "Change a draft purchase (409 purchase_not_draft once entered)",
      request: { params: IdParam, ...jsonBody(UpdatePurchaseBody) },
      responses: { 200: jsonResponse("Draft updated", WrittenPurchase), ...errorResponses(404, 409), ...commonErrors },
    },
  ),
  async (c) => {
    const result = await updatePurchase(c.var.db, c.var.scope, c.req.valid("param").id, c.req.valid("json"), dominicanToday());
    return c.json(written(result, "Draft updated."), 200);
  },
);

purchasesRouter.openapi(
  defineRoute(
    { permission: "purchases:create" },
    {
      method: "post",
      path: `${V1}/purchases/{id}/enter`,
      tags,
      summary: "Enter a draft: its number, stock and cost are taken now, with the checks of POST /purchases",
      request: { params: IdParam },
      responses: { 200: jsonResponse("Purchase entered", WrittenPurchase), ...errorResponses(404, 409), ...commonErrors },
    },
  ),
  async (c) => {
    const result = await enterDraft(c.var.db, c.var.scope, c.req.valid("param").id, dominicanToday(), {
      encryptionKey: config(c.env).APP_ENCRYPTION_KEY,
      ecfSigned: (subject) => emitEcfTransitionEvent(c, subject, "signed"),
    });
    if (result.ecfId !== null) c.var.ecf.push(result.ecfId);
    return c.json(written(result, "Purchase entered."), 200);
  },
);

purchasesRouter.openapi(
  defineRoute(
    { permission: "purchases:delete" },
    {
      method: "delete",
      path: `${V1}/purchases/{id}`,
      tags,
      summary: "Delete a draft, or void an entered purchase with a reason (its stock leaves again, its cost is taken out of the average)",
      request: { params: IdParam, body: { content: { "application/json": { schema: VoidPurchaseBody } }, required: false } },
      responses: { 200: jsonResponse("Purchase deleted or voided", MessageResponse), ...errorResponses(404, 409), ...commonErrors },
    },
  ),
  async (c) => {
    const id = c.req.valid("param").id;
    const done = await deletePurchase(c.var.db, c.var.scope, id, c.req.valid("json").reason);
    // A deleted draft leaves the list (the event tells a syncing client); a voided purchase stays, its status changed.
    if (done === "deleted") await emitEvent(c, "purchase.deleted", c.var.scope.workspaceId, deletedEventData(id, c.var.scope.workspaceId));
    return c.json({ message: done === "deleted" ? "Draft deleted." : "Purchase voided." }, 200);
  },
);

purchasesRouter.openapi(
  defineRoute(
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
  ),
  async (c) => {
    const db = c.var.db;
    const id = c.req.valid("param").id;
    const input = c.req.valid("json");
    return idempotent(c, db, async () => ({
      status: 201,
      body: { data: await addPurchasePayment(db, c.var.scope, id, input), message: "Payment recorded." },
    }));
  },
);

purchasesRouter.openapi(
  defineRoute(
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
  ),
  async (c) => {
    const { id, payment_id } = c.req.valid("param");
    return c.json({ data: await deletePurchasePayment(c.var.db, c.var.scope, id, payment_id), message: "Payment removed." }, 200);
  },
);

purchasesRouter.openapi(
  defineRoute(
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
  ),
  async (c) => {
    const { purchase, pdf } = await purchasePdfData(c.var.db, c.var.scope, c.req.valid("param").id);
    // An E41/E43/E47 prints its e-CF's timbre QR, security code and signature time (Norma 06-2018 and DGII's printed representation).
    if (isElectronicNumber(purchase.ncf)) pdf.ecf = (await printedEcf(c.var.db, { purchaseId: purchase.id }, config(c.env))) ?? undefined;
    return c.body(await renderDocumentPdf(pdf), 200, {
      "Content-Type": "application/pdf",
      "Content-Disposition": `attachment; filename="${purchase.ncf}.pdf"`,
    });
  },
);
