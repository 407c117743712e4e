import forge from "node-forge";
import { SignedXml } from "xml-crypto";
import { DSIG, parseXml } from "../ecf/signature";

/**
 * Verifies the enveloped XMLDSig signature of a document someone sent us (a supplier's e-CF, a
 * signed seed, an ACECF), as DGII's "Firmado de e-CF" requires it: one Signature, the root's
 * child, one Reference with URI="" (the whole document: a signature over a part would let the rest
 * be changed), RSA-SHA256, checked with the certificate of its KeyInfo, which must be within its
 * validity dates. xml-crypto's SignedXml does the checking — not the code that signs ours
 * (signature.ts drives XMLDSig's steps itself).
 *
 * Who the certificate belongs to is not decided here: DGII checks that the signer is delegated for
 * the issuer's RNC when it receives the e-CF; the receiver's part is the signature's integrity.
 */

export type SignatureCheck = { valid: true; signer: string; certificatePem: string } | { valid: false; reason: string };

/** The parsed document (signature.ts's parser), or null when the XML is not well-formed. */
export function tryParseXml(xml: string) {
  try {
    return parseXml(xml);
  } catch {
    return null;
  }
}

/** The certificate's subject CN (or the whole subject when it has no CN). */
function subjectOf(certificatePem: string): string {
  const certificate = forge.pki.certificateFromPem(certificatePem);
  const cn = certificate.subject.getField("CN")?.value as string | undefined;
  return cn ?? certificate.subject.attributes.map((a) => `${a.shortName ?? a.name}=${a.value}`).join(", ");
}

function validAt(certificatePem: string, now: Date): boolean {
  const { validity } = forge.pki.certificateFromPem(certificatePem);
  return validity.notBefore <= now && now <= validity.notAfter;
}

export function verifySignedXml(xml: string, now = new Date()): SignatureCheck {
  const document = tryParseXml(xml);
  if (!document) return { valid: false, reason: "The XML is not well-formed." };
  const root = document.documentElement!;
  const signatures = document.getElementsByTagNameNS(DSIG, "Signature");
  if (signatures.length !== 1) return { valid: false, reason: signatures.length ? "More than one signature." : "The document is not signed." };
  const signature = signatures[0]!;
  if (signature.parentNode !== root) return { valid: false, reason: "The signature is not the root's (not enveloped)." };
  const checker = new SignedXml({ getCertFromKeyInfo: SignedXml.getCertFromKeyInfo });
  try {
    checker.loadSignature(signature as never);
    const references = checker.getReferences();
    if (references.length !== 1 || (references[0]!.uri ?? "") !== "") return { valid: false, reason: "The signature does not cover the whole document." };
    if (!checker.checkSignature(xml)) return { valid: false, reason: "The signature does not match the document." };
  } catch (error) {
    return { valid: false, reason: `The signature does not verify: ${(error as Error).message}` };
  }
  const certificatePem = SignedXml.getCertFromKeyInfo(signature.getElementsByTagNameNS(DSIG, "KeyInfo")[0] as never);
  if (!certificatePem) return { valid: false, reason: "The signature carries no certificate." };
  try {
    if (!validAt(certificatePem, now)) return { valid: false, reason: "The certificate is expired or not yet valid." };
    return { valid: true, signer: subjectOf(certificatePem), certificatePem };
  } catch {
    return { valid: false, reason: "The certificate cannot be read." };
  }
}
