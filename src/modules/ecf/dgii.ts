import { AppError } from "../../lib/errors";
import { endpointUrlProblem, ResolverUnavailable, resolvedHostProblem } from "../../lib/outbound-url";
import type { SigningMaterial } from "./certificate";
import type { EcfEnvironment } from "./schemas";
import { MAX_SEED_BYTES, NotASeed, seedToSign } from "./seed";
import { type SignableXml, signXml } from "./signature";

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
  constructor(
    message: string,
    /** DGII's HTTP status when it answered (429, 503…); undefined when it could not be reached. */
    readonly status?: number,
    /** Its Retry-After, in seconds, when it gave one. */
    readonly retryAfterSeconds?: number,
  ) {
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

/** What DGII's services answer (JSON, a seed) is a few KiB; 256 KiB bounds a broken or hostile answer. */
const DGII_ANSWER_BYTES = 256 * 1024;
/** What another taxpayer's receiver answers (a seed, a token, an ARECF, an approval's JSON) is a few KiB. */
export const RECEIVER_ANSWER_BYTES = 64 * 1024;
/** The text of an error answer kept in messages and `last_error`. */
const ERROR_TEXT_CHARACTERS = 2000;

/**
 * What a server answered cannot be used: a body beyond its bound (nothing of it is read further), a
 * redirect (never followed), a seed that is not one (nothing is signed). From DGII it is retried as
 * an outage (DGII may still have what was sent); from another taxpayer's receiver it is a refusal
 * (receiverCall).
 */
export class UnusableAnswer extends DgiiUnavailable {}

/**
 * The body of `response` as text, read no further than `maxBytes` (the stream is cancelled there):
 * a server cannot make us buffer more than that, whatever its Content-Length says.
 */
export async function boundedText(response: Response, maxBytes: number, url: string): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new UnusableAnswer(`The answer of ${url} is larger than ${maxBytes} bytes.`);
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new UnusableAnswer(`The answer of ${url} is larger than ${maxBytes} bytes.`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** A JSON answer read within its bound; a body that is not JSON reads as `fallback`. */
async function boundedJson<T>(response: Response, maxBytes: number, url: string, fallback?: T): Promise<T> {
  const text = await boundedText(response, maxBytes, url);
  try {
    return JSON.parse(text) as T;
  } catch {
    if (fallback !== undefined) return fallback;
    throw new DgiiUnavailable(`The answer of ${url} is not JSON: ${text.slice(0, 200)}`);
  }
}

/**
 * One call to DGII or to another taxpayer's receiver. Redirects are never followed (a 3xx is a
 * refusal: the URL DGII's directory gives is the one called), error bodies are read within their
 * bound and kept to 2,000 characters.
 */
async function call(url: string, init: RequestInit, maxBytes = DGII_ANSWER_BYTES): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(15_000) });
  } catch (error) {
    throw new DgiiUnavailable(`DGII could not be reached (${url}): ${error instanceof Error ? error.name : "error"}.`);
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    throw new DgiiRefused(
      `${url} answered a redirect (${response.status}) to ${response.headers.get("location") ?? "nowhere"}; redirects are not followed.`,
      "",
      response.status,
    );
  }
  if (!response.ok) {
    let body: string;
    try {
      body = (await boundedText(response, maxBytes, url)).slice(0, ERROR_TEXT_CHARACTERS);
    } catch (error) {
      if (!(error instanceof UnusableAnswer)) throw error;
      body = "";
    }
    const message = `DGII answered ${response.status} at ${url}: ${body.slice(0, 500)}`;
    if (response.status === 401) throw new DgiiUnauthorized(message);
    if (response.status >= 400 && response.status < 500 && ![408, 429].includes(response.status)) throw new DgiiRefused(message, body, response.status);
    const retryAfter = Number(response.headers.get("retry-after"));
    throw new DgiiUnavailable(message, response.status, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined);
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
  return exchangeSeed(`${base}/semilla`, `${base}/validarsemilla`, material, DGII_ANSWER_BYTES);
}

