import { errors, jwtVerify, SignJWT } from "jose";
import { ExpiringMap } from "./expiring-map";

const ISSUER = "sucursal";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface AccessTokenClaims {
  userId: number;
  tenantId: number;
  tokenId: string;
}

/**
 * The HMAC key as a CryptoKey, imported once per secret and isolate: given raw bytes, jose imports
 * them on every call (a WebCrypto import per request).
 */
const keys = new Map<string, Promise<CryptoKey>>();
function key(secret: string): Promise<CryptoKey> {
  if (!secret || secret.length < 32) throw new Error("JWT_SECRET must be at least 32 characters");
  let imported = keys.get(secret);
  if (!imported) {
    imported = crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    keys.set(secret, imported);
  }
  return imported;
}

const derived = new Map<string, Promise<CryptoKey>>();
/**
 * An HMAC key for another purpose (`label`), derived from the secret by HMAC-SHA256(secret, label):
 * what one purpose signs never verifies under another, nor as an access token.
 */
export function hmacKey(secret: string, label: string): Promise<CryptoKey> {
  const cacheKey = `${label}\u0000${secret}`;
  let imported = derived.get(cacheKey);
  if (!imported) {
    imported = key(secret)
      .then((root) => crypto.subtle.sign("HMAC", root, new TextEncoder().encode(label)))
      .then((bytes) => crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]));
    derived.set(cacheKey, imported);
  }
  return imported;
}

export async function signAccessToken(secret: string, claims: AccessTokenClaims, expiresAt: Date): Promise<string> {
  return new SignJWT({ tid: claims.tenantId })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(ISSUER)
    .setSubject(String(claims.userId))
    .setJti(claims.tokenId)
    .setIssuedAt()
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(await key(secret));
}

/**
 * Tokens this isolate has verified, until their expiry: a token is sent again on every request of
 * its client, and verifying it (decoding, JSON, an HMAC through WebCrypto) was CPU on each. This
 * caches what the signature proves, never whether the token still holds: revocation, the user's
 * deactivation and the permissions are the database's answer on every request (request_context,
 * http/auth.ts). Keyed by the token's text and the secret (a rotated secret verifies nothing
 * cached under the old one); bounded, oldest entry out first.
 */
const VERIFIED_MAX = 1000;
const verified = new ExpiringMap<{ secret: string; claims: AccessTokenClaims }>(VERIFIED_MAX);

/** The claims of a valid, unexpired token signed with our key; null for anything else. */
export async function verifyAccessToken(secret: string, token: string): Promise<AccessTokenClaims | null> {
  const hit = verified.get(token);
  if (hit?.secret === secret) return hit.claims;
  try {
    const { payload } = await jwtVerify(token, await key(secret), { issuer: ISSUER, algorithms: ["HS256"] });
    const userId = Number(payload.sub);
    const tenantId = Number(payload.tid);
    const tokenId = payload.jti;
    if (!Number.isSafeInteger(userId) || !Number.isSafeInteger(tenantId) || !tokenId || !UUID.test(tokenId)) return null;
    const claims = { userId, tenantId, tokenId };
    // jose refuses a token at its `exp` second (exp <= now); one without `exp` is not cached.
    if (typeof payload.exp === "number") verified.set(token, { secret, claims }, payload.exp * 1000);
    return claims;
  } catch (error) {
    if (error instanceof errors.JOSEError) return null;
    throw error;
  }
}
