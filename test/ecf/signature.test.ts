import { DOMParser } from "@xmldom/xmldom";
import { describe, expect, it } from "vitest";
import * as xmldsig from "xmldsigjs";
import { signingMaterial } from "../../src/modules/ecf/certificate";
import { canonicalSignedInfoOf, parsedCanonicalForms, plainCanonicalForm, signXml } from "../../src/modules/ecf/signature";
import { buildEcf } from "../../src/modules/ecf/xml";
import { makeCertificate } from "../support/certificates";
import { documentFor } from "../support/ecf-documents";
import { signable } from "../support/signable";

/**
 * The e-CF signature (DGII, "Firmado de e-CF"): made with xml-crypto inside workerd, verified here
 * by an independent implementation (xmldsigjs, over WebCrypto).
 */
xmldsig.Application.setEngine("WebCrypto", crypto);

/** True when the signature verifies; false when xmldsigjs refuses it (it throws on a digest mismatch). */
async function verifyIndependently(xml: string): Promise<boolean> {
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

describe("e-CF signature", () => {
  it("signs enveloped, C14N 1.0, RSA-SHA256, URI='' with the certificate in KeyInfo; an independent verifier accepts it and refuses a change", async () => {
    const cert = await makeCertificate();
    const material = signingMaterial(cert.p12Base64, cert.password);
    const xml =
      '<?xml version="1.0" encoding="utf-8"?><ECF><Encabezado><Version>1.0</Version><IdDoc><TipoeCF>31</TipoeCF><eNCF>E310000000001</eNCF></IdDoc></Encabezado><FechaHoraFirma>22-11-2026 10:00:00</FechaHoraFirma></ECF>';
    const signed = signXml(signable(xml), material);
    expect(signed.xml).toContain('<Reference URI="">');
    expect(signed.xml).toContain('<CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"/>');
    expect(signed.xml).toContain('<SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>');
    expect(signed.xml).toContain('<Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/>');
    expect(signed.xml).toContain(`<X509Certificate>${material.certificateBase64}</X509Certificate>`);
    expect(signed.xml).toMatch(/<\/FechaHoraFirma><Signature xmlns="http:\/\/www.w3.org\/2000\/09\/xmldsig#">.*<\/Signature><\/ECF>$/);
    expect(signed.securityCode).toBe(signed.signatureValue.slice(0, 6));
    expect(await verifyIndependently(signed.xml)).toBe(true);
    expect(await verifyIndependently(signed.xml.replace("E310000000001", "E310000000002"))).toBe(false);
  });

  it("reads the canonical form of a document our builders write off its text, as xml-crypto does over the parse; anything else is parsed", async () => {
    const declaration = '<?xml version="1.0" encoding="utf-8"?>';
    const document = documentFor(3);
    document.lines[0]!.name = `Tornillo 1/2" & tuerca <M6> 'inox'\tcon\nsalto`;
    const ecf = buildEcf(document);
    expect(ecf).toContain("&quot;");
    const plain = [
      ecf,
      `${declaration}<SemillaModel><valor>abc&amp;d</valor><fecha>2026-11-28T10:00:00</fecha></SemillaModel>`,
      `${declaration}<A><B>x &lt; y &gt; z &quot;q&quot; &apos;a&apos;</B>\n  <C>é ✓ 𝄞</C></A>`,
    ];
    for (const xml of plain) {
      const parsed = parsedCanonicalForms(xml);
      expect(plainCanonicalForm(xml)).toBe(parsed.document);
      expect(canonicalSignedInfoOf("ZGlnZXN0")).toBe(parsed.signedInfo("ZGlnZXN0"));
    }
    const parsedOnly = [
      '<?xml version="1.0" encoding="utf-8"?><SemillaModel xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><valor>v</valor></SemillaModel>',
      `${declaration}<A><B>x\r\ny</B></A>`,
      `${declaration}<A><B>&#x41;</B></A>`,
      `${declaration}<A><B t="1">x</B></A>`,
      `${declaration}<A><!-- c --><B>x</B></A>`,
      `${declaration}<A><B>x</C></A>`,
      `${declaration}<A><B>x</B>`,
      `${declaration}<A/>`,
      `${declaration} <A>x</A>`,
      `${declaration}<A>x</A><B>y</B>`,
      '<?xml version="1.0"?><A>x</A>',
      "<A>x</A>",
    ];
    for (const xml of parsedOnly) expect(plainCanonicalForm(xml), xml).toBeNull();
    const cert = await makeCertificate();
    const signed = signXml(ecf, signingMaterial(cert.p12Base64, cert.password));
    expect(await verifyIndependently(signed.xml)).toBe(true);
    expect(await verifyIndependently(signed.xml.replace("Tornillo", "Tornilla"))).toBe(false);
  });
});
