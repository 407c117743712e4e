import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { config } from "../../env";
import type { AppEnv } from "../../http/context";
import { idempotencyHeader, idempotent } from "../../http/idempotency";
import {
  type AppRouteHandler,
  commonErrors,
  createRouter,
  defineRoute,
  ErrorBody,
  errorResponses,
  IdParam,
  jsonBody,
  jsonResponse,
  V1,
} from "../../http/openapi";
import { paginate, paginated } from "../../http/pagination";
import { dataOnly, dataWithMessage } from "../../http/schemas";
import { dominicanToday } from "../../lib/dates";
import { WrittenPurchase } from "../purchases/schemas";
import { issueReceiverToken, newSeedValue, receiverTokenHolder, seedXml, type TokenHolder, tokenAnswer, tokenAnswerXml } from "./receiver-auth";
import { ApprovalBody, ReceivedEcf, ReceivedEcfListQuery, ReceivedEcfPurchaseBody } from "./schemas";
import * as reception from "./service";

export const receptionRouter = createRouter();

// ---- The receiver services (DGII, Descripción técnica, "Estándar de comunicación Emisor-Receptor")
// Under the tenant's host, outside /api/v1, at the paths DGII fixes. Their answers are the
// protocol's: XML or JSON as DGII describes, 400 with DGII's messages for what cannot be read.

const feTags = ["e-CF reception (DGII receiver services)"];
const xmlResponse = (description: string) => ({ description, content: { "application/xml": { schema: z.string() } } });
const textResponse = (description: string) => ({ description, content: { "text/plain": { schema: z.string() } } });
const XML_TYPE = { "content-type": "application/xml; charset=utf-8" };

/**
 * What uploadedXml reads, for the document: DGII's multipart field `xml` (a file or text), or the XML
 * itself. Plain JSON Schema, not zod: the route's handler reads the upload, so the request is not
 * validated (nor refused 415) by the router before it.
 */
const xmlUpload = {
  body: {
    required: true,
    content: {
      "multipart/form-data": {
        schema: {
          type: "object" as const,
          properties: { xml: { type: "string" as const, format: "binary", description: "The signed XML file" } },
          required: ["xml"],
        },
      },
      "application/xml": { schema: { type: "string" as const } },
    },
  },
};

const NOT_A_FILE = "Tipo de archivo no válido, favor proveer un XML";

/**
 * The uploaded XML: the multipart field `xml` DGII's examples send (`-F 'xml=@file.xml;type=text/xml'`),
 * or a body sent as text/xml or application/xml. UTF-8 only, decoded strictly and keeping a BOM, so
 * the text stored re-encodes to the bytes received. Else DGII's message for it (NOT_A_FILE), followed
 * (as DGII follows its XSD message with the validation's) by what is wrong with the upload when it
 * can be said: the multipart parser's reason, a missing `xml` field, bytes that are not UTF-8 (issue 44).
 */
async function uploadedXml(c: Context<AppEnv>): Promise<{ xml: string } | { refused: string }> {
  const type = c.req.header("content-type") ?? "";
  const refused = (why?: string) => ({ refused: why ? `${NOT_A_FILE}: ${why}.` : NOT_A_FILE });
  let bytes: ArrayBuffer | null = null;
  if (/^multipart\/form-data/i.test(type)) {
    let form: FormData;
    try {
      form = await c.req.formData();
    } catch (error) {
      const reason = (error instanceof Error ? error.message : String(error)).trim().replace(/\.+$/, "");
      return refused(`el cuerpo multipart/form-data no se pudo leer${reason ? ` (${reason})` : ""}`);
    }
    const part = form.get("xml");
    if (part === null) return refused("el cuerpo multipart/form-data no tiene el campo xml");
    if (typeof part === "string") return { xml: part };
    bytes = await part.arrayBuffer();
  } else if (/^(application|text)\/xml\b/i.test(type)) {
    bytes = await c.req.arrayBuffer();
  } else {
    return refused();
  }
  if (!bytes.byteLength) return refused("el archivo está vacío");
  try {
    return { xml: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes) };
  } catch {
    return refused("el archivo no está en UTF-8");
  }
}

