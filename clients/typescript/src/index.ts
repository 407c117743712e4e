import createFetchClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema";

export type { components, paths };
/** A schema of the API by name: `Schema<"Invoice">`. */
export type Schema<Name extends keyof components["schemas"]> = components["schemas"][Name];
export type SucursalClient = Client<paths>;

export interface ClientOptions {
  /**
   * The tenant's origin, without /api/v1: the API picks the tenant from the host (https://acme.sucursal.do).
   * fetch cannot set a Host header (Node's drops it, browsers forbid it), so it must be the tenant's host itself.
   */
  baseUrl: string;
  /** An access token (POST /api/v1/auth/tokens), sent as Authorization: Bearer. */
  token?: string;
  /** Another fetch (tests, retries, a proxy). */
  fetch?: typeof globalThis.fetch;
}

/** A client of every /api/v1 operation, its paths, parameters, bodies and answers typed from the OpenAPI document. */
export function createClient(options: ClientOptions): SucursalClient {
  const headers: Record<string, string> = {};
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  return createFetchClient<paths>({ baseUrl: options.baseUrl, headers, ...(options.fetch ? { fetch: options.fetch } : {}) });
}
