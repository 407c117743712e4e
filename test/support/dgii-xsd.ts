import { readFileSync } from "node:fs";
import path from "node:path";
import { validateXML } from "xmllint-wasm";
import { makeCertificate } from "../../scripts/lib/certificates";
import { signingMaterial } from "../../src/modules/ecf/certificate";
import { signXml } from "../../src/modules/ecf/signature";
import { signable } from "./signable";

/**
 * DGII's schemas, read from ../shared/dgii/xsd-strict/ (never copied into the project: see its
 * README), validated with libxml2 compiled to WebAssembly (xmllint-wasm) — the validator the fake
 * DGII uses; and a signer with one test certificate per test file. For the node project.
 */
export const DGII_XSD = path.resolve(__dirname, "../../../shared/dgii/xsd-strict");
const schema = (name: string) => ({ fileName: name, contents: readFileSync(path.join(DGII_XSD, name), "utf8") });

export async function validate(xml: string, xsd: string) {
  const result = await validateXML({ xml: [{ fileName: "document.xml", contents: xml }], schema: [schema(xsd)] });
  return { valid: result.valid, errors: result.errors.map((error) => error.message) };
}

let certificate: Awaited<ReturnType<typeof makeCertificate>> | undefined;
export async function sign(xml: string) {
  certificate ??= await makeCertificate({ authority: null });
  return signXml(signable(xml), signingMaterial(certificate.p12Base64, certificate.password));
}
