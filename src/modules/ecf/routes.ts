import { z } from "@hono/zod-openapi";
import { config } from "../../env";
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
import { paginate, paginated } from "../../http/pagination";
import { companyGrant } from "../../http/permissions";
import { dataOnly, dataWithMessage, MessageResponse } from "../../http/schemas";
import { annulRange, serializeAnnulment } from "./annulments";
import * as contingency from "./contingency";
import { clearDgiiBackoff } from "./dgii-pace";
import { dgiiStatusView } from "./dgii-status";
import * as documents from "./documents";
import {
  CreateAnnulmentBody,
  CreateContingencyBody,
  DgiiStatus,
  EcfAnnulment,
  EcfCertificate,
  EcfContingency,
  EcfDocument,
  EcfSettings,
  EcfSubmission,
  PutCertificateBody,
  PutSettingsBody,
  SubmissionListQuery,
} from "./schemas";
import * as ecf from "./service";
import { retryDocumentEcf } from "./transitions";

export const ecfRouter = createRouter();
const tags = ["e-CF"];

const putCertificateRoute = defineRoute(
  { permission: "ecf:manage", level: "company" },
  {
    method: "put",
    path: `${V1}/ecf/certificate`,
    tags,
    summary: "Upload the e-CF signing certificate (PKCS#12 and its password; stored encrypted, never returned)",
    request: jsonBody(PutCertificateBody),
    responses: { 200: jsonResponse("Certificate stored", dataWithMessage(EcfCertificate)), ...commonErrors },
  },
);
export const putCertificate: AppRouteHandler<typeof putCertificateRoute> = async (c) => {
  const now = new Date();
  const row = await ecf.putCertificate(c.var.db, c.get("tenant").id, c.req.valid("json"), config(c.env).APP_ENCRYPTION_KEY, now);
  return c.json({ data: ecf.serializeCertificate(row, now), message: "Certificate stored." }, 200);
};
ecfRouter.openapi(putCertificateRoute, putCertificate);

const getCertificateRoute = defineRoute(
  { permission: "ecf:manage", level: "company" },
  {
    method: "get",
    path: `${V1}/ecf/certificate`,
    tags,
    summary: "The signing certificate: subject, holder's id, issuer, validity, SHA-256 fingerprint; a warning within 30 days of expiry",
    responses: { 200: jsonResponse("Certificate", dataOnly(EcfCertificate)), ...errorResponses(404), ...commonErrors },
  },
);
export const getCertificate: AppRouteHandler<typeof getCertificateRoute> = async (c) =>
  c.json({ data: ecf.serializeCertificate(await ecf.getSettings(c.var.db, c.get("tenant").id), new Date()) }, 200);
ecfRouter.openapi(getCertificateRoute, getCertificate);

const deleteCertificateRoute = defineRoute(
  { permission: "ecf:manage", level: "company" },
  {
    method: "delete",
    path: `${V1}/ecf/certificate`,
    tags,
    summary: "Remove the signing certificate (e-CF is turned off)",
    responses: { 200: jsonResponse("Certificate removed", MessageResponse), ...errorResponses(404), ...commonErrors },
  },
);
export const deleteCertificate: AppRouteHandler<typeof deleteCertificateRoute> = async (c) => {
  await ecf.deleteCertificate(c.var.db, c.get("tenant").id);
  return c.json({ message: "Certificate removed." }, 200);
};
ecfRouter.openapi(deleteCertificateRoute, deleteCertificate);

const getSettingsRoute = defineRoute(
  { permission: "ecf:manage", level: "company" },
  {
    method: "get",
    path: `${V1}/ecf/settings`,
    tags,
    summary: "The e-CF environment (testecf, certecf, ecf), whether e-CF is on, and DGII's URLs",
    responses: { 200: jsonResponse("Settings", dataOnly(EcfSettings)), ...commonErrors },
  },
);
export const getSettings: AppRouteHandler<typeof getSettingsRoute> = async (c) =>
  c.json({ data: ecf.serializeSettings(await ecf.getSettings(c.var.db, c.get("tenant").id), config(c.env)) }, 200);
