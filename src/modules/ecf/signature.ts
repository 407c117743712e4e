import { createHash, createSign } from "node:crypto";
import { DOMParser } from "@xmldom/xmldom";
import { C14nCanonicalization } from "xml-crypto";
import { xmlBoundsProblem } from "../../lib/xml-bounds";
import type { SigningMaterial } from "./certificate";

/**
 * Signs an e-CF (or any of DGII's signed messages: seed, ANECF, RFCE) the way DGII's
 * "Firmado de e-CF" document requires: an enveloped XMLDSig Signature appended as the root's last
 * child, C14N 1.0 (http://www.w3.org/TR/2001/REC-xml-c14n-20010315), RSA-SHA256, one Reference with
 * URI="" (the whole document), the enveloped-signature transform and a SHA-256 digest, and the
 * certificate in KeyInfo/X509Data.
 *
 * Canonicalization is xml-crypto's C14nCanonicalization over an @xmldom/xmldom parse, never ours;
 * digest and RSA are node:crypto's (workerd under nodejs_compat). The steps are XMLDSig's own
 * (Core Generation, W3C xmldsig-core 3.1): digest the canonical document — the enveloped-signature
 * transform removes a Signature the document does not hold yet, so it leaves it whole —, write
 * SignedInfo, sign its canonical form (inside Signature, whose default namespace it inherits). We
 * drive them rather than xml-crypto's SignedXml because SignedXml clones the whole document,
 * evaluates XPath over it and parses and serializes it again: ~1.7× the CPU of an e-CF of 1,000
 * lines (`npm run bench:ecf`). An independent implementation (xmldsigjs) verifies what this signs,
 * in test/ecf/signature.test.ts and in the fake DGII.
 */
export const DSIG = "http://www.w3.org/2000/09/xmldsig#";
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

const canonicalizer = new C14nCanonicalization();

/**
 * What may be signed with a tenant's key: only XML Sucursal built itself from its own data (the
 * builders of e-CF, RFCE, ANECF, ARECF and ACECF mark their output with `built`), or a seed that
 * seed.ts checked is nothing but a seed. A text another party handed us is a plain string and does
 * not type-check as a SignableXml: a hostile receiver cannot have an e-CF or an ANECF signed in the
 * tenant's name by passing it off as a seed (issue 30; docs/security.md lists the signing paths,
 * and test/node/signing-paths.test.ts holds the code to that list).
 */
export type SignableXml = string & { readonly signable: unique symbol };

/** Marks the output of one of our builders (and of seed.ts's check) as signable. Nothing else calls it. */
export const built = (xml: string) => xml as SignableXml;

/**
 * @xmldom/xmldom 0.8, the line xml-crypto itself depends on: 0.9 builds a RegExp for every end tag,
 * which made parsing an e-CF of 1,000 lines ~2.7× slower (`npm run bench:ecf`).
 */
export function parseXml(xml: string) {
  const errors: string[] = [];
  const collect = (message: string) => void errors.push(message);
  const document = new DOMParser({ errorHandler: { warning: () => undefined, error: collect, fatalError: collect } }).parseFromString(xml, "text/xml");
  if (errors.length || !document.documentElement) throw new Error(`Not well-formed XML: ${errors.length ? errors.join("; ") : "no root element."}`);
  return document;
}

export type XmlDocument = ReturnType<typeof parseXml>;
/** An element of such a document (xmldom's nodes, typed with the DOM's own interfaces). */
export type XmlElement = Element;

/** XML from outside refused before a parser reads it (lib/xml-bounds.ts), or not well-formed. */
export class UntrustedXmlError extends Error {
  override name = "UntrustedXmlError";
}

/** XML someone else sent us: bounded first (no DOCTYPE, depth, namespaces), then parsed once. */
export function parseUntrustedXml(xml: string): XmlDocument {
  const problem = xmlBoundsProblem(xml);
  if (problem) throw new UntrustedXmlError(problem);
  try {
    return parseXml(xml);
  } catch (error) {
    throw new UntrustedXmlError((error as Error).message);
  }
}

/**
 * xml-crypto types its DOM arguments with its own Node type; the nodes are @xmldom/xmldom 0.8's,
 * the package xml-crypto itself parses with, so the objects are what it expects: the one place the
 * two libraries' types meet.
 */
type XmlCryptoNode = Parameters<C14nCanonicalization["process"]>[0];
export const forXmlCrypto = (node: XmlElement | XmlDocument | ChildNode): XmlCryptoNode => node as unknown as XmlCryptoNode;

export function signXml(xml: SignableXml, material: Pick<SigningMaterial, "privateKeyPem" | "privateKey" | "certificatePem">): SignedDocument {
  const root = parseXml(xml).documentElement!;
  if (root.getElementsByTagNameNS(DSIG, "Signature").length) throw new Error("The document is signed already.");
  const digest = createHash("sha256")
    .update(canonicalizer.process(forXmlCrypto(root), {}), "utf8")
    .digest("base64");
  const signedInfo =
    `<SignedInfo><CanonicalizationMethod Algorithm="${C14N}"/><SignatureMethod Algorithm="${RSA_SHA256}"/>` +
    `<Reference URI=""><Transforms><Transform Algorithm="${ENVELOPED}"/></Transforms><DigestMethod Algorithm="${SHA256}"/>` +
    `<DigestValue>${digest}</DigestValue></Reference></SignedInfo>`;
  // SignedInfo is canonicalized where it will stand: inside Signature (whose default namespace it
  // inherits, rendered by C14N) inside the root, whose prefixed namespace declarations inclusive
  // C14N also renders on it (a seed's xmlns:xsi and xmlns:xsd, say).
  const signedInfoNode = parseXml(`<Signature xmlns="${DSIG}">${signedInfo}</Signature>`).documentElement!.firstChild!;
  const inherited = Array.from(root.attributes as ArrayLike<{ name: string; value: string }>)
    .filter((attribute) => attribute.name.startsWith("xmlns:"))
    .map((attribute) => ({ prefix: attribute.name.slice(6), namespaceURI: attribute.value }));
  const canonicalSignedInfo = canonicalizer.process(forXmlCrypto(signedInfoNode), { ancestorNamespaces: inherited });
  const signatureValue = createSign("RSA-SHA256")
    .update(canonicalSignedInfo, "utf8")
    .sign(material.privateKey ?? material.privateKeyPem, "base64");
  const certificate = material.certificatePem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, "");
  const signature = `<Signature xmlns="${DSIG}">${signedInfo}<SignatureValue>${signatureValue}</SignatureValue><KeyInfo><X509Data><X509Certificate>${certificate}</X509Certificate></X509Data></KeyInfo></Signature>`;
  // The Signature becomes the root's last child: before the root's closing tag, the document's end.
  const close = xml.lastIndexOf("</");
  if (close < 0 || !/^<\/[^>]+>\s*$/.test(xml.slice(close))) throw new Error("The document does not end with its root's closing tag.");
  return { xml: `${xml.slice(0, close)}${signature}${xml.slice(close)}`, signatureValue, securityCode: signatureValue.slice(0, 6) };
}
