import { describe, expect, it } from "vitest";
import { type AcecfInput, type ArecfInput, buildAcecf, buildArecf, EcfReadError, readAcecf, readArecf } from "../../src/modules/ecf/receipts";
import { EcfBuildError } from "../../src/modules/ecf/xml";
import { sign, validate } from "../support/dgii-xsd";

/**
 * The receiver's answers to an e-CF: the acuse de recibo (ARECF) and the aprobación comercial
 * (ACECF), built, signed and validated against their xsd-strict schema; then read back as a received
 * message is read.
 */
const section = (xml: string, name: string) => xml.match(new RegExp(`<${name}>.*?</${name}>`))?.[0] ?? "";

describe("ARECF (acuse de recibo)", () => {
  const received: ArecfInput = {
    receiverRnc: "131246796",
    issuerRnc: "101000122",
    encf: "E310000000123",
    received: true,
    at: new Date("2026-11-23T14:05:09Z"),
  };

  it("an e-CF received: Estado 0 without a reason, signed valid against ARECF.xsd, read back whole", async () => {
    const xml = buildArecf(received);
    expect(section(xml, "DetalleAcusedeRecibo")).toBe(
      "<DetalleAcusedeRecibo><Version>1.0</Version><RNCEmisor>101000122</RNCEmisor><RNCComprador>131246796</RNCComprador><eNCF>E310000000123</eNCF>" +
        "<Estado>0</Estado><FechaHoraAcuseRecibo>23-11-2026 10:05:09</FechaHoraAcuseRecibo></DetalleAcusedeRecibo>",
    );
    const signed = await sign(xml);
    expect(await validate(signed.xml, "ARECF.xsd")).toEqual({ valid: true, errors: [] });
    expect(readArecf(signed.xml)).toEqual(received);
  });

  it("an e-CF not received: Estado 1 with CodigoMotivoNoRecibido (4: RNC comprador no corresponde)", async () => {
    const input: ArecfInput = { ...received, received: false, reasonCode: 4 };
    const signed = await sign(buildArecf(input));
    expect(section(signed.xml, "DetalleAcusedeRecibo")).toContain("<Estado>1</Estado><CodigoMotivoNoRecibido>4</CodigoMotivoNoRecibido><FechaHoraAcuseRecibo>");
    expect(await validate(signed.xml, "ARECF.xsd")).toEqual({ valid: true, errors: [] });
    expect(readArecf(signed.xml)).toEqual(input);
    // The schema itself refuses a code outside 1-4.
    const wrong = await validate(signed.xml.replace("<CodigoMotivoNoRecibido>4<", "<CodigoMotivoNoRecibido>5<"), "ARECF.xsd");
    expect(wrong.valid).toBe(false);
  });

  it("a reason goes with, and only with, an e-CF not received; RNC and e-NCF are checked", () => {
    expect(() => buildArecf({ ...received, received: false })).toThrow(/only with, an e-CF not received/);
    expect(() => buildArecf({ ...received, reasonCode: 1 })).toThrow(EcfBuildError);
    expect(() => buildArecf({ ...received, received: false, reasonCode: 7 as never })).toThrow(/not a CodigoMotivoNoRecibido/);
    expect(() => buildArecf({ ...received, receiverRnc: "1312467" })).toThrow(/not an RNC/);
    expect(() => buildArecf({ ...received, encf: "B0100000001" })).toThrow(/not an e-NCF/);
  });

  it("the reader refuses another message, a malformed field or a missing one", () => {
    const xml = buildArecf(received);
    expect(() =>
      readArecf(
        buildAcecf({
          issuerRnc: "101000122",
          encf: "E310000000123",
          issueDate: "2026-11-20",
          totalAmount: "1",
          buyerRnc: "131246796",
          approved: true,
          at: new Date(),
        }),
      ),
    ).toThrow(/Expected an ARECF, got an ACECF/);
    expect(() => readArecf(xml.replace("<Estado>0<", "<Estado>2<"))).toThrow(/Estado "2" is malformed/);
    expect(() => readArecf(xml.replace(/<RNCEmisor>.*?<\/RNCEmisor>/, ""))).toThrow(/RNCEmisor is missing/);
    expect(() => readArecf("<ARECF>")).toThrow(EcfReadError);
  });
});

describe("ACECF (aprobación comercial)", () => {
  const approved: AcecfInput = {
    issuerRnc: "101000122",
    encf: "E310000000123",
    issueDate: "2026-11-20",
    totalAmount: "25482.10",
    buyerRnc: "131246796",
    approved: true,
    at: new Date("2026-11-23T03:30:00Z"),
  };

  it("an approval: Estado 1, the e-CF's date and total, signed valid against ACECF.xsd, read back whole", async () => {
    const xml = buildAcecf(approved);
    // 03:30 UTC is 23:30 of the day before in Santo Domingo.
    expect(section(xml, "DetalleAprobacionComercial")).toBe(
      "<DetalleAprobacionComercial><Version>1.0</Version><RNCEmisor>101000122</RNCEmisor><eNCF>E310000000123</eNCF><FechaEmision>20-11-2026</FechaEmision>" +
        "<MontoTotal>25482.10</MontoTotal><RNCComprador>131246796</RNCComprador><Estado>1</Estado><FechaHoraAprobacionComercial>22-11-2026 23:30:00</FechaHoraAprobacionComercial></DetalleAprobacionComercial>",
    );
    const signed = await sign(xml);
    expect(await validate(signed.xml, "ACECF.xsd")).toEqual({ valid: true, errors: [] });
    expect(readAcecf(signed.xml)).toEqual(approved);
  });

  it("a rejection: Estado 2 with DetalleMotivoRechazo, escaped; read back whole", async () => {
    const input: AcecfInput = { ...approved, approved: false, reason: "Precio facturado ≠ cotización Q-118 & cantidades <recibidas> menores" };
    const signed = await sign(buildAcecf(input));
    expect(signed.xml).toContain(
      "<Estado>2</Estado><DetalleMotivoRechazo>Precio facturado ≠ cotización Q-118 &amp; cantidades &lt;recibidas&gt; menores</DetalleMotivoRechazo>",
    );
    expect(await validate(signed.xml, "ACECF.xsd")).toEqual({ valid: true, errors: [] });
    expect(readAcecf(signed.xml)).toEqual(input);
  });

  it("a rejection says why (at most 250 characters), an approval does not; the total is not negative", () => {
    expect(() => buildAcecf({ ...approved, approved: false })).toThrow(/only with, a rejection/);
    expect(() => buildAcecf({ ...approved, approved: false, reason: "   " })).toThrow(/only with, a rejection/);
    expect(() => buildAcecf({ ...approved, reason: "Conforme" })).toThrow(EcfBuildError);
    expect(() => buildAcecf({ ...approved, approved: false, reason: "x".repeat(251) })).toThrow(/250/);
    expect(() => buildAcecf({ ...approved, totalAmount: "-1.00" })).toThrow(/never negative/);
    expect(() => buildAcecf({ ...approved, buyerRnc: "ABC" })).toThrow(/not an RNC/);
  });

  it("the reader takes DGII's one-digit day and month (ACECF.xsd DateValidation) and refuses a malformed amount", () => {
    const xml = buildAcecf(approved);
    expect(readAcecf(xml.replace("<FechaEmision>20-11-2026<", "<FechaEmision>5-1-2026<")).issueDate).toBe("2026-01-05");
    expect(() => readAcecf(xml.replace("<MontoTotal>25482.10<", "<MontoTotal>25,482.10<"))).toThrow(/MontoTotal "25,482.10" is malformed/);
  });
});
