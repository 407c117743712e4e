import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { validateXML } from "xmllint-wasm";
import { signingMaterial } from "../../src/modules/ecf/certificate";
import { signXml } from "../../src/modules/ecf/signature";
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
});
