import { describe, expect, it, vi } from "vitest";
import { signingMaterial } from "../../src/modules/ecf/certificate";
import { requestToken } from "../../src/modules/ecf/dgii";
import { signXml } from "../../src/modules/ecf/signature";
import { makeCertificate } from "../support/certificates";
import { dmy } from "../support/dates";
import { freshRnc } from "../support/sales";
import { uniqueName } from "../support/seed";
import { signable } from "../support/signable";
import { ecfTenant, fakeDgii, issueE31, received, script, waitForStatus } from "./helpers";

/**
 * The fake DGII's status query and directory (issue 18, "A fake DGII"), which the API does not
 * call itself: an operator (or DGII's certification set) asks them with the tenant's token.
 */
describe("fake DGII: status query and directory", () => {
  it("answers the state and amounts of an accepted e-CF by RNC and e-NCF, nothing for a wrong security code; lists the issuer in its directory", async () => {
    const t = await ecfTenant();
    const invoice = await issueE31(t, t.tenant.api, "1000");
    const view = await waitForStatus(t, `/invoices/${invoice.id}`, "accepted");
    const { token } = await requestToken(`${fakeDgii}/testecf`, signingMaterial(t.cert.p12Base64, t.cert.password));
    const ask = async (path: string) => {
      const answer = await fetch(`${fakeDgii}/testecf/${path}`, { headers: { authorization: `Bearer ${token}`, accept: "application/json" } });
      expect(answer.status).toBe(200);
      return answer.json() as Promise<Record<string, unknown>>;
    };
    const code = encodeURIComponent(view.security_code);
    const state = await ask(`consultaestado/api/consultas/estado?rncemisor=${t.rnc}&ncfelectronico=E310000000001&codigoseguridad=${code}`);
    expect(state).toMatchObject({
      codigo: 1,
      estado: "Aceptado",
      rncEmisor: t.rnc,
      ncfElectronico: "E310000000001",
      montoTotal: 1180,
      totalITBIS: 180,
      fechaEmision: dmy(invoice.issue_date),
      codigoSeguridad: view.security_code,
    });
    const wrong = await ask(`consultaestado/api/consultas/estado?rncemisor=${t.rnc}&ncfelectronico=E310000000001&codigoseguridad=zzzzzz`);
    expect(wrong).toMatchObject({ codigo: 0, estado: "No encontrado" });
    const unauthorized = await fetch(`${fakeDgii}/testecf/consultaestado/api/consultas/estado?rncemisor=${t.rnc}&ncfelectronico=E310000000001`);
    expect(unauthorized.status).toBe(401);

    const listed = (await ask("consultadirectorio/api/consultas/listado")) as unknown as { rnc: string; urlRecepcion: string }[];
    expect(listed.some((entry) => entry.rnc === t.rnc)).toBe(true);
    const one = (await ask(`consultadirectorio/api/consultas/obtenerdirectorioporrnc?RNC=${t.rnc}`)) as unknown as { rnc: string; urlRecepcion: string }[];
    expect(one).toEqual([expect.objectContaining({ rnc: t.rnc, urlRecepcion: `${fakeDgii}/testecf/receptor/${t.rnc}` })]);
  });
});

/** A control call to the fake DGII: GET without a body, POST with one as JSON. */
async function control<T>(path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${fakeDgii}/_control/${path}`, body === undefined ? {} : { method: "POST", body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as T };
}

interface Verdict {
  signature: boolean;
  signer: string | null;
  schemaErrors: string[];
}

const SUPPLIER = "Proveedor Fake SRL";

/** A multipart body with the file in field `xml`, as DGII's services and the receivers take it. */
function xmlForm(xml: string, fileName = "documento.xml"): FormData {
  const form = new FormData();
  form.append("xml", new Blob([xml], { type: "text/xml" }), fileName);
  return form;
}

/**
 * A commercial approval (ACECF) as ../shared/dgii/xsd-strict/ACECF.xsd defines it, written here
 * rather than with the production builder so that this test checks the fake alone.
 */
function acecf(fields: { rncEmisor: string; rncComprador: string; encf?: string; estado?: string; monto?: string }): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?><ACECF><DetalleAprobacionComercial><Version>1.0</Version>` +
    `<RNCEmisor>${fields.rncEmisor}</RNCEmisor><eNCF>${fields.encf ?? "E310000000001"}</eNCF><FechaEmision>20-11-2026</FechaEmision>` +
    `<MontoTotal>${fields.monto ?? "1180.00"}</MontoTotal><RNCComprador>${fields.rncComprador}</RNCComprador><Estado>${fields.estado ?? "1"}</Estado>` +
    `<FechaHoraAprobacionComercial>23-11-2026 10:15:00</FechaHoraAprobacionComercial></DetalleAprobacionComercial></ACECF>`
  );
}

