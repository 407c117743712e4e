import { SignedXml } from "xml-crypto";
import type { SigningMaterial } from "./certificate";

/**
 * Signs an e-CF (or any of DGII's signed messages: seed, ARECF, ANECF, RFCE) the way DGII's
 * "Firmado de e-CF" document requires: an enveloped XMLDSig Signature appended as the root's last
 * child, C14N 1.0 (http://www.w3.org/TR/2001/REC-xml-c14n-20010315), RSA-SHA256, one Reference with
 * URI="" (the whole document), the enveloped-signature transform and a SHA-256 digest, and the
 * certificate in KeyInfo/X509Data. Canonicalization and signing are xml-crypto's (with
 * @xmldom/xmldom; RSA through node:crypto under nodejs_compat), never ours.
 */
const C14N = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315";
const RSA_SHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256";
const SHA256 = "http://www.w3.org/2001/04/xmlenc#sha256";
const ENVELOPED = "http://www.w3.org/2000/09/xmldsig#enveloped-signature";

export interface SignedDocument {
  /** The signed XML, byte for byte as it is stored and sent. */
  xml: string;
  signatureValue: string;
  /** The first 6 characters of the SignatureValue: the e-CF's security code (código de seguridad). */
  securityCode: string;
}

export function signXml(xml: string, material: Pick<SigningMaterial, "privateKeyPem" | "certificatePem">): SignedDocument {
  const signer = new SignedXml({
    privateKey: material.privateKeyPem,
    publicCert: material.certificatePem,
    signatureAlgorithm: RSA_SHA256,
    canonicalizationAlgorithm: C14N,
  });
  signer.addReference({ xpath: "/*", transforms: [ENVELOPED], digestAlgorithm: SHA256, uri: "", isEmptyUri: true });
  signer.computeSignature(xml, { location: { reference: "/*", action: "append" } });
  const signatureValue = signer.getSignatureXml().match(/<SignatureValue>([^<]+)<\/SignatureValue>/)![1]!;
  return { xml: signer.getSignedXml(), signatureValue, securityCode: signatureValue.slice(0, 6) };
}
