import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { validateXML } from "xmllint-wasm";
import { Big } from "../../src/lib/decimal";
import { signingMaterial } from "../../src/modules/ecf/certificate";
import { signXml } from "../../src/modules/ecf/signature";
import { buildEcf, type EcfDocument } from "../../src/modules/ecf/xml";
import { lineAmounts, taxBreakdown } from "../../src/modules/sales/lines";
import { makeCertificate } from "../support/certificates";

/**
 * DGII's schemas, read from ../shared/dgii/xsd-strict/ (never copied into the project: see its
 * README), validated with libxml2 compiled to WebAssembly (xmllint-wasm) — the validator the fake
 * DGII will use. Here: the seed of DGII's authentication, signed by our signer, is still a valid
 * SemillaModel (the signature fills the schema's final xs:any).
 */
const DGII = path.resolve(__dirname, "../../../shared/dgii/xsd-strict");
const schema = (name: string) => ({ fileName: name, contents: readFileSync(path.join(DGII, name), "utf8") });

async function validate(xml: string, xsd: string) {
  const result = await validateXML({ xml: [{ fileName: "document.xml", contents: xml }], schema: [schema(xsd)] });
  return { valid: result.valid, errors: result.errors.map((error) => error.message) };
}

describe("DGII schemas", () => {
  it("every schema of xsd-strict compiles in libxml2: a foreign root is refused for its root, not for the schema", async () => {
    const names = readdirSync(DGII).filter((name) => name.endsWith(".xsd"));
    expect(names.length).toBe(15);
    for (const name of names) {
      const result = await validate("<Nada/>", name);
      expect(result, name).toEqual({ valid: false, errors: [expect.stringContaining("No matching global declaration available for the validation root")] });
    }
  });

  it("a seed signed as DGII's authentication asks validates against Semilla.xsd; unsigned or altered it does not", async () => {
    const seed =
      '<?xml version="1.0" encoding="utf-8"?><SemillaModel><valor>dGVzdC1zZWVkLXZhbHVl</valor><fecha>2026-11-23T10:15:30.1234567-04:00</fecha></SemillaModel>';
    const cert = await makeCertificate();
    const signed = signXml(seed, signingMaterial(cert.p12Base64, cert.password));
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
    const cert = await makeCertificate();
    const signed = signXml(xml, signingMaterial(cert.p12Base64, cert.password));
    expect(await validate(signed.xml, "e-CF-31.xsd")).toEqual({ valid: true, errors: [] });
  });
});
