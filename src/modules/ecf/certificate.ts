import { createPrivateKey, type KeyObject } from "node:crypto";
import forge from "node-forge";
import { fieldError } from "../../lib/errors";
import { certificateIdentifier } from "../../lib/identification";
import { subjectIdentifiers } from "./signers";

/**
 * The e-CF signing certificate: a PKCS#12 (.p12) from a DGII-accredited certification authority,
 * holding the holder's RSA private key and X.509 certificate (DGII, Descripción técnica de
 * facturación electrónica: e-CFs are signed XMLDSig RSA-SHA256 with the certificate in KeyInfo).
 * Parsed with node-forge (pure JavaScript: runs in workerd), never by hand.
 */
export interface CertificateInfo {
  subject: string;
  /** The subject's serialNumber attribute (OID 2.5.4.5): the holder's cédula or RNC on Dominican certificates. */
  serialNumber: string | null;
  issuer: string;
  notBefore: Date;
  notAfter: Date;
  /** SHA-256 of the certificate's DER, hex, colon-separated as certificate tools print it. */
  fingerprint: string;
}

/** The key and certificate to sign with, from a stored PKCS#12. */
export interface SigningMaterial {
  privateKeyPem: string;
  /** The key parsed once (node:crypto): signing with a PEM parses it every time, ~4× the RSA cost. */
  privateKey?: KeyObject;
  certificatePem: string;
  /** The certificate's DER in base64: what KeyInfo/X509Data/X509Certificate carries. */
  certificateBase64: string;
}

const SHORT_NAMES: Record<string, string> = { serialNumber: "SERIALNUMBER", emailAddress: "E" };

function distinguishedName(name: forge.pki.Certificate["subject"]): string {
  return name.attributes
    .map((attribute) => `${attribute.shortName ?? SHORT_NAMES[attribute.name ?? ""] ?? attribute.name ?? attribute.type}=${attribute.value}`)
    .join(", ");
}

/** Opens a PKCS#12: its RSA key and the certificate of that key. Anything else is a 422 on the field at fault. */
function open(p12Base64: string, password: string): { key: forge.pki.rsa.PrivateKey; certificate: forge.pki.Certificate } {
  const compact = p12Base64.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact) || compact.length % 4 !== 0) {
    throw fieldError("p12_base64", "The certificate file must be given in base64.");
  }
  let p12: forge.pkcs12.Pkcs12Pfx;
  try {
    p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(forge.util.decode64(compact)), password);
  } catch (error) {
    // forge says "Invalid password?" (a MAC mismatch) for a wrong password; anything else is not a PKCS#12 it can read.
    if (error instanceof Error && /password/i.test(error.message)) throw fieldError("password", "The password does not open this certificate file.");
    throw fieldError("p12_base64", "Not a PKCS#12 (.p12/.pfx) file with an RSA key and its certificate.");
  }
  const bags = (type: string): forge.pkcs12.Bag[] => p12.getBags({ bagType: type })[type] ?? [];
  const keys = [...bags(forge.pki.oids.pkcs8ShroudedKeyBag!), ...bags(forge.pki.oids.keyBag!)];
  const key = keys.map((bag) => bag.key).find((candidate): candidate is forge.pki.rsa.PrivateKey => candidate !== undefined && "n" in candidate);
  if (!key) throw fieldError("p12_base64", "The file holds no RSA private key (e-CF are signed RSA-SHA256).");
  const certificates = bags(forge.pki.oids.certBag!).flatMap((bag) => (bag.cert ? [bag.cert] : []));
  const certificate = certificates.find((cert) => (cert.publicKey as forge.pki.rsa.PublicKey).n?.equals(key.n));
  if (!certificate) throw fieldError("p12_base64", "The file holds no certificate of its private key.");
  return { key, certificate };
}

/**
 * Whom the certificate names: DGII requires the "SN" of a signing certificate to be its holder's
 * RNC or cédula (Descripción técnica, "Firmado de XML"), and the receivers we and others run accept
 * a signer only by it (signers.ts). So the subject's serialNumber or organizationIdentifier
 * must name an RNC or a cédula, in a prefix an accredited authority writes and with valid check
 * digits (lib/identification.ts certificateIdentifier): a passport (`PASDO-131000002`) names none.
 */
function assertNamesTaxpayer(certificate: forge.pki.Certificate): void {
  const named = subjectIdentifiers(certificate).map(({ attribute, value }) => certificateIdentifier(attribute, value));
  if (named.some((result) => result.ok)) return;
  const why = named.flatMap((result) => (result.ok ? [] : [result.message]));
  throw fieldError(
    "p12_base64",
    why.length
      ? `The certificate names no RNC nor cédula: ${why.join(" ")}`
      : "The certificate names no RNC nor cédula: its subject has no serialNumber (IDCDO-…) nor organizationIdentifier (VATDO-…).",
  );
}

/**
 * Checks a PKCS#12 as PUT /ecf/certificate receives it: it opens with the password, holds an RSA
 * key and its certificate, the certificate is valid at `now` and names an RNC or a cédula.
 */
export function inspectCertificate(p12Base64: string, password: string, now: Date): CertificateInfo {
  const { certificate } = open(p12Base64, password);
  const { notBefore, notAfter } = certificate.validity;
  if (now < notBefore) throw fieldError("p12_base64", `The certificate is valid only from ${notBefore.toISOString()}.`);
  if (now > notAfter) throw fieldError("p12_base64", `The certificate expired on ${notAfter.toISOString()}.`);
  assertNamesTaxpayer(certificate);
  const der = forge.asn1.toDer(forge.pki.certificateToAsn1(certificate)).getBytes();
  const digest = forge.md.sha256.create().update(der).digest().toHex().toUpperCase();
  const serial = certificate.subject.getField({ name: "serialNumber" }) as { value: string } | null;
  return {
    subject: distinguishedName(certificate.subject),
    serialNumber: serial?.value ?? null,
    issuer: distinguishedName(certificate.issuer),
    notBefore,
    notAfter,
    fingerprint: digest.match(/../g)!.join(":"),
  };
}

/** The key and certificate of a stored PKCS#12, for the signer. */
export function signingMaterial(p12Base64: string, password: string): SigningMaterial {
  const { key, certificate } = open(p12Base64, password);
  const der = forge.asn1.toDer(forge.pki.certificateToAsn1(certificate)).getBytes();
  const privateKeyPem = forge.pki.privateKeyToPem(key);
  return {
    privateKeyPem,
    privateKey: createPrivateKey(privateKeyPem),
    certificatePem: forge.pki.certificateToPem(certificate),
    certificateBase64: forge.util.encode64(der),
  };
}