/**
 * Seed → signed seed → token: DGII's authentication, which a taxpayer's receiver services repeat
 * under /fe/autenticacion. What the server serves is signed only when seed.ts finds it is nothing
 * but a seed; anything else is an UnusableAnswer, and nothing is signed nor sent.
 */
async function exchangeSeed(seedUrl: string, validateUrl: string, material: SigningMaterial, maxBytes: number): Promise<DgiiToken> {
  const served = await boundedText(await call(seedUrl, { headers: { accept: "application/xml" } }, MAX_SEED_BYTES), MAX_SEED_BYTES, seedUrl);
  let seed: SignableXml;
  try {
    seed = seedToSign(served);
  } catch (error) {
    if (!(error instanceof NotASeed)) throw error;
    throw new UnusableAnswer(`${seedUrl} did not serve a seed, so nothing was signed: ${error.message}`);
  }
  const signed = signXml(seed, material);
  const answer = await boundedJson<{ token?: string; expira?: string }>(
    await call(validateUrl, { method: "POST", body: xmlForm(signed.xml, "semilla.xml"), headers: { accept: "application/json" } }, maxBytes),
    maxBytes,
    validateUrl,
  );
  if (typeof answer.token !== "string" || !answer.token || typeof answer.expira !== "string")
    throw new DgiiUnavailable("The token answer lacked the token or its expiry.");
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

/**
 * DGII's states in its words (Descripción técnica, "Consulta resultado" and "Recepción de resumen
 * factura de consumo": No encontrado 0, Aceptado 1, Rechazado 2, En Proceso 3, Aceptado
 * Condicional 4).
 */
const STATE_CODES: Record<string, number> = { "no encontrado": 0, aceptado: 1, rechazado: 2, "en proceso": 3, "aceptado condicional": 4 };
const STATE_CODES_SET = new Set(Object.values(STATE_CODES));

/** A result's code when DGII's answer has neither a known estado nor a known codigo: never final, asked again. */
export const UNJUDGED = -1;

/**
 * What DGII says of a document, judged by the body alone (issue 33: never by the HTTP status): its
 * `estado` — DGII's verdict in words, of which `codigo` is only "el código asociado al estado" — or,
 * without a known estado, its `codigo`. A codigo 1 whose estado is "Rechazado" is a rejection. An
 * answer with neither is UNJUDGED: never final, asked again.
 */
function resultOf(answer: { codigo?: unknown; estado?: unknown; mensajes?: unknown; secuenciaUtilizada?: unknown }): DgiiResult {
  const raw = typeof answer.codigo === "string" ? answer.codigo.trim() : answer.codigo;
  const byCode = (typeof raw === "number" || (typeof raw === "string" && /^\d+$/.test(raw))) && STATE_CODES_SET.has(Number(raw)) ? Number(raw) : null;
  const stateWords = typeof answer.estado === "string" ? answer.estado.trim().toLowerCase().replace(/\s+/g, " ") : "";
  const byState = stateWords in STATE_CODES ? STATE_CODES[stateWords]! : null;
  const code = byState ?? byCode ?? UNJUDGED;
  return {
    code,
    messages: messagesOf(answer.mensajes),
    sequenceUsed: typeof answer.secuenciaUtilizada === "boolean" ? answer.secuenciaUtilizada : null,
  };
}

/**
 * A refusal (4xx) whose body is still DGII's answer about the document (`codigo`/`estado`) is judged by
 * that body like any other answer: a 400 saying "Rechazado" with secuenciaUtilizada true used the
 * number; one saying "Aceptado" is an acceptance. A body that says nothing of the document leaves
 * the refusal as it was.
 */
function judgedRefusal(error: unknown): DgiiResult | null {
  const body = refusalBody(error);
  if (!body) return null;
  const result = resultOf(body);
  return result.code === UNJUDGED || result.code === 0 ? null : result;
}

/** A refusal's body when it is a JSON object (DGII's answer, to be judged), else null. */
function refusalBody(error: unknown): Record<string, unknown> | null {
  if (!(error instanceof DgiiRefused) || !error.body) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(error.body);
  } catch {
    return null;
  }
  return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
}

