import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { makeCertificate } from "../../scripts/lib/certificates";
import { validateXml } from "../../scripts/lib/xmllint";
import { signingMaterial } from "../../src/modules/ecf/certificate";
import { SCHEMA_NAMES, type SchemaName, schemaText } from "../../src/modules/ecf/formats";
import { signXml } from "../../src/modules/ecf/signature";
import { signable } from "./signable";

/**
 * DGII's schemas, read from ../shared/dgii/xsd-strict/ (never copied into the project: see its
 * README), validated with libxml2 compiled to WebAssembly (xmllint-wasm, run in process by
 * scripts/lib/xmllint.ts) — the validator the fake DGII uses; and a signer with one test
 * certificate per test file. For the node project.
 *
 * Where ../shared/dgii is absent (a clone on its own), `validate` uses our own definitions of the
 * same formats (src/modules/ecf/formats/), which test/node/formats-conformance.test.ts holds
 * against DGII's wherever both are present: the tests still check what we build, against ours.
 */
export const DGII_XSD = path.resolve(__dirname, "../../../shared/dgii/xsd-strict");
export const DGII_PRESENT = existsSync(DGII_XSD);

/**
 * A test skipped for want of ../shared says why in vitest's default output, not only under
 * --reporter=verbose (issue 44): its reason is printed as the file is collected.
 */
export function sayWhySkipped(file: string, what: string): void {
  console.warn(`${file}: skipped ${what}: ${DGII_XSD} is absent (a clone outside the project's workspace); CI runs it.`);
}
const schema = (name: string) => {
  if (DGII_PRESENT) return { fileName: name, contents: readFileSync(path.join(DGII_XSD, name), "utf8") };
  const ours = name.replace(/\.xsd$/, "") as SchemaName;
  if (!SCHEMA_NAMES.includes(ours)) throw new Error(`no schema ${name}`);
  return { fileName: name, contents: schemaText(ours) };
};

export async function validate(xml: string, xsd: string) {
  const result = await validateXml([{ fileName: "document.xml", contents: xml }], [schema(xsd)]);
  return { valid: result.valid, errors: result.errors.map((error) => error.message) };
}

/** Several documents against one schema in one run of libxml2 (one schema parse): each document's errors, by its index. */
export async function validateMany(xmls: string[], xsd: string): Promise<string[][]> {
  const result = await validateXml(
    xmls.map((contents, i) => ({ fileName: `document-${i}.xml`, contents })),
    [schema(xsd)],
  );
  const errors: string[][] = xmls.map(() => []);
  for (const error of result.errors) {
    const index = Number(/^document-(\d+)\.xml$/.exec(error.loc?.fileName ?? "")?.[1] ?? -1);
    if (index < 0) throw new Error(`validateMany: an error of no document: ${error.rawMessage}`);
    errors[index]!.push(error.message);
  }
  return errors;
}

let certificate: Awaited<ReturnType<typeof makeCertificate>> | undefined;
export async function sign(xml: string) {
  certificate ??= await makeCertificate({ authority: null });
  return signXml(signable(xml), signingMaterial(certificate.p12Base64, certificate.password));
}
