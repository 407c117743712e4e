/**
 * Counts the non-null assertions (`x!`) under src/ and fails at 150 or more (issue 45): each one
 * is a claim the type checker cannot verify. `npm run lint` prints the count; a new `!` wants a
 * type that says it (an overload, `oneRow` in db/rows.ts, a destructuring default) before it
 * wants a raise of the limit.
 *
 *   npx tsx scripts/non-null-count.ts          # the count; exit 1 at LIMIT or more
 *   npx tsx scripts/non-null-count.ts --list   # and where each one is
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { command, commandLine } from "./lib/args";

const LIMIT = 150;

export const COMMAND = command({
  usage: `Usage: npx tsx scripts/non-null-count.ts [--list]

Counts the non-null assertions (x!) under src/ and exits 1 at ${LIMIT} or more (npm run lint runs it);
--list prints where each one is.`,
  options: { list: { type: "boolean" } },
});
const { values } = commandLine(COMMAND);

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return files(full);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

const found: string[] = [];
for (const file of files("src")) {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node) => {
    if (ts.isNonNullExpression(node))
      found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}  ${node.getText(source).slice(0, 80)}`);
    ts.forEachChild(node, visit);
  };
  visit(source);
}
if (values.list) for (const line of found) console.log(line);
console.log(`${found.length} non-null assertions (!) in src/ (limit: under ${LIMIT})`);
if (found.length >= LIMIT) process.exit(1);
