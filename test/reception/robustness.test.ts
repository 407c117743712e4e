import { describe, expect, it } from "vitest";
import { ecfTenant } from "../ecf/helpers";
import { freshRnc } from "../support/sales";
import { arecfFields, fe, signAs, signAsSupplier, supplierToken } from "./helpers";
import { supplierEcf } from "./supplier";

/**
 * What a hostile or broken sender can post to /fe/recepcion/api/ecf: every answer is one DGII's
 * protocol defines (an ARECF, or a 400 when nothing can be acknowledged), never a 500.
 */
describe("e-CF reception: hostile and broken input", () => {
  it("garbage, entity bombs, foreign roots, double or partial signatures, weak algorithms: 400 or ARECF Estado 1, never 500", async () => {
    const t = await ecfTenant();
    const supplierRnc = freshRnc();
    const token = await supplierToken(t.tenant.subdomain, supplierRnc);
    const encf = "E310000000042";
    const valid = await signAsSupplier(supplierEcf({ issuerRnc: supplierRnc, buyerRnc: t.rnc, encf }));
    const bomb = `<?xml version="1.0"?><!DOCTYPE ECF [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]><ECF><Encabezado><Emisor><RNCEmisor>${supplierRnc}</RNCEmisor></Emisor><IdDoc><eNCF>${encf}</eNCF></IdDoc></Encabezado><x>&d;</x></ECF>`;
    const external = `<?xml version="1.0"?><!DOCTYPE ECF [<!ENTITY e SYSTEM "http://169.254.169.254/latest/meta-data/">]><ECF><Encabezado><Emisor><RNCEmisor>${supplierRnc}</RNCEmisor></Emisor><IdDoc><eNCF>${encf}</eNCF></IdDoc></Encabezado><x>&e;</x></ECF>`;
    const signature = /<(ds:)?Signature[\s>][\s\S]*<\/(ds:)?Signature>/.exec(valid)![0];
    const twoSignatures = valid.replace("</ECF>", `${signature}</ECF>`);
    // A Reference over a part of the document (an Id) instead of the whole: refused (it would let the rest change).
    const partial = valid.replace(/URI=""/, 'URI="#x"');
    const sha1 = valid.replace(/http:\/\/www\.w3\.org\/2001\/04\/xmldsig-more#rsa-sha256/, "http://www.w3.org/2000/09/xmldsig#rsa-sha1");
    // Entities are never expanded nor fetched: a document that needs them cannot be read (400).
    const cases: [string, BodyInit | string, "400" | "1"][] = [
      ["random bytes", crypto.getRandomValues(new Uint8Array(2048)) as unknown as string, "400"],
      ["empty ECF", "<ECF/>", "400"],
      ["another root", `<ARECF><RNCEmisor>${supplierRnc}</RNCEmisor><eNCF>${encf}</eNCF></ARECF>`, "400"],
      ["malformed RNC", valid.replace(`<RNCEmisor>${supplierRnc}</RNCEmisor>`, "<RNCEmisor>12</RNCEmisor>"), "400"],
      ["entity bomb", bomb, "400"],
      ["external entity", external, "400"],
      ["two signatures", twoSignatures, "1"],
      ["partial reference", partial, "1"],
      ["rsa-sha1 signature method", sha1, "1"],
    ];
    for (const [what, body, expected] of cases) {
      const res = await fe(t.tenant.subdomain, "/fe/recepcion/api/ecf", { xml: body as string, token });
      if (expected === "400") {
        expect(res.status, `${what}: ${res.text.slice(0, 200)}`).toBe(400);
      } else {
        expect(res.status, `${what}: ${res.text.slice(0, 200)}`).toBe(200);
        expect(arecfFields(res.text).estado, what).toBe("1");
      }
    }
    // Multipart that is not: a boundary that never comes.
    const broken = await fe(t.tenant.subdomain, "/fe/recepcion/api/ecf", {
      raw: "--x\r\nContent-Disposition: form-data; name=xml",
      contentType: "multipart/form-data; boundary=y",
      token,
    });
    expect(broken.status).toBe(400);
    // After all that, the valid document is still received once.
    const ok = await fe(t.tenant.subdomain, "/fe/recepcion/api/ecf", { xml: valid, token });
    expect(arecfFields(ok.text)).toMatchObject({ estado: "0", encf });
  });

  it("a certificate outside its dates signs nothing we accept: no token (400), and a document under another token is ARECF code 2", async () => {
    const t = await ecfTenant();
    const supplierRnc = freshRnc();
    const token = await supplierToken(t.tenant.subdomain, supplierRnc);
    const { makeCertificate } = await import("../support/certificates");
    const expired = await makeCertificate({ holderId: supplierRnc, notBefore: new Date("2024-01-01"), notAfter: new Date("2025-01-01") });
    const seed = await fe(t.tenant.subdomain, "/fe/autenticacion/api/semilla");
    const refused = await fe(t.tenant.subdomain, "/fe/autenticacion/api/validacioncertificado", { xml: signAs(expired, seed.text) });
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(
      /^La firma del archivo no es válida: The certificate is not from an accredited authority, or not valid now: Certificate is not valid yet or has expired\./,
    );
    const res = await fe(t.tenant.subdomain, "/fe/recepcion/api/ecf", {
      xml: signAs(expired, supplierEcf({ issuerRnc: supplierRnc, buyerRnc: t.rnc, encf: "E310000000043" })),
      token,
    });
    expect(arecfFields(res.text)).toMatchObject({ estado: "1", codigo: "2" });
  });
});
