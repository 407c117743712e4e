/**
 * The import graph of a source folder and its cycles, read with the TypeScript compiler's own parser
 * and module resolution (the tsconfig's), so what counts is what `tsc` and the bundler follow.
 * Every import is an edge: `import type` and inline `type` specifiers, re-exports, `import("…")`
 * (a lazy import still ties the modules' meanings) and `import("…").Type` type references.
 *
 *   npx tsx scripts/import-cycles.ts        # lists the cycles under src/, exit 1 when there is one
 *
 * test/node/import-cycles.test.ts fails when a cycle appears under src/.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));

function compilerOptions(root: string): ts.CompilerOptions {
  const configPath = path.join(root, "tsconfig.json");
  const { config, error } = ts.readConfigFile(configPath, ts.sys.readFile);
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, "\n"));
  return ts.parseJsonConfigFileContent(config, ts.sys, root).options;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

/** The module specifiers a file names, in every form listed at the top of this file. */
export function specifiersOf(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const expression = node.moduleReference.expression;
      if (ts.isStringLiteral(expression)) found.push(expression.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) found.push(argument.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** File → the files under `dir` it imports (paths relative to the repository root). */
export function importGraph(dir = "src", root = ROOT): Map<string, Set<string>> {
  const options = compilerOptions(root);
  const base = path.join(root, dir);
  const files = sourceFiles(base);
  const known = new Set(files);
  const graph = new Map<string, Set<string>>();
  // Most files name the same few modules: resolving each (folder, specifier) once keeps the walk fast.
  const cache = ts.createModuleResolutionCache(root, (name) => name, options);
  const relative = (file: string) => path.relative(root, file).split(path.sep).join("/");
  for (const file of files) {
    const targets = new Set<string>();
    for (const specifier of specifiersOf(file, ts.sys.readFile(file) ?? "")) {
      const resolved = ts.resolveModuleName(specifier, file, options, ts.sys, cache).resolvedModule?.resolvedFileName;
      if (resolved && known.has(path.resolve(resolved))) targets.add(relative(path.resolve(resolved)));
    }
    graph.set(relative(file), targets);
  }
  return graph;
}

/** The strongly connected components with more than one file, or one file importing itself (Tarjan). */
export function tangles(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.has(file)) found.push(component.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) connect(file);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** One shortest cycle through the first file of a component, for a message a reader can follow. */
export function cycleThrough(graph: Map<string, Set<string>>, component: string[]): string[] {
  const start = component[0]!;
  const inside = new Set(component);
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const target of [...(graph.get(file) ?? [])].sort()) {
      if (!inside.has(target)) continue;
      if (target === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(target)) {
        previous.set(target, file);
        queue.push(target);
      }
    }
  }
  return [start];
}

export function describeCycles(graph: Map<string, Set<string>>): string[] {
  return tangles(graph).map((component) => {
    const cycle = cycleThrough(graph, component).join(" → ");
    return component.length > 2 ? `${cycle} (tangled with ${component.length} files: ${component.join(", ")})` : cycle;
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const cycles = describeCycles(importGraph(process.argv[2] ?? "src"));
  for (const line of cycles) console.log(line);
  console.log(cycles.length === 0 ? "no import cycle" : `${cycles.length} import cycle(s)`);
  process.exit(cycles.length === 0 ? 0 : 1);
}
