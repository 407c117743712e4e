import { and, eq, isNotNull } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import type { Config } from "../../env";
import { decryptSecret, encryptSecret } from "../../lib/crypto";
import { AppError, fieldError, notFound } from "../../lib/errors";
import { timestamp } from "../../lib/format";
import { endpointUrlProblem } from "../../lib/outbound-url";
import { inspectCertificate, type SigningMaterial, signingMaterial } from "./certificate";
import type { ReceiverPolicy } from "./dgii";
import { productionGate } from "./ports";
import type { EcfEnvironment, PutCertificateInput, PutSettingsInput } from "./schemas";

const settings = schema.ecfSettings;
type SettingsRow = typeof settings.$inferSelect;

/** A certificate this close to its end is flagged in GET (DGII refuses documents signed with an expired one). */
const EXPIRY_WARNING_DAYS = 30;

async function settingsRow(db: AnyDb, tenantId: number): Promise<SettingsRow | undefined> {
  const [row] = await db.select().from(settings).where(eq(settings.tenantId, tenantId));
  return row;
}

/** DGII's hosts for an environment: `{base}/{environment}` (DGII, Descripción técnica: testecf, certecf, ecf). */
export function dgiiUrls(config: Pick<Config, "DGII_ECF_BASE_URL" | "DGII_FC_BASE_URL">, environment: EcfEnvironment) {
  return { ecf: `${config.DGII_ECF_BASE_URL}/${environment}`, fc: `${config.DGII_FC_BASE_URL}/${environment}` };
}

/** How other taxpayers' receivers may be called: the rules of webhook endpoints (dgii.ts ReceiverPolicy). */
export function receiverPolicy(config: Pick<Config, "WEBHOOKS_ALLOW_HTTP_LOOPBACK" | "WEBHOOKS_DNS_RESOLVER_URL">): ReceiverPolicy {
  return { allowHttpLoopback: config.WEBHOOKS_ALLOW_HTTP_LOOPBACK, resolverUrl: config.WEBHOOKS_DNS_RESOLVER_URL };
}

export function serializeSettings(row: SettingsRow | undefined, config: Pick<Config, "DGII_ECF_BASE_URL" | "DGII_FC_BASE_URL">) {
  const environment = (row?.environment ?? "testecf") as EcfEnvironment;
  const urls = dgiiUrls(config, environment);
  return {
    environment,
    enabled: row?.enabled ?? false,
    has_certificate: Boolean(row?.certificateEncrypted),
    ecf_base_url: urls.ecf,
    fc_base_url: urls.fc,
    deferred_sending_authorization: row?.deferredSendingAuthorization ?? null,
    receiver_url: row?.receiverUrl ?? null,
    updated_at: timestamp(row?.updatedAt ?? null),
  };
}

export async function getSettings(db: AnyDb, tenantId: number) {
  return settingsRow(db, tenantId);
}

/** PUT /ecf/settings. Turning e-CF on needs a certificate (422 on `enabled`): nothing could be signed. */
export async function putSettings(db: AnyDb, tenantId: number, input: PutSettingsInput, options: { allowHttpLoopback?: boolean } = {}): Promise<SettingsRow> {
  const current = await settingsRow(db, tenantId);
  const receiverUrl =
    input.receiver_url === undefined ? undefined : input.receiver_url === null ? null : receiverBaseUrl(input.receiver_url, options.allowHttpLoopback ?? false);
  if (input.enabled && !current?.certificateEncrypted) {
    throw fieldError("enabled", "Upload the signing certificate (PUT /api/v1/ecf/certificate) before enabling e-CF.");
  }
  // DGII opens production only to a certified issuer (issue 32): the steps Sucursal runs must be done.
  if (input.environment === "ecf" && current?.environment !== "ecf") await productionGate.use(db, tenantId);
  const values = {
    environment: input.environment ?? current?.environment ?? "testecf",
    enabled: input.enabled ?? current?.enabled ?? false,
    deferredSendingAuthorization:
      input.deferred_sending_authorization === undefined ? (current?.deferredSendingAuthorization ?? null) : input.deferred_sending_authorization,
    ...(receiverUrl === undefined ? {} : { receiverUrl }),
    updatedAt: new Date(),
  };
  return upsertSettings(db, tenantId, values);
}

/**
 * The receiver's base URL as DGII's directory lists one (urlRecepcion: the host, /fe/… appended by
 * whoever calls): the rules of a webhook endpoint (lib/outbound-url.ts: https to a public
 * address), without query, fragment or a path ending in /fe; the trailing slash dropped.
 */
function receiverBaseUrl(raw: string, allowHttpLoopback: boolean): string {
  const problem = endpointUrlProblem(raw, allowHttpLoopback);
  if (problem) throw fieldError("receiver_url", problem);
  const url = new URL(raw);
  if (url.search || url.hash) throw fieldError("receiver_url", "Must not carry a query or a fragment.");
  const base = `${url.origin}${url.pathname}`.replace(/\/+$/, "");
  if (/\/fe$/i.test(base)) throw fieldError("receiver_url", "The base URL, without /fe: /fe/recepcion/api/ecf and the other paths are appended to it.");
  return base;
}

