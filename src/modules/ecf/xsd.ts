/**
 * Validation of an XML document against one of DGII's document formats, inside the Worker: libxml2's
 * xmllint compiled to WebAssembly (xmllint-wasm), run as its command line
 * `xmllint --schema <schema> --noout document.xml` on an in-memory file system.
 *
 * workerd refuses to compile WebAssembly from bytes at run time ("Wasm code generation disallowed
 * by embedder"), so xmllint.wasm is imported as a module (wrangler's CompiledWasm rule: compiled
 * once, when the Worker loads) and each run instantiates it through Emscripten's instantiateWasm
 * hook; the factory comes from the package's browser build, patched to export it
 * (patches/xmllint-wasm+5.3.0.patch). A run is a program: it parses the schema, validates, exits;
 * xmllint keeps nothing between runs, so the schema is parsed again each time (see docs/ecf.md,
 * "Validation against DGII's formats", for the cost).
 *
 * The schemas are the project's own definitions of DGII's formats (src/modules/ecf/formats/),
 * generated as XSD text once per schema; test/node/formats-conformance.test.ts holds them against
 * DGII's published XSDs.
 */

import xmllintWasm from "xmllint-wasm/xmllint.wasm";
import xmllint from "xmllint-wasm/xmllint-browser.mjs";
import { type SchemaName, schemaText } from "./formats";

export { SCHEMA_NAMES, type SchemaName } from "./formats";

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
 * Validates `xml` against our definition of DGII's format `schema`. A document that does not parse, or does not
 * validate, is `valid: false` with libxml2's messages; a failure of the validator itself throws.
 */
export async function validateAgainstSchema(xml: string, schema: SchemaName): Promise<SchemaValidation> {
  const schemaFile = `${schema}.xsd`;
  const run = await runXmllint(
    [
      { fileName: DOCUMENT, contents: xml },
      { fileName: schemaFile, contents: schemaText(schema) },
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
