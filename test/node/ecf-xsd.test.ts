import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { makeCertificate } from "../../scripts/lib/certificates";
import { Big } from "../../src/lib/decimal";
import type { EcfType } from "../../src/lib/ncf";
import { buildAnecf } from "../../src/modules/ecf/anecf";
import { signingMaterial } from "../../src/modules/ecf/certificate";
import { EcfReadError, readEcfHeader } from "../../src/modules/ecf/receipts";
import { buildRfce } from "../../src/modules/ecf/rfce";
import { signXml } from "../../src/modules/ecf/signature";
import { buildEcf, EcfBuildError, type EcfDocument, type EcfLine } from "../../src/modules/ecf/xml";
import { EXCLUSIVE_TAX_TYPES, type LineTax, lineAmounts, taxBreakdown } from "../../src/modules/sales/lines";
import type { DocumentSnapshot } from "../../src/modules/sales/schemas";
import { DGII_XSD as DGII, DGII_PRESENT, sayWhySkipped, sign, validate } from "../support/dgii-xsd";
import { signable } from "../support/signable";

/**
 * DGII's schemas (test/support/dgii-xsd.ts). Here: the seed of DGII's authentication, signed by our
 * signer, is still a valid SemillaModel (the signature fills the schema's final xs:any).
 */

if (!DGII_PRESENT) sayWhySkipped("ecf-xsd.test.ts", '"every schema of xsd-strict compiles in libxml2"');

describe("DGII schemas", () => {
  // Without ../shared/dgii there are no DGII files to compile; ours are compiled by test/ecf/xsd-worker.test.ts.
  it.skipIf(!DGII_PRESENT)(
    "every schema of xsd-strict compiles in libxml2: a foreign root is refused for its root, not for the schema (skipped without ../shared/dgii)",
    async () => {
      const names = readdirSync(DGII).filter((name) => name.endsWith(".xsd"));
      expect(names.length).toBe(15);
      for (const name of names) {
        const result = await validate("<Nada/>", name);
        expect(result, name).toEqual({ valid: false, errors: [expect.stringContaining("No matching global declaration available for the validation root")] });
      }
    },
  );

  it("a seed signed as DGII's authentication asks validates against Semilla.xsd; unsigned or altered it does not", async () => {
    const seed =
      '<?xml version="1.0" encoding="utf-8"?><SemillaModel><valor>dGVzdC1zZWVkLXZhbHVl</valor><fecha>2026-11-23T10:15:30.1234567-04:00</fecha></SemillaModel>';
    const cert = await makeCertificate({ authority: null });
    const signed = signXml(signable(seed), signingMaterial(cert.p12Base64, cert.password));
    expect(await validate(signed.xml, "Semilla.xsd")).toEqual({ valid: true, errors: [] });
    const unsigned = await validate(seed, "Semilla.xsd");
    expect(unsigned.valid).toBe(false);
    const misplaced = await validate(signed.xml.replace("<valor>", "<valor2>").replace("</valor>", "</valor2>"), "Semilla.xsd");
    expect(misplaced.valid).toBe(false);
    expect(misplaced.errors.join("\n")).toContain("valor2");
  });

  it("an E31 built from a document's snapshot, lines and tax breakdown, then signed, validates against e-CF-31.xsd", async () => {
    const itbis = { id: 1, name: "ITBIS 18%", type: "itbis", rate: "18.00" };
    const exento = { id: 2, name: "Exento", type: "exento", rate: "0.00" };
    const lines = [
      {
        name: "Cemento gris Portland tipo I, funda de 42.5 kg & aditivos <especiales>",
        goodsOrService: 1 as const,
        quantity: "40",
        unitPrice: "545.1234",
        discount: "5",
        taxes: [itbis],
      },
      { name: "Transporte ".repeat(12).trim(), goodsOrService: 2 as const, quantity: "1", unitPrice: "1250", discount: "0", taxes: [exento] },
    ];
    const amounts = lines.map((line) => lineAmounts({ quantity: line.quantity, unitPrice: line.unitPrice, discount: line.discount, taxes: line.taxes }));
    const total = amounts.reduce((sum, a) => sum.plus(a.total), new Big(0));
    const doc: EcfDocument = {
      type: "31",
      encf: "E310000000001",
      sequenceExpiry: "2027-12-31",
      issueDate: "2026-11-23",
      paymentType: 2,
      incomeType: "01",
      snapshot: {
        issuer: {
          rnc: "131246796",
          legal_name: "Demo SRL",
          trade_name: "Demo Ferretería",
          address: "Av. Winston Churchill 1099, Piantini",
          municipality_code: null,
          province_code: null,
          phone: null,
          email: null,
          branch: { id: 1, name: "Principal", address: null, phone: null },
        },
        buyer: { contact_id: 1, name: "Constructora del Caribe SRL", identification_type: "rnc", identification: "101000122", address: null, email: null },
        sequence: { prefix: "E31", name: "Crédito fiscal electrónico", valid_until: "2027-12-31", authorization_number: null },
        currency: { id: 1, code: "DOP", exchange_rate: "1.00" },
      },
      lines: lines.map((line, i) => ({
        name: line.name,
        goodsOrService: line.goodsOrService,
        quantity: line.quantity,
        unitPrice: line.unitPrice,
        discountAmount: amounts[i]!.discountAmount,
        amount: new Big(amounts[i]!.subtotal).minus(amounts[i]!.discountAmount).toFixed(2),
        billingIndicator: i === 0 ? 1 : 4,
      })),
      breakdown: taxBreakdown(amounts),
      total: total.toFixed(2),
      signedAt: new Date("2026-11-23T14:05:09Z"),
    };
    const xml = buildEcf(doc);
    expect(xml).toContain("<FechaHoraFirma>23-11-2026 10:05:09</FechaHoraFirma>");
    expect(xml).toContain("<NombreItem>Cemento gris Portland tipo I, funda de 42.5 kg &amp; aditivos &lt;especiales&gt;</NombreItem>");
    expect(xml).toContain("<PrecioUnitarioItem>545.1234</PrecioUnitarioItem>");
    expect(xml).toContain("<MontoGravadoI1>20714.69</MontoGravadoI1><MontoExento>1250.00</MontoExento><ITBIS1>18</ITBIS1>");
    // The line's discount (5 % of 21,804.94) with its one SubDescuento in amount (Formato e-CF, Ítem fields 26-29).
    expect(xml).toContain(
      "<DescuentoMonto>1090.25</DescuentoMonto><TablaSubDescuento><SubDescuento><TipoSubDescuento>$</TipoSubDescuento><MontoSubDescuento>1090.25</MontoSubDescuento></SubDescuento></TablaSubDescuento>",
    );
    const cert = await makeCertificate({ authority: null });
    const signed = signXml(xml, signingMaterial(cert.p12Base64, cert.password));
    expect(await validate(signed.xml, "e-CF-31.xsd")).toEqual({ valid: true, errors: [] });
  });
});

