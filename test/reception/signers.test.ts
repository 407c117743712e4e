import { describe, expect, it } from "vitest";
import { SignedXml } from "xml-crypto";
import { ecfTenant } from "../ecf/helpers";
import { appCall } from "../security/world";
import type { Page } from "../support/api";
import { call, TEST_DOMAIN } from "../support/api";
import { makeCertificate, type TestCertificate } from "../support/certificates";
import { freshRnc } from "../support/sales";
import { ownerRows, sql } from "../support/seed";
import { arecfFields, fe, receiverToken, signAs, signAsSupplier, supplierToken } from "./helpers";
import { supplierEcf } from "./supplier";

/**
 * Issue 30, "Accept signatures only from who the document says signed it": the receiver takes a
 * signature only from a certificate of an accredited authority (the run's test authority is the
 * only one configured in ECF_TRUSTED_CA_PEM), RSA ≥ 2048, RSA-SHA256 over SHA-256 digests, naming the
 * document's author, the same certificate that took the token; a seed is spent once.
 */

let sequence = 0;
const nextEncf = () => `E31${String(Date.now() % 1e7).padStart(7, "0")}${String(++sequence % 1000).padStart(3, "0")}`;

/** A signature xml-crypto makes with SHA-1 (RSA-SHA1, SHA-1 digest): what an old signer would send. */
function signSha1(cert: TestCertificate, xml: string): string {
  const signer = new SignedXml({
    privateKey: cert.privateKeyPem,
    publicCert: cert.certificatePem,
    signatureAlgorithm: "http://www.w3.org/2000/09/xmldsig#rsa-sha1",
    canonicalizationAlgorithm: "http://www.w3.org/TR/2001/REC-xml-c14n-20010315",
  });
  signer.addReference({
    xpath: "/*",
    uri: "",
    isEmptyUri: true,
    digestAlgorithm: "http://www.w3.org/2000/09/xmldsig#sha1",
    transforms: ["http://www.w3.org/2000/09/xmldsig#enveloped-signature"],
  });
  signer.computeSignature(xml, { location: { reference: "/*", action: "append" } });
  return signer.getSignedXml();
}

const seedOf = async (subdomain: string) => (await fe(subdomain, "/fe/autenticacion/api/semilla")).text;
const exchange = (subdomain: string, signed: string) => fe(subdomain, "/fe/autenticacion/api/validacioncertificado", { xml: signed });