/**
 * Recepción de e-CF: POST {ecf}/recepcion/api/facturaselectronicas, the signed XML as multipart
 * field `xml` named RNCEmisor + e-NCF + ".xml" (Descripción técnica, "Formato de Nombre de
 * Archivo") → the trackId to query the result with. Judged by the body (issue 33): no trackId, or
 * an answer whose codigo/estado says Rechazado (with a trackId or not, whatever the HTTP status),
 * is a refusal.
 */
export async function sendEcf(ecfBaseUrl: string, token: string, xml: string, fileName: string): Promise<string> {
  const url = `${ecfBaseUrl}/recepcion/api/facturaselectronicas`;
  const answer = await boundedJson<{ trackId?: string | null; error?: string; mensaje?: string; mensajes?: unknown; codigo?: unknown; estado?: unknown }>(
    await call(url, { method: "POST", body: xmlForm(xml, fileName), headers: bearer(token) }),
    DGII_ANSWER_BYTES,
    url,
  );
  const refused = resultOf(answer).code === 2;
  if (!answer.trackId || refused) {
    const said = [answer.error, answer.mensaje, ...messagesOf(answer.mensajes).map((m) => m.valor)].filter(Boolean).join(" ");
    throw new DgiiRefused(`${refused ? "DGII refused the e-CF at reception" : "DGII gave no trackId"}: ${said}`.trim(), JSON.stringify(answer));
  }
  return answer.trackId;
}

/** A GET of DGII's state of a document, judged by its body whatever its status (judgedRefusal). */
async function stateAt(url: string, token: string): Promise<DgiiResult> {
  try {
    return resultOf(await boundedJson<Record<string, unknown>>(await call(url, { headers: bearer(token) }), DGII_ANSWER_BYTES, url));
  } catch (error) {
    const judged = judgedRefusal(error);
    if (judged) return judged;
    throw error;
  }
}

/** Consulta de resultado: GET {ecf}/consultaresultado/api/consultas/estado?trackid=… */
export function queryResult(ecfBaseUrl: string, token: string, trackId: string): Promise<DgiiResult> {
  return stateAt(`${ecfBaseUrl}/consultaresultado/api/consultas/estado?trackid=${encodeURIComponent(trackId)}`, token);
}

/** One trackId DGII holds for an e-NCF, with its state as DGII words it ("Aceptado", "Rechazado"…). */
export interface HeldTrackId {
  trackId: string;
  state: string;
  receivedAt: string | null;
}

/**
 * Consulta de trackIds: GET {ecf}/consultatrackids/api/trackids/consulta?rncemisor=…&encf=… — every
 * trackId DGII holds for the issuer's e-NCF (Descripción técnica, "Consulta de trackId e-CF": several
 * when the same e-NCF was sent more than once). How a sender learns whether a document whose answer
 * was lost reached DGII, instead of sending it again. DGII documents one object per trackId and
 * "No encontrado" as a state; an array, a single object and an empty answer are all read.
 */
export async function queryTrackIds(ecfBaseUrl: string, token: string, issuerRnc: string, encf: string): Promise<HeldTrackId[]> {
  const url = `${ecfBaseUrl}/consultatrackids/api/trackids/consulta?rncemisor=${encodeURIComponent(issuerRnc)}&encf=${encodeURIComponent(encf)}`;
  const answer = await boundedJson<unknown>(await call(url, { headers: bearer(token) }), DGII_ANSWER_BYTES, url, null);
  const entries = Array.isArray(answer) ? answer : answer && typeof answer === "object" ? [answer] : [];
  const held: HeldTrackId[] = [];
  for (const entry of entries as Record<string, unknown>[]) {
    const trackId = typeof entry.trackId === "string" ? entry.trackId : typeof entry.trackid === "string" ? entry.trackid : "";
    const state = String(entry.estado ?? "");
    if (!trackId || /no encontrado/i.test(state)) continue;
    held.push({ trackId, state, receivedAt: typeof entry.fechaRecepcion === "string" ? entry.fechaRecepcion : null });
  }
  return held;
}

