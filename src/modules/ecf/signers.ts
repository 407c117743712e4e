import forge from "node-forge";
import { type CertificateIdAttribute, certificateIdentifier } from "../../lib/identification";

/**
 * Who may sign what another taxpayer sends us (issue 30, "Accept signatures only from who the
 * document says signed it"; docs/security.md, "e-CF exchanges").
 *
 * Ley 32-23 art. 6 requires every electronic issuer to sign with "un certificado digital para
 * Procedimiento Tributario, emitido … por una entidad de certificación autorizada por el INDOTEL",
 * and DGII's "Estándar de comunicación Emisor-Receptor" (Descripción técnica, Requerimientos
 * Generales 7) asks the same of every receiver's counterpart. So a signer is accepted when:
 *
 * - its certificate chains, through the intermediates the signature's KeyInfo carries, to an
 *   authority of the configured trust store (ECF_TRUSTED_CA_PEM: the INDOTEL-accredited
 *   authorities' certificates; node-forge's RFC 5280 path validation, at the time of checking);
 * - every certificate of that path is RSA of at least 2048 bits and signed with SHA-256 or
 *   stronger (a SHA-1 or MD5 certificate signature is refused, as RSA-1024 keys are);
 * - the end certificate's key usage, when it states one, allows signing;
 * - and the party it names is the document's author: the RNC or cédula of the subject's serialNumber
 *   (OID 2.5.4.5, `IDCDO-` and a cédula) or organizationIdentifier (2.5.4.97, `VATDO-` and an
 *   RNC, on certificates "con vínculo institucional" issued to a representative for a company),
 *   with valid check digits; no other prefix names a taxpayer (lib/identification.ts
 *   certificateIdentifier; docs/security.md, "Who a certificate names").
 */

/** The trust store parsed from a PEM bundle; null when none is configured. */
export interface TrustStore {
  store: forge.pki.CAStore;
  /** How many authorities it holds (for the configuration error and logs). */
  size: number;
}

const stores = new Map<string, TrustStore>();

/** A PEM bundle that cannot be read: a configuration error, never "trust nothing" silently. */
export class TrustStoreError extends Error {
  override name = "TrustStoreError";
}

/** The configured authorities, parsed once per bundle; null when the setting is empty. */
export function trustStoreOf(pemBundle: string | undefined): TrustStore | null {
  if (!pemBundle?.trim()) return null;
  const known = stores.get(pemBundle);
  if (known) return known;
  const blocks = pemBundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (!blocks.length) throw new TrustStoreError("ECF_TRUSTED_CA_PEM holds no PEM certificate.");
  let certificates: forge.pki.Certificate[];
  try {
    certificates = blocks.map((block) => forge.pki.certificateFromPem(block));
  } catch (error) {
    throw new TrustStoreError(`ECF_TRUSTED_CA_PEM holds a certificate that cannot be read: ${(error as Error).message}`);
  }
  const trust = { store: forge.pki.createCaStore(certificates), size: certificates.length };
  stores.set(pemBundle, trust);
  return trust;
}

/** A certificate's SHA-256 over its DER, lowercase hex: what a receiver token binds. */
export function certificateFingerprint(certificate: forge.pki.Certificate): string {
  const der = forge.asn1.toDer(forge.pki.certificateToAsn1(certificate)).getBytes();
  return forge.md.sha256.create().update(der).digest().toHex();
}

const ORGANIZATION_IDENTIFIER = "2.5.4.97";

/** The subject's serialNumber and organizationIdentifier values, each with its attribute. */
export function subjectIdentifiers(certificate: forge.pki.Certificate): { attribute: CertificateIdAttribute; value: string }[] {
  return certificate.subject.attributes.flatMap((attribute) => {
    const name: CertificateIdAttribute | null =
      attribute.name === "serialNumber" ? "serialNumber" : attribute.type === ORGANIZATION_IDENTIFIER ? "organizationIdentifier" : null;
    return name && typeof attribute.value === "string" ? [{ attribute: name, value: attribute.value }] : [];
  });
}

/** The RNC or cédula a certificate's subject names (certificateIdentifier), deduplicated; those that name none are left out. */
export function identifiersOf(certificate: forge.pki.Certificate): string[] {
  const values = subjectIdentifiers(certificate).flatMap(({ attribute, value }) => {
    const named = certificateIdentifier(attribute, value);
    return named.ok ? [named.value] : [];
  });
  return [...new Set(values)];
}