/** The tenant's one settings row, created on its first write. */
async function upsertSettings(db: AnyDb, tenantId: number, values: Partial<typeof settings.$inferInsert>): Promise<SettingsRow> {
  const row = await db
    .insert(settings)
    .values({ tenantId, ...values })
    .onConflictDoUpdate({ target: settings.tenantId, set: values })
    .returning()
    .then(oneRow);
  return row;
}

export function serializeCertificate(row: SettingsRow | undefined, now: Date) {
  // PUT /ecf/certificate writes the sealed file and what it read of it together (putCertificate).
  const { certificateNotAfter: notAfter, certificateSubject: subject, certificateIssuer: issuer, certificateNotBefore: notBefore } = row ?? {};
  const fingerprint = row?.certificateFingerprint;
  if (!row?.certificateEncrypted || !notAfter || !subject || !issuer || !notBefore || !fingerprint) throw notFound("Certificate");
  const daysLeft = Math.floor((notAfter.getTime() - now.getTime()) / 86_400_000);
  return {
    subject,
    serial_number: row.certificateSerialNumber,
    issuer,
    not_before: timestamp(notBefore),
    not_after: timestamp(notAfter),
    fingerprint_sha256: fingerprint,
    warnings:
      daysLeft < 0
        ? [{ code: "certificate_expired", message: `The certificate expired on ${timestamp(notAfter)}: e-CF cannot be signed until a new one is uploaded.` }]
        : daysLeft <= EXPIRY_WARNING_DAYS
          ? [{ code: "certificate_expiring", message: `The certificate expires in ${daysLeft} day(s), on ${timestamp(notAfter)}.` }]
          : [],
  };
}

/**
 * PUT /ecf/certificate: the PKCS#12 must open with its password, hold an RSA key and its
 * certificate, valid now (422 on the field otherwise). It is stored encrypted with the app key
 * (AES-256-GCM, lib/crypto.ts) together with its password; what GET shows is read now, once.
 */
export async function putCertificate(
  db: AnyDb,
  tenantId: number,
  input: PutCertificateInput,
  encryptionKey: string | undefined,
  now: Date,
): Promise<SettingsRow> {
  const info = inspectCertificate(input.p12_base64, input.password, now);
  if (!encryptionKey) throw new AppError("ecf_not_configured", "The server has no APP_ENCRYPTION_KEY: certificates cannot be stored.");
  const sealed = await encryptSecret(encryptionKey, JSON.stringify({ p12_base64: input.p12_base64.replace(/\s+/g, ""), password: input.password }));
  const values = {
    certificateEncrypted: sealed,
    certificateSubject: info.subject,
    certificateSerialNumber: info.serialNumber,
    certificateIssuer: info.issuer,
    certificateNotBefore: info.notBefore,
    certificateNotAfter: info.notAfter,
    certificateFingerprint: info.fingerprint,
    updatedAt: new Date(),
  };
  return upsertSettings(db, tenantId, values);
}

/** DELETE /ecf/certificate: the certificate goes, and e-CF is turned off (nothing could be signed). */
export async function deleteCertificate(db: AnyDb, tenantId: number): Promise<void> {
  const [row] = await db
    .update(settings)
    .set({
      certificateEncrypted: null,
      certificateSubject: null,
      certificateSerialNumber: null,
      certificateIssuer: null,
      certificateNotBefore: null,
      certificateNotAfter: null,
      certificateFingerprint: null,
      enabled: false,
      updatedAt: new Date(),
    })
    .where(and(eq(settings.tenantId, tenantId), isNotNull(settings.certificateEncrypted)))
    .returning();
  if (!row) throw notFound("Certificate");
}

/**
 * Per isolate, the opened certificate of each tenant: opening a PKCS#12 (key derivation, decryption)
 * costs far more than signing, and an isolate serves many issues. Keyed by the stored ciphertext,
 * which a new upload changes (a fresh IV each time), so a replaced certificate is never used.
 */
const materials = new Map<string, SigningMaterial>();
const MATERIALS_KEPT = 64;

export async function openedCertificate(tenantId: number, sealed: string, encryptionKey: string | undefined): Promise<SigningMaterial> {
  const key = `${tenantId}:${sealed.slice(-32)}`;
  const cached = materials.get(key);
  if (cached) return cached;
  const { p12_base64, password } = JSON.parse(await decryptSecret(encryptionKey, sealed)) as { p12_base64: string; password: string };
  const opened = signingMaterial(p12_base64, password);
  if (materials.size >= MATERIALS_KEPT) materials.clear();
  materials.set(key, opened);
  return opened;
}

/** The stored key and certificate, decrypted, for signing. */
export async function tenantSigningMaterial(db: AnyDb, tenantId: number, encryptionKey: string | undefined): Promise<SigningMaterial> {
  const row = await settingsRow(db, tenantId);
  if (!row?.certificateEncrypted) throw new AppError("ecf_not_configured", "No e-CF signing certificate: PUT /api/v1/ecf/certificate.");
  return openedCertificate(tenantId, row.certificateEncrypted, encryptionKey);
}