/**
 * The e-CF types the project issues, RFCE and ANECF: golden documents with realistic values, built
 * from lines through the project's own line math (lineAmounts, taxBreakdown), signed with a test
 * certificate and validated against their xsd-strict schema; then the schema shown to catch a
 * missing mandatory element, and the builder shown to refuse what a type cannot carry.
 */
const TAX = {
  itbis18: { id: 1, name: "ITBIS 18%", type: "itbis", rate: "18.00" },
  itbis16: { id: 2, name: "ITBIS 16%", type: "itbis", rate: "16.00" },
  itbis0: { id: 3, name: "ITBIS 0%", type: "itbis", rate: "0.00" },
  exento: { id: 4, name: "Exento", type: "exento", rate: "0.00" },
  propina: { id: 5, name: "Propina legal", type: "propina_legal", rate: "10.00", dgii_code: "001" },
  iscCervezaEspecifico: { id: 6, name: "ISC específico cerveza", type: "isc", rate: "0.00", dgii_code: "006", amount_per_unit: "20.56" },
  iscCervezaAdValorem: { id: 7, name: "ISC ad valorem cerveza", type: "isc", rate: "10.00", dgii_code: "023" },
} satisfies Record<string, LineTax>;

interface LineSpec extends Omit<EcfLine, "discountAmount" | "amount" | "billingIndicator" | "additionalTaxCodes"> {
  discount?: string;
  taxes: LineTax[];
}

const issuer: DocumentSnapshot["issuer"] = {
  rnc: "131246796",
  legal_name: "Demo SRL",
  trade_name: "Demo Ferretería",
  address: "Av. Winston Churchill 1099, Piantini",
  municipality_code: null,
  province_code: null,
  phone: null,
  email: null,
  branch: { id: 1, name: "Principal", address: null, phone: null },
};

const buyers = {
  company: { contact_id: 1, name: "Constructora del Caribe SRL", identification_type: "rnc", identification: "101000122", address: null, email: null },
  government: { contact_id: 2, name: "Ministerio de Educación", identification_type: "rnc", identification: "401036275", address: null, email: null },
  person: { contact_id: 3, name: "María Fernández Rosario", identification_type: "cedula", identification: "00113918205", address: null, email: null },
  consumer: { contact_id: 4, name: "Consumidor final", identification_type: null, identification: null, address: null, email: null },
  abroad: { contact_id: 5, name: "Chocolatiers Réunis SA", identification_type: null, identification: null, address: null, email: null },
  tourist: { contact_id: 6, name: "John Smith", identification_type: "passport", identification: "X1234567", address: null, email: null },
} satisfies Record<string, DocumentSnapshot["buyer"]>;

/** IndicadorFacturacion from the line's ITBIS-or-exempt tax (Formato e-CF, Ítem field 4). */
function billingIndicator(taxes: LineTax[]): EcfLine["billingIndicator"] {
  const indicator = taxes.find((tax) => EXCLUSIVE_TAX_TYPES.has(tax.type));
  if (indicator?.type === "no_facturable") return 0;
  if (indicator?.type !== "itbis") return 4;
  return ({ "18.00": 1, "16.00": 2, "0.00": 3 } as const)[indicator.rate as "18.00" | "16.00" | "0.00"];
}

function ecfDocument(
  type: EcfType,
  encf: string,
  buyer: DocumentSnapshot["buyer"],
  specs: LineSpec[],
  extra: Partial<Omit<EcfDocument, "lines" | "breakdown" | "total" | "snapshot">> = {},
): EcfDocument {
  const amounts = specs.map((spec) => lineAmounts({ quantity: spec.quantity, unitPrice: spec.unitPrice, discount: spec.discount ?? "0", taxes: spec.taxes }));
  const currency = extra.currency ?? { code: "DOP", exchangeRate: "1.00" };
  return {
    type,
    encf,
    sequenceExpiry: "2027-12-31",
    issueDate: "2026-11-23",
    paymentType: 1,
    incomeType: "01",
    signedAt: new Date("2026-11-23T14:05:09Z"),
    ...extra,
    snapshot: {
      issuer,
      buyer,
      sequence: { prefix: `E${type}`, name: `e-CF ${type}`, valid_until: "2027-12-31", authorization_number: null },
      currency: { id: 1, code: currency.code, exchange_rate: currency.exchangeRate },
    },
    lines: specs.map(({ discount: _discount, taxes, ...spec }, i) => ({
      ...spec,
      discountAmount: amounts[i]!.discountAmount,
      amount: new Big(amounts[i]!.subtotal).minus(amounts[i]!.discountAmount).toFixed(2),
      billingIndicator: billingIndicator(taxes),
      additionalTaxCodes: taxes.filter((tax) => !EXCLUSIVE_TAX_TYPES.has(tax.type) && tax.dgii_code).map((tax) => tax.dgii_code!),
    })),
    breakdown: taxBreakdown(amounts),
    total: amounts.reduce((acc, a) => acc.plus(a.total), new Big(0)).toFixed(2),
  };
}

/** Signs, validates, and shows the schema refusing the same document without one mandatory element. */
async function expectValid(xml: string, xsd: string, mandatory: string) {
  const signed = await sign(xml);
  expect(await validate(signed.xml, xsd)).toEqual({ valid: true, errors: [] });
  const pattern = new RegExp(`<${mandatory}>[^<]*</${mandatory}>|<${mandatory}>.*?</${mandatory}>`);
  expect(signed.xml).toMatch(pattern);
  const missing = await validate(signed.xml.replace(pattern, ""), xsd);
  expect(missing.valid, `${xsd} without ${mandatory}`).toBe(false);
  expect(missing.errors.join("\n")).toMatch(/not expected|Missing child element/);
  return signed;
}

