import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { type Authority, makeAuthority } from "./certificates";
import { ROOT } from "./database";

/** A random secret kept in .dev-data/<name>, made on first use: the same on every local start. */
function keptSecret(name: string, make: () => string): string {
  const file = path.join(ROOT, ".dev-data", name);
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch {
    const secret = make();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, secret, { mode: 0o600 });
    return secret;
  }
}

/**
 * The JWT secret tokens are signed with: JWT_SECRET when set (it must be the Worker's), else a
 * random one kept in .dev-data/ for `npm run dev` and the operator CLI to share.
 */
export function localJwtSecret(): string {
  return process.env.JWT_SECRET || keptSecret("jwt-secret", () => randomBytes(32).toString("hex"));
}

/**
 * The AES-GCM key of secrets at rest (APP_ENCRYPTION_KEY) when this shell does not set one: kept in
 * .dev-data/ like the database it encrypts into, so the demo's e-CF certificate and integration
 * secrets still open after a restart of `npm run dev`.
 */
export function localEncryptionKey(): string {
  return process.env.APP_ENCRYPTION_KEY || keptSecret("encryption-key", () => randomBytes(32).toString("base64"));
}

/**
 * The local certification authority of `npm run dev` (scripts/lib/certificates.ts), kept in
 * .dev-data/ so the demo's certificate still chains to it after a restart.
 */
export async function localAuthority(): Promise<Authority> {
  const file = path.join(ROOT, ".dev-data", "certification-authority.json");
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as Authority;
  } catch {
    const authority = await makeAuthority("AUTORIDAD DE CERTIFICACION LOCAL (npm run dev)");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(authority), { mode: 0o600 });
    return authority;
  }
}
