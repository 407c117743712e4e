// Types of the two modules src/modules/ecf/xsd.ts imports from xmllint-wasm that the package does not type.

// wrangler's default CompiledWasm rule: a .wasm import is the module, compiled when the Worker loads.
declare module "*.wasm" {
  const module: WebAssembly.Module;
  export default module;
}

// The Emscripten factory of xmllint-wasm's browser build, exported by patches/xmllint-wasm+5.3.0.patch.
declare module "xmllint-wasm/xmllint-browser.mjs" {
  interface XmllintModuleArg {
    inputFiles: { fileName: string; contents: string | Uint8Array }[];
    arguments: string[];
    print: (text: string) => void;
    printErr: (text: string) => void;
    onExit: (exitCode: number) => void;
    onAbort: (reason: unknown) => void;
    wasmMemory: WebAssembly.Memory;
    instantiateWasm: (imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) => WebAssembly.Exports;
  }
  const xmllint: (moduleArg: XmllintModuleArg) => Promise<unknown>;
  export default xmllint;
}