/**
 * Of the trackIds DGII holds for one e-NCF, the one to follow: an accepted copy first (DGII's
 * "Aceptado", then "Aceptado Condicional"), then one still in process, then a rejected one (its
 * messages say why); null when DGII holds none.
 */
export function trackIdToFollow(held: HeldTrackId[]): HeldTrackId | null {
  const rank = (state: string) => {
    const s = state.toLowerCase();
    if (s === "aceptado") return 0;
    if (s.startsWith("aceptado")) return 1;
    if (s.includes("proceso")) return 2;
    return 3;
  };
  return [...held].sort((a, b) => rank(a.state) - rank(b.state))[0] ?? null;
}

/**
 * Recepción de resumen factura de consumo: POST {fc}/recepcionfc/api/recepcion/ecf, the signed
 * RFCE of an E32 under RD$250,000; the answer is final at once (no trackId).
 */
export async function sendConsumerSummary(fcBaseUrl: string, token: string, xml: string, fileName: string): Promise<DgiiResult> {
  const url = `${fcBaseUrl}/recepcionfc/api/recepcion/ecf`;
  try {
    return resultOf(
      await boundedJson<Record<string, unknown>>(
        await call(url, { method: "POST", body: xmlForm(xml, fileName), headers: bearer(token) }),
        DGII_ANSWER_BYTES,
        url,
      ),
    );
  } catch (error) {
    const judged = judgedRefusal(error);
    if (judged) return judged;
    throw error;
  }
}

/**
 * Consulta de Resumen de Factura (RFCE): GET {fc}/consultarfce/api/Consultas/Consulta?RNC_Emisor=…&ENCF=…&Cod_Seguridad_eCF=…
 * (Descripción técnica, "Consulta de Resumen de Factura (RFCE)") → DGII's state of the summary it
 * received, judged as any answer (0 No encontrado: it has none). How a sender learns what became
 * of a summary whose answer it could not judge or did not get, before sending it again (issue 43).
 */