/** The subject's CN, or the whole subject when it has none. */
export function subjectOf(certificate: forge.pki.Certificate): string {
  const cn = certificate.subject.getField("CN")?.value as string | undefined;
  return cn ?? certificate.subject.attributes.map((a) => `${a.shortName ?? a.name ?? a.type}=${a.value}`).join(", ");
}

const MIN_RSA_BITS = 2048;
/** Certificate signature algorithms accepted: RSA with SHA-256, -384 or -512 (PKCS #1 v1.5). */
const STRONG_CERTIFICATE_SIGNATURES = new Set([
  forge.pki.oids.sha256WithRSAEncryption,
  forge.pki.oids.sha384WithRSAEncryption,
  forge.pki.oids.sha512WithRSAEncryption,
]);

function rsaBits(certificate: forge.pki.Certificate): number | null {
  const key = certificate.publicKey as forge.pki.rsa.PublicKey;
  return key?.n ? key.n.bitLength() : null;
}

/**
 * The certification path of `leaf` among `candidates` (the other certificates of the KeyInfo), leaf
 * first, each followed by its issuer, as node-forge's path validation takes it; at most 5 long.
 */
function pathOf(leaf: forge.pki.Certificate, candidates: forge.pki.Certificate[]): forge.pki.Certificate[] {
  const path = [leaf];
  let current = leaf;
  while (path.length < 5) {
    const issuer = candidates.find((candidate) => !path.includes(candidate) && candidate !== current && candidate.isIssuer(current));
    if (!issuer || issuer.isIssuer(issuer)) break; // a self-signed root comes from the store, never from the sender
    path.push(issuer);
    current = issuer;
  }
  return path;
}

export interface AcceptedSigner {
  /** The subject's CN: what is shown (`signer` of a received e-CF). */
  subject: string;
  /** SHA-256 of the end certificate: a receiver token is bound to it. */
  fingerprint: string;
  /** The RNC or cédula the certificate names (see identifiersOf). */
  identifiers: string[];
  certificatePem: string;
}

export type SignerCheck = { accepted: true; signer: AcceptedSigner } | { accepted: false; reason: string };

/**
 * Whether the certificates of a signature (end certificate first, as its KeyInfo gives them) come
 * from an authority of `trust`, are strong enough and valid at `now`. Who they name is checked by
 * the caller against the document (`namesAuthor`).
 */
export function checkSigner(certificates: forge.pki.Certificate[], trust: TrustStore, now: Date): SignerCheck {
  const [leaf, ...others] = certificates;
  if (!leaf) return { accepted: false, reason: "The signature carries no certificate." };
  const path = pathOf(leaf, others);
  for (const certificate of path) {
    const bits = rsaBits(certificate);
    if (bits === null) return { accepted: false, reason: `The certificate of ${subjectOf(certificate)} has no RSA key (e-CF are signed RSA-SHA256).` };
    if (bits < MIN_RSA_BITS)
      return { accepted: false, reason: `The certificate of ${subjectOf(certificate)} has an RSA key of ${bits} bits; at least ${MIN_RSA_BITS} are required.` };
    if (!STRONG_CERTIFICATE_SIGNATURES.has(certificate.siginfo.algorithmOid ?? certificate.signatureOid ?? "")) {
      return {
        accepted: false,
        reason: `The certificate of ${subjectOf(certificate)} is signed with a weak algorithm (${forge.pki.oids[certificate.signatureOid ?? ""] ?? certificate.signatureOid}); SHA-256 or stronger is required.`,
      };
    }
  }
  const usage = leaf.getExtension("keyUsage") as { digitalSignature?: boolean; nonRepudiation?: boolean } | null;
  if (usage && !usage.digitalSignature && !usage.nonRepudiation) return { accepted: false, reason: "The certificate's key usage does not allow signing." };
  try {
    forge.pki.verifyCertificateChain(trust.store, path, { validityCheckDate: now });
  } catch (error) {
    const message = (error as { message?: string }).message ?? String(error);
    return { accepted: false, reason: `The certificate is not from an accredited authority, or not valid now: ${message}` };
  }
  return {
    accepted: true,
    signer: {
      subject: subjectOf(leaf),
      fingerprint: certificateFingerprint(leaf),
      identifiers: identifiersOf(leaf),
      certificatePem: forge.pki.certificateToPem(leaf),
    },
  };
}

/** Whether the signer's certificate names `author` (an RNC or cédula the document names as its author). */
export const namesAuthor = (signer: AcceptedSigner, author: string | null | undefined): boolean => !!author && signer.identifiers.includes(author);
