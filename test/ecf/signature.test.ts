import { describe, expect, it } from "vitest";
import { signingMaterial } from "../../src/modules/ecf/certificate";
import { signXml } from "../../src/modules/ecf/signature";
import { makeCertificate } from "../support/certificates";
import { verifyIndependently } from "../support/independent-signature";
import { signable } from "../support/signable";

/**
 * The e-CF signature (DGII, "Firmado de e-CF"): made with xml-crypto inside workerd, verified here
 * by an independent implementation (xmldsigjs, over WebCrypto).
 */
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
});
