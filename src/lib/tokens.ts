import { errors, jwtVerify, SignJWT } from "jose";

const ISSUER = "sucursal";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface AccessTokenClaims {
  userId: number;
  tenantId: number;
  tokenId: string;
}

function key(secret: string): Uint8Array {
  if (!secret || secret.length < 32) throw new Error("JWT_SECRET must be at least 32 characters");
  return new TextEncoder().encode(secret);
}

export async function signAccessToken(secret: string, claims: AccessTokenClaims, expiresAt: Date): Promise<string> {
  return new SignJWT({ tid: claims.tenantId })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(ISSUER)
    .setSubject(String(claims.userId))
    .setJti(claims.tokenId)
    .setIssuedAt()
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(key(secret));
}

/** The claims of a valid, unexpired token signed with our key; null for anything else. */
export async function verifyAccessToken(secret: string, token: string): Promise<AccessTokenClaims | null> {
  try {
    const { payload } = await jwtVerify(token, key(secret), { issuer: ISSUER, algorithms: ["HS256"] });
    const userId = Number(payload.sub);
    const tenantId = Number(payload.tid);
    const tokenId = payload.jti;
    if (!Number.isSafeInteger(userId) || !Number.isSafeInteger(tenantId) || !tokenId || !UUID.test(tokenId)) return null;
    return { userId, tenantId, tokenId };
  } catch (error) {
    if (error instanceof errors.JOSEError) return null;
    throw error;
  }
}
