import { describe, expect, it } from "vitest";
import { signingMaterial } from "../../src/modules/ecf/certificate";
import { ECF_FORMAT, ECF_KINDS } from "../../src/modules/ecf/formats/ecf";
import { schemaOf } from "../../src/modules/ecf/formats/schema";
import { signXml } from "../../src/modules/ecf/signature";
import { buildEcf } from "../../src/modules/ecf/xml";
import { SCHEMA_NAMES, validateAgainstSchema } from "../../src/modules/ecf/xsd";
import { makeCertificate } from "../support/certificates";
import { documentFor } from "../support/ecf-documents";

/**
 * DGII's formats inside workerd (issue 19, reception; issue 31): src/modules/ecf/xsd.ts runs libxml2's
 * xmllint, compiled to WebAssembly and imported as a module, against the schemas generated from our
 * own definitions (src/modules/ecf/formats/), nothing read from outside the repository. An E31 the project builds and signs validates; the same E31 missing a mandatory element,
 * or with two in the wrong order, is refused with libxml2's message naming the element.
 */
async function signedE31(lines: number) {
  const cert = await makeCertificate();
  return signXml(buildEcf(documentFor(lines)), signingMaterial(cert.p12Base64, cert.password)).xml;
}

describe("XSD validation inside the Worker", () => {
  it("every bundled schema compiles: a foreign root is refused for its root, not for the schema", async () => {
    expect(SCHEMA_NAMES).toEqual([
      "e-CF-31",
      "e-CF-32",
      "e-CF-33",
      "e-CF-34",
      "e-CF-41",
      "e-CF-43",
      "e-CF-44",
      "e-CF-45",
      "e-CF-46",
      "e-CF-47",
      "RFCE-32",
      "ANECF",
      "ARECF",
      "ACECF",
      "Semilla",
    ]);
    for (const name of SCHEMA_NAMES) {
      expect(await validateAgainstSchema("<Nada/>", name), name).toEqual({
        valid: false,
        errors: ["line 1: Schemas validity error : Element 'Nada': No matching global declaration available for the validation root."],
      });
    }
  });

  it("a signed E31 validates against e-CF-31; without RNCComprador, or with IdDoc's first two children swapped, it does not, and the message names the element", async () => {
    const xml = await signedE31(3);
    expect(await validateAgainstSchema(xml, "e-CF-31")).toEqual({ valid: true, errors: [] });
    // The same E31 is not an E32: an E32 carries no sequence expiry (Formato e-CF v1.0, IdDoc: FechaVencimientoSecuencia 0 for E32).
    expect(await validateAgainstSchema(xml, "e-CF-32")).toEqual({
      valid: false,
      errors: [
        "line 1: Schemas validity error : Element 'FechaVencimientoSecuencia': This element is not expected. Expected is one of ( IndicadorEnvioDiferido, IndicadorMontoGravado, IndicadorServicioTodoIncluido, TipoIngresos ).",
      ],
    });

    // RNCComprador is mandatory on an E31 (Formato e-CF v1.0, área Comprador, field RNCComprador: 1).
    const withoutRnc = xml.replace("<RNCComprador>101000122</RNCComprador>", "");
    expect(withoutRnc).not.toContain("<RNCComprador>");
    expect(await validateAgainstSchema(withoutRnc, "e-CF-31")).toEqual({
      valid: false,
      errors: ["line 1: Schemas validity error : Element 'RazonSocialComprador': This element is not expected. Expected is ( RNCComprador )."],
    });

    // IdDoc is a sequence: TipoeCF then eNCF.
    const swapped = xml.replace("<TipoeCF>31</TipoeCF><eNCF>E310000000001</eNCF>", "<eNCF>E310000000001</eNCF><TipoeCF>31</TipoeCF>");
    expect(swapped).not.toBe(xml);
    const outOfOrder = await validateAgainstSchema(swapped, "e-CF-31");
    expect(outOfOrder.valid).toBe(false);
    expect(outOfOrder.errors[0]).toBe("line 1: Schemas validity error : Element 'eNCF': This element is not expected. Expected is ( TipoeCF ).");
  });

  it("a document that is not XML is refused with the parser's message; schema validation does not fetch what the document points to", async () => {
    expect(await validateAgainstSchema("<ECF><Encabezado></ECF>", "e-CF-31")).toEqual({
      valid: false,
      errors: ["line 1: parser error : Opening and ending tag mismatch: Encabezado line 1 and ECF"],
    });
    // A sender's external entity is not loaded (--nonet; the program has no network, nor files but its two).
    expect(await validateAgainstSchema('<!DOCTYPE ECF [<!ENTITY x SYSTEM "http://example.com/x">]><ECF>&x;</ECF>', "e-CF-31")).toEqual({
      valid: false,
      errors: [
        'line 1: warning: failed to load external entity "http://example.com/x"',
        "line 1: Schemas validity error : Element 'ECF': Missing child element(s). Expected is ( Encabezado ).",
      ],
    });
  });

  it("a signed E31 of 1,000 lines validates; the time of one validation, of the schema alone, and of generating the schemas, is logged", async () => {
    const xml = await signedE31(1000);
    expect(xml.length).toBeGreaterThan(350_000);
    await validateAgainstSchema(xml, "e-CF-31");
    const started = performance.now();
    const result = await validateAgainstSchema(xml, "e-CF-31");
    const ms = performance.now() - started;
    expect(result).toEqual({ valid: true, errors: [] });
    const schemaStarted = performance.now();
    await validateAgainstSchema("<Nada/>", "e-CF-31");
    const schemaMs = performance.now() - schemaStarted;
    // Generating the ten e-CF schemas from the definitions (done once per schema, on first use).
    const generateStarted = performance.now();
    const sizes = ECF_KINDS.map((kind) => schemaOf(ECF_FORMAT, kind).length);
    const generateMs = performance.now() - generateStarted;
    expect(Math.min(...sizes)).toBeGreaterThan(20_000);
    console.log(
      `xsd: a 1,000-line signed E31 (${xml.length} chars) against e-CF-31: ${ms.toFixed(0)} ms; the schema alone (an empty document): ${schemaMs.toFixed(0)} ms; generating the 10 e-CF schemas: ${generateMs.toFixed(1)} ms`,
    );
  });
});
