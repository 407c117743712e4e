import { AppError } from "../../lib/errors";
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

/** DGII refused the token (401): it expired or was revoked; the caller asks for a new one, once. */
export class DgiiUnauthorized extends DgiiUnavailable {}

/** DGII refused what was sent (a 4xx other than 401/408/429): sending it again would not help. */
export class DgiiRefused extends DgiiUnavailable {
  constructor(
    message: string,
    readonly body: string,
    readonly status = 400,
  ) {
    super(message);
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
    const body = (await response.text()).slice(0, 2000);
    const message = `DGII answered ${response.status} at ${url}: ${body.slice(0, 500)}`;
    if (response.status === 401) throw new DgiiUnauthorized(message);
    if (response.status >= 400 && response.status < 500 && ![408, 429].includes(response.status)) throw new DgiiRefused(message, body, response.status);
    throw new DgiiUnavailable(message);
  }
  return response;
}

/** A multipart body with the file in field `xml`, as every DGII reception service takes it. */
function xmlForm(xml: string, fileName: string): FormData {
  const form = new FormData();
  form.append("xml", new Blob([xml], { type: "text/xml" }), fileName);
  return form;
}

/** A fresh token: seed → signed seed → token (autenticacion/api/autenticacion/{semilla,validarsemilla}). */
export async function requestToken(ecfBaseUrl: string, material: SigningMaterial): Promise<DgiiToken> {
  const base = `${ecfBaseUrl}/autenticacion/api/autenticacion`;
  return exchangeSeed(`${base}/semilla`, `${base}/validarsemilla`, material);
}

