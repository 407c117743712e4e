import { OpenAPIHono } from "@hono/zod-openapi";
import { getPath } from "hono/utils/url";
import { bearerToken, type DispatchSlot, dispatchSlot } from "./http/auth";
import type { AppEnv } from "./http/context";
import { databaseSession } from "./http/database";
import { DOCS_ASSETS_PATH, docsAsset, docsPage } from "./http/docs-page";
import { noRoute, registerGetPath } from "./http/methods";
import { errorResponse } from "./http/on-error";
import { createRouter, V1 } from "./http/openapi";
import { anonymousRateLimit, rateLimit } from "./http/rate-limit";
import { bodySizeLimit, jsonOnly, validConfiguration } from "./http/request-checks";
import { requestId } from "./http/request-id";
import { registerSelf } from "./http/self";
import { tenantFromHost } from "./http/tenant";
import { afterCommitDispatch } from "./jobs/dispatch";
import { authRouter } from "./modules/auth/routes";
import { bankAccountsRouter } from "./modules/bank-accounts/routes";
import { certificationRouter } from "./modules/certification/routes";
import { assertReadyForProduction } from "./modules/certification/service";
import { companyRouter } from "./modules/company/routes";
import { contactsRouter } from "./modules/contacts/routes";
import { currenciesRouter } from "./modules/currencies/routes";
import { documentSubtypesRouter } from "./modules/document-subtypes/routes";
import { annulledInvoices, productionGate } from "./modules/ecf/ports";
import { ecfRouter } from "./modules/ecf/routes";
import { fiscalPeriodsRouter } from "./modules/fiscal-periods/routes";
import { integrationsRouter } from "./modules/integrations/routes";
import { inventoryRouter } from "./modules/inventory/routes";
import { invitationsRouter } from "./modules/invitations/routes";
import { cancelForAnnulledEcf } from "./modules/invoices/changes";
import { cancellationNotes } from "./modules/invoices/ports";
import { invoicesRouter } from "./modules/invoices/routes";
import { lookupRouter } from "./modules/lookup/routes";
import { membersRouter } from "./modules/members/routes";
import { fullCreditNotes } from "./modules/notes/cancellation";
import { notesRouter } from "./modules/notes/routes";
import { productsRouter } from "./modules/products/routes";
import { purchasesRouter } from "./modules/purchases/routes";
import { quotationsRouter } from "./modules/quotations/routes";
import { receptionRouter } from "./modules/reception/routes";
import { reportsRouter } from "./modules/reports/routes";
import { rncRouter } from "./modules/rnc/routes";
import { rolesRouter } from "./modules/roles/routes";
import { salesmenRouter } from "./modules/salesmen/routes";
import { taxesRouter } from "./modules/taxes/routes";
import { usersRouter } from "./modules/users/routes";
import { registerWebhookDocs } from "./modules/webhooks/openapi";
import { webhooksRouter } from "./modules/webhooks/routes";
import { workspacesRouter } from "./modules/workspaces/routes";

export { MAX_BODY_BYTES } from "./http/request-checks";

/**
 * DGII requires a taxpayer's receiver services to be case-insensitive ("Servicios no sensitivos a
 * mayúsculas y minúsculas", Descripción técnica, Estándar de comunicación Emisor-Receptor), and its
 * own text writes "/fe/recepción": paths under /fe are routed lowercased, the accent folded.
 */
