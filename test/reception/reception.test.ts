import { describe, expect, it } from "vitest";
import type { ReceivedEcf } from "../../src/modules/reception/schemas";
import { ecfTenant } from "../ecf/helpers";
import type { Data, Page } from "../support/api";
import { freshRnc } from "../support/sales";
import { ownerRows, sql } from "../support/seed";
import { arecfFields, fe, independentCheck, receiverToken, signAs, signAsSupplier, supplierCertificate, supplierToken } from "./helpers";
import { SUPPLIER_ITBIS, SUPPLIER_TOTAL, supplierEcf } from "./supplier";

type Received = ReceivedEcf;

/**
 * POST /fe/recepcion/api/ecf (DGII, Descripción técnica, "Estándar de comunicación
 * Emisor-Receptor", Recepción): a supplier — the fake DGII playing another taxpayer, signing with
 * its own library — sends an e-CF; the answer is a signed ARECF (Formato Acuse de Recibo v1.0),
 * checked here by an implementation independent of ours (xmldsigjs, libxml2 with ARECF.xsd).
 */
async function receiverAndSupplier() {
  const t = await ecfTenant();
  const supplierRnc = freshRnc();
  const token = await supplierToken(t.tenant.subdomain, supplierRnc);
  return { t, token, supplierRnc };
}

let sequence = 0;
const nextEncf = () => `E31${String(Date.now() % 1e7).padStart(7, "0")}${String(++sequence % 1000).padStart(3, "0")}`;

