import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { describeCycles, importGraph } from "../../scripts/import-cycles";

describe("import cycles", () => {
  it("has none under src/ (npx tsx scripts/import-cycles.ts lists them)", () => {
    const graph = importGraph("src");
    // The graph is read, not empty: the Worker's entry reaches its app and its queue registry.
    expect(graph.get("src/index.ts")).toContain("src/jobs/queue.ts");
    expect(graph.size).toBeGreaterThan(150);
    expect(describeCycles(graph)).toEqual([]);
    // Parsing every file of src/ takes seconds, more on a machine busy with other suites: a timeout, never a speed target.
  }, 120_000);

  describe("the checker", () => {
    const root = mkdtempSync(path.join(tmpdir(), "import-cycles-"));
    afterAll(() => rmSync(root, { recursive: true, force: true }));
    const write = (file: string, text: string) => {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), text);
    };
    write("tsconfig.json", JSON.stringify({ compilerOptions: { module: "ES2022", moduleResolution: "Bundler", strict: true } }));
    // A loop through a type-only import, a lazy import() and a re-export, and a file that imports itself.
    write("src/a.ts", 'import type { B } from "./b";\nexport type A = B;\n');
    write("src/b.ts", 'export type B = number;\nexport const load = () => import("./nested/c");\n');
    write("src/nested/c.ts", 'export * from "../a";\n');
    write("src/self.ts", 'import { value } from "./self";\nexport const other = value;\nexport const value = 1;\n');
    // d imports e; e's type reference `import("./d").D` closes the loop.
    write("src/d.ts", 'import { e } from "./e";\nexport type D = typeof e;\n');
    write("src/e.ts", 'export const e = 1;\nexport type Back = import("./d").D;\n');
    // Packages and specifiers that resolve to no file of the folder are no edges.
    write("src/leaf.ts", 'import { readFileSync } from "node:fs";\nimport { a } from "./missing";\nexport const leaf = [readFileSync, a];\n');

    it("finds cycles through type-only imports, import(), re-exports, import types and self-imports, and names each once", () => {
      expect(describeCycles(importGraph("src", root))).toEqual([
        "src/a.ts → src/b.ts → src/nested/c.ts → src/a.ts (tangled with 3 files: src/a.ts, src/b.ts, src/nested/c.ts)",
        "src/d.ts → src/e.ts → src/d.ts",
        "src/self.ts → src/self.ts",
      ]);
    });

    it("leaves out packages and what does not resolve to a file of the folder", () => {
      expect(importGraph("src", root).get("src/leaf.ts")).toEqual(new Set());
    });
  });
});