/** RFC 6750: a missing or invalid bearer token of the receiver services (DGII defines no body: ours is the API's error shape). */
function unauthorized(c: Context<AppEnv>) {
  return c.json(
    {
      message: "Token no válido o expirado: autentíquese en /fe/autenticacion/api/semilla y /fe/autenticacion/api/validacioncertificado.",
      code: "unauthenticated" as const,
    },
    401,
    { "www-authenticate": 'Bearer error="invalid_token"' },
  );
}

/**
 * Reception and commercial approval: a receiver token of this tenant (else null: 401), then the
 * tenant as a receiver (404 if it is none), the authorities its signers must come from (503 when
 * none is configured) and the uploaded XML (null when there is none).
 */
async function tokenAndUpload(
  c: Context<AppEnv>,
): Promise<{ receiver: reception.Receiver; sender: reception.Sender; upload: Awaited<ReturnType<typeof uploadedXml>> } | null> {
  const tenantId = c.get("tenant").id;
  const settings = config(c.env);
  const holder = await receiverTokenHolder(settings.JWT_SECRET, tenantId, c.req.header("authorization"));
  if (!holder) return null;
  const receiver = await reception.receiverOf(c.var.db, tenantId, settings.APP_ENCRYPTION_KEY);
  const trust = reception.receiverTrust(settings.ECF_TRUSTED_CA_PEM);
  return { receiver, sender: { holder, trust }, upload: await uploadedXml(c) };
}

const getSeedRoute = defineRoute("public", {
  method: "get",
  path: "/fe/autenticacion/api/semilla",
  tags: feTags,
  summary: "Receiver authentication, step 1: a seed (SemillaModel) to sign with the sender's certificate; valid 5 minutes",
  responses: { 200: xmlResponse("The seed"), ...errorResponses(404, 429) },
});
export const getSeed: AppRouteHandler<typeof getSeedRoute> = async (c) => {
  const tenantId = c.get("tenant").id;
  await reception.receiverOf(c.var.db, tenantId, config(c.env).APP_ENCRYPTION_KEY);
  const now = new Date();
  return c.body(seedXml(await newSeedValue(config(c.env).JWT_SECRET, tenantId, now), now), 200, XML_TYPE);
};
receptionRouter.openapi(getSeedRoute, getSeed);

const validateCertificateRoute = defineRoute("public", {
  method: "post",
  path: "/fe/autenticacion/api/validacioncertificado",
  request: xmlUpload,
  tags: feTags,
  summary:
    "Receiver authentication, step 2: the signed seed (multipart field `xml`) → a bearer token for an hour, as JSON {token, expira, expedido} or XML (RespuestaAutenticacion) per Accept",
  responses: {
    200: {
      description: "The token",
      content: {
        "application/json": { schema: z.object({ token: z.string(), expira: z.string(), expedido: z.string() }) },
        "application/xml": { schema: z.string() },
      },
    },
    400: textResponse("Refused, with DGII's message; an upload that cannot be read adds why after it (the multipart parser's reason, no field xml, not UTF-8)"),
    ...errorResponses(404, 413, 429, 503),
  },
});
export const validateCertificate: AppRouteHandler<typeof validateCertificateRoute> = async (c) => {
  const tenantId = c.get("tenant").id;
  const settings = config(c.env);
  const receiver = await reception.receiverOf(c.var.db, tenantId, settings.APP_ENCRYPTION_KEY);
  const trust = reception.receiverTrust(settings.ECF_TRUSTED_CA_PEM);
  const upload = await uploadedXml(c);
  if ("refused" in upload) return c.text(upload.refused, 400);
  let holder: TokenHolder;
  try {
    holder = await reception.authenticateSeed(c.var.db, receiver, upload.xml, { secret: settings.JWT_SECRET, trust });
  } catch (error) {
    if (error instanceof reception.SeedRefused) return c.text(error.message, 400);
    throw error;
  }
  const token = await issueReceiverToken(settings.JWT_SECRET, tenantId, holder);
  const answer = tokenAnswer(token);
  const accept = c.req.header("accept") ?? "";
  if (/xml/i.test(accept) && !/json/i.test(accept)) return c.body(tokenAnswerXml(answer), 200, XML_TYPE);
  return c.json(answer, 200);
};
receptionRouter.openapi(validateCertificateRoute, validateCertificate);

