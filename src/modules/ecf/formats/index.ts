/**
 * The schemas of every document DGII defines, generated from our own format definitions (ecf.ts,
 * messages.ts) by schema.ts: what src/modules/ecf/xsd.ts validates against, in the Worker (received e-CF)
 * and in tests (what we build). Each schema's text is generated once, on first use.
 */

import { ECF_FORMAT, ECF_KINDS } from "./ecf";
import { ACECF_FORMAT, ANECF_FORMAT, ARECF_FORMAT, RFCE_FORMAT, SEED_FORMAT } from "./messages";
import type { DocumentFormat } from "./model";
import { schemaOf } from "./schema";

const FORMATS: Record<string, [DocumentFormat, string]> = {
  ...Object.fromEntries(ECF_KINDS.map((kind) => [`e-CF-${kind}`, [ECF_FORMAT, kind]])),
  "RFCE-32": [RFCE_FORMAT, "RFCE-32"],
  ANECF: [ANECF_FORMAT, "ANECF"],
  ARECF: [ARECF_FORMAT, "ARECF"],
  ACECF: [ACECF_FORMAT, "ACECF"],
  Semilla: [SEED_FORMAT, "Semilla"],
};

export const SCHEMA_NAMES = [
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
] as const;
export type SchemaName = (typeof SCHEMA_NAMES)[number];

const generated = new Map<SchemaName, string>();

/** The XSD text of `name`, generated from our definitions. */
export function schemaText(name: SchemaName): string {
  let text = generated.get(name);
  if (text === undefined) {
    const [format, kind] = FORMATS[name] as [DocumentFormat, string];
    text = schemaOf(format, kind);
    generated.set(name, text);
  }
  return text;
}