// Some tests make a certificate (an RSA key) per case.
describe("who may authenticate at the receiver", { timeout: 60_000 }, () => {
  it("refuses a seed signed by a self-signed, an unaccredited, an RSA-1024, a SHA-1-certified or an expired certificate, RSA-SHA1, and one naming no taxpayer", async () => {
    const t = await ecfTenant();
    const sub = t.tenant.subdomain;
    const rnc = freshRnc();
    const rogue = (await import("../../scripts/lib/certificates")).makeAuthority;
    const cases: [string, Promise<string>, string][] = [
      ["self-signed", makeCertificate({ holderId: rnc, authority: null }).then(async (c) => signAs(c, await seedOf(sub))), "Certificate is not trusted."],
      [
        "another authority",
        rogue("AUTORIDAD NO ACREDITADA").then(async (authority) => signAs(await makeCertificate({ holderId: rnc, authority }), await seedOf(sub))),
        "Certificate is not trusted.",
      ],
      [
        "RSA-1024",
        makeCertificate({ holderId: rnc, keyBits: 1024 }).then(async (c) => signAs(c, await seedOf(sub))),
        "has an RSA key of 1024 bits; at least 2048 are required.",
      ],
      [
        "certificate signed with SHA-1",
        makeCertificate({ holderId: rnc, hash: "sha1" }).then(async (c) => signAs(c, await seedOf(sub))),
        "is signed with a weak algorithm",
      ],
      [
        "expired",
        makeCertificate({ holderId: rnc, notBefore: new Date("2024-01-01"), notAfter: new Date("2025-01-01") }).then(async (c) => signAs(c, await seedOf(sub))),
        "Certificate is not valid yet or has expired.",
      ],
      [
        "RSA-SHA1 signature",
        makeCertificate({ holderId: rnc }).then(async (c) => signSha1(c, await seedOf(sub))),
        "The signature must be RSA-SHA256 (Firmado de e-CF).",
      ],
      [
        "no RNC or cédula in the certificate",
        makeCertificate({ holderId: null }).then(async (c) => signAs(c, await seedOf(sub))),
        "El certificado no identifica a un contribuyente: su serialNumber no es un RNC ni una cédula.",
      ],
      // A passport of nine digits is not that RNC (issue 41); nor a prefix no accredited authority writes, a bare number or a wrong check digit.
      ...(
        [
          ["a passport (PASDO-)", { holderId: `PASDO-${rnc}` }],
          ["a TINDO- prefix", { holderId: `TINDO-${rnc}` }],
          ["a bare number", { holderId: null, serialNumber: rnc }],
          ["a cédula with a wrong check digit", { holderId: "IDCDO-00113918206" }],
          ["an RNC with a wrong check digit", { holderId: null, organizationIdentifier: `VATDO-${rnc.slice(0, 8)}${(Number(rnc[8]) + 1) % 10}` }],
        ] as const
      ).map(([what, options]): [string, Promise<string>, string] => [
        what,
        makeCertificate(options).then(async (c) => signAs(c, await seedOf(sub))),
        "El certificado no identifica a un contribuyente: su serialNumber no es un RNC ni una cédula.",
      ]),
    ];
    for (const [what, signed, reason] of cases) {
      const res = await exchange(sub, await signed);
      expect(res.status, `${what}: ${res.text}`).toBe(400);
      expect(res.text, what).toContain(reason);
    }
  });

  it("a seed is spent once: the same signed seed a second time is refused", async () => {
    const t = await ecfTenant();
    const cert = await makeCertificate({ holderId: freshRnc() });
    const signed = signAs(cert, await seedOf(t.tenant.subdomain));
    const first = await exchange(t.tenant.subdomain, signed);
    expect(first.status, first.text).toBe(200);
    const again = await exchange(t.tenant.subdomain, signed);
    expect(again.status).toBe(400);
    expect(again.text).toBe("Semilla ya utilizada: solicite otra.");
    // Spent for this tenant only, and remembered no longer than the seed lives (5 minutes).
    const [spent] = await ownerRows<{ seconds: number }>(
      sql`SELECT extract(epoch FROM expires_at - now())::integer AS seconds FROM receiver_seed_uses WHERE tenant_id = ${t.tenant.tenantId}`,
    );
    expect(spent!.seconds).toBeGreaterThan(240);
    expect(spent!.seconds).toBeLessThanOrEqual(300);
  });

  it("accepts the prefixes accredited authorities write: a cédula as IDCDO-, a company's RNC as VATDO- on its representative's certificate", async () => {
    const t = await ecfTenant();
    const supplierRnc = freshRnc();
    for (const [cert, issuer] of [
      // A taxpayer registered under its cédula (RNCEmisor of 11 digits), signing with its own certificate.
      [await makeCertificate({ holderId: "IDCDO-00113918205" }), "00113918205"],
      [await makeCertificate({ holderId: "IDCDO-00113918205", organizationIdentifier: `VATDO-${supplierRnc}` }), supplierRnc],
    ] as const) {
      const token = await receiverToken(t.tenant.subdomain, cert);
      const encf = nextEncf();
      const res = await fe(t.tenant.subdomain, "/fe/recepcion/api/ecf", {
        xml: signAs(cert, supplierEcf({ issuerRnc: issuer, buyerRnc: t.rnc, encf })),
        token,
      });
      expect(arecfFields(res.text), res.text).toMatchObject({ estado: "0", encf });
    }
  });

  it("without ECF_TRUSTED_CA_PEM the receiver trusts nobody: 503 receiver_not_configured on each service that takes a signature", async () => {
    const t = await ecfTenant();
    const sub = t.tenant.subdomain;
    const token = await supplierToken(sub, freshRnc());
    const host = (path: string) => `http://${sub}.${TEST_DOMAIN}${path}`;
    for (const path of ["/fe/autenticacion/api/validacioncertificado", "/fe/recepcion/api/ecf", "/fe/aprobacioncomercial/api/ecf"]) {
      const form = new FormData();
      form.append("xml", new Blob(["<SemillaModel/>"], { type: "text/xml" }), "x.xml");
      const res = await appCall(sub, host(path), { method: "POST", rawBody: form, token, env: { ECF_TRUSTED_CA_PEM: "" } });
      expect(res.status, `${path}: ${res.text}`).toBe(503);
      expect(res.body).toEqual({
        message:
          "This receiver cannot check who signs what it receives: ECF_TRUSTED_CA_PEM (the certification authorities accredited by INDOTEL) is not configured.",
        code: "receiver_not_configured",
      });
    }
    // The seed itself needs no trust: it is ours.
    expect((await appCall(sub, host("/fe/autenticacion/api/semilla"), { env: { ECF_TRUSTED_CA_PEM: "" } })).status).toBe(200);
  });
});