function receiverServicePath(request: Request): string {
  const path = getPath(request);
  if (!/^\/fe\//i.test(path)) return path;
  return path.toLowerCase().replace(/recepci(?:%c3%b3|ó)n/g, "recepcion");
}

/** The document's header, shared with scripts/client-generate.ts, which builds the same document in Node. */
export const OPENAPI_DOCUMENT = {
  openapi: "3.1.0",
  info: { title: "Sucursal API", version: "1.0.0", description: "Multi-location business management for the Dominican Republic." },
};

/**
 * The ports (lib/port.ts): what a lower module needs from a higher one, plugged in here, where every
 * module is in view, before any request is served.
 */
function plugPorts() {
  cancellationNotes.provide(fullCreditNotes); // invoices: cancelling an e-CF issues a credit note
  productionGate.provide(assertReadyForProduction); // e-CF: production only once certified
  annulledInvoices.provide(cancelForAnnulledEcf); // e-CF: an annulled e-NCF cancels its invoice
}

export function createApp() {
  plugPorts();
  const app = new OpenAPIHono<AppEnv>({ getPath: receiverServicePath });
  // The request pipeline, in order. Each route then adds its guards (http/openapi.ts defineRoute):
  // publicSession, or authenticate (token in the database, caller, workspace, c.var.db and
  // c.var.scope) and requirePermission; then zod validation; then the handler.
  app.use("*", requestId); // X-Request-ID in and out: the reference of logs and 500s
  app.use("*", validConfiguration); // the Worker's environment parsed (once per isolate) or 500
  app.get("/health", (c) => c.json({ status: "ok" })); // no database, no tenant
  app.get(`${DOCS_ASSETS_PATH}/:file`, docsAsset); // Swagger UI's files: static, no database, no tenant
  app.use("*", bodySizeLimit); // 413 beyond 1 MiB (768 KiB on the receiver services, /fe/…)
  app.use("*", jsonOnly); // 415 for a body that is not JSON
  app.use("*", afterCommitDispatch); // c.var.outbox and c.var.ecf: after the commit, their ids go on their Queues
  app.use("*", databaseSession); // one connection; commit on success, rollback otherwise
  app.use("*", bearerToken); // Authorization: Bearer verified once (c.var.tokenClaims)
  app.use("*", anonymousRateLimit); // no verified token: per IP and host, before any database work
  app.use("*", tenantFromHost); // the subdomain's tenant (c.var.tenant) or 404
  app.use("*", rateLimit); // a verified token of this tenant: per user

  const api = createRouter();
  api.route("/", authRouter);
  api.route("/", inventoryRouter);
  api.route("/", invoicesRouter);
  api.route("/", notesRouter);
  api.route("/", purchasesRouter);
  api.route("/", ecfRouter);
  api.route("/", certificationRouter);
  api.route("/", receptionRouter);
  api.route("/", lookupRouter);
  api.route("/", reportsRouter);
  api.route("/", fiscalPeriodsRouter);
  api.route("/", quotationsRouter);
  api.route("/", workspacesRouter);
  api.route("/", membersRouter);
  api.route("/", invitationsRouter);
  api.route("/", rolesRouter);
  api.route("/", productsRouter);
  api.route("/", contactsRouter);
  api.route("/", taxesRouter);
  api.route("/", currenciesRouter);
  api.route("/", documentSubtypesRouter);
  api.route("/", salesmenRouter);
  api.route("/", bankAccountsRouter);
  api.route("/", rncRouter);
  api.route("/", integrationsRouter);
  api.route("/", usersRouter);
  api.route("/", companyRouter);
  api.route("/", webhooksRouter);
  app.route("/", api);

  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", { type: "http", scheme: "bearer", bearerFormat: "JWT" });
  registerWebhookDocs(app.openAPIRegistry);
  app.doc31(`${V1}/openapi.json`, OPENAPI_DOCUMENT);
  app.get(`${V1}/docs`, (c) => c.html(docsPage(`${V1}/openapi.json`)));
  for (const path of ["/health", `${DOCS_ASSETS_PATH}/:file`, `${V1}/openapi.json`, `${V1}/docs`]) registerGetPath(path);

  // A path the API has, asked with a method it does not take: 405 with Allow; else 404 route_not_found.
  app.notFound(noRoute);
  app.onError(errorResponse); // the one error path: AppError, HTTP errors, SQLSTATEs, 500
  // A request run on the caller's context as this isolate last saw it, which the database then
  // contradicted (another workspace, other permissions: http/auth.ts), runs again from the start
  // with its context read first; its first answer is dropped unread.
  const dispatch = app.fetch;
  app.fetch = async (request, env, executionCtx) => {
    const slot: DispatchSlot = { replayed: false };
    const response = await dispatchSlot.run(slot, () => dispatch(request, env, executionCtx));
    if (!slot.again) return response;
    await response.body?.cancel();
    return dispatchSlot.run({ replayed: true }, () => dispatch(slot.again!, env, executionCtx));
  };
  registerSelf(app.fetch);
  return app;
}
