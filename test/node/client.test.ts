import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_SCHEMA_PATH, renderClientSchema } from "../../scripts/client-generate";

const ROOT = path.resolve(import.meta.dirname, "../..");
const CLIENT = path.join(ROOT, "clients/typescript");

/** The README's example: its one ```ts block. */
function readmeExample(): string {
  const blocks = [...readFileSync(path.join(CLIENT, "README.md"), "utf8").matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
  expect(blocks).toHaveLength(1);
  return blocks[0]!;
}

// The client, its freshly generated types and the example in a directory under node_modules, so
// `openapi-fetch` and @types/node resolve from the repository's node_modules.
let dir: string;
let freshSchema: string;

beforeAll(async () => {
  freshSchema = await renderClientSchema();
  mkdirSync(path.join(ROOT, "node_modules/.cache"), { recursive: true });
  dir = mkdtempSync(path.join(ROOT, "node_modules/.cache/client-check-"));
  mkdirSync(path.join(dir, "src"));
  writeFileSync(path.join(dir, "src/schema.d.ts"), freshSchema);
  copyFileSync(path.join(CLIENT, "src/index.ts"), path.join(dir, "src/index.ts"));
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The TypeScript compiler's errors for `code` as a module using the client, against the fresh types. */
function typeErrors(code: string): string[] {
  const file = path.join(dir, `example-${Math.random().toString(36).slice(2)}.ts`);
  writeFileSync(file, code);
  const program = ts.createProgram([file], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    types: ["node"],
    typeRoots: [path.join(ROOT, "node_modules/@types")],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    baseUrl: dir,
    paths: { "@sucursal/client": ["./src/index.ts"] },
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file ? path.basename(d.file.fileName) : ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
}

// A whole program type-check takes ~10 s on a quiet machine; more on a busy one.
describe("typed client (clients/typescript)", { timeout: 120_000 }, () => {
  it("commits the types npm run client:generate writes from the current app's document", () => {
    expect(readFileSync(CLIENT_SCHEMA_PATH, "utf8") === freshSchema, "clients/typescript/src/schema.d.ts is out of date: run npm run client:generate").toBe(
      true,
    );
  });

  it("type-checks the README's example against freshly generated types", () => {
    expect(typeErrors(readmeExample())).toEqual([]);
  });

  // A JSON number for money is accepted by the API (src/lib/decimal.ts), so by the client's types too;
  // a boolean is not.
  it("rejects what the API would refuse: an unknown filter value and a boolean for money", () => {
    const wrong = readmeExample()
      .replace('"filter[status]": "pending_payment"', '"filter[status]": "unpaid"')
      .replace('unit_price: "1500.00"', "unit_price: true");
    const errors = typeErrors(wrong);
    expect(errors).toHaveLength(2);
    expect(errors.some((e) => e.includes('"unpaid"'))).toBe(true);
    expect(errors.some((e) => e.includes("boolean") && e.includes("string | number"))).toBe(true);
  });
});
