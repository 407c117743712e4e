import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

/**
 * libxml2's xmllint (xmllint-wasm) run in this process, its WebAssembly compiled once: the same
 * program and messages as xmllint-wasm's own validateXML, which in Node starts a worker thread and
 * compiles the 780 KB module again for every document (0.7-1.6 s a document on a busy 2-CPU
 * machine, against 70-250 ms here). The fake DGII validates every document it receives, so this is
 * most of what a test of sending costs. As src/lib/xsd.ts does in the Worker: the package's
 * browser build (its Emscripten factory, exported by patches/xmllint-wasm+5.3.0.patch) with an
 * `instantiateWasm` hook that instantiates the compiled module.
 */

export interface XmllintFile {
  fileName: string;
  contents: string;
}

export interface XmllintError {
  rawMessage: string;
  message: string;
  loc: { fileName: string; lineNumber: number } | null;
}

type Factory = typeof import("xmllint-wasm/xmllint-browser.mjs")["default"];
let loaded: Promise<{ factory: Factory; wasm: WebAssembly.Module }> | null = null;

function load() {
  loaded ??= (async () => {
    // The browser build registers a Web Worker's message listener when imported; Node has no
    // global one to register with: one is lent for the import, then taken back.
    const scope = globalThis as { addEventListener?: unknown };
    const lent = scope.addEventListener === undefined;
    if (lent) scope.addEventListener = () => {};
    const { default: factory } = await import("xmllint-wasm/xmllint-browser.mjs").finally(() => {
      if (lent) delete scope.addEventListener;
    });
    const wasm = new WebAssembly.Module(readFileSync(createRequire(import.meta.url).resolve("xmllint-wasm/xmllint.wasm")));
    return { factory, wasm };
  })();
  return loaded;
}

/** xmllint-wasm's reading of xmllint's messages (index-node.js, parseErrors), kept as it is so the messages are the same. */
function parseErrors(output: string): XmllintError[] {
  return output
    .split("\n")
    .slice(0, -2)
    .map((line) => {
      const [fileName, lineNumber, ...rest] = line.split(":");
      if (fileName && lineNumber && rest.length) {
        return { rawMessage: line, message: rest.join(":").trim(), loc: { fileName, lineNumber: Number.parseInt(lineNumber, 10) } };
      }
      return { rawMessage: line, message: line, loc: null };
    })
    .filter((error) => error.loc || !error.rawMessage.trim().endsWith(" validates"));
}

/** `xmllint --schema <each schema> --noout <each document>`: valid, or libxml2's errors; a failure of xmllint itself throws. */
export async function validateXml(xml: XmllintFile[], schema: XmllintFile[]): Promise<{ valid: boolean; errors: XmllintError[] }> {
  const { factory, wasm } = await load();
  const args = [...schema.flatMap((s) => ["--schema", s.fileName]), "--noout", ...xml.map((x) => x.fileName)];
  const { exitCode, stderr } = await new Promise<{ exitCode: number; stderr: string }>((resolve, reject) => {
    let output = "";
    factory({
      inputFiles: [...xml, ...schema],
      arguments: args,
      print: () => {},
      printErr: (text) => {
        output += `${text}\n`;
      },
      onExit: (code) => resolve({ exitCode: code, stderr: output }),
      onAbort: (reason) => reject(new Error(`xmllint aborted: ${String(reason)}`)),
      // xmllint-wasm's defaults: 16 MiB, growing to 32.
      wasmMemory: new WebAssembly.Memory({ initial: 256, maximum: 512 }),
      instantiateWasm: (imports, done) => {
        const instance = new WebAssembly.Instance(wasm, imports);
        done(instance, wasm);
        return instance.exports;
      },
    }).catch(reject);
  });
  if (exitCode === 0) return { valid: true, errors: [] };
  // 3 and 4: the document does not validate (xmllint-wasm's validationSucceeded); anything else is xmllint failing.
  if (exitCode !== 3 && exitCode !== 4) throw Object.assign(new Error(stderr), { code: exitCode });
  return { valid: false, errors: parseErrors(stderr) };
}