describe("whose documents the receiver takes", { timeout: 60_000 }, () => {
  it("an e-CF is received only when signed by the certificate that took the token and that names RNCEmisor; anything else is ARECF code 2, nothing stored", async () => {
    const t = await ecfTenant();
    const sub = t.tenant.subdomain;
    const supplierRnc = freshRnc();
    const supplier = await makeCertificate({ holderId: supplierRnc });
    const token = await receiverToken(sub, supplier);
    const stranger = await makeCertificate({ holderId: freshRnc() });
    const strangerToken = await receiverToken(sub, stranger);
    const sameRnc = await makeCertificate({ holderId: supplierRnc });
    const ecf = (encf: string) => supplierEcf({ issuerRnc: supplierRnc, buyerRnc: t.rnc, encf });
    const cases: [string, string, string][] = [
      ["a stranger's certificate naming another RNC, under its own token", signAs(stranger, ecf(nextEncf())), strangerToken],
      ["the supplier's document under a stranger's token", signAs(supplier, ecf(nextEncf())), strangerToken],
      ["another certificate of the same RNC, not the token's", signAs(sameRnc, ecf(nextEncf())), token],
      ["RSA-SHA1 by the supplier's own certificate", signSha1(supplier, ecf(nextEncf())), token],
      ["self-signed in the supplier's name", signAs(await makeCertificate({ holderId: supplierRnc, authority: null }), ecf(nextEncf())), token],
    ];
    for (const [what, xml, as] of cases) {
      const res = await fe(sub, "/fe/recepcion/api/ecf", { xml, token: as });
      expect(res.status, what).toBe(200);
      expect(arecfFields(res.text), what).toMatchObject({ estado: "1", codigo: "2", rncEmisor: supplierRnc });
    }
    expect((await t.tenant.api.get<Page<unknown>>("/received-ecf")).body.data).toEqual([]);
    const encf = nextEncf();
    const real = await fe(sub, "/fe/recepcion/api/ecf", { xml: signAs(supplier, ecf(encf)), token });
    expect(arecfFields(real.text)).toMatchObject({ estado: "0", encf });
  });

  it("a duplicate is judged among authenticated documents: a row received unauthenticated never blocks the real supplier's e-CF", async () => {
    const t = await ecfTenant();
    const supplierRnc = freshRnc();
    const encf = nextEncf();
    // What a stranger could store before signers were checked: the same issuer and e-NCF, not authenticated.
    await ownerRows(sql`
      INSERT INTO received_ecf (tenant_id, ecf_type, encf, issuer_rnc, issuer_name, buyer_rnc, issue_date, total_amount, security_code, signer, xml, xml_sha256, receipt_xml)
      VALUES (${t.tenant.tenantId}, '31', ${encf}, ${supplierRnc}, 'Falso SRL', ${t.rnc}, '2026-11-20', 1.00, 'abcdef', 'FALSO', '<ECF/>', 'x', '<ARECF/>')
      RETURNING id`);
    const token = await supplierToken(t.tenant.subdomain, supplierRnc);
    const xml = await signAsSupplier(supplierEcf({ issuerRnc: supplierRnc, buyerRnc: t.rnc, encf }));
    const first = await fe(t.tenant.subdomain, "/fe/recepcion/api/ecf", { xml, token });
    expect(arecfFields(first.text)).toMatchObject({ estado: "0", encf });
    const again = await fe(t.tenant.subdomain, "/fe/recepcion/api/ecf", { xml, token });
    expect(arecfFields(again.text)).toMatchObject({ estado: "1", codigo: "3", encf });
    const rows = await ownerRows<{ authenticated: boolean; signer_fingerprint: string | null; total_amount: string }>(
      sql`SELECT authenticated, signer_fingerprint, total_amount FROM received_ecf WHERE tenant_id = ${t.tenant.tenantId} ORDER BY id`,
    );
    expect(rows.map((r) => [r.authenticated, r.total_amount])).toEqual([
      [false, "1.00"],
      [true, "18200.00"],
    ]);
    expect(rows[1]!.signer_fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a schema-valid e-CF whose amounts our books cannot hold, or whose date does not exist, is ARECF code 1, not an error", async () => {
    const t = await ecfTenant();
    const supplierRnc = freshRnc();
    const token = await supplierToken(t.tenant.subdomain, supplierRnc);
    const huge = supplierEcf({
      issuerRnc: supplierRnc,
      buyerRnc: t.rnc,
      encf: nextEncf(),
      lines: [{ name: "Terreno", quantity: "1", unitPrice: "9999999999999.00", indicator: 4 }],
    });
    expect(huge).toContain("<MontoTotal>9999999999999.00</MontoTotal>");
    const impossible = supplierEcf({ issuerRnc: supplierRnc, buyerRnc: t.rnc, encf: nextEncf() }).replace(
      "<FechaEmision>20-11-2026</FechaEmision>",
      "<FechaEmision>31-02-2026</FechaEmision>",
    );
    expect(impossible).toContain("<FechaEmision>31-02-2026</FechaEmision>");
    for (const [what, xml] of [
      ["MontoTotal beyond numeric(14,2)", huge],
      ["31-02-2026", impossible],
    ]) {
      const res = await fe(t.tenant.subdomain, "/fe/recepcion/api/ecf", { xml: await signAsSupplier(xml!), token });
      expect(res.status, `${what}: ${res.text}`).toBe(200);
      expect(arecfFields(res.text), what).toMatchObject({ estado: "1", codigo: "1" });
    }
    expect((await t.tenant.api.get<Page<unknown>>("/received-ecf")).body.data).toEqual([]);
  });
});

describe("bounded before parsing", () => {
  it("a DOCTYPE, deep nesting or a crowd of namespace declarations are refused (400) before any parser runs, token or not", async () => {
    const t = await ecfTenant();
    const sub = t.tenant.subdomain;
    const supplierRnc = freshRnc();
    const token = await supplierToken(sub, supplierRnc);
    const deep = `<ECF>${"<a>".repeat(100)}${"</a>".repeat(100)}</ECF>`;
    const namespaces = `<ECF>${Array.from({ length: 40 }, (_, i) => `<a xmlns:n${i}="urn:n${i}">`).join("")}${"</a>".repeat(40)}</ECF>`;
    const doctype = (await signAsSupplier(supplierEcf({ issuerRnc: supplierRnc, buyerRnc: t.rnc, encf: nextEncf() }))).replace(
      '<?xml version="1.0" encoding="utf-8"?>',
      '<?xml version="1.0" encoding="utf-8"?><!DOCTYPE ECF>',
    );
    const cases: [string, string, string][] = [
      ["deep nesting", deep, "Elements are nested deeper than 64 levels."],
      ["namespace declarations", namespaces, "More than 16 namespace declarations."],
      ["a DOCTYPE, even without entities, on a signed e-CF", doctype, "A DOCTYPE or other declaration (<!…>) is not allowed."],
    ];
    for (const [what, xml, reason] of cases) {
      const res = await fe(sub, "/fe/recepcion/api/ecf", { xml, token });
      expect(res.status, what).toBe(400);
      expect(res.text, what).toBe(`La estructura del archivo XML no es válida: ${reason}`);
      const seed = await fe(sub, "/fe/autenticacion/api/validacioncertificado", { xml });
      expect(seed.status, what).toBe(400);
      expect(seed.text, what).toBe(`El archivo XML no es válido: ${reason}`);
    }
  });

  it("one client flooding the receiver spends its own share, an IPv6 one counted by its /64: the tenant's real suppliers from other IPs still get through", async () => {
    const t = await ecfTenant();
    const sub = t.tenant.subdomain;
    const limits = { RATE_LIMIT_RECEIVER_PER_IP_PER_MINUTE: "5", RATE_LIMIT_WEBHOOK_PER_MINUTE: "8" };
    const url = `http://${sub}.${TEST_DOMAIN}/fe/autenticacion/api/semilla`;
    // A new address of one /64 for each call (issue 41): one client all the same.
    const net = `2001:db8:${(Math.floor(Math.random() * 0xfffe) + 1).toString(16)}:1`;
    const flood = `${net}::1`;
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await appCall(sub, url, { ip: `${net}:${i + 1}::${i + 7}`, env: limits })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    // The stranger's refused calls did not count against the tenant: a supplier's IP still has the tenant's remaining 3.
    const supplier = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    const supplierStatuses: number[] = [];
    for (let i = 0; i < 4; i++) supplierStatuses.push((await appCall(sub, url, { ip: supplier, env: limits })).status);
    expect(supplierStatuses).toEqual([200, 200, 200, 429]);
    // Unlimited runs elsewhere are unaffected: the default limits.
    expect((await call(sub, "/fe/autenticacion/api/semilla", { ip: flood })).status).toBe(200);
  });
});
