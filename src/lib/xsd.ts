/**
 * Validation of an XML document against one of DGII's schemas, inside the Worker: libxml2's
 * xmllint compiled to WebAssembly (xmllint-wasm), run as its command line
 * `xmllint --schema <schema> --noout document.xml` on an in-memory file system.
 *
 * workerd refuses to compile WebAssembly from bytes at run time ("Wasm code generation disallowed
 * by embedder"), so xmllint.wasm is imported as a module (wrangler's CompiledWasm rule: compiled
 * once, when the Worker loads) and each run instantiates it through Emscripten's instantiateWasm
 * hook; the factory comes from the package's browser build, patched to export it
 * (patches/xmllint-wasm+5.3.0.patch). A run is a program: it parses the schema, validates, exits;
 * xmllint keeps nothing between runs, so the schema is parsed again each time (see docs/ecf.md,
 * "Validation against DGII's schemas", for the cost).
 *
 * The schemas are DGII's, read from ../shared/dgii/xsd-strict/ at build time (a Text rule in
 * wrangler.toml), never copied into the repository; xsd-strict only corrects the two defects that
 * stop libxml2 from compiling DGII's originals (its README).
 */

import xmllintWasm from "xmllint-wasm/xmllint.wasm";
import xmllint from "xmllint-wasm/xmllint-browser.mjs";
import acecf from "../../../shared/dgii/xsd-strict/ACECF.xsd";
import arecf from "../../../shared/dgii/xsd-strict/ARECF.xsd";
import ecf31 from "../../../shared/dgii/xsd-strict/e-CF-31.xsd";
import ecf32 from "../../../shared/dgii/xsd-strict/e-CF-32.xsd";
import ecf33 from "../../../shared/dgii/xsd-strict/e-CF-33.xsd";
import ecf34 from "../../../shared/dgii/xsd-strict/e-CF-34.xsd";
import ecf41 from "../../../shared/dgii/xsd-strict/e-CF-41.xsd";
import ecf43 from "../../../shared/dgii/xsd-strict/e-CF-43.xsd";
import ecf44 from "../../../shared/dgii/xsd-strict/e-CF-44.xsd";
import ecf45 from "../../../shared/dgii/xsd-strict/e-CF-45.xsd";
import ecf46 from "../../../shared/dgii/xsd-strict/e-CF-46.xsd";
import ecf47 from "../../../shared/dgii/xsd-strict/e-CF-47.xsd";

const SCHEMAS = {
  "e-CF-31": ecf31,
  "e-CF-32": ecf32,
  "e-CF-33": ecf33,
  "e-CF-34": ecf34,
  "e-CF-41": ecf41,
  "e-CF-43": ecf43,
  "e-CF-44": ecf44,
  "e-CF-45": ecf45,
  "e-CF-46": ecf46,
  "e-CF-47": ecf47,
  ACECF: acecf,
  ARECF: arecf,
} as const;

export type SchemaName = keyof typeof SCHEMAS;
export const SCHEMA_NAMES = Object.keys(SCHEMAS) as SchemaName[];

export interface SchemaValidation {
  valid: boolean;
  /** libxml2's messages, each `line N: <message>`, in document order. */
  errors: string[];
}

const DOCUMENT = "document.xml";
const PAGE = 64 * 1024;
// xmllint-wasm's own defaults (16 MiB, growing to 32): a 1,000-line E31 validates well within them.
const INITIAL_MEMORY_PAGES = (16 * 1024 * 1024) / PAGE;
const MAX_MEMORY_PAGES = (32 * 1024 * 1024) / PAGE;

// xmllint's exit codes (xmllint.c, xmllintReturnCode): 1 the document does not parse, 3 it does
// not validate, 4 libxml2 could not read it (an encoding it does not know); 5 and the rest are
// failures of the schema or of the program, not of the document.
const DOCUMENT_REFUSED = new Set([1, 3, 4]);

interface Run {
  exitCode: number;
  stderr: string;
}

function runXmllint(files: { fileName: string; contents: string }[], args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    let stderr = "";
    const module = xmllint({
      inputFiles: files,
      arguments: args,
      print: () => {},
      printErr: (text) => {
        stderr += `${text}\n`;
      },
      onExit: (exitCode) => resolve({ exitCode, stderr }),
      onAbort: (reason) => reject(new Error(`xmllint aborted: ${String(reason)}`)),
      wasmMemory: new WebAssembly.Memory({ initial: INITIAL_MEMORY_PAGES, maximum: MAX_MEMORY_PAGES }),
      instantiateWasm: (imports, done) => {
        const instance = new WebAssembly.Instance(xmllintWasm, imports);
        done(instance, xmllintWasm);
        return instance.exports;
      },
    });
    module.catch(reject);
  });
}

/** `document.xml:12: element Foo: Schemas validity error : …` → `line 12: element Foo: Schemas validity error : …`. */
function documentErrors(stderr: string): string[] {
  const prefix = `${DOCUMENT}:`;
  return stderr
    .split("\n")
    .filter((line) => line.startsWith(prefix))
    .map((line) => {
      const rest = line.slice(prefix.length);
      const colon = rest.indexOf(":");
      return `line ${rest.slice(0, colon)}: ${rest.slice(colon + 1).trim()}`;
    });
}

/**
 * Validates `xml` against DGII's schema `schema`. A document that does not parse, or does not
 * validate, is `valid: false` with libxml2's messages; a failure of the validator itself throws.
 */
export async function validateAgainstSchema(xml: string, schema: SchemaName): Promise<SchemaValidation> {
  const schemaFile = `${schema}.xsd`;
  const run = await runXmllint(
    [
      { fileName: DOCUMENT, contents: xml },
      { fileName: schemaFile, contents: SCHEMAS[schema] },
    ],
    ["--schema", schemaFile, "--noout", "--nonet", DOCUMENT],
  );
  if (run.exitCode === 0) return { valid: true, errors: [] };
  const errors = documentErrors(run.stderr);
  if (!DOCUMENT_REFUSED.has(run.exitCode) || errors.length === 0) {
    throw new Error(`xmllint exited with ${run.exitCode} validating against ${schemaFile}: ${run.stderr.trim()}`);
  }
  return { valid: false, errors };
}