ecfRouter.openapi(getSettingsRoute, getSettings);

const putSettingsRoute = defineRoute(
  { permission: "ecf:manage", level: "company" },
  {
    method: "put",
    path: `${V1}/ecf/settings`,
    tags,
    summary: "Choose DGII's environment and turn e-CF on or off (on needs a certificate)",
    request: jsonBody(PutSettingsBody),
    responses: {
      200: jsonResponse("Settings updated", dataWithMessage(EcfSettings)),
      409: errorResponse("certification_incomplete: production (environment ecf) before the steps of DGII's certification Sucursal runs are done"),
      ...commonErrors,
    },
  },
);
export const putSettings: AppRouteHandler<typeof putSettingsRoute> = async (c) => {
  const row = await ecf.putSettings(c.var.db, c.get("tenant").id, c.req.valid("json"), { allowHttpLoopback: config(c.env).WEBHOOKS_ALLOW_HTTP_LOOPBACK });
  return c.json({ data: ecf.serializeSettings(row, config(c.env)), message: "e-CF settings updated." }, 200);
};
ecfRouter.openapi(putSettingsRoute, putSettings);

const getDgiiStatusRoute = defineRoute(
  { permission: "invoices:view" },
  {
    method: "get",
    path: `${V1}/ecf/dgii-status`,
    tags,
    summary:
      "DGII's services per environment as DGII's status service last reported them, since when one is down, the maintenance windows not over yet, and the company's open e-CF alerts",
    responses: { 200: jsonResponse("DGII's status", dataOnly(DgiiStatus)), ...commonErrors },
  },
);
export const getDgiiStatus: AppRouteHandler<typeof getDgiiStatusRoute> = async (c) =>
  c.json({ data: await dgiiStatusView(c.var.db, new Date(), Boolean(config(c.env).DGII_STATUS_API_KEY), c.get("tenant").id) }, 200);
ecfRouter.openapi(getDgiiStatusRoute, getDgiiStatus);

const openContingencyRoute = defineRoute(
  { permission: "ecf:manage", level: "branches" },
  {
    method: "post",
    path: `${V1}/ecf/contingency`,
    tags,
    summary:
      "Open a contingency, total or for some branches: their e-CF are still issued and signed, and held (not sent to DGII) until it closes; their paper contingency ranges may be replaced",
    request: jsonBody(CreateContingencyBody),
    responses: {
      201: jsonResponse("Contingency opened", dataWithMessage(EcfContingency)),
      409: errorResponse("contingency_overlap: an open contingency already covers one of these branches (a total one covers all)"),
      ...commonErrors,
    },
  },
);
export const openContingency: AppRouteHandler<typeof openContingencyRoute> = async (c) => {
  const row = await contingency.openContingency(c.var.db, c.var.scope, await companyGrant(c), c.req.valid("json"));
  return c.json({ data: contingency.serializeContingency(row), message: "Contingency opened: e-CF are issued and held until it closes." }, 201);
};
ecfRouter.openapi(openContingencyRoute, openContingency);

const listContingenciesRoute = defineRoute(
  { permission: "ecf:manage" },
  {
    method: "get",
    path: `${V1}/ecf/contingency`,
    tags,
    summary: "The contingencies (the last 200, latest first): scope, reason, who opened and closed each, when, and how it closed",
    responses: { 200: jsonResponse("Contingencies", dataOnly(z.array(EcfContingency))), ...commonErrors },
  },
);
export const listContingencies: AppRouteHandler<typeof listContingenciesRoute> = async (c) =>
  c.json({ data: (await contingency.listContingencies(c.var.db, c.var.scope.tenantId)).map(contingency.serializeContingency) }, 200);
ecfRouter.openapi(listContingenciesRoute, listContingencies);

