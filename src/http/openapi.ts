import { createRoute, OpenAPIHono, type RouteConfig, type RouteHandler, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { idParam } from "../lib/bounds";
import { type ErrorCode, validationError } from "../lib/errors";
import { authenticate, publicSession } from "./auth";
import type { AppEnv } from "./context";
import { errorStatus } from "./errors";
import { requireBranchesPermission, requireCompanyPermission, requirePermission } from "./permissions";
import { strictRequest } from "./request-schema";

export const V1 = "/api/v1";

/**
 * Who may call a route: `public` (no token; the tenant still comes from the host), `authenticated`
 * (any valid token of the tenant), or a permission identifier and where it must be held
 * (docs/permissions.md, "The company and its branches"):
 * - no `level`: in the request's workspace (the role held there; only `:view` ones when it is
 *   reached through view_all_locations);
 * - `level: "company"`: at company level (the company's owner, or a company role the owner granted);
 *   the act is on the whole company, so no branch role counts;
 * - `level: "branches"`: at company level, or as a member of every branch the request names — the
 *   service checks the names (db/grants.ts assertHeldForBranches); naming none acts on the
 *   whole company.
 */
export type AccessLevel = "company" | "branches";
export type Access = "public" | "authenticated" | { permission: string; level?: AccessLevel };

export interface RouteAccess {
  method: string;
  path: string;
  access: Access;
}

/** Every route declared through defineRoute, with its access rule: the source of docs/permissions.md. */
export const routeTable: RouteAccess[] = [];

/**
 * A route's handler, typed by its route (as hono-open-api-starter's AppRouteHandler): declared
 * apart and named (`export const list: AppRouteHandler<typeof listRoute> = async (c) => …`), so it
 * can be found by name, followed and called alone; `router.openapi(listRoute, list)` mounts it.
 */
export type AppRouteHandler<R extends RouteConfig> = RouteHandler<R, AppEnv>;

/** Declares an endpoint once: zod schemas validate, type the handler and document it. */
export function defineRoute<const R extends RouteConfig>(access: Access, config: R): R {
  routeTable.push({ method: config.method.toUpperCase(), path: config.path, access });
  // Before validation: the tenant transaction (c.var.db) and, with a token, the caller (c.var.auth,
  // c.var.workspace, c.var.scope); then the route's permission, held where its access says.
  // A public route's own middleware runs first: it may authenticate an optional token (invitation
  // acceptance), which opens the transaction itself; publicSession then only opens it if not.
  const own = config.middleware ? (Array.isArray(config.middleware) ? config.middleware : [config.middleware]) : [];
  const guards: MiddlewareHandler<AppEnv>[] = access === "public" ? [...own, publicSession] : [authenticate];
  if (typeof access === "object") {
    const guard = access.level === "company" ? requireCompanyPermission : access.level === "branches" ? requireBranchesPermission : requirePermission;
    guards.push(guard(access.permission));
  }
  return createRoute({
    ...config,
    request: strictRequestOf(config.request) as R["request"],
    middleware: (access === "public" ? guards : [...guards, ...own]) as R["middleware"],
    security: access === "public" ? [] : [{ bearerAuth: [] }],
    // The route's own answers win (their descriptions say more); the pipeline's are added to every route.
    responses: { ...pipelineErrors(config), ...config.responses } as R["responses"],
  });
}

/**
 * The route's JSON body and query as the API takes them (request-schema.ts): unknown fields refused
 * and text without NUL, for every route, stated in the document by the same schemas.
 */
function strictRequestOf(request: RouteConfig["request"]): RouteConfig["request"] {
  if (!request) return request;
  const json = request.body?.content?.["application/json"];
  const body =
    request.body && json && "schema" in json && json.schema instanceof z.ZodType
      ? { ...request.body, content: { ...request.body.content, "application/json": { ...json, schema: strictRequest(json.schema) } } }
      : request.body;
  const query = request.query ? strictRequest(request.query) : request.query;
  return { ...request, body, query };
}

/**
 * The error statuses the request pipeline (src/app.ts) may answer before or around any route, so
 * declared here once for all of them: unknown tenant (404), body too large (413, any method), not
 * JSON (415, bodies of POST/PUT/PATCH or where JSON is read; the receiver services /fe/… take multipart), malformed JSON
 * (400, routes whose body is JSON), malformed multipart (400, uploads), rate limits (429), an unexpected error (500) and the database or
 * DGII unavailable (503).
 */
function pipelineErrors(config: RouteConfig): Record<number, ReturnType<typeof errorResponse>> {
  const method = config.method.toUpperCase();
  const takesJson = config.request?.body?.content !== undefined && "application/json" in config.request.body.content;
  const responses: Record<number, ReturnType<typeof errorResponse>> = {
    404: errorResponse("Not found: tenant_not_found (the host names no tenant) or the resource"),
    413: errorResponse("payload_too_large: the request body is over the size limit"),
    429: errorResponse("rate_limited: too many requests; see Retry-After"),
    500: errorResponse("internal_error: an unexpected error, with the request's reference"),
    503: errorResponse("service_unavailable: the database (or DGII) is unavailable; see Retry-After"),
  };
  // Besides jsonOnly, the router refuses a body that is not JSON on any route that reads one (a DELETE's options).
  if (takesJson || (["POST", "PUT", "PATCH"].includes(method) && !config.path.startsWith("/fe/")))
    responses[415] = errorResponse("unsupported_media_type: a body that is not JSON");
  if (takesJson) responses[400] = errorResponse("malformed_json: the body is not valid JSON");
  // An upload (multipart/form-data) whose body the parser cannot read: its reason in the message.
  const takesMultipart = config.request?.body?.content !== undefined && "multipart/form-data" in config.request.body.content;
  if (takesMultipart)
    responses[400] = errorResponse("malformed_multipart: the body is not valid multipart/form-data (a missing or truncated boundary); the message says why");
  return responses;
}

export function createRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error);
    },
  });
}

const ERROR_CODES = Object.keys(errorStatus) as [ErrorCode, ...ErrorCode[]];

/**
 * Every error body names its code from one catalog (src/http/errors.ts errorStatus), listed here
 * with each code's HTTP status so the document, and the clients generated from it, know them all.
 */
export const ErrorBody = z
  .object({
    message: z.string().openapi({ description: "For people; may change. Programs read `code`." }),
    code: z.enum(ERROR_CODES).openapi({
      description: `Machine-readable; one of (HTTP status): ${ERROR_CODES.map((code) => `${code} (${errorStatus[code]})`).join(", ")}.`,
    }),
    errors: z.record(z.string(), z.array(z.string())).optional(),
  })
  .openapi("Error");

/** An error answer of the catalog, its description naming the codes it stands for. */
export const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: ErrorBody } } });

/** The error responses every authenticated route may give (with pipelineErrors, added to every route). */
export const commonErrors = {
  401: errorResponse("Missing or invalid authentication"),
  403: errorResponse("Insufficient permission or workspace not accessible"),
  422: errorResponse("Validation failed"),
} as const;

export const errorResponses = (...codes: number[]) => Object.fromEntries(codes.map((code) => [code, errorResponse(`Error ${code}`)]));

export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  body: { content: { "application/json": { schema } }, required: true },
});

export const jsonResponse = <T extends z.ZodType>(description: string, schema: T) => ({
  description,
  content: { "application/json": { schema } },
});

/** `{id}` in a path: an int4 id in canonical form (src/lib/bounds.ts), else 422 on `id`. */
export const IdParam = z.object({ id: idParam("id") });