export function queryConsumerSummary(fcBaseUrl: string, token: string, issuerRnc: string, encf: string, securityCode: string): Promise<DgiiResult> {
  const query = `RNC_Emisor=${encodeURIComponent(issuerRnc)}&ENCF=${encodeURIComponent(encf)}&Cod_Seguridad_eCF=${encodeURIComponent(securityCode)}`;
  return stateAt(`${fcBaseUrl}/consultarfce/api/Consultas/Consulta?${query}`, token);
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

/** DGII's answer to an ANECF, judged by its body (annulmentOutcome). */
export interface AnnulmentAnswer {
  annulled: boolean;
  /**
   * A partial answer (issue 43): the e-NCF DGII's detail names as not annulled, each with the
   * message that names it (`annulled` is true: the other numbers were). Empty otherwise.
   */
  exceptions: { encf: string; reason: string }[];
  /** DGII's `codigo` as it gave it (no table of them is published: recorded, not judged on). */
  code: string | null;
  messages: DgiiMessage[];
}

/**
 * The wording of DGII's ANECF answers (Descripción técnica, "Anulación de e-NCF", VALIDACIONES): the
 * one that says the sequences were annulled, and those that say they were not. DGII publishes no
 * table of the answer's `codigo`, only these messages, so they are what is judged on.
 */
const ANNULLED_WORDING = /secuencias fueron anuladas correctamente/i;
const NOT_ANNULLED_WORDING = /no fue posible anular|han sido utilizadas|no es v[aá]lid|no est[aá] delegado|es mayor al del campo|favor proveer un xml/i;
const DETAILED_WORDING = /con excepci[oó]n de las secuencias del detalle/i;
/** An e-NCF, or a range of them ("E310000000005 - E310000000007", "E31…05 al E31…07"), as a detail names it. */
const ENCF_OR_RANGE = /(E\d{2})(\d{10})(?:\s*(?:-|–|a|al|hasta)\s*E\d{2}(\d{10}))?/g;

/** The e-NCF a detail message names, a range expanded (at most 10,000: a detail is a list of numbers). */
function encfsNamed(text: string): string[] | null {
  const named: string[] = [];
  for (const match of text.matchAll(ENCF_OR_RANGE)) {
    const prefix = match[1]!;
    const from = Number(match[2]);
    const to = match[3] === undefined ? from : Number(match[3]);
    if (to < from || to - from >= 10_000 || named.length + (to - from) >= 10_000) return null;
    for (let n = from; n <= to; n++) named.push(`${prefix}${String(n).padStart(10, "0")}`);
  }
  return named;
}

/**
 * Numbers are annulled only when DGII says they are (issue 33): the answer's messages or `nombre`
 * say "Las secuencias fueron anuladas correctamente" and nothing in it says a sequence was not.
 * Whatever the HTTP status: a refusal answered 200 is a refusal, and an answer that does not say the
 * numbers were annulled leaves them as they were. A partial answer (issue 43) — annulled "Con
 * excepción de las secuencias del detalle", followed by messages naming the numbers that were not —
 * annuls the others, when every message of the detail names the e-NCF it is about; a detail that
 * names none leaves the whole range as it was (nothing can be said number by number).
 */
export function annulmentOutcome(body: unknown): AnnulmentAnswer {
  const answer = body && typeof body === "object" && !Array.isArray(body) ? (body as { codigo?: unknown; nombre?: unknown; mensajes?: unknown }) : {};
  const messages = messagesOf(answer.mensajes);
  const nombre = typeof answer.nombre === "string" ? answer.nombre.trim() : "";
  const all = nombre && !messages.some((m) => m.valor === nombre) ? [{ codigo: "", valor: nombre }, ...messages] : messages;
  const said = all.map((m) => m.valor);
  const code = typeof answer.codigo === "string" || typeof answer.codigo === "number" ? String(answer.codigo) : null;
  // What is kept and shown: DGII's messages, or its `nombre` when it gave none.
  const shown = messages.length ? messages : nombre ? [{ codigo: "", valor: nombre }] : [{ codigo: "", valor: "DGII's answer said nothing." }];
  const success = said.some((text) => ANNULLED_WORDING.test(text));
  const detailed = said.some((text) => DETAILED_WORDING.test(text));
  // The detail is DGII's messages after the one that says so (its `nombre` names the answer, not a number).
  const detail = messages.map((m) => m.valor).filter((text) => !ANNULLED_WORDING.test(text) && !DETAILED_WORDING.test(text));
  if (success && detailed && detail.length) {
    const exceptions: { encf: string; reason: string }[] = [];
    for (const text of detail) {
      const named = encfsNamed(text);
      if (!named?.length) return { annulled: false, exceptions: [], code, messages: shown };
      for (const encf of named) if (!exceptions.some((e) => e.encf === encf)) exceptions.push({ encf, reason: text });
    }
    return { annulled: true, exceptions, code, messages: shown };
  }
  const annulled = success && !said.some((text) => NOT_ANNULLED_WORDING.test(text)) && !detailed;
  return { annulled, exceptions: [], code, messages: shown };
}

/**
 * Anulación de e-NCF: POST {ecf}/anulacionrangos/api/operaciones/anularrango, the signed ANECF as
 * multipart `xml` → `{rnc, codigo, nombre, mensajes}`, judged by that body (annulmentOutcome) whether
 * DGII answered 2xx or 4xx. An answer that is not DGII's JSON (a 4xx page) is a refusal with its
 * text; 5xx, 408, 429 and no answer are DgiiUnavailable (nothing can be said of the numbers).
 */
export async function sendAnnulment(ecfBaseUrl: string, token: string, xml: string, fileName: string): Promise<AnnulmentAnswer> {
  const url = `${ecfBaseUrl}/anulacionrangos/api/operaciones/anularrango`;
  try {
    const answer = await boundedJson<unknown>(
      await call(url, { method: "POST", body: xmlForm(xml, fileName), headers: bearer(token) }),
      DGII_ANSWER_BYTES,
      url,
      null,
    );
    return annulmentOutcome(answer);
  } catch (error) {
    if (!(error instanceof DgiiRefused)) throw error;
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(error.body);
    } catch {
      return { annulled: false, exceptions: [], code: null, messages: refusalMessages(error.body) };
    }
    return annulmentOutcome(parsed);
  }
}

