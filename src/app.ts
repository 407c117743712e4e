import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { databaseErrorResponse, errorLogFields } from "./db/errors";
import { config } from "./env";
import type { AppEnv } from "./http/context";
import { databaseSession } from "./http/database";
import { AppError } from "./http/errors";
import { createRouter, V1 } from "./http/openapi";
import { anonymousRateLimit, rateLimit } from "./http/rate-limit";
import { requestId } from "./http/request-id";
import { tenantFromHost } from "./http/tenant";
import { outboxDispatch } from "./jobs/outbox";
import { log } from "./lib/log";
import { authRouter } from "./modules/auth/routes";
import { bankAccountsRouter } from "./modules/bank-accounts/routes";
import { companyRouter } from "./modules/company/routes";
import { contactsRouter } from "./modules/contacts/routes";
import { currenciesRouter } from "./modules/currencies/routes";
import { documentSubtypesRouter } from "./modules/document-subtypes/routes";
import { integrationsRouter } from "./modules/integrations/routes";
import { inventoryRouter } from "./modules/inventory/routes";
import { invitationsRouter } from "./modules/invitations/routes";
import { invoicesRouter } from "./modules/invoices/routes";
import { membersRouter } from "./modules/members/routes";
import { productsRouter } from "./modules/products/routes";
import { quotationsRouter } from "./modules/quotations/routes";
import { rncRouter } from "./modules/rnc/routes";
import { rolesRouter } from "./modules/roles/routes";
import { salesmenRouter } from "./modules/salesmen/routes";
import { taxesRouter } from "./modules/taxes/routes";
import { usersRouter } from "./modules/users/routes";
import { workspacesRouter } from "./modules/workspaces/routes";

export const MAX_BODY_BYTES = 1024 * 1024;

const WITH_BODY = new Set(["POST", "PUT", "PATCH"]);

/** A request that carries a body must say it is JSON. */
const jsonOnly = createMiddleware<AppEnv>(async (c, next) => {
  if (WITH_BODY.has(c.req.method)) {
    const length = c.req.header("content-length");
    const hasBody = (length !== undefined && length !== "0") || c.req.header("transfer-encoding") !== undefined;
    const type = c.req.header("content-type") ?? "";
    if (hasBody && !/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
      throw new AppError("unsupported_media_type", "Request bodies must be JSON (Content-Type: application/json).");
    }
  }
  await next();
});

type ErrorContext = Parameters<Parameters<OpenAPIHono<AppEnv>["onError"]>[0]>[1];

function appErrorResponse(c: ErrorContext, error: AppError): Response {
  const response = c.json(error.toBody(), error.status as ContentfulStatusCode);
  for (const [name, value] of Object.entries(error.headers ?? {})) response.headers.set(name, value);
  return response;
}

function errorResponse(c: ErrorContext, error: Error): Response {
  if (error instanceof AppError) return appErrorResponse(c, error);
  if (error instanceof HTTPException && error.status === 400) {
    return c.json({ message: "The request body is not valid JSON.", code: "malformed_json" }, 400);
  }
  // The OpenAPI validator's own media-type gate (a body that reached it without a Content-Length
  // or Transfer-Encoding header, as over HTTP/2): the same answer as jsonOnly's.
  if (error instanceof HTTPException && error.status === 415) {
    return c.json({ message: "Request bodies must be JSON (Content-Type: application/json).", code: "unsupported_media_type" }, 415);
  }
  // What the database refused because of the input (a foreign key, a check, a number or date out
  // of range, NUL in text, …) is a 422/409, and a transaction it aborted (class 40) a 503 to retry.
  const refused = databaseErrorResponse(error);
  if (refused) {
    // Logged (without parameters): a refusal that reaches here is a bound or check the request
    // schemas or services missed, or contention; the client's answer is the same either way.
    const what = refused.status === 503 ? "transaction aborted by the database" : "input refused by the database";
    const { stack: _stack, errorMessage, ...fields } = errorLogFields(error);
    log.warn(what, { requestId: c.get("requestId"), status: refused.status, ...fields, statement: String(errorMessage).slice(0, 300) });
    return appErrorResponse(c, refused);
  }
  const requestIdValue = c.get("requestId");
  // The error's class, SQLSTATE and constraint; never the query's parameters (request data).
  log.error("unhandled error", { requestId: requestIdValue, ...errorLogFields(error) });
  return c.json({ message: `Server error. Reference: ${requestIdValue}`, code: "internal_error" }, 500);
}

export function createApp() {
  const app = new OpenAPIHono<AppEnv>();
  app.use("*", requestId);
  // An invalid configuration is a 500 internal_error with the request's reference (logged once by config()).
  app.use("*", async (c, next) => {
    config(c.env);
    await next();
  });
  app.get("/health", (c) => c.json({ status: "ok" }));

  app.use(
    "*",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new AppError("payload_too_large", `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`);
      },
    }),
  );
  app.use("*", jsonOnly);
  app.use("*", outboxDispatch); // outside databaseSession: runs after the commit
  app.use("*", databaseSession);
  app.use("*", anonymousRateLimit); // before any database work (the tenant lookup included)
  app.use("*", tenantFromHost);
  app.use("*", rateLimit);

  const api = createRouter();
  api.route("/", authRouter);
  api.route("/", inventoryRouter);
  api.route("/", invoicesRouter);
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
  app.route("/", api);

  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", { type: "http", scheme: "bearer", bearerFormat: "JWT" });
  app.doc31(`${V1}/openapi.json`, {
    openapi: "3.1.0",
    info: { title: "Sucursal API", version: "1.0.0", description: "Multi-location business management for the Dominican Republic." },
  });
  app.get(`${V1}/docs`, (c) => c.html(docsPage(`${V1}/openapi.json`)));

  app.notFound((c) => c.json({ message: "Route not found.", code: "route_not_found" }, 404));
  app.onError((error, c) => errorResponse(c, error));
  return app;
}

function docsPage(specUrl: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sucursal API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="https://unpkg.com/swagger-ui-dist@5/swagger-ui.css"></head>
<body><div id="docs">The OpenAPI document is at <a href="${specUrl}">${specUrl}</a>.</div>
<script src="https://unpkg.com/swagger-ui-dist@5/swagger-ui-bundle.js" crossorigin></script>
<script>if (window.SwaggerUIBundle) SwaggerUIBundle({ url: ${JSON.stringify(specUrl)}, dom_id: "#docs" });</script>
</body></html>`;
}