const receiveEcfRoute = defineRoute("public", {
  method: "post",
  path: "/fe/recepcion/api/ecf",
  request: xmlUpload,
  tags: feTags,
  summary:
    "Reception of an e-CF addressed to this company (multipart field `xml`, bearer token of /fe/autenticacion) → a signed ARECF: Estado 0 received, or 1 not received with CodigoMotivoNoRecibido 1 specification (schema), 2 signature, 3 duplicate, 4 not addressed to this RNC",
  responses: {
    200: xmlResponse("The signed ARECF"),
    400: textResponse(
      "No XML (DGII's message, then why when it can be said: the multipart parser's reason, no field xml, not UTF-8), or one whose RNCEmisor and eNCF cannot be read",
    ),
    401: jsonResponse("No valid token", ErrorBody),
    ...errorResponses(404, 413, 429, 503),
  },
});
export const receiveEcf: AppRouteHandler<typeof receiveEcfRoute> = async (c) => {
  const authorized = await tokenAndUpload(c);
  if (!authorized) return unauthorized(c);
  const { receiver, sender, upload } = authorized;
  if ("refused" in upload) return c.text(upload.refused, 400);
  try {
    const result = await reception.receiveEcf(c.var.db, receiver, upload.xml, sender);
    return c.body(result.receiptXml, 200, XML_TYPE);
  } catch (error) {
    if (error instanceof reception.ReceptionRefused) return c.text(error.message, 400);
    throw error;
  }
};
receptionRouter.openapi(receiveEcfRoute, receiveEcf);

const receiveApprovalRoute = defineRoute("public", {
  method: "post",
  path: "/fe/aprobacioncomercial/api/ecf",
  request: xmlUpload,
  tags: feTags,
  summary: "A buyer's commercial approval (ACECF, multipart field `xml`, bearer token) of an e-CF this company issued → 200, or 400 with DGII's message",
  responses: {
    200: jsonResponse("Recorded", z.object({ mensaje: z.array(z.string()), estado: z.string(), codigo: z.string() })),
    400: jsonResponse(
      "Refused with DGII's message; an upload that cannot be read adds why after it (the multipart parser's reason, no field xml, not UTF-8)",
      z.object({ mensaje: z.array(z.string()), estado: z.string(), codigo: z.string() }),
    ),
    401: jsonResponse("No valid token", ErrorBody),
    ...errorResponses(404, 413, 429, 503),
  },
});
export const receiveApproval: AppRouteHandler<typeof receiveApprovalRoute> = async (c) => {
  const authorized = await tokenAndUpload(c);
  if (!authorized) return unauthorized(c);
  const { receiver, sender, upload } = authorized;
  if ("refused" in upload) return c.json({ mensaje: [upload.refused], estado: "Rechazado", codigo: "2" }, 400);
  try {
    const approval = await reception.receiveApproval(c.var.db, receiver, upload.xml, sender);
    return c.json({ mensaje: [`Aprobación comercial de ${approval.encf} recibida.`], estado: "Recibido", codigo: "1" }, 200);
  } catch (error) {
    if (error instanceof reception.ApprovalRefused) return c.json({ mensaje: [error.message], estado: "Rechazado", codigo: "2" }, 400);
    throw error;
  }
};
receptionRouter.openapi(receiveApprovalRoute, receiveApproval);

// ---- The API: what suppliers sent us

const tags = ["Received e-CF"];
const VIEW = { permission: "received_ecf:view" } as const;

const listReceivedEcfRoute = defineRoute(VIEW, {
  method: "get",
  path: `${V1}/received-ecf`,
  tags,
  summary: "e-CF received from suppliers (filters: status, commercial_status, issuer_rnc, received_from)",
  request: { query: ReceivedEcfListQuery },
  responses: { 200: jsonResponse("Received e-CF", paginated(ReceivedEcf)), ...commonErrors },
});
export const listReceivedEcf: AppRouteHandler<typeof listReceivedEcfRoute> = async (c) => {
  const query = c.req.valid("query");
  const { data, total } = await reception.listReceived(c.var.db, c.var.scope.tenantId, query);
  return c.json(paginate(c, query, total, data), 200);
};
receptionRouter.openapi(listReceivedEcfRoute, listReceivedEcf);

