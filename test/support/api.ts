import { exports } from "cloudflare:workers";
import type { z } from "zod";
import type { PaginationLinks, PaginationMeta } from "../../src/http/pagination";
import { checkConformance } from "./conformance";

export const TEST_DOMAIN = "sucursal.test";

export interface CallOptions {
  method?: string;
  token?: string;
  body?: unknown;
  rawBody?: BodyInit;
  headers?: Record<string, string>;
  /** Anonymous calls get a random client IP unless one is given, so the per-IP limit is per test. */
  ip?: string;
}

/**
 * The body of a call that names no type: untyped JSON, as most tests written before the response
 * types read it. New tests pass the route's type: `api.get<Page<Product>>("/products")`.
 */
// biome-ignore lint/suspicious/noExplicitAny: the one untyped default of the test helpers.
export type Untyped = any;

export interface ApiResponse<T = Untyped> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

const randomIp = () => `10.${Math.floor(Math.random() * 255)}.${Math.floor(Math.random() * 255)}.${Math.floor(Math.random() * 254) + 1}`;

/** The Request a test sends to the tenant's host: JSON body, bearer token, a client IP. */
export function testRequest(subdomain: string, path: string, options: CallOptions = {}): Request {
  const headers: Record<string, string> = { accept: "application/json", "cf-connecting-ip": options.ip ?? randomIp(), ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const url = path.startsWith("http") ? path : `http://${subdomain}.${TEST_DOMAIN}${path}`;
  return new Request(url, { method: options.method ?? (body ? "POST" : "GET"), headers, body });
}

/** Status, headers, text and (for JSON) the parsed body of a response. */
export async function readResponse<T = Untyped>(response: Response): Promise<ApiResponse<T>> {
  const text = await response.text();
  let parsed: unknown = text;
  if ((response.headers.get("content-type") ?? "").includes("json")) parsed = text ? JSON.parse(text) : null;
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/**
 * The Worker's real fetch handler (its default export, as `wrangler deploy` runs it). Every answer is
 * held to the OpenAPI document (test/support/conformance.ts): an undeclared status or a body off
 * its schema throws here, in the test that met it.
 */
export async function workerFetch(request: Request): Promise<Response> {
  const { method, url } = request;
  const response = await (exports as unknown as { default: { fetch(request: Request): Promise<Response> } }).default.fetch(request);
  await checkConformance(method, url, response);
  return response;
}

/** A request to the Worker's real fetch handler, on the tenant's host. */
export async function call<T = Untyped>(subdomain: string, path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
  return readResponse<T>(await workerFetch(testRequest(subdomain, path, options)));
}

/** A path as clients write it: `/invoices` means `/api/v1/invoices`; /api/…, /webhooks/… and URLs stay. */
export const v1 = (path: string) => (path.startsWith("/api/") || path.startsWith("/webhooks") || path.startsWith("http") ? path : `/api/v1${path}`);

/** A client bound to one tenant and token, for the /api/v1 prefix. */
export function client(subdomain: string, token?: string, defaults: Omit<CallOptions, "method" | "body"> = {}) {
  const withDefaults = (options: CallOptions): CallOptions => ({ token, ...defaults, ...options, headers: { ...defaults.headers, ...options.headers } });
  return {
    get: <T = Untyped>(path: string, options: CallOptions = {}) => call<T>(subdomain, v1(path), withDefaults({ ...options, method: "GET" })),
    post: <T = Untyped>(path: string, body?: unknown, options: CallOptions = {}) =>
      call<T>(subdomain, v1(path), withDefaults({ ...options, method: "POST", body })),
    put: <T = Untyped>(path: string, body?: unknown, options: CallOptions = {}) =>
      call<T>(subdomain, v1(path), withDefaults({ ...options, method: "PUT", body })),
    patch: <T = Untyped>(path: string, body?: unknown, options: CallOptions = {}) =>
      call<T>(subdomain, v1(path), withDefaults({ ...options, method: "PATCH", body })),
    delete: <T = Untyped>(path: string, options: CallOptions = {}) => call<T>(subdomain, v1(path), withDefaults({ ...options, method: "DELETE" })),
    as: (otherToken: string | undefined, extra: Omit<CallOptions, "method" | "body"> = {}) => client(subdomain, otherToken, { ...defaults, ...extra }),
  };
}

export type Client = ReturnType<typeof client>;

/** A list response (`paginated(item)`, src/http/pagination.ts): `api.get<Page<Product>>("/products")`. */
export interface Page<T> {
  data: T[];
  meta: z.output<typeof PaginationMeta>;
  links: z.output<typeof PaginationLinks>;
}

/** A one-item response (`dataOnly(item)`, src/http/schemas.ts): `api.get<Data<Product>>("/products/1")`. */
export interface Data<T> {
  data: T;
}

/** A write's response (`dataWithMessage(item)`, src/http/schemas.ts). */
export interface DataWithMessage<T> extends Data<T> {
  message: string;
}
