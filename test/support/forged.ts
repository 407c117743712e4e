import { SignJWT } from "jose";

/** An access token shaped like ours for this tenant and user, but signed with another secret. */
export function forgedToken(tenantId: number, userId: number): Promise<string> {
  return new SignJWT({ tid: tenantId })
    .setProtectedHeader({ alg: "HS256" })
    .setIssuer("sucursal")
    .setSubject(String(userId))
    .setJti(crypto.randomUUID())
    .setExpirationTime("1h")
    .sign(new TextEncoder().encode("not-the-real-secret-but-long-enough-to-sign"));
}