const getReceivedEcfRoute = defineRoute(VIEW, {
  method: "get",
  path: `${V1}/received-ecf/{id}`,
  tags,
  summary: "A received e-CF, with our commercial approval and its delivery",
  request: { params: IdParam },
  responses: { 200: jsonResponse("Received e-CF", dataOnly(ReceivedEcf)), ...errorResponses(404), ...commonErrors },
});
export const getReceivedEcf: AppRouteHandler<typeof getReceivedEcfRoute> = async (c) => {
  const { row, approval } = await reception.findReceived(c.var.db, c.var.scope.tenantId, c.req.valid("param").id);
  return c.json({ data: reception.serializeReceived(row, approval) }, 200);
};
receptionRouter.openapi(getReceivedEcfRoute, getReceivedEcf);

const getReceivedEcfXmlRoute = defineRoute(VIEW, {
  method: "get",
  path: `${V1}/received-ecf/{id}/xml`,
  tags,
  summary: "The received e-CF's XML, byte for byte as the supplier sent it",
  request: { params: IdParam },
  responses: { 200: xmlResponse("The e-CF"), ...errorResponses(404), ...commonErrors },
});
export const getReceivedEcfXml: AppRouteHandler<typeof getReceivedEcfXmlRoute> = async (c) => {
  const { row } = await reception.findReceived(c.var.db, c.var.scope.tenantId, c.req.valid("param").id);
  return c.body(row.xml, 200, { ...XML_TYPE, "content-disposition": `attachment; filename="${row.issuerRnc}${row.encf}.xml"` });
};
receptionRouter.openapi(getReceivedEcfXmlRoute, getReceivedEcfXml);

const approveReceivedEcfRoute = defineRoute(
  { permission: "received_ecf:approve", level: "company" },
  {
    method: "post",
    path: `${V1}/received-ecf/{id}/approval`,
    tags,
    summary:
      "Approve or reject a received e-CF: a signed ACECF sent to DGII and to the issuer's receiver (found in DGII's directory), retried until delivered; once only (409 approval_already_sent)",
    request: { params: IdParam, ...jsonBody(ApprovalBody) },
    responses: { 200: jsonResponse("Approval recorded", dataWithMessage(ReceivedEcf)), ...errorResponses(404, 409), ...commonErrors },
  },
);
export const approveReceivedEcf: AppRouteHandler<typeof approveReceivedEcfRoute> = async (c) => {
  const receiver = await reception.receiverOf(c.var.db, c.var.scope.tenantId, config(c.env).APP_ENCRYPTION_KEY);
  const body = c.req.valid("json");
  const { row, approval } = await reception.approveReceived(c.var.db, receiver, c.req.valid("param").id, body, c.var.scope.userId);
  c.var.approvals.push(approval.id);
  return c.json({ data: reception.serializeReceived(row, approval), message: body.approved ? "Approval sent." : "Rejection sent." }, 200);
};
receptionRouter.openapi(approveReceivedEcfRoute, approveReceivedEcf);

const purchaseReceivedEcfRoute = defineRoute(
  { permission: "purchases:create" },
  {
    method: "post",
    path: `${V1}/received-ecf/{id}/purchase`,
    tags,
    summary:
      "Turn a received e-CF into a purchase of the request's workspace (draft by default): supplier (found or created by RNCEmisor), e-NCF, dates, currency and lines from the e-CF; once while that purchase stands (409 received_ecf_already_purchased)",
    request: { params: IdParam, headers: idempotencyHeader, ...jsonBody(ReceivedEcfPurchaseBody) },
    responses: { 201: jsonResponse("Purchase created from the e-CF", WrittenPurchase), ...errorResponses(404, 409), ...commonErrors },
  },
);
export const purchaseReceivedEcf: AppRouteHandler<typeof purchaseReceivedEcfRoute> = async (c) => {
  const db = c.var.db;
  const id = c.req.valid("param").id;
  const input = c.req.valid("json");
  return idempotent(c, db, async () => {
    const result = await reception.purchaseReceived(db, c.var.scope, id, input, dominicanToday());
    return {
      status: 201,
      body: { data: result.purchase, message: input.status === "draft" ? "Draft created." : "Purchase entered.", warnings: result.warnings },
    };
  });
};
receptionRouter.openapi(purchaseReceivedEcfRoute, purchaseReceivedEcf);
