import { AppError } from "../../http/errors";
import type { SigningMaterial } from "./certificate";
import type { EcfEnvironment } from "./schemas";
import { signXml } from "./signature";

/**
 * DGII's e-CF web services, as their "Descripción técnica de facturación electrónica" describes
 * them. This step: authentication — GET the seed, sign it (signature.ts), POST it as multipart
 * field `xml` → a bearer token with its expiry. Tokens are kept per tenant and environment until
 * a minute before DGII says they expire (a token is good for the whole session it names).
 */
const REFRESH_MARGIN_MS = 60_000;

export interface DgiiToken {
  token: string;
  expires: Date;
}

/** Per isolate: a Worker isolate serves many requests, so one token serves many sends. */
const tokens = new Map<string, DgiiToken>();

/** DGII answered with an error, or could not be reached (the caller retries later). */
export class DgiiUnavailable extends AppError {
  constructor(message: string) {
    super("service_unavailable", message);
  }
}

async function call(url: string, init: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(15_000) });
  } catch (error) {
    throw new DgiiUnavailable(`DGII could not be reached (${url}): ${error instanceof Error ? error.name : "error"}.`);
  }
  if (!response.ok) {
    const body = (await response.text()).slice(0, 500);
    throw new DgiiUnavailable(`DGII answered ${response.status} at ${url}: ${body}`);
  }
  return response;
}

/** A fresh token: seed → signed seed → token (autenticacion/api/autenticacion/{semilla,validarsemilla}). */
export async function requestToken(ecfBaseUrl: string, material: SigningMaterial): Promise<DgiiToken> {
  const base = `${ecfBaseUrl}/autenticacion/api/autenticacion`;
  const seed = await (await call(`${base}/semilla`, { headers: { accept: "application/xml" } })).text();
  const signed = signXml(seed, material);
  const form = new FormData();
  form.append("xml", new Blob([signed.xml], { type: "text/xml" }), "semilla.xml");
  const answer = (await (await call(`${base}/validarsemilla`, { method: "POST", body: form, headers: { accept: "application/json" } })).json()) as {
    token?: string;
    expira?: string;
  };
  if (!answer.token || !answer.expira) throw new DgiiUnavailable("DGII's token answer lacked the token or its expiry.");
  return { token: answer.token, expires: new Date(answer.expira.trim()) };
}

/** The tenant's token for an environment: the cached one while it has more than a minute left, else a new one. */
export async function dgiiToken(
  tenantId: number,
  environment: EcfEnvironment,
  ecfBaseUrl: string,
  material: SigningMaterial,
  now = new Date(),
): Promise<DgiiToken> {
  const key = `${tenantId}:${environment}:${ecfBaseUrl}`;
  const cached = tokens.get(key);
  if (cached && cached.expires.getTime() - now.getTime() > REFRESH_MARGIN_MS) return cached;
  const fresh = await requestToken(ecfBaseUrl, material);
  tokens.set(key, fresh);
  return fresh;
}

/** After DGII answers 401 to a token: forget it, so the next call asks for a new one (once). */
export function forgetToken(tenantId: number, environment: EcfEnvironment, ecfBaseUrl: string): void {
  tokens.delete(`${tenantId}:${environment}:${ecfBaseUrl}`);
}