/** Our tenant's side: a buyer with an RNC and a certificate of its own, and DGII's token for it. */
async function buyer() {
  const rnc = freshRnc();
  const signer = uniqueName("COMPRADOR ");
  const cert = await makeCertificate({ commonName: signer, holderId: rnc });
  const material = signingMaterial(cert.p12Base64, cert.password);
  const { token } = await requestToken(`${fakeDgii}/testecf`, material);
  return { rnc, signer, material, token, sign: (xml: string) => signXml(signable(xml), material).xml };
}

describe("fake DGII: the other taxpayer (issue 19)", () => {
  it("signs as the supplier what xmldsigjs verifies and Semilla.xsd accepts, and DGII takes that seed; an altered document fails", async () => {
    const seed = await (await fetch(`${fakeDgii}/testecf/autenticacion/api/autenticacion/semilla`)).text();
    const signed = await control<{ xml: string }>("supplier/sign", { xml: seed });
    expect(signed.status).toBe(200);
    // Firmado de e-CF: enveloped, C14N 1.0, RSA-SHA256, SHA-256, Reference URI="", the certificate, last child of the root.
    expect(signed.body.xml).toMatch(/<\/ds:Signature><\/SemillaModel>$/);
    for (const part of [
      'Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"',
      'Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"',
      '<ds:Reference URI="">',
      'Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"',
      'Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"',
      "<ds:X509Certificate>",
    ]) {
      expect(signed.body.xml).toContain(part);
    }
    expect((await control<Verdict>("verify", { xml: signed.body.xml, xsd: "Semilla.xsd" })).body).toEqual({
      signature: true,
      signer: SUPPLIER,
      schemaErrors: [],
    });
    const supplier = await control<{ name: string; certificatePem: string }>("supplier");
    expect(supplier.body.name).toBe(SUPPLIER);
    const certificate = supplier.body.certificatePem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, "");
    expect(signed.body.xml).toContain(`<ds:X509Certificate>${certificate}</ds:X509Certificate>`);

    const token = await fetch(`${fakeDgii}/testecf/autenticacion/api/autenticacion/validarsemilla`, { method: "POST", body: xmlForm(signed.body.xml) });
    expect(token.status).toBe(200);
    const { token: value } = (await token.json()) as { token: string };
    const tokens = (await control<{ token: string; signer: string }[]>("tokens")).body;
    expect(tokens.find((t) => t.token === value)?.signer).toBe(SUPPLIER);

    const altered = signed.body.xml.replace(/<valor>[^<]+<\/valor>/, "<valor>b3RybyB2YWxvcg==</valor>");
    expect((await control<Verdict>("verify", { xml: altered, xsd: "Semilla.xsd" })).body).toEqual({ signature: false, signer: SUPPLIER, schemaErrors: [] });
    const unsigned = await control<Verdict>("verify", { xml: seed, xsd: "Semilla.xsd" });
    expect(unsigned.body.signature).toBe(false);
    expect(unsigned.body.signer).toBeNull();
    expect(unsigned.body.schemaErrors.length).toBeGreaterThan(0);
    expect((await control("verify", { xml: seed, xsd: "../secrets.xsd" })).status).toBe(400);
    expect((await control("supplier/sign", { xml: "<no-cerrado>" })).status).toBe(400);
  });

  it("DGII records the commercial approvals it receives and refuses a bad signature, a bad structure, another's certificate; 503 when scripted down", async () => {
    const b = await buyer();
    const issuer = freshRnc();
    const send = (xml: string | null, token = b.token) =>
      fetch(`${fakeDgii}/testecf/aprobacioncomercial/api/aprobacioncomercial`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, accept: "application/json" },
        body: xml === null ? new FormData() : xmlForm(xml),
      });
    const valid = b.sign(acecf({ rncEmisor: issuer, rncComprador: b.rnc }));
    const accepted = await send(valid);
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ mensaje: [], estado: "Aprobación comercial aprobada", codigo: "1" });

    const refused = async (xml: string | null) => {
      const res = await send(xml);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { mensaje: string[]; estado: string; codigo: string };
      expect(body).toMatchObject({ estado: "Aprobación comercial rechazada", codigo: "2" });
      return body.mensaje;
    };
    const tampered = valid.replace("<MontoTotal>1180.00</MontoTotal>", "<MontoTotal>118.00</MontoTotal>");
    expect(await refused(tampered)).toEqual(["La firma del XML no es válida"]);
    const badStructure = await refused(b.sign(acecf({ rncEmisor: issuer, rncComprador: b.rnc, estado: "3" })));
    expect(badStructure).toHaveLength(1);
    expect(badStructure[0]).toMatch(
      /^La estructura del archivo XML no es válido, favor proveer un XML con una estructura válida, verificar el XSD correspondiente\. .*Estado/,
    );
    const bySupplier = (await control<{ xml: string }>("supplier/sign", { xml: acecf({ rncEmisor: issuer, rncComprador: b.rnc }) })).body.xml;
    expect(await refused(bySupplier)).toEqual([`El RNC del certificado no está delegado para realizar transacciones para el RNC: ${b.rnc}.`]);
    expect(await refused(null)).toEqual(["Tipo de archivo no válido, favor proveer un XML"]);
    expect((await send(valid, "not-a-token")).status).toBe(401);

    await script(b.signer, { down: 1 });
    expect((await send(valid)).status).toBe(503);
    expect((await send(valid)).status).toBe(200);

    const recorded = (
      await control<{ xml: string; errors: string[]; rncEmisor: string; encf: string; at: string }[]>(`approvals?signer=${encodeURIComponent(b.signer)}`)
    ).body;
    expect(recorded.map((r) => r.errors.length)).toEqual([0, 1, 1, 1, 1, 0]);
    expect(recorded[0]).toMatchObject({ xml: valid, rncEmisor: issuer, encf: "E310000000001", errors: [] });
    expect(recorded[1]!.errors).toEqual(["La firma del XML no es válida"]);
    expect(Number.isNaN(Date.parse(recorded[0]!.at))).toBe(false);
  });

  it("the directory lists a registered taxpayer whose receiver gives tokens after an outage, records approvals of its e-CF and refuses others", async () => {
    const b = await buyer();
    const supplierRnc = freshRnc();
    expect((await control("directory", { rnc: supplierRnc, name: SUPPLIER })).status).toBe(200);
    expect((await control("directory", { rnc: "12345", name: SUPPLIER })).status).toBe(400);
    const ask = async <T>(path: string) => {
      const res = await fetch(`${fakeDgii}/testecf/consultadirectorio/api/consultas/${path}`, { headers: { authorization: `Bearer ${b.token}` } });
      expect(res.status).toBe(200);
      return (await res.json()) as T;
    };
    const receiver = `${fakeDgii}/testecf/receptor/${supplierRnc}`;
    const entry = { nombre: SUPPLIER, rnc: supplierRnc, urlRecepcion: receiver, urlAceptacion: receiver, urlOpcional: receiver };
    expect(await ask(`obtenerdirectorioporrnc?RNC=${supplierRnc}`)).toEqual([entry]);
    expect(await ask<(typeof entry)[]>("listado")).toContainEqual(entry);

    // An outage of that receiver, then its own token (paths case-insensitive, as DGII's standard requires).
    expect((await control("receiver-down", { rnc: supplierRnc, calls: 1 })).status).toBe(200);
    expect((await fetch(`${receiver}/fe/autenticacion/api/semilla`)).status).toBe(503);
    const seed = await fetch(`${receiver}/fe/autenticacion/api/semilla`);
    expect(seed.status).toBe(200);
    const tokenAnswer = await fetch(`${receiver}/FE/Autenticacion/API/ValidacionCertificado`, { method: "POST", body: xmlForm(b.sign(await seed.text())) });
    expect(tokenAnswer.status).toBe(200);
    const session = (await tokenAnswer.json()) as { token: string; expira: string; expedido: string };
    expect(session.expira).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(session.expedido).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const approve = (xml: string, token = session.token) =>
      fetch(`${receiver}/fe/aprobacioncomercial/api/ecf`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: xmlForm(xml) });
    const valid = b.sign(acecf({ rncEmisor: supplierRnc, rncComprador: b.rnc }));
    expect((await approve(valid, b.token)).status).toBe(401); // DGII's token is not this receiver's
    const accepted = await approve(valid);
    expect(accepted.status).toBe(200);
    const otherIssuer = freshRnc();
    const notItsEcf = await approve(b.sign(acecf({ rncEmisor: otherIssuer, rncComprador: b.rnc })));
    expect(notItsEcf.status).toBe(400);
    expect(await notItsEcf.json()).toEqual({ mensaje: [`El RNCEmisor ${otherIssuer} no es el de este receptor (${supplierRnc}).`] });
    const tampered = await approve(valid.replace("<Estado>1</Estado>", "<Estado>2</Estado>"));
    expect(tampered.status).toBe(400);
    expect(await tampered.json()).toEqual({ mensaje: ["La firma del XML no es válida"] });
    const recorded = (await control<{ xml: string; errors: string[]; signer: string }[]>(`receiver-approvals?rnc=${supplierRnc}`)).body;
    expect(recorded.map((r) => [r.signer, r.errors.length])).toEqual([
      [b.signer, 0],
      [b.signer, 1],
      [b.signer, 1],
    ]);
    expect(recorded[0]!.xml).toBe(valid);

    expect((await fetch(`${fakeDgii}/testecf/receptor/${freshRnc()}/fe/autenticacion/api/semilla`)).status).toBe(404);
  });

  it("a receiver answers an e-CF addressed to it with an ARECF signed by the supplier: received, then a duplicate", async () => {
    const t = await ecfTenant();
    const invoice = await issueE31(t);
    await waitForStatus(t, `/invoices/${invoice.id}`, "accepted");
    // The Worker's own delivery to the buyer settles first (DGII's directory does not list the
    // buyer yet: not electronic), so the receiver's log below holds only this test's deliveries.
    await vi.waitFor(async () => expect((await t.tenant.api.get(`/invoices/${invoice.id}/ecf`)).body.data.buyer_delivery?.status).toBe("not_electronic"), {
      timeout: 20_000,
      interval: 100,
    });
    const [ecf] = await received(t.signer);
    const buyerRnc = /<RNCComprador>(\d+)<\/RNCComprador>/.exec(ecf!.xml)![1]!;
    expect((await control("directory", { rnc: buyerRnc, name: t.contact.name })).status).toBe(200);
    const receiver = `${fakeDgii}/testecf/receptor/${buyerRnc}`;
    const material = signingMaterial(t.cert.p12Base64, t.cert.password);
    const seed = await (await fetch(`${receiver}/fe/autenticacion/api/semilla`)).text();
    const { token } = (await (
      await fetch(`${receiver}/fe/autenticacion/api/validacioncertificado`, { method: "POST", body: xmlForm(signXml(signable(seed), material).xml) })
    ).json()) as { token: string };
    const deliver = async () => {
      const answer = await fetch(`${receiver}/fe/recepcion/api/ecf`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
        body: xmlForm(ecf!.xml, ecf!.fileName),
      });
      expect(answer.status).toBe(200);
      const arecf = await answer.text();
      expect((await control<Verdict>("verify", { xml: arecf, xsd: "ARECF.xsd" })).body).toEqual({ signature: true, signer: SUPPLIER, schemaErrors: [] });
      return arecf;
    };
    const first = await deliver();
    expect(first).toContain(`<RNCEmisor>${t.rnc}</RNCEmisor><RNCComprador>${buyerRnc}</RNCComprador><eNCF>E310000000001</eNCF><Estado>0</Estado>`);
    const again = await deliver();
    expect(again).toContain("<Estado>1</Estado><CodigoMotivoNoRecibido>3</CodigoMotivoNoRecibido>");
    const log = (await control<{ encf: string; errors: string[] }[]>(`receiver-received?rnc=${buyerRnc}`)).body;
    expect(log).toEqual([expect.objectContaining({ encf: "E310000000001", errors: [] }), expect.objectContaining({ errors: ["CodigoMotivoNoRecibido 3"] })]);
    expect((await fetch(`${receiver}/fe/recepcion/api/ecf`, { method: "POST", body: xmlForm(ecf!.xml) })).status).toBe(401);
  });
});