const closeContingencyRoute = defineRoute(
  { permission: "ecf:manage", level: "branches" },
  {
    method: "delete",
    path: `${V1}/ecf/contingency/{id}`,
    tags,
    summary: "Close a contingency: the e-CF it held are sent to DGII now",
    request: { params: IdParam },
    responses: {
      200: jsonResponse("Contingency closed", dataWithMessage(EcfContingency)),
      ...errorResponses(404),
      409: errorResponse("contingency_closed: it was closed already"),
      ...commonErrors,
    },
  },
);
export const closeContingency: AppRouteHandler<typeof closeContingencyRoute> = async (c) => {
  const { row, released } = await contingency.closeContingency(c.var.db, c.var.scope, await companyGrant(c), c.req.valid("param").id, new Date());
  // A minute's worth goes on the queue now; the rest is the minute sweep's, at the company's pace,
  // so a long contingency's backlog does not queue ahead of every other company's e-CF (issue 48).
  const pace = config(c.env).ECF_SENDS_PER_MINUTE;
  c.var.ecf.push(...released.slice(0, pace));
  const when = released.length > pace ? `from now, ${pace} a minute` : "now";
  return c.json({ data: contingency.serializeContingency(row), message: `Contingency closed: ${released.length} e-CF held are sent to DGII ${when}.` }, 200);
};
ecfRouter.openapi(closeContingencyRoute, closeContingency);

/** How each kind of document names its e-CF's endpoints, under the document's own path. */
const OWNERS: Record<documents.EcfOwner, { path: string; name: string; tag: string; view: string; send: string }> = {
  invoice: { path: "invoices", name: "invoice", tag: "Invoices", view: "invoices:view", send: "invoices:create" },
  credit_note: { path: "credit-notes", name: "credit note", tag: "Credit notes", view: "invoices:view", send: "invoices:create" },
  debit_note: { path: "debit-notes", name: "debit note", tag: "Debit notes", view: "invoices:view", send: "invoices:create" },
  // The buyer's own e-CF of a purchase (E41, E43, E47).
  purchase: { path: "purchases", name: "purchase", tag: "Purchases", view: "purchases:view", send: "purchases:create" },
};

/**
 * The same endpoints for the e-CF of each kind of document (show it, its signed XML, send it again):
 * declared once here and built per kind (documentEcf.invoice.getEcf, documentEcf.purchase.retryEcf).
 */
function ecfEndpoints(owner: documents.EcfOwner) {
  const { path, name, tag, view, send } = OWNERS[owner];

  const getEcfRoute = defineRoute(
    { permission: view },
    {
      method: "get",
      path: `${V1}/${path}/{id}/ecf`,
      tags: [tag, ...tags],
      summary: `The ${name}'s e-CF: e-NCF, DGII's state and messages, trackId, security code, signature time, QR URL, attempts`,
      request: { params: IdParam },
      responses: { 200: jsonResponse("e-CF", dataOnly(EcfDocument)), ...errorResponses(404), ...commonErrors },
    },
  );
  const getEcf: AppRouteHandler<typeof getEcfRoute> = async (c) => {
    const id = c.req.valid("param").id;
    const row = await documents.getDocumentEcf(c.var.db, c.var.scope, owner, id);
    return c.json({ data: await documents.documentEcfView(c.var.db, row, owner, id, config(c.env)) }, 200);
  };

  const getEcfXmlRoute = defineRoute(
    { permission: view },
    {
      method: "get",
      path: `${V1}/${path}/{id}/ecf.xml`,
      tags: [tag, ...tags],
      summary: `The ${name}'s signed e-CF, byte for byte as it was signed and sent`,
      request: { params: IdParam },
      responses: {
        200: { description: "The signed XML", content: { "application/xml": { schema: z.string() } } },
        ...errorResponses(404),
        ...commonErrors,
      },
    },
  );
  const getEcfXml: AppRouteHandler<typeof getEcfXmlRoute> = async (c) => {
    const row = await documents.getDocumentEcf(c.var.db, c.var.scope, owner, c.req.valid("param").id);
    return c.body(row.xml, 200, {
      "Content-Type": "application/xml; charset=utf-8",
      "Content-Disposition": `attachment; filename="${row.issuerRnc}${row.encf}.xml"`,
    });
  };

  const retryEcfRoute = defineRoute(
    { permission: send },
    {
      method: "post",
      path: `${V1}/${path}/{id}/ecf/retry`,
      tags: [tag, ...tags],
      summary: `Send the ${name}'s e-CF again: a failed one, or a rejected one whose e-NCF DGII says was not used`,
      request: { params: IdParam },
      responses: { 200: jsonResponse("Queued again", dataWithMessage(EcfDocument)), ...errorResponses(404, 409), ...commonErrors },
    },
  );
  const retryEcf: AppRouteHandler<typeof retryEcfRoute> = async (c) => {
    const id = c.req.valid("param").id;
    const row = await retryDocumentEcf(c.var.db, c.var.scope, owner, id, new Date());
    // A person asking to send again is asked for an attempt now: a wait DGII's 429 or 503 had put
    // on the company (modules/ecf/dgii-pace.ts) ends with it; DGII's next answer sets it again if need be.
    await clearDgiiBackoff(c.var.db, c.var.scope.tenantId);
    c.var.ecf.push(row.id);
    return c.json({ data: await documents.documentEcfView(c.var.db, row, owner, id, config(c.env)), message: "The e-CF will be sent to DGII again." }, 200);
  };

  return { getEcfRoute, getEcf, getEcfXmlRoute, getEcfXml, retryEcfRoute, retryEcf };
}

