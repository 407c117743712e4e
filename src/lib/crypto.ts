// Integration secrets at rest (bot tokens, access tokens, app secrets, webhook secrets): AES-256-GCM
// through WebCrypto with the deployment key APP_ENCRYPTION_KEY (base64 of 32 bytes). A stored value
// is `v1.<iv base64url>.<ciphertext+tag base64url>`; a fresh 96-bit IV per value.
import { timingSafeEqual } from "./password";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const VERSION = "v1";

/** Bytes as base64url without padding. */
export function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64(text: string): Uint8Array {
  const normal = text.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(normal + "=".repeat((4 - (normal.length % 4)) % 4)), (ch) => ch.charCodeAt(0));
}

const keys = new Map<string, Promise<CryptoKey>>();

function encryptionKey(base64Key: string | undefined): Promise<CryptoKey> {
  if (!base64Key) throw new Error("APP_ENCRYPTION_KEY is not configured");
  let key = keys.get(base64Key);
  if (!key) {
    let raw: Uint8Array;
    try {
      raw = fromBase64(base64Key.trim());
    } catch {
      throw new Error("APP_ENCRYPTION_KEY is not valid base64");
    }
    if (raw.length !== 32) throw new Error("APP_ENCRYPTION_KEY must be 32 bytes (base64)");
    key = crypto.subtle.importKey("raw", raw as BufferSource, "AES-GCM", false, ["encrypt", "decrypt"]);
    keys.set(base64Key, key);
  }
  return key;
}

export async function encryptSecret(base64Key: string | undefined, plaintext: string): Promise<string> {
  const key = await encryptionKey(base64Key);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, encoder.encode(plaintext)));
  return `${VERSION}.${toBase64Url(iv)}.${toBase64Url(sealed)}`;
}

export async function decryptSecret(base64Key: string | undefined, stored: string): Promise<string> {
  const [version, iv, sealed] = stored.split(".");
  if (version !== VERSION || !iv || !sealed) throw new Error("unknown secret format");
  const key = await encryptionKey(base64Key);
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: fromBase64(iv) as BufferSource }, key, fromBase64(sealed) as BufferSource);
  return decoder.decode(plain);
}

/** `bytes` random bytes as base64url (no padding): 32 bytes → 43 characters of [A-Za-z0-9_-]. */
export function randomSecret(bytes = 32): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** The last 4 characters of a secret, for display. */
export const last4 = (secret: string) => secret.slice(-4);

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** SHA-256 of a UTF-8 string as lowercase hex: stored token hashes, request hashes, limiter keys. */
export async function sha256Hex(text: string): Promise<string> {
  return hex(await sha256(text));
}

/**
 * Constant-time equality of two strings: both are hashed first, so neither their contents nor
 * their lengths shape the comparison's timing.
 */
export async function secretsEqual(given: string, expected: string): Promise<boolean> {
  return timingSafeEqual(await sha256(given), await sha256(expected));
}

export async function hmacSha256Hex(secret: string, body: ArrayBuffer | Uint8Array): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return hex(new Uint8Array(await crypto.subtle.sign("HMAC", key, body as BufferSource)));
}
