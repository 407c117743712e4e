import { DOMParser } from "@xmldom/xmldom";
import * as xmldsig from "xmldsigjs";

/**
 * A signed document checked by an implementation independent of ours (xmldsigjs over WebCrypto,
 * not xml-crypto, which signs): the e-CF's signature, as DGII would check it.
 */
xmldsig.Application.setEngine("WebCrypto", crypto);

/** True when the signature verifies; false when xmldsigjs refuses it (it throws on a digest mismatch). */
export async function verifyIndependently(xml: string): Promise<boolean> {
  const document = new DOMParser().parseFromString(xml, "application/xml");
  const signature = document.getElementsByTagNameNS("http://www.w3.org/2000/09/xmldsig#", "Signature")[0]!;
  const signed = new xmldsig.SignedXml(document as unknown as ConstructorParameters<typeof xmldsig.SignedXml>[0]);
  signed.LoadXml(signature as unknown as Parameters<typeof signed.LoadXml>[0]);
  try {
    return await signed.Verify();
  } catch (error) {
    // xml-core's XmlError is not an Error subclass: read its message.
    if (/Invalid digest/.test(String((error as { message?: unknown }).message))) return false;
    throw error;
  }
}