/** The text of each element of that name, in order. */
const values = (xml: string, name: string) => [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, "g"))].map((match) => match[1]);
const section = (xml: string, name: string) => xml.match(new RegExp(`<${name}>.*?</${name}>`))?.[0] ?? "";

const bar: LineSpec[] = [
  {
    name: "Cerveza Presidente 650 ml",
    goodsOrService: 1,
    quantity: "24",
    unitPrice: "150.00",
    unit: "5",
    isc: { referenceQuantity: "650", referenceUnit: "59", subquantity: { quantity: "0.0325", unit: "24" }, alcoholDegrees: "5", referenceUnitPrice: "150" },
    taxes: [TAX.itbis18, TAX.iscCervezaEspecifico, TAX.iscCervezaAdValorem],
  },
  { name: "Picadera mixta para compartir", goodsOrService: 1, quantity: "2", unitPrice: "850", discount: "10", taxes: [TAX.itbis18, TAX.propina] },
  { name: "Agua mineral 500 ml", goodsOrService: 1, quantity: "3", unitPrice: "50", taxes: [TAX.exento] },
];

describe("e-CF of every type the project issues, RFCE and ANECF, against DGII's schemas", () => {
  it("E32 of a bar under RD$250,000 with ISC específico and ad valorem on beer and propina legal on food: the buyer by name only, totals to the cent; its RFCE carries the E32's security code", async () => {
    const doc = ecfDocument("32", "E320000000123", buyers.consumer, bar);
    // 24 × 150 = 3,600 + ISC específico 24 × 20.56 = 493.44 + ad valorem 360.00, ITBIS 18 % of 4,453.44 = 801.62;
    // 1,700 − 10 % = 1,530 + propina 153.00 + ITBIS 275.40 (propina is not in the ITBIS base); water 150 exempt.
    expect(doc.total).toBe("7363.46");
    const xml = buildEcf(doc);
    // Comprador is mandatory on an E32 (Formato e-CF, área Comprador: 1) but its fields are not below RD$250,000: the contact's name only.
    expect(section(xml, "Comprador")).toBe("<Comprador><RazonSocialComprador>Consumidor final</RazonSocialComprador></Comprador>");
    expect(xml).not.toContain("<FechaVencimientoSecuencia>");
    const totales = section(xml, "Totales");
    expect(values(totales, "MontoGravadoI1")).toEqual(["5130.00"]);
    expect(values(totales, "TotalITBIS1")).toEqual(["1077.02"]);
    expect(values(totales, "MontoExento")).toEqual(["150.00"]);
    expect(values(totales, "MontoImpuestoAdicional")).toEqual(["1006.44"]);
    expect(totales).toContain(
      "<ImpuestosAdicionales>" +
        "<ImpuestoAdicional><TipoImpuesto>006</TipoImpuesto><TasaImpuestoAdicional>20.56</TasaImpuestoAdicional><MontoImpuestoSelectivoConsumoEspecifico>493.44</MontoImpuestoSelectivoConsumoEspecifico></ImpuestoAdicional>" +
        "<ImpuestoAdicional><TipoImpuesto>023</TipoImpuesto><TasaImpuestoAdicional>10.00</TasaImpuestoAdicional><MontoImpuestoSelectivoConsumoAdvalorem>360.00</MontoImpuestoSelectivoConsumoAdvalorem></ImpuestoAdicional>" +
        "<ImpuestoAdicional><TipoImpuesto>001</TipoImpuesto><TasaImpuestoAdicional>10.00</TasaImpuestoAdicional><OtrosImpuestosAdicionales>153.00</OtrosImpuestosAdicionales></ImpuestoAdicional>" +
        "</ImpuestosAdicionales>",
    );
    expect(values(totales, "MontoTotal")).toEqual(["7363.46"]);
    expect(xml).toContain(
      "<CantidadItem>24.00</CantidadItem><UnidadMedida>5</UnidadMedida><CantidadReferencia>650.00</CantidadReferencia><UnidadReferencia>59</UnidadReferencia>" +
        "<TablaSubcantidad><SubcantidadItem><Subcantidad>0.033</Subcantidad><CodigoSubcantidad>24</CodigoSubcantidad></SubcantidadItem></TablaSubcantidad>" +
        "<GradosAlcohol>5.00</GradosAlcohol><PrecioUnitarioReferencia>150.00</PrecioUnitarioReferencia><PrecioUnitarioItem>150.00</PrecioUnitarioItem>",
    );
    expect(xml).toContain(
      "<TablaImpuestoAdicional><ImpuestoAdicional><TipoImpuesto>006</TipoImpuesto></ImpuestoAdicional><ImpuestoAdicional><TipoImpuesto>023</TipoImpuesto></ImpuestoAdicional></TablaImpuestoAdicional><MontoItem>3600.00</MontoItem>",
    );
    expect(xml).toContain(
      "<TablaImpuestoAdicional><ImpuestoAdicional><TipoImpuesto>001</TipoImpuesto></ImpuestoAdicional></TablaImpuestoAdicional><MontoItem>1530.00</MontoItem>",
    );
    const signed = await expectValid(xml, "e-CF-32.xsd", "FechaEmision");

    const rfce = buildRfce(doc, signed.securityCode);
    expect(values(rfce, "CodigoSeguridadeCF")).toEqual([signed.securityCode]);
    expect(section(rfce, "Comprador")).toBe(section(xml, "Comprador"));
    for (const name of ["MontoGravadoTotal", "MontoGravadoI1", "MontoExento", "TotalITBIS", "TotalITBIS1", "MontoImpuestoAdicional", "MontoTotal"]) {
      expect(values(rfce, name), name).toEqual(values(totales, name));
    }
    expect(rfce).toContain(
      "<ImpuestoAdicional><TipoImpuesto>006</TipoImpuesto><MontoImpuestoSelectivoConsumoEspecifico>493.44</MontoImpuestoSelectivoConsumoEspecifico></ImpuestoAdicional>",
    );
    expect(rfce).not.toContain("TasaImpuestoAdicional");
    await expectValid(rfce, "RFCE-32.xsd", "CodigoSeguridadeCF");
  });

  it("E32 from RD$250,000 names its buyer (RNCComprador with the cédula) and has no RFCE; without the buyer's id it is refused", async () => {
    const tvs: LineSpec[] = [{ name: 'Televisor LED 75"', goodsOrService: 1, quantity: "5", unitPrice: "58000", taxes: [TAX.itbis18] }];
    const doc = ecfDocument("32", "E320000000124", buyers.person, tvs);
    const xml = buildEcf(doc);
    expect(section(xml, "Comprador")).toBe(
      "<Comprador><RNCComprador>00113918205</RNCComprador><RazonSocialComprador>María Fernández Rosario</RazonSocialComprador></Comprador>",
    );
    expect(values(xml, "MontoTotal")).toEqual(["342200.00"]);
    await expectValid(xml, "e-CF-32.xsd", "eNCF");
    expect(() => buildRfce(doc, "AbC123")).toThrow(EcfBuildError);
    expect(() => buildEcf(ecfDocument("32", "E320000000125", buyers.consumer, tvs))).toThrow(/from RD\$250,000/);
    // A tourist's passport goes in IdentificadorExtranjero.
    const tourist = buildEcf(ecfDocument("32", "E320000000126", buyers.tourist, tvs));
    expect(section(tourist, "Comprador")).toBe(
      "<Comprador><IdentificadorExtranjero>X1234567</IdentificadorExtranjero><RazonSocialComprador>John Smith</RazonSocialComprador></Comprador>",
    );
    await expectValid(tourist, "e-CF-32.xsd", "TipoPago");
  });

  it("E31 of a hotel in USD: DOP amounts are the invoice's × 58.95 and OtraMoneda carries the dollars, with propina legal in both", async () => {
    const doc = ecfDocument(
      "31",
      "E310000000045",
      buyers.company,
      [
        { name: "Habitación doble, 3 noches", goodsOrService: 2, quantity: "3", unitPrice: "120.00", taxes: [TAX.itbis18, TAX.propina] },
        { name: "Traslado aeropuerto", goodsOrService: 2, quantity: "1", unitPrice: "45.50", taxes: [TAX.exento] },
      ],
      { currency: { code: "USD", exchangeRate: "58.95" }, paymentType: 2, dueDate: "2026-12-23" },
    );
    expect(doc.total).toBe("506.30");
    const xml = buildEcf(doc);
    expect(xml).toContain("<TipoPago>2</TipoPago><FechaLimitePago>23-12-2026</FechaLimitePago>");
    const totales = section(xml, "Totales");
    // 360 × 58.95 = 21,222.00; ITBIS 64.80 × 58.95 = 3,819.96; exempt 45.50 × 58.95 = 2,682.225 → 2,682.23; propina 36 × 58.95 = 2,122.20.
    expect(values(totales, "MontoGravadoI1")).toEqual(["21222.00"]);
    expect(values(totales, "TotalITBIS")).toEqual(["3819.96"]);
    expect(values(totales, "MontoExento")).toEqual(["2682.23"]);
    expect(values(totales, "OtrosImpuestosAdicionales")).toEqual(["2122.20"]);
    expect(values(totales, "MontoTotal")).toEqual(["29846.39"]);
    expect(section(xml, "OtraMoneda")).toBe(
      "<OtraMoneda><TipoMoneda>USD</TipoMoneda><TipoCambio>58.95</TipoCambio>" +
        "<MontoGravadoTotalOtraMoneda>360.00</MontoGravadoTotalOtraMoneda><MontoGravado1OtraMoneda>360.00</MontoGravado1OtraMoneda>" +
        "<MontoExentoOtraMoneda>45.50</MontoExentoOtraMoneda><TotalITBISOtraMoneda>64.80</TotalITBISOtraMoneda><TotalITBIS1OtraMoneda>64.80</TotalITBIS1OtraMoneda>" +
        "<MontoImpuestoAdicionalOtraMoneda>36.00</MontoImpuestoAdicionalOtraMoneda><ImpuestosAdicionalesOtraMoneda><ImpuestoAdicionalOtraMoneda>" +
        "<TipoImpuestoOtraMoneda>001</TipoImpuestoOtraMoneda><TasaImpuestoAdicionalOtraMoneda>10.00</TasaImpuestoAdicionalOtraMoneda>" +
        "<OtrosImpuestosAdicionalesOtraMoneda>36.00</OtrosImpuestosAdicionalesOtraMoneda></ImpuestoAdicionalOtraMoneda></ImpuestosAdicionalesOtraMoneda>" +
        "<MontoTotalOtraMoneda>506.30</MontoTotalOtraMoneda></OtraMoneda>",
    );
    expect(xml).toContain(
      "<PrecioUnitarioItem>7074.00</PrecioUnitarioItem><TablaImpuestoAdicional><ImpuestoAdicional><TipoImpuesto>001</TipoImpuesto></ImpuestoAdicional></TablaImpuestoAdicional>" +
        "<OtraMonedaDetalle><PrecioOtraMoneda>120.00</PrecioOtraMoneda><MontoItemOtraMoneda>360.00</MontoItemOtraMoneda></OtraMonedaDetalle><MontoItem>21222.00</MontoItem>",
    );
    await expectValid(xml, "e-CF-31.xsd", "RNCComprador");
    // E31 needs the buyer's RNC or cédula, and codes 1-3 belong to notes.
    expect(() => buildEcf({ ...doc, snapshot: { ...doc.snapshot, buyer: buyers.tourist } })).toThrow(/RNC or cédula/);
    expect(() => buildEcf({ ...doc, reference: { ncf: "E310000000001", date: "2026-11-01", modificationCode: 1, reason: "x" } })).toThrow(/only to notes/);
  });

  it("E33 (nota de débito) names the E31 it modifies: InformacionReferencia with code 3 and the reason", async () => {
    const doc = ecfDocument(
      "33",
      "E330000000007",
      buyers.company,
      [{ name: "Intereses por mora, factura E310000000001", goodsOrService: 2, quantity: "1", unitPrice: "1500", taxes: [TAX.itbis18] }],
      {
        reference: { ncf: "E310000000001", date: "2026-11-02", modificationCode: 3, reason: "Intereses por pago tardío" },
      },
    );
    const xml = buildEcf(doc);
    expect(values(xml, "FechaVencimientoSecuencia")).toEqual(["31-12-2027"]);
    expect(section(xml, "InformacionReferencia")).toBe(
      "<InformacionReferencia><NCFModificado>E310000000001</NCFModificado><FechaNCFModificado>02-11-2026</FechaNCFModificado><CodigoModificacion>3</CodigoModificacion><RazonModificacion>Intereses por pago tardío</RazonModificacion></InformacionReferencia>",
    );
    expect(values(xml, "TotalITBIS1")).toEqual(["270.00"]);
    expect(values(xml, "MontoTotal")).toEqual(["1770.00"]);
    await expectValid(xml, "e-CF-33.xsd", "InformacionReferencia");
    // On notes the área Comprador is conditional: a buyer without an id leaves it out.
    const anonymous = buildEcf({ ...doc, snapshot: { ...doc.snapshot, buyer: buyers.consumer } });
    expect(anonymous).not.toContain("<Comprador>");
    await expectValid(anonymous, "e-CF-33.xsd", "FechaNCFModificado");
    expect(() => buildEcf({ ...doc, reference: undefined })).toThrow(/InformacionReferencia is mandatory/);
  });

  it("E34 (nota de crédito) on an E31 of more than 30 days: IndicadorNotaCredito 1, no sequence expiry, amounts of the returned goods", async () => {
    const doc = ecfDocument(
      "34",
      "E340000000003",
      buyers.company,
      [
        {
          name: "Devolución: cemento gris Portland tipo I, funda de 42.5 kg",
          goodsOrService: 1,
          quantity: "5",
          unitPrice: "545.1234",
          discount: "5",
          taxes: [TAX.itbis18],
        },
      ],
      { reference: { ncf: "E310000000001", date: "2026-10-01", modificationCode: 3, reason: "Devolución de 5 fundas dañadas" } },
    );
    const xml = buildEcf(doc);
    expect(xml).toContain("<eNCF>E340000000003</eNCF><IndicadorNotaCredito>1</IndicadorNotaCredito><IndicadorMontoGravado>0</IndicadorMontoGravado>");
    expect(xml).not.toContain("<FechaVencimientoSecuencia>");
    // 5 × 545.1234 = 2,725.62 − 5 % (136.28) = 2,589.34; ITBIS 466.08.
    expect(values(xml, "MontoGravadoI1")).toEqual(["2589.34"]);
    expect(values(xml, "TotalITBIS1")).toEqual(["466.08"]);
    expect(values(xml, "MontoTotal")).toEqual(["3055.42"]);
    expect(values(xml, "CodigoModificacion")).toEqual(["3"]);
    await expectValid(xml, "e-CF-34.xsd", "IndicadorNotaCredito");
    // Within 30 days of the modified e-CF the indicator is 0 (Formato e-CF, field 5).
    expect(buildEcf({ ...doc, reference: { ...doc.reference!, date: "2026-11-01" } })).toContain("<IndicadorNotaCredito>0</IndicadorNotaCredito>");
  });

  it("E44 (regímenes especiales) to a free-zone company: exempt lines only, no ITBIS fields; ITBIS or ISC are refused", async () => {
    const specs: LineSpec[] = [
      { name: "Mantenimiento preventivo de montacargas", goodsOrService: 2, quantity: "4", unitPrice: "3500", taxes: [TAX.exento] },
      { name: "Repuestos de montacargas (filtros y correas)", goodsOrService: 1, quantity: "10", unitPrice: "1250.75", discount: "5", taxes: [TAX.exento] },
    ];
    const doc = ecfDocument("44", "E440000000010", buyers.company, specs);
    const xml = buildEcf(doc);
    // 14,000 + (12,507.50 − 625.38) = 25,882.12.
    expect(section(xml, "Totales")).toBe("<Totales><MontoExento>25882.12</MontoExento><MontoTotal>25882.12</MontoTotal></Totales>");
    expect(xml).not.toContain("IndicadorMontoGravado");
    expect(values(xml, "IndicadorFacturacion")).toEqual(["4", "4"]);
    await expectValid(xml, "e-CF-44.xsd", "RazonSocialComprador");
    expect(() => buildEcf(ecfDocument("44", "E440000000011", buyers.company, [{ ...specs[0]!, taxes: [TAX.itbis18] }]))).toThrow(EcfBuildError);
    expect(() => buildEcf(ecfDocument("44", "E440000000011", buyers.company, [{ ...specs[0]!, taxes: [TAX.exento, TAX.iscCervezaAdValorem] }]))).toThrow(
      /001-005/,
    );
  });

  it("E45 (gubernamental) to a ministry on credit, with its due date", async () => {
    const doc = ecfDocument(
      "45",
      "E450000000021",
      buyers.government,
      [
        { name: "Resma de papel bond 8.5 x 11, 75 g", goodsOrService: 1, quantity: "500", unitPrice: "285.00", taxes: [TAX.itbis18] },
        { name: "Tóner HP 85A", goodsOrService: 1, quantity: "20", unitPrice: "4200", discount: "10", taxes: [TAX.itbis18] },
      ],
      { paymentType: 2, dueDate: "2027-01-22" },
    );
    const xml = buildEcf(doc);
    expect(values(xml, "RNCComprador")).toEqual(["401036275"]);
    expect(values(xml, "FechaLimitePago")).toEqual(["22-01-2027"]);
    expect(values(xml, "MontoGravadoTotal")).toEqual(["218100.00"]);
    expect(values(xml, "TotalITBIS")).toEqual(["39258.00"]);
    expect(values(xml, "MontoTotal")).toEqual(["257358.00"]);
    await expectValid(xml, "e-CF-45.xsd", "MontoTotal");
  });

  it("E46 (exportaciones) of cocoa in USD: ITBIS 0 % only, DOP and USD totals; exempt lines are refused", async () => {
    const specs: LineSpec[] = [
      { name: "Cacao orgánico en grano, saco de 60 kg", goodsOrService: 1, quantity: "200", unitPrice: "210.00", unit: "46", taxes: [TAX.itbis0] },
      { name: "Certificación orgánica del embarque", goodsOrService: 2, quantity: "1", unitPrice: "350", taxes: [TAX.itbis0] },
    ];
    const doc = ecfDocument("46", "E460000000002", buyers.abroad, specs, { currency: { code: "USD", exchangeRate: "58.9512" } });
    const xml = buildEcf(doc);
    expect(section(xml, "Comprador")).toBe("<Comprador><RazonSocialComprador>Chocolatiers Réunis SA</RazonSocialComprador></Comprador>");
    // 42,350.00 × 58.9512 = 2,496,583.32; 42,000 × 58.9512 = 2,475,950.40 and 350 × 58.9512 = 20,632.92 on the lines.
    expect(section(xml, "Totales")).toBe(
      "<Totales><MontoGravadoTotal>2496583.32</MontoGravadoTotal><MontoGravadoI3>2496583.32</MontoGravadoI3><ITBIS3>0</ITBIS3><TotalITBIS>0.00</TotalITBIS><TotalITBIS3>0.00</TotalITBIS3><MontoTotal>2496583.32</MontoTotal></Totales>",
    );
    expect(section(xml, "OtraMoneda")).toBe(
      "<OtraMoneda><TipoMoneda>USD</TipoMoneda><TipoCambio>58.9512</TipoCambio><MontoGravadoTotalOtraMoneda>42350.00</MontoGravadoTotalOtraMoneda><MontoGravado3OtraMoneda>42350.00</MontoGravado3OtraMoneda><TotalITBISOtraMoneda>0.00</TotalITBISOtraMoneda><TotalITBIS3OtraMoneda>0.00</TotalITBIS3OtraMoneda><MontoTotalOtraMoneda>42350.00</MontoTotalOtraMoneda></OtraMoneda>",
    );
    expect(values(xml, "MontoItem")).toEqual(["2475950.40", "20632.92"]);
    expect(values(xml, "PrecioUnitarioItem")).toEqual(["12379.752", "20632.92"]);
    expect(values(xml, "IndicadorFacturacion")).toEqual(["3", "3"]);
    await expectValid(xml, "e-CF-46.xsd", "TipoIngresos");
    expect(() => buildEcf(ecfDocument("46", "E460000000003", buyers.abroad, [{ ...specs[1]!, taxes: [TAX.exento] }]))).toThrow(EcfBuildError);
  });

  it("a breakdown that does not account for the document's total is refused", () => {
    const doc = ecfDocument("31", "E310000000046", buyers.company, [
      { name: "Varilla 3/8", goodsOrService: 1, quantity: "10", unitPrice: "300", taxes: [TAX.itbis18] },
    ]);
    expect(() => buildEcf({ ...doc, total: "3540.01" })).toThrow(/accounts for 3540.00/);
  });

  it("ANECF annuls unused ranges per type with their counts (DGII's own example: 47 E31 and 37 E44, 84 in all)", async () => {
    const xml = buildAnecf({
      rnc: "131246796",
      at: new Date("2026-11-23T12:50:15Z"),
      ranges: [
        { type: "31", from: "E310000000001", to: "E310000000001" },
        { type: "44", from: "E440000000010", to: "E440000000046" },
        { type: "31", from: "E310000000005", to: "E310000000050" },
      ],
    });
    expect(section(xml, "Encabezado")).toBe(
      "<Encabezado><Version>1.0</Version><RncEmisor>131246796</RncEmisor><CantidadeNCFAnulados>84</CantidadeNCFAnulados><FechaHoraAnulacioneNCF>23-11-2026 08:50:15</FechaHoraAnulacioneNCF></Encabezado>",
    );
    expect(xml).toContain(
      "<Anulacion><NoLinea>1</NoLinea><TipoeCF>31</TipoeCF><TablaRangoSecuenciasAnuladaseNCF>" +
        "<Secuencias><SecuenciaeNCFDesde>E310000000001</SecuenciaeNCFDesde><SecuenciaeNCFHasta>E310000000001</SecuenciaeNCFHasta></Secuencias>" +
        "<Secuencias><SecuenciaeNCFDesde>E310000000005</SecuenciaeNCFDesde><SecuenciaeNCFHasta>E310000000050</SecuenciaeNCFHasta></Secuencias>" +
        "</TablaRangoSecuenciasAnuladaseNCF><CantidadeNCFAnulados>47</CantidadeNCFAnulados></Anulacion>",
    );
    expect(xml).toContain("<NoLinea>2</NoLinea><TipoeCF>44</TipoeCF>");
    expect(values(xml, "CantidadeNCFAnulados")).toEqual(["84", "47", "37"]);
    await expectValid(xml, "ANECF.xsd", "RncEmisor");
    expect(() => buildAnecf({ rnc: "131246796", at: new Date(), ranges: [{ type: "31", from: "E310000000009", to: "E310000000002" }] })).toThrow(EcfBuildError);
    expect(() => buildAnecf({ rnc: "131246796", at: new Date(), ranges: [{ type: "32", from: "E310000000001", to: "E310000000002" }] })).toThrow(/type 32/);
  });
});

