import { errors, jwtVerify, SignJWT } from "jose";
import { randomSecret, toBase64Url } from "../../lib/crypto";
import { hmacKey } from "../../lib/tokens";

/**
 * Authentication of the receiver services (DGII, Descripción técnica, "Estándar de comunicación
 * Emisor-Receptor", Autenticación: semilla → the seed signed by the sender → a bearer token).
 * DGII makes it optional; we declare it, so reception and commercial approval take the token.
 *
 * Nothing is stored: the seed's value carries its tenant, expiry and an HMAC of both under a key
 * derived from JWT_SECRET, so only seeds we issued, for this tenant and unexpired, are exchanged;
 * the token is a JWT under another derived key (never valid as an API token, whose key is
 * JWT_SECRET itself), naming the tenant and the certificate that signed the seed — its SHA-256 and
 * the RNC or cédula it names —, so a document posted with it must be signed by that certificate.
 * A seed is exchanged once: reception/service.ts spendSeed remembers it until it expires.
 */
export const SEED_TTL_SECONDS = 300;
export const RECEIVER_TOKEN_TTL_SECONDS = 3600;
const ISSUER = "sucursal-fe";

async function mac(secret: string, text: string): Promise<string> {
  const key = await hmacKey(secret, "fe-seed");
  return toBase64Url(new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(text))));
}

/** `{random}.{tenant}.{expiry}.{mac}` */
export async function newSeedValue(secret: string, tenantId: number, now = new Date()): Promise<string> {
  const random = randomSecret(24);
  const expires = Math.floor(now.getTime() / 1000) + SEED_TTL_SECONDS;
  const body = `${random}.${tenantId}.${expires}`;
  return `${body}.${await mac(secret, body)}`;
}

/** When a seed value of ours, for this tenant and unexpired, expires; null for any other value. */
export async function ourSeedExpiry(secret: string, tenantId: number, value: string, now = new Date()): Promise<Date | null> {
  const parts = value.split(".");
  if (parts.length !== 4) return null;
  const [random, tenant, expires, tag] = parts as [string, string, string, string];
  if (tenant !== String(tenantId) || !/^\d{1,12}$/.test(expires) || Number(expires) * 1000 < now.getTime()) return null;
  const expected = await mac(secret, `${random}.${tenant}.${expires}`);
  // Lengths are public (a fixed-size MAC); compared without an early exit.
  if (expected.length !== tag.length) return null;
  let difference = 0;
  for (let i = 0; i < expected.length; i++) difference |= expected.charCodeAt(i) ^ tag.charCodeAt(i);
  return difference === 0 ? new Date(Number(expires) * 1000) : null;
}

/** The SemillaModel DGII's example shows, with the value and the time of issue. */
export function seedXml(value: string, now = new Date()): string {
  return (
    '<?xml version="1.0" encoding="utf-8"?><SemillaModel xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">' +
    `<valor>${value}</valor><fecha>${now.toISOString()}</fecha></SemillaModel>`
  );
}

export interface ReceiverToken {
  token: string;
  expires: Date;
  issued: Date;
}

/** Who holds a receiver token: the certificate that signed its seed (issue 30: a document posted with the token must be signed by it). */
export interface TokenHolder {
  /** SHA-256 of the certificate, lowercase hex. */
  fingerprint: string;
  /** The RNC or cédula the certificate names (signers.ts identifiersOf). */
  identifiers: string[];
}

export async function issueReceiverToken(secret: string, tenantId: number, holder: TokenHolder, now = new Date()): Promise<ReceiverToken> {
  const issued = new Date(Math.floor(now.getTime() / 1000) * 1000);
  const expires = new Date(issued.getTime() + RECEIVER_TOKEN_TTL_SECONDS * 1000);
  const token = await new SignJWT({ tid: tenantId, ids: holder.identifiers })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(ISSUER)
    .setSubject(holder.fingerprint)
    .setIssuedAt(issued)
    .setExpirationTime(expires)
    .sign(await hmacKey(secret, "fe-token"));
  return { token, expires, issued };
}

/** The answer to a validated seed, as DGII gives it: the token and its times as yyyy-MM-ddTHH:mm:ssZ (.NET's universal sortable pattern). */
export function tokenAnswer(token: ReceiverToken): { token: string; expira: string; expedido: string } {
  const stamp = (at: Date) => `${at.toISOString().slice(0, 19)}Z`;
  return { token: token.token, expira: stamp(token.expires), expedido: stamp(token.issued) };
}

/** The same answer as XML (RespuestaAutenticacion), for a sender that asks for XML. */
export function tokenAnswerXml(answer: ReturnType<typeof tokenAnswer>): string {
  return `<?xml version="1.0" encoding="UTF-8"?><RespuestaAutenticacion><token>${answer.token}</token><expira>${answer.expira}</expira><expedido>${answer.expedido}</expedido></RespuestaAutenticacion>`;
}

/** The holder of a bearer token of this tenant; null for anything else. */
export async function receiverTokenHolder(secret: string, tenantId: number, authorization: string | undefined): Promise<TokenHolder | null> {
  const token = /^bearer\s+(\S+)$/i.exec(authorization?.trim() ?? "")?.[1];
  if (!token) return null;
  try {
    const { payload } = await jwtVerify(token, await hmacKey(secret, "fe-token"), { issuer: ISSUER, algorithms: ["HS256"] });
    const ids = payload.ids;
    if (payload.tid !== tenantId || typeof payload.sub !== "string" || !/^[0-9a-f]{64}$/.test(payload.sub)) return null;
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === "string")) return null;
    return { fingerprint: payload.sub, identifiers: ids as string[] };
  } catch (error) {
    if (error instanceof errors.JOSEError) return null;
    throw error;
  }
}