/** DGII's verdict on a commercial approval: 1 aprobada, 2 rechazada, UNJUDGED when its answer says neither. */
export interface ApprovalAnswer {
  code: 1 | 2 | typeof UNJUDGED;
  messages: DgiiMessage[];
}

/**
 * An approval's answer judged by its body (Descripción técnica, "Recepción de aprobación comercial",
 * ESTADOS: "Aprobación comercial aprobada (1)", "… rechazada (2)"): its estado's words first, else
 * its codigo; an answer with neither is UNJUDGED. A 200 whose body says rechazada is a refusal.
 */
function approvalAnswer(answer: { mensaje?: unknown; mensajes?: unknown; estado?: unknown; codigo?: unknown }): ApprovalAnswer {
  const words = typeof answer.estado === "string" ? answer.estado.toLowerCase() : "";
  const byState = /rechazad/.test(words) ? 2 : /aprobad|aceptad/.test(words) ? 1 : null;
  const raw = typeof answer.codigo === "string" ? answer.codigo.trim() : answer.codigo;
  const byCode = raw === 1 || raw === "1" ? 1 : raw === 2 || raw === "2" ? 2 : null;
  return { code: byState ?? byCode ?? UNJUDGED, messages: messagesOf(answer.mensaje ?? answer.mensajes) };
}

/**
 * Recepción de aprobación comercial: POST {ecf}/aprobacioncomercial/api/aprobacioncomercial, the
 * signed ACECF as multipart `xml` (Descripción técnica, "Recepción de aprobación comercial") →
 * `{mensaje, estado, codigo}`, judged by that body (approvalAnswer). A 4xx whose body is DGII's
 * answer is judged the same; one that is not stays a refusal (DgiiRefused).
 */
export async function sendCommercialApproval(ecfBaseUrl: string, token: string, xml: string, fileName: string): Promise<ApprovalAnswer> {
  const url = `${ecfBaseUrl}/aprobacioncomercial/api/aprobacioncomercial`;
  try {
    return approvalAnswer(
      await boundedJson<Record<string, unknown>>(
        await call(url, { method: "POST", body: xmlForm(xml, fileName), headers: bearer(token) }),
        DGII_ANSWER_BYTES,
        url,
        {},
      ),
    );
  } catch (error) {
    const body = refusalBody(error);
    const judged = body ? approvalAnswer(body) : null;
    if (!judged || judged.code === UNJUDGED) throw error;
    return judged;
  }
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
  const url = `${ecfBaseUrl}/consultadirectorio/api/consultas/obtenerdirectorioporrnc?RNC=${encodeURIComponent(rnc)}`;
  const entries = await boundedJson<{ rnc?: string; urlRecepcion?: string; urlAceptacion?: string }[]>(
    await call(url, { headers: bearer(token) }),
    DGII_ANSWER_BYTES,
    url,
    [],
  );
  const entry = Array.isArray(entries) ? entries.find((candidate) => candidate.rnc === rnc && (candidate.urlRecepcion || candidate.urlAceptacion)) : undefined;
  if (!entry) return null;
  const base = (url: string | undefined) => (url ? url.replace(/\/+$/, "") : null);
  return { receptionUrl: base(entry.urlRecepcion), approvalUrl: base(entry.urlAceptacion) };
}