/** Seed → signed seed → token: DGII's authentication, which a taxpayer's receiver services repeat under /fe/autenticacion. */
async function exchangeSeed(seedUrl: string, validateUrl: string, material: SigningMaterial): Promise<DgiiToken> {
  const seed = await (await call(seedUrl, { headers: { accept: "application/xml" } })).text();
  const signed = signXml(seed, material);
  const answer = (await (
    await call(validateUrl, { method: "POST", body: xmlForm(signed.xml, "semilla.xml"), headers: { accept: "application/json" } })
  ).json()) as {
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

/** Calls DGII with the tenant's token; a 401 (expired or revoked) forgets it and tries once more with a new one. */
export async function withDgiiToken<T>(
  tenantId: number,
  environment: EcfEnvironment,
  ecfBaseUrl: string,
  material: SigningMaterial,
  call: (token: string) => Promise<T>,
): Promise<T> {
  try {
    return await call((await dgiiToken(tenantId, environment, ecfBaseUrl, material)).token);
  } catch (error) {
    if (!(error instanceof DgiiUnauthorized)) throw error;
    forgetToken(tenantId, environment, ecfBaseUrl);
    return call((await dgiiToken(tenantId, environment, ecfBaseUrl, material)).token);
  }
}

/** After DGII answers 401 to a token: forget it, so the next call asks for a new one (once). */
export function forgetToken(tenantId: number, environment: EcfEnvironment, ecfBaseUrl: string): void {
  tokens.delete(`${tenantId}:${environment}:${ecfBaseUrl}`);
}

/** A message of DGII's answers: `{codigo, valor}`. */
export interface DgiiMessage {
  codigo: string;
  valor: string;
}

/** What DGII says of a document: its state (Descripción técnica, "Consulta resultado": 0 no encontrado, 1 aceptado, 2 rechazado, 3 en proceso, 4 aceptado condicional). */
export interface DgiiResult {
  code: number;
  messages: DgiiMessage[];
  /** secuenciaUtilizada: on a rejection, false when the number may be sent again. */
  sequenceUsed: boolean | null;
}

const bearer = (token: string) => ({ accept: "application/json", authorization: `Bearer ${token}` });

function messagesOf(value: unknown): DgiiMessage[] {
  if (!Array.isArray(value)) return typeof value === "string" && value ? [{ codigo: "", valor: value }] : [];
  return value.map((entry) =>
    typeof entry === "string"
      ? { codigo: "", valor: entry }
      : { codigo: String((entry as { codigo?: unknown }).codigo ?? ""), valor: String((entry as { valor?: unknown }).valor ?? "") },
  );
}

function resultOf(answer: { codigo?: unknown; mensajes?: unknown; secuenciaUtilizada?: unknown }): DgiiResult {
  return {
    code: Number(answer.codigo ?? 0),
    messages: messagesOf(answer.mensajes),
    sequenceUsed: typeof answer.secuenciaUtilizada === "boolean" ? answer.secuenciaUtilizada : null,
  };
}

/**
 * Recepción de e-CF: POST {ecf}/recepcion/api/facturaselectronicas, the signed XML as multipart
 * field `xml` named RNCEmisor + e-NCF + ".xml" (Descripción técnica, "Formato de Nombre de
 * Archivo") → the trackId to query the result with.
 */
export async function sendEcf(ecfBaseUrl: string, token: string, xml: string, fileName: string): Promise<string> {
  const response = await call(`${ecfBaseUrl}/recepcion/api/facturaselectronicas`, { method: "POST", body: xmlForm(xml, fileName), headers: bearer(token) });
  const answer = (await response.json()) as { trackId?: string | null; error?: string; mensaje?: string };
  if (!answer.trackId) throw new DgiiRefused(`DGII gave no trackId: ${answer.error ?? ""} ${answer.mensaje ?? ""}`.trim(), JSON.stringify(answer));
  return answer.trackId;
}

/** Consulta de resultado: GET {ecf}/consultaresultado/api/consultas/estado?trackid=… */
export async function queryResult(ecfBaseUrl: string, token: string, trackId: string): Promise<DgiiResult> {
  const response = await call(`${ecfBaseUrl}/consultaresultado/api/consultas/estado?trackid=${encodeURIComponent(trackId)}`, { headers: bearer(token) });
  return resultOf((await response.json()) as Record<string, unknown>);
}

/**
 * Recepción de resumen factura de consumo: POST {fc}/recepcionfc/api/recepcion/ecf, the signed
 * RFCE of an E32 under RD$250,000; the answer is final at once (no trackId).
 */
export async function sendConsumerSummary(fcBaseUrl: string, token: string, xml: string, fileName: string): Promise<DgiiResult> {
  const response = await call(`${fcBaseUrl}/recepcionfc/api/recepcion/ecf`, { method: "POST", body: xmlForm(xml, fileName), headers: bearer(token) });
  return resultOf((await response.json()) as Record<string, unknown>);
}

/** Parses a refusal's body for DGII's messages (its JSON `mensaje`/`mensajes`/`error`), else the text itself. */
export function refusalMessages(body: string): DgiiMessage[] {
  try {
    const parsed = JSON.parse(body) as { mensajes?: unknown; mensaje?: unknown; error?: unknown };
    const messages = messagesOf(parsed.mensajes ?? parsed.mensaje);
    if (messages.length) return messages;
    if (typeof parsed.error === "string") return [{ codigo: "", valor: parsed.error }];
  } catch {
    // Not JSON: the text is the message.
  }
  return [{ codigo: "", valor: body.slice(0, 500) }];
}

/**
 * Anulación de e-NCF: POST {ecf}/anulacionrangos/api/operaciones/anularrango, the signed ANECF as
 * multipart `xml` → `{rnc, codigo, nombre, mensajes}`. DGII refusing (used numbers, a bad
 * signature) answers an error status: DgiiRefused, with its messages.
 */
export async function sendAnnulment(ecfBaseUrl: string, token: string, xml: string, fileName: string): Promise<DgiiMessage[]> {
  const response = await call(`${ecfBaseUrl}/anulacionrangos/api/operaciones/anularrango`, {
    method: "POST",
    body: xmlForm(xml, fileName),
    headers: bearer(token),
  });
  const answer = (await response.json()) as { mensajes?: unknown; nombre?: string };
  const messages = messagesOf(answer.mensajes);
  return messages.length ? messages : answer.nombre ? [{ codigo: "", valor: answer.nombre }] : [];
}

/**
 * Recepción de aprobación comercial: POST {ecf}/aprobacioncomercial/api/aprobacioncomercial, the
 * signed ACECF as multipart `xml` (Descripción técnica, "Recepción de aprobación comercial") →
 * `{mensaje, estado, codigo}`; a refusal is a 4xx with its messages (DgiiRefused).
 */
export async function sendCommercialApproval(ecfBaseUrl: string, token: string, xml: string, fileName: string): Promise<DgiiMessage[]> {
  const response = await call(`${ecfBaseUrl}/aprobacioncomercial/api/aprobacioncomercial`, {
    method: "POST",
    body: xmlForm(xml, fileName),
    headers: bearer(token),
  });
  const answer = (await response.json().catch(() => ({}))) as { mensaje?: unknown };
  return messagesOf(answer.mensaje);
}

/**
 * Consulta directorio: GET {ecf}/consultadirectorio/api/consultas/obtenerdirectorioporrnc?RNC=… →
 * the electronic taxpayer's receiver URLs (urlRecepcion for e-CF, urlAceptacion for approvals);
 * null when DGII lists no receiver for the RNC.
 */
export async function directoryReceiver(
  ecfBaseUrl: string,
  token: string,
  rnc: string,
): Promise<{ receptionUrl: string | null; approvalUrl: string | null } | null> {
  const response = await call(`${ecfBaseUrl}/consultadirectorio/api/consultas/obtenerdirectorioporrnc?RNC=${encodeURIComponent(rnc)}`, {
    headers: bearer(token),
  });
  const entries = (await response.json().catch(() => [])) as { rnc?: string; urlRecepcion?: string; urlAceptacion?: string }[];
  const entry = Array.isArray(entries) ? entries.find((candidate) => candidate.rnc === rnc && (candidate.urlRecepcion || candidate.urlAceptacion)) : undefined;
  if (!entry) return null;
  const base = (url: string | undefined) => (url ? url.replace(/\/+$/, "") : null);
  return { receptionUrl: base(entry.urlRecepcion), approvalUrl: base(entry.urlAceptacion) };
}

/** A token of another taxpayer's receiver, or no header when it has no authentication (optional there: a 404). */
async function receiverHeaders(receiverUrl: string, material: SigningMaterial): Promise<Record<string, string>> {
  try {
    const { token } = await exchangeSeed(`${receiverUrl}/fe/autenticacion/api/semilla`, `${receiverUrl}/fe/autenticacion/api/validacioncertificado`, material);
    return bearer(token);
  } catch (error) {
    if (!(error instanceof DgiiRefused && error.status === 404)) throw error;
    return { accept: "application/json" };
  }
}

/**
 * Sends an accepted e-CF to the buyer's receiver (Estándar de comunicación Emisor-Receptor,
 * "Recepción de e-CF": POST {url}/fe/recepcion/api/ecf, the file named RNCEmisor + e-NCF) and
 * returns its answer, the acknowledgement (ARECF) as text.
 */
export async function sendEcfToReceiver(receiverUrl: string, material: SigningMaterial, xml: string, fileName: string): Promise<string> {
  const headers = await receiverHeaders(receiverUrl, material);
  const response = await call(`${receiverUrl}/fe/recepcion/api/ecf`, {
    method: "POST",
    body: xmlForm(xml, fileName),
    headers: { ...headers, accept: "application/xml" },
  });
  return response.text();
}

/**
 * Sends an ACECF to another taxpayer's receiver (Estándar de comunicación Emisor-Receptor):
 * authenticate at {url}/fe/autenticacion/api/{semilla,validacioncertificado} — optional for a
 * receiver, so a 404 there sends without a token —, then POST {url}/fe/aprobacioncomercial/api/ecf.
 */
export async function sendApprovalToReceiver(receiverUrl: string, material: SigningMaterial, xml: string, fileName: string): Promise<void> {
  const headers = await receiverHeaders(receiverUrl, material);
  await call(`${receiverUrl}/fe/aprobacioncomercial/api/ecf`, { method: "POST", body: xmlForm(xml, fileName), headers });
}
