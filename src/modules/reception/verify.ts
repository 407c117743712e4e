import forge from "node-forge";
import { SignedXml } from "xml-crypto";
import { DSIG, forXmlCrypto, type XmlDocument, type XmlElement } from "../ecf/signature";
import { type AcceptedSigner, checkSigner, type TrustStore } from "../ecf/signers";

/**
 * Verifies the enveloped XMLDSig signature of a document someone sent us (a supplier's e-CF, a
 * signed seed, an ACECF, a buyer's ARECF) as DGII's "Firmado de e-CF" requires it, and no weaker:
 * one Signature, the root's child, one Reference with URI="" (the whole document: a signature over
 * a part would let the rest be changed), RSA-SHA256 over SHA-256 digests only (an RSA-SHA1 or SHA-1
 * signature is refused, whatever the library would accept), the certificate of its KeyInfo accepted
 * by signers.ts (an accredited authority's, RSA ≥ 2048, valid now). Which party the certificate must
 * name is the caller's: the document's author (signers.ts namesAuthor).
 *
 * xml-crypto's SignedXml checks the digest and the signature value — not the code that signs ours
 * (signature.ts drives XMLDSig's steps itself). Its API takes the text, which it parses again: the
 * text passed the bounds of lib/xml-bounds.ts (no DOCTYPE), so it reads the same document as the
 * tree the caller holds.
 */

export type SignatureCheck = { valid: true; signer: AcceptedSigner } | { valid: false; reason: string };

const RSA_SHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256";
const SHA256 = "http://www.w3.org/2001/04/xmlenc#sha256";
/** Transforms a Reference may list: the enveloped-signature transform and a canonicalization (C14N 1.0 or exclusive, with or without comments). */
const TRANSFORMS = new Set([
  "http://www.w3.org/2000/09/xmldsig#enveloped-signature",
  "http://www.w3.org/TR/2001/REC-xml-c14n-20010315",
  "http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments",
  "http://www.w3.org/2001/10/xml-exc-c14n#",
  "http://www.w3.org/2001/10/xml-exc-c14n#WithComments",
]);

/** The direct child elements of `parent` in the signature's namespace named `name`. */
function dsigChildren(parent: XmlElement, name: string): XmlElement[] {
  const found: XmlElement[] = [];
  for (let child = parent.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === 1 && (child as XmlElement).namespaceURI === DSIG && (child as XmlElement).localName === name) found.push(child as XmlElement);
  }
  return found;
}

const algorithmOf = (element: XmlElement | undefined) => element?.getAttribute("Algorithm") ?? "";

/** Why SignedInfo is not what "Firmado de e-CF" asks, or null. */
function signedInfoProblem(signature: XmlElement): string | null {
  const [signedInfo, ...more] = dsigChildren(signature, "SignedInfo");
  if (!signedInfo || more.length) return "The signature must have exactly one SignedInfo.";
  if (algorithmOf(dsigChildren(signedInfo, "SignatureMethod")[0]) !== RSA_SHA256) return "The signature must be RSA-SHA256 (Firmado de e-CF).";
  const references = dsigChildren(signedInfo, "Reference");
  if (references.length !== 1 || (references[0]!.getAttribute("URI") ?? "") !== "") return "The signature does not cover the whole document.";
  const reference = references[0]!;
  if (algorithmOf(dsigChildren(reference, "DigestMethod")[0]) !== SHA256) return "The signature's digest must be SHA-256 (Firmado de e-CF).";
  for (const transforms of dsigChildren(reference, "Transforms")) {
    for (const transform of dsigChildren(transforms, "Transform")) {
      if (!TRANSFORMS.has(algorithmOf(transform))) return `The signature uses a transform that is not allowed: ${algorithmOf(transform)}.`;
    }
  }
  return null;
}

/** The certificates of KeyInfo/X509Data, in their order (the end certificate first, as xml-crypto reads it). */
function keyInfoCertificates(signature: XmlElement): forge.pki.Certificate[] | null {
  const keyInfo = dsigChildren(signature, "KeyInfo")[0];
  if (!keyInfo) return [];
  const certificates: forge.pki.Certificate[] = [];
  for (const data of dsigChildren(keyInfo, "X509Data")) {
    for (const element of dsigChildren(data, "X509Certificate")) {
      try {
        const der = forge.util.decode64((element.textContent ?? "").replace(/\s+/g, ""));
        certificates.push(forge.pki.certificateFromAsn1(forge.asn1.fromDer(der)));
      } catch {
        return null;
      }
      if (certificates.length > 5) return null;
    }
  }
  return certificates;
}

/**
 * The signature of `document` (parsed from `xml` by the caller, after xml-bounds), checked as above;
 * `signer` names who signed when valid.
 */
export function verifySignedDocument(document: XmlDocument, xml: string, trust: TrustStore, now = new Date()): SignatureCheck {
  const root = document.documentElement;
  if (!root) return { valid: false, reason: "The XML has no root element." };
  const signatures = document.getElementsByTagNameNS(DSIG, "Signature");
  if (signatures.length !== 1) return { valid: false, reason: signatures.length ? "More than one signature." : "The document is not signed." };
  const signature = signatures[0]!;
  if (signature.parentNode !== root) return { valid: false, reason: "The signature is not the root's (not enveloped)." };
  const shape = signedInfoProblem(signature);
  if (shape) return { valid: false, reason: shape };
  const certificates = keyInfoCertificates(signature);
  if (certificates === null) return { valid: false, reason: "The signature's certificates cannot be read (or are more than 5)." };
  const accepted = checkSigner(certificates, trust, now);
  if (!accepted.accepted) return { valid: false, reason: accepted.reason };
  const checker = new SignedXml({ getCertFromKeyInfo: () => accepted.signer.certificatePem });
  try {
    checker.loadSignature(forXmlCrypto(signature));
    if (!checker.checkSignature(xml)) return { valid: false, reason: "The signature does not match the document." };
  } catch (error) {
    return { valid: false, reason: `The signature does not verify: ${(error as Error).message}` };
  }
  return { valid: true, signer: accepted.signer };
}