/**
 * How another taxpayer's receiver may be called (issue 30): its URL, read from DGII's directory
 * (which any taxpayer fills in for itself), gets the rules of a webhook endpoint
 * (lib/outbound-url.ts): https to a public address, the name resolved through DNS over HTTPS
 * before each attempt; development allows http to loopback (the local DGII stand-in).
 */
export interface ReceiverPolicy {
  allowHttpLoopback: boolean;
  resolverUrl: string;
}

async function checkReceiverUrl(url: string, policy: ReceiverPolicy): Promise<void> {
  const problem = endpointUrlProblem(url, policy.allowHttpLoopback);
  if (problem) throw new DgiiRefused(`The receiver URL ${url} (DGII's directory) is refused: ${problem}`, "");
  let resolved: string | null;
  try {
    resolved = await resolvedHostProblem(url, policy.allowHttpLoopback, policy.resolverUrl);
  } catch (error) {
    if (error instanceof ResolverUnavailable) throw new DgiiUnavailable(`The receiver's host could not be resolved: ${error.message}`);
    throw error;
  }
  if (resolved) throw new DgiiRefused(`The receiver URL ${url} (DGII's directory) is refused: ${resolved}`, "");
}

/** A token of another taxpayer's receiver, or no header when it has no authentication (optional there: a 404). */
async function receiverHeaders(receiverUrl: string, material: SigningMaterial): Promise<Record<string, string>> {
  try {
    const { token } = await exchangeSeed(
      `${receiverUrl}/fe/autenticacion/api/semilla`,
      `${receiverUrl}/fe/autenticacion/api/validacioncertificado`,
      material,
      RECEIVER_ANSWER_BYTES,
    );
    return bearer(token);
  } catch (error) {
    if (!(error instanceof DgiiRefused && error.status === 404)) throw error;
    return { accept: "application/json" };
  }
}

/** Another taxpayer's receiver answering what cannot be used is a refusal: sending again would not help. */
async function receiverCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof UnusableAnswer) throw new DgiiRefused(error.message, "");
    throw error;
  }
}

/**
 * Sends an accepted e-CF to the buyer's receiver (Estándar de comunicación Emisor-Receptor,
 * "Recepción de e-CF": POST {url}/fe/recepcion/api/ecf, the file named RNCEmisor + e-NCF) and
 * returns its answer, the acknowledgement (ARECF) as text, read within RECEIVER_ANSWER_BYTES.
 */
export async function sendEcfToReceiver(
  receiverUrl: string,
  policy: ReceiverPolicy,
  material: SigningMaterial,
  xml: string,
  fileName: string,
): Promise<string> {
  await checkReceiverUrl(receiverUrl, policy);
  return receiverCall(async () => {
    const headers = await receiverHeaders(receiverUrl, material);
    const url = `${receiverUrl}/fe/recepcion/api/ecf`;
    const response = await call(
      url,
      { method: "POST", body: xmlForm(xml, fileName), headers: { ...headers, accept: "application/xml" } },
      RECEIVER_ANSWER_BYTES,
    );
    return boundedText(response, RECEIVER_ANSWER_BYTES, url);
  });
}

/**
 * Sends an ACECF to another taxpayer's receiver (Estándar de comunicación Emisor-Receptor):
 * authenticate at {url}/fe/autenticacion/api/{semilla,validacioncertificado} — optional for a
 * receiver, so a 404 there sends without a token —, then POST {url}/fe/aprobacioncomercial/api/ecf.
 */
export async function sendApprovalToReceiver(
  receiverUrl: string,
  policy: ReceiverPolicy,
  material: SigningMaterial,
  xml: string,
  fileName: string,
): Promise<void> {
  await checkReceiverUrl(receiverUrl, policy);
  await receiverCall(async () => {
    const headers = await receiverHeaders(receiverUrl, material);
    const url = `${receiverUrl}/fe/aprobacioncomercial/api/ecf`;
    const response = await call(url, { method: "POST", body: xmlForm(xml, fileName), headers }, RECEIVER_ANSWER_BYTES);
    await boundedText(response, RECEIVER_ANSWER_BYTES, url);
  });
}