/**
 * The e-CF the tenant issues as the buyer of its own purchases, where it is the Emisor (Formato
 * e-CF v1.0, columns 41, 43 and 47): E41 compras to an informal seller identified by cédula, with
 * the ITBIS and ISR withheld; E43 gastos menores, without Comprador; E47 pagos al exterior to a
 * foreign beneficiary, with the ISR withheld. Then the header reader on what buildEcf writes.
 */
describe("the buyer's e-CF (41, 43, 47) against DGII's schemas", () => {
  const purchase: LineSpec[] = [
    {
      name: "Reparación de tubería y cambio de llaves",
      goodsOrService: 2,
      quantity: "1",
      unitPrice: "10000",
      taxes: [TAX.itbis18],
      // ITBIS withheld whole (1,800.00) and ISR at 10 % of the service (1,000.00).
      withholding: { itbis: "1800.00", isr: "1000.00" },
    },
    { name: "Aguacates, unidad", goodsOrService: 1, quantity: "50", unitPrice: "40", taxes: [TAX.exento] },
  ];

  it("E41 (compras) to an informal seller: the cédula in Comprador, Retencion on every line, the ITBIS and ISR withheld in Totales", async () => {
    const doc = ecfDocument("41", "E410000000005", buyers.person, purchase);
    expect(doc.total).toBe("13800.00");
    const xml = buildEcf(doc);
    // No TipoIngresos on E41 (Formato e-CF, field 8: 0).
    expect(section(xml, "IdDoc")).toBe(
      "<IdDoc><TipoeCF>41</TipoeCF><eNCF>E410000000005</eNCF><FechaVencimientoSecuencia>31-12-2027</FechaVencimientoSecuencia><IndicadorMontoGravado>0</IndicadorMontoGravado><TipoPago>1</TipoPago></IdDoc>",
    );
    expect(section(xml, "Comprador")).toBe(
      "<Comprador><RNCComprador>00113918205</RNCComprador><RazonSocialComprador>María Fernández Rosario</RazonSocialComprador></Comprador>",
    );
    expect(section(xml, "Totales")).toBe(
      "<Totales><MontoGravadoTotal>10000.00</MontoGravadoTotal><MontoGravadoI1>10000.00</MontoGravadoI1><MontoExento>2000.00</MontoExento><ITBIS1>18</ITBIS1>" +
        "<TotalITBIS>1800.00</TotalITBIS><TotalITBIS1>1800.00</TotalITBIS1><MontoTotal>13800.00</MontoTotal>" +
        "<TotalITBISRetenido>1800.00</TotalITBISRetenido><TotalISRRetencion>1000.00</TotalISRRetencion></Totales>",
    );
    // The exempt line is withheld as R too (the area is 1 on E41) with MontoITBISRetenido 0 (footnote 53).
    expect(values(xml, "IndicadorAgenteRetencionoPercepcion")).toEqual(["1", "1"]);
    expect(xml).toContain(
      "<IndicadorFacturacion>1</IndicadorFacturacion><Retencion><IndicadorAgenteRetencionoPercepcion>1</IndicadorAgenteRetencionoPercepcion><MontoITBISRetenido>1800.00</MontoITBISRetenido><MontoISRRetenido>1000.00</MontoISRRetenido></Retencion><NombreItem>",
    );
    expect(xml).toContain(
      "<IndicadorFacturacion>4</IndicadorFacturacion><Retencion><IndicadorAgenteRetencionoPercepcion>1</IndicadorAgenteRetencionoPercepcion><MontoITBISRetenido>0.00</MontoITBISRetenido></Retencion><NombreItem>",
    );
    await expectValid(xml, "e-CF-41.xsd", "Retencion");
    // The seller is identified by RNC or cédula; ISR is withheld on services only; E41 has no additional taxes.
    expect(() => buildEcf({ ...doc, snapshot: { ...doc.snapshot, buyer: buyers.tourist } })).toThrow(/RNC or cédula/);
    expect(() => buildEcf({ ...doc, snapshot: { ...doc.snapshot, buyer: buyers.consumer } })).toThrow(/RNC or cédula is mandatory/);
    expect(() => buildEcf(ecfDocument("41", "E410000000006", buyers.person, [{ ...purchase[1]!, withholding: { isr: "200.00" } }]))).toThrow(/services only/);
    expect(() => buildEcf(ecfDocument("41", "E410000000006", buyers.person, [{ ...purchase[1]!, withholding: { itbis: "10.00" } }]))).toThrow(/footnote 53/);
    expect(() => buildEcf(ecfDocument("41", "E410000000006", buyers.person, [{ ...purchase[0]!, taxes: [TAX.itbis18, TAX.propina] }]))).toThrow(EcfBuildError);
  });

  it("E31 whose buyer withholds: Retencion only on the line that has it, its totals after MontoTotal; other output unchanged", async () => {
    const specs: LineSpec[] = [
      { ...purchase[0]!, name: "Auditoría de estados financieros 2025", unitPrice: "5000", withholding: { itbis: "270.00", isr: "500.00" } },
      { name: "Carpetas y encuadernación", goodsOrService: 1, quantity: "4", unitPrice: "125", taxes: [TAX.itbis18] },
    ];
    const xml = buildEcf(ecfDocument("31", "E310000000077", buyers.company, specs));
    expect(values(xml, "MontoITBISRetenido")).toEqual(["270.00"]);
    expect(values(xml, "MontoISRRetenido")).toEqual(["500.00"]);
    expect(section(xml, "Totales")).toContain(
      "<MontoTotal>6490.00</MontoTotal><TotalITBISRetenido>270.00</TotalITBISRetenido><TotalISRRetencion>500.00</TotalISRRetencion></Totales>",
    );
    await expectValid(xml, "e-CF-31.xsd", "MontoTotal");
    // A type without the Retencion area refuses a withholding (Formato e-CF, Ítem field 5: 0 on E32).
    expect(() => buildEcf(ecfDocument("32", "E320000000077", buyers.consumer, specs))).toThrow(/no withholding/);
  });

  it("E43 (gastos menores): exempt lines, no Comprador, MontoExento and MontoTotal; ITBIS, discounts and withholdings are refused", async () => {
    const specs: LineSpec[] = [
      { name: "Peaje Autopista Duarte, ida y vuelta", goodsOrService: 2, quantity: "2", unitPrice: "100", taxes: [TAX.exento] },
      { name: "Parqueo Zona Colonial", goodsOrService: 2, quantity: "1", unitPrice: "150", taxes: [TAX.exento] },
    ];
    const doc = ecfDocument("43", "E430000000012", buyers.consumer, specs);
    const xml = buildEcf(doc);
    expect(xml).not.toContain("<Comprador>");
    expect(xml).not.toContain("<TipoIngresos>");
    expect(xml).not.toContain("<Retencion>");
    expect(section(xml, "Totales")).toBe("<Totales><MontoExento>350.00</MontoExento><MontoTotal>350.00</MontoTotal></Totales>");
    expect(values(xml, "IndicadorFacturacion")).toEqual(["4", "4"]);
    await expectValid(xml, "e-CF-43.xsd", "FechaVencimientoSecuencia");
    // A named buyer is left out: E43 has no Comprador at all.
    expect(buildEcf({ ...doc, snapshot: { ...doc.snapshot, buyer: buyers.person } })).toBe(xml);
    expect(() => buildEcf(ecfDocument("43", "E430000000013", buyers.consumer, [{ ...specs[0]!, taxes: [TAX.itbis18] }]))).toThrow(/IndicadorFacturacion 1/);
    expect(() => buildEcf(ecfDocument("43", "E430000000013", buyers.consumer, [{ ...specs[0]!, discount: "10" }]))).toThrow(/no line discounts/);
    expect(() => buildEcf(ecfDocument("43", "E430000000013", buyers.consumer, [{ ...specs[0]!, withholding: { isr: "5.00" } }]))).toThrow(/no withholding/);
    expect(() => buildEcf({ ...doc, paymentType: 2, dueDate: "2026-12-23" })).toThrow(/FechaLimitePago/);
  });

  it("E47 (pagos al exterior) in USD to a foreign beneficiary: IdentificadorExtranjero, the ISR withheld per line and in pesos, DOP and USD totals", async () => {
    const specs: LineSpec[] = [
      {
        name: "Licencia anual de software de diseño",
        goodsOrService: 2,
        quantity: "1",
        unitPrice: "1200.00",
        taxes: [TAX.exento],
        withholding: { isr: "324.00" },
      },
      { name: "Soporte técnico remoto, horas", goodsOrService: 2, quantity: "10", unitPrice: "85.50", taxes: [TAX.exento], withholding: { isr: "230.85" } },
    ];
    const doc = ecfDocument("47", "E470000000003", buyers.tourist, specs, { currency: { code: "USD", exchangeRate: "58.9512" } });
    const xml = buildEcf(doc);
    expect(section(xml, "Comprador")).toBe(
      "<Comprador><IdentificadorExtranjero>X1234567</IdentificadorExtranjero><RazonSocialComprador>John Smith</RazonSocialComprador></Comprador>",
    );
    // 2,055.00 × 58.9512 = 121,144.72; ISR 324 × 58.9512 = 19,100.19 and 230.85 × 58.9512 = 13,608.88.
    expect(section(xml, "Totales")).toBe(
      "<Totales><MontoExento>121144.72</MontoExento><MontoTotal>121144.72</MontoTotal><TotalISRRetencion>32709.07</TotalISRRetencion></Totales>",
    );
    expect(section(xml, "OtraMoneda")).toBe(
      "<OtraMoneda><TipoMoneda>USD</TipoMoneda><TipoCambio>58.9512</TipoCambio><MontoExentoOtraMoneda>2055.00</MontoExentoOtraMoneda><MontoTotalOtraMoneda>2055.00</MontoTotalOtraMoneda></OtraMoneda>",
    );
    expect(values(xml, "MontoISRRetenido")).toEqual(["19100.19", "13608.88"]);
    expect(values(xml, "MontoItem")).toEqual(["70741.44", "50403.28"]);
    expect(xml).not.toContain("MontoITBISRetenido");
    await expectValid(xml, "e-CF-47.xsd", "MontoISRRetenido");
    // A company abroad without an id: its name only.
    expect(section(buildEcf({ ...doc, snapshot: { ...doc.snapshot, buyer: buyers.abroad } }), "Comprador")).toBe(
      "<Comprador><RazonSocialComprador>Chocolatiers Réunis SA</RazonSocialComprador></Comprador>",
    );
    expect(() => buildEcf({ ...doc, snapshot: { ...doc.snapshot, buyer: buyers.company } })).toThrow(/foreign id/);
    expect(() => buildEcf(ecfDocument("47", "E470000000004", buyers.tourist, [{ ...specs[0]!, withholding: undefined }]))).toThrow(/MontoISRRetenido/);
    expect(() => buildEcf(ecfDocument("47", "E470000000004", buyers.tourist, [{ ...specs[0]!, withholding: { isr: "0", itbis: "0" } }]))).toThrow(/no ITBIS/);
    expect(() => buildEcf(ecfDocument("47", "E470000000004", buyers.tourist, [{ ...specs[0]!, taxes: [TAX.itbis18] }]))).toThrow(EcfBuildError);
  });

  it("readEcfHeader reads a signed E31 and E43 built by buildEcf; an unsigned or foreign document is refused", async () => {
    const e31 = await sign(
      buildEcf(
        ecfDocument("31", "E310000000088", buyers.company, [
          { name: "Varilla 3/8", goodsOrService: 1, quantity: "10", unitPrice: "300", taxes: [TAX.itbis18] },
        ]),
      ),
    );
    expect(readEcfHeader(e31.xml)).toEqual({
      type: "31",
      encf: "E310000000088",
      issuerRnc: "131246796",
      issuerName: "Demo SRL",
      buyerRnc: "101000122",
      issueDate: "2026-11-23",
      totalAmount: "3540.00",
      itbisTotal: "540.00",
      securityCode: e31.securityCode,
    });
    const e43 = await sign(
      buildEcf(
        ecfDocument("43", "E430000000020", buyers.consumer, [{ name: "Peaje", goodsOrService: 2, quantity: "1", unitPrice: "100", taxes: [TAX.exento] }]),
      ),
    );
    expect(readEcfHeader(e43.xml)).toMatchObject({ type: "43", buyerRnc: null, totalAmount: "100.00", itbisTotal: null, securityCode: e43.securityCode });
    expect(() =>
      readEcfHeader(
        buildEcf(
          ecfDocument("43", "E430000000021", buyers.consumer, [{ name: "Peaje", goodsOrService: 2, quantity: "1", unitPrice: "100", taxes: [TAX.exento] }]),
        ),
      ),
    ).toThrow(EcfReadError);
    expect(() => readEcfHeader("<ARECF/>")).toThrow(/Expected an ECF/);
    expect(() => readEcfHeader("<ECF><Encabezado>")).toThrow(EcfReadError);
  });
});