/** One per kind of document, in this order (documentEcf.credit_note.getEcfXml). */
export const documentEcf = {
  invoice: ecfEndpoints("invoice"),
  credit_note: ecfEndpoints("credit_note"),
  debit_note: ecfEndpoints("debit_note"),
  purchase: ecfEndpoints("purchase"),
} satisfies Record<documents.EcfOwner, ReturnType<typeof ecfEndpoints>>;
for (const endpoints of Object.values(documentEcf)) {
  ecfRouter.openapi(endpoints.getEcfRoute, endpoints.getEcf);
  ecfRouter.openapi(endpoints.getEcfXmlRoute, endpoints.getEcfXml);
  ecfRouter.openapi(endpoints.retryEcfRoute, endpoints.retryEcf);
}

const listSubmissionsRoute = defineRoute(
  { permission: "invoices:view" },
  {
    method: "get",
    path: `${V1}/ecf/submissions`,
    tags,
    summary: "The e-CF of the request's workspace and DGII's state of each (filters: status, type, issue date)",
    request: { query: SubmissionListQuery },
    responses: { 200: jsonResponse("Submissions", paginated(EcfSubmission)), ...commonErrors },
  },
);
export const listSubmissions: AppRouteHandler<typeof listSubmissionsRoute> = async (c) => {
  const query = c.req.valid("query");
  const { data, total } = await documents.listSubmissions(c.var.db, c.var.scope, query, config(c.env));
  return c.json(paginate(c, query, total, data), 200);
};
ecfRouter.openapi(listSubmissionsRoute, listSubmissions);

const createAnnulmentRoute = defineRoute(
  { permission: "ecf:manage", level: "company" },
  {
    method: "post",
    path: `${V1}/ecf/annulments`,
    tags,
    summary: "Annul e-NCF with DGII (ANECF): unused numbers (the sequence skips them) and invoices' e-CF DGII never received (cancelled)",
    description: "`to` ≥ `from`, which JSON Schema cannot compare: a range that ends before it starts is a 422 on `to`.",
    request: jsonBody(CreateAnnulmentBody),
    responses: {
      201: jsonResponse("Annulled", dataWithMessage(EcfAnnulment)),
      409: errorResponse("ecf_already_sent: a number of the range was sent to DGII; it cannot be annulled"),
      ...commonErrors,
    },
  },
);
export const createAnnulment: AppRouteHandler<typeof createAnnulmentRoute> = async (c) => {
  const row = await annulRange(c.var.db, c.var.scope, c.req.valid("json"), config(c.env), new Date());
  const kept = serializeAnnulment(row).not_annulled;
  const message = kept.length
    ? `${row.count} of ${row.count + kept.length} e-NCF annulled with DGII; DGII did not annul ${kept.map((n) => n.encf).join(", ")} (not_annulled says why).`
    : `${row.count} e-NCF annulled with DGII.`;
  return c.json({ data: serializeAnnulment(row), message }, 201);
};
ecfRouter.openapi(createAnnulmentRoute, createAnnulment);