describe("e-CF reception", () => {
  it("a supplier's E31 addressed to us: ARECF Estado 0, signed and valid for an independent verifier; stored byte for byte and listed", async () => {
    const { t, token, supplierRnc } = await receiverAndSupplier();
    const encf = nextEncf();
    const xml = await signAsSupplier(supplierEcf({ issuerRnc: supplierRnc, buyerRnc: t.rnc, encf, issuerName: "Ferretería Peña & Asociados, S.R.L." }));
    const res = await fe(t.tenant.subdomain, "/fe/recepcion/api/ecf", { xml, token });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/xml");
    const receipt = arecfFields(res.text);
    expect(receipt).toEqual({
      rncEmisor: supplierRnc,
      rncComprador: t.rnc,
      encf,
      estado: "0",
      codigo: null,
      fecha: expect.stringMatching(/^\d\d-\d\d-\d{4} \d\d:\d\d:\d\d$/),
    });
    const check = await independentCheck(res.text, "ARECF.xsd");
    expect(check).toEqual({ signature: true, signer: t.signer, schemaErrors: [] });

    const list = await t.tenant.api.get<Page<Received>>("/received-ecf");
    expect(list.status, list.text).toBe(200);
    expect(list.body.data).toHaveLength(1);
    const item = list.body.data[0]!;
    expect(item).toMatchObject({
      ecf_type: "31",
      encf,
      issuer_rnc: supplierRnc,
      issuer_name: "Ferretería Peña & Asociados, S.R.L.",
      buyer_rnc: t.rnc,
      issue_date: "2026-11-20",
      total_amount: SUPPLIER_TOTAL,
      itbis_amount: SUPPLIER_ITBIS,
      status: "received",
      commercial_status: "pending",
      purchase_id: null,
      approval: null,
    });
    expect(item.security_code).toBe(/<(?:ds:)?SignatureValue>([^<]{6})/.exec(xml)![1]);
    const original = await t.tenant.api.get(`/received-ecf/${item.id}/xml`);
    expect(original.status).toBe(200);
    expect(original.text).toBe(xml);
    const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(xml)))]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    expect(item.xml_sha256).toBe(digest);
    const [row] = await ownerRows<{ receipt_xml: string }>(sql`SELECT receipt_xml FROM received_ecf WHERE id = ${item.id}`);
    expect(row!.receipt_xml).toBe(res.text);
  });

  it("each refusal answers ARECF Estado 1 with DGII's code and stores nothing: signature 2, schema 1, another buyer 4, duplicate 3", async () => {
    const { t, token, supplierRnc } = await receiverAndSupplier();
    const send = (xml: string) => fe(t.tenant.subdomain, "/fe/recepcion/api/ecf", { xml, token });
    const cases: [string, string, string][] = [];

    const altered = await signAsSupplier(supplierEcf({ issuerRnc: supplierRnc, buyerRnc: t.rnc, encf: nextEncf() }));
    cases.push(["altered after signing", altered.replace(`<MontoTotal>${SUPPLIER_TOTAL}</MontoTotal>`, "<MontoTotal>1820.00</MontoTotal>"), "2"]);
    cases.push(["unsigned", supplierEcf({ issuerRnc: supplierRnc, buyerRnc: t.rnc, encf: nextEncf() }), "2"]);
    // A schema error the signature covers: an element DGII's e-CF-31.xsd does not have, signed after it was added.
    const unknownElement = supplierEcf({ issuerRnc: supplierRnc, buyerRnc: t.rnc, encf: nextEncf() }).replace(
      "<TipoPago>",
      "<Nota>sin esquema</Nota><TipoPago>",
    );
    cases.push(["schema error", await signAsSupplier(unknownElement), "1"]);
    cases.push(["addressed to another buyer", await signAsSupplier(supplierEcf({ issuerRnc: supplierRnc, buyerRnc: freshRnc(), encf: nextEncf() })), "4"]);
    for (const [what, xml, code] of cases) {
      const res = await send(xml);
      expect(res.status, `${what}: ${res.text}`).toBe(200);
      const receipt = arecfFields(res.text);
      expect(receipt.estado, what).toBe("1");
      expect(receipt.codigo, what).toBe(code);
      expect(receipt.rncComprador, what).toBe(t.rnc);
      expect(receipt.rncEmisor, what).toBe(supplierRnc);
      expect((await independentCheck(res.text, "ARECF.xsd")).schemaErrors, what).toEqual([]);
    }
    expect((await t.tenant.api.get<Page<Received>>("/received-ecf")).body.data).toEqual([]);

    const encf = nextEncf();
    const first = await signAsSupplier(supplierEcf({ issuerRnc: supplierRnc, buyerRnc: t.rnc, encf }));
    expect(arecfFields((await send(first)).text).estado).toBe("0");
    const again = await send(first);
    expect(arecfFields(again.text)).toMatchObject({ estado: "1", codigo: "3", encf });
    const list = await t.tenant.api.get<Page<Received>>("/received-ecf");
    expect(list.body.data.map((r) => r.encf)).toEqual([encf]);
  });

  it("a supplier's E33 and E34 without TipoIngresos are received (DGII's 2026 change: optional in E33 and E34), an E31 without it is not", async () => {
    const { t, token, supplierRnc } = await receiverAndSupplier();
    const send = (xml: string) => fe(t.tenant.subdomain, "/fe/recepcion/api/ecf", { xml, token });
    const invoice = nextEncf();
    expect(arecfFields((await send(await signAsSupplier(supplierEcf({ issuerRnc: supplierRnc, buyerRnc: t.rnc, encf: invoice })))).text).estado).toBe("0");
    const reference = { ncf: invoice, date: "2026-11-20", reason: "Ajuste de precio" };
    const received: string[] = [];
    for (const type of ["33", "34"] as const) {
      const encf = nextEncf().replace(/^E31/, `E${type}`);
      const xml = supplierEcf({ issuerRnc: supplierRnc, buyerRnc: t.rnc, encf, note: { type, reference } });
      expect(xml).toContain("<TipoIngresos>01</TipoIngresos>");
      const res = await send(await signAsSupplier(xml.replace("<TipoIngresos>01</TipoIngresos>", "")));
      expect(res.status, res.text).toBe(200);
      expect(arecfFields(res.text), `E${type}`).toMatchObject({ estado: "0", codigo: null, encf });
      received.push(encf);
    }
    // On an E31 TipoIngresos is still mandatory (Formato e-CF v1.0, IdDoc, field 8: 1): schema error, code 1.
    const withoutIncome = supplierEcf({ issuerRnc: supplierRnc, buyerRnc: t.rnc, encf: nextEncf() }).replace("<TipoIngresos>01</TipoIngresos>", "");
    expect(arecfFields((await send(await signAsSupplier(withoutIncome))).text)).toMatchObject({ estado: "1", codigo: "1" });
    const list = await t.tenant.api.get<Page<Received>>("/received-ecf");
    expect(list.body.data.map((item) => [item.ecf_type, item.encf, item.total_amount]).sort()).toEqual([
      ["31", invoice, SUPPLIER_TOTAL],
      ["33", received[0], SUPPLIER_TOTAL],
      ["34", received[1], SUPPLIER_TOTAL],
    ]);
  });

  it("what cannot be read as an e-CF is a 400 with DGII's message; a body over 768 KiB is 413 (the API takes 1 MiB)", async () => {
    const { t, token } = await receiverAndSupplier();
    const sub = t.tenant.subdomain;
    const notXml = await fe(sub, "/fe/recepcion/api/ecf", { xml: "no soy xml", token });
    expect(notXml.status).toBe(400);
    expect(notXml.text).toBe("La estructura del archivo XML no es válida: Not well-formed XML: no root element.");
    const notEcf = await fe(sub, "/fe/recepcion/api/ecf", { xml: "<Factura><eNCF>E310000000001</eNCF></Factura>", token });
    expect(notEcf.status).toBe(400);
    expect(notEcf.text).toBe("La estructura del archivo XML no es válida: no se pudo leer RNCEmisor y eNCF.");
    const noFile = await fe(sub, "/fe/recepcion/api/ecf", { raw: '{"xml":1}', contentType: "application/json", token });
    expect(noFile.status).toBe(400);
    expect(noFile.text).toBe("Tipo de archivo no válido, favor proveer un XML");
    const notUtf8 = await fe(sub, "/fe/recepcion/api/ecf", { xml: new Uint8Array([0x3c, 0x45, 0xff, 0x3e]), token });
    expect(notUtf8.status).toBe(400);
    const huge = await fe(sub, "/fe/recepcion/api/ecf", { xml: `<ECF>${"x".repeat(1024 * 1024)}</ECF>`, token });
    expect(huge.status).toBe(413);
    // Between the receiver's cap and the API's: refused on /fe, before any parsing.
    const large = await fe(sub, "/fe/recepcion/api/ecf", { xml: `<ECF>${"x".repeat(800 * 1024)}</ECF>`, token });
    expect(large.status).toBe(413);
    expect(large.body).toEqual({ message: `Request bodies are limited to ${768 * 1024} bytes.`, code: "payload_too_large" });
  });

  it("an upload that cannot be read: DGII's message and shape, then what is wrong (the multipart parser's reason, no xml field), on each receiver service (issue 44)", async () => {
    const { t, token } = await receiverAndSupplier();
    const sub = t.tenant.subdomain;
    const NOT_A_FILE = "Tipo de archivo no válido, favor proveer un XML";
    const truncated = { raw: '--XYZ\r\nContent-Disposition: form-data; name="xml"\r\n\r\n<ECF>', contentType: "multipart/form-data; boundary=XYZ" };
    const noBoundary = { raw: "<ECF/>", contentType: "multipart/form-data" };
    const otherField = (() => {
      const form = new FormData();
      form.append("file", new Blob(["<ECF/>"], { type: "text/xml" }), "document.xml");
      return { raw: form };
    })();
    const unreadable = new RegExp(`^${NOT_A_FILE}: el cuerpo multipart/form-data no se pudo leer \\(.+\\)\\.$`);
    const noXml = `${NOT_A_FILE}: el cuerpo multipart/form-data no tiene el campo xml.`;
    for (const path of ["/fe/recepcion/api/ecf", "/fe/autenticacion/api/validacioncertificado", "/fe/aprobacioncomercial/api/ecf"]) {
      for (const [what, body, expected] of [
        ["truncated", truncated, unreadable],
        ["no boundary", noBoundary, unreadable],
        ["another field", otherField, noXml],
      ] as const) {
        const res = await fe(sub, path, { ...body, token });
        expect(res.status, `${path} ${what}: ${res.text}`).toBe(400);
        // DGII's shapes: text on reception and authentication, {mensaje, estado, codigo} on approvals.
        const message = path.startsWith("/fe/aprobacioncomercial") ? (res.body as { mensaje: string[] }).mensaje[0]! : res.text;
        if (path.startsWith("/fe/aprobacioncomercial")) expect(res.body).toMatchObject({ estado: "Rechazado", codigo: "2" });
        if (typeof expected === "string") expect(message, `${path} ${what}`).toBe(expected);
        else expect(message, `${path} ${what}`).toMatch(expected);
      }
    }
  });

  it("a raw text/xml body is received too, and the route ignores case; another tenant never sees what was received", async () => {
    const { t, token, supplierRnc } = await receiverAndSupplier();
    const other = await ecfTenant();
    const encf = nextEncf();
    const xml = await signAsSupplier(supplierEcf({ issuerRnc: supplierRnc, buyerRnc: t.rnc, encf }));
    const res = await fe(t.tenant.subdomain, "/FE/Recepcion/Api/ECF", { raw: xml, contentType: "text/xml; charset=utf-8", token });
    expect(arecfFields(res.text).estado, res.text).toBe("0");
    const mine = await t.tenant.api.get<Page<Received>>("/received-ecf");
    const id = mine.body.data[0]!.id;
    expect((await other.tenant.api.get<Page<Received>>("/received-ecf")).body.data).toEqual([]);
    expect((await other.tenant.api.get(`/received-ecf/${id}`)).status).toBe(404);
    expect((await other.tenant.api.get(`/received-ecf/${id}/xml`)).status).toBe(404);
    const one = await t.tenant.api.get<Data<Received>>(`/received-ecf/${id}`);
    expect(one.body.data.encf).toBe(encf);
  });

  it("a signature made with another library (ours) by an accredited certificate naming RNCEmisor is as good as the supplier's", async () => {
    const { t, supplierRnc } = await receiverAndSupplier();
    const cert = await supplierCertificate(supplierRnc);
    const token = await receiverToken(t.tenant.subdomain, cert);
    const res = await fe(t.tenant.subdomain, "/fe/recepcion/api/ecf", {
      xml: signAs(cert, supplierEcf({ issuerRnc: supplierRnc, buyerRnc: t.rnc, encf: nextEncf() })),
      token,
    });
    expect(arecfFields(res.text).estado).toBe("0");
    const list = await t.tenant.api.get<Page<Received>>("/received-ecf");
    expect(list.body.data[0]!.signer).toBe(cert.signer);
  });
});
