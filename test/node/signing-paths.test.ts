import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Issue 30, "Never sign what another party hands us": what is signed with a tenant's certificate is
 * built by us (a `built(…)` of src/modules/ecf/signature.ts) or a checked seed, and every place that
 * signs is listed in docs/security.md. A new call of `signXml` or `built` in a file the table does not
 * name fails here, until the table (and a review of what that file signs) says why.
 */
const ROOT = path.resolve(__dirname, "../..");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

/** The files of src/ that call `name(` (its definition in signature.ts aside). */
function callers(name: string): string[] {
  const call = new RegExp(`(?<![\\w.])${name}\\(`);
  return sources(path.join(ROOT, "src"))
    .filter((file) => {
      const text = readFileSync(file, "utf8")
        .replace(/\/\*[\s\S]*?\*\//g, "")
        .replace(/\/\/.*$/gm, "");
      return text.split("\n").some((line) => call.test(line) && !/^\s*export (const|function) /.test(line));
    })
    .map((file) => path.relative(ROOT, file))
    .sort();
}

/** The table of docs/security.md, "e-CF exchanges with other taxpayers": its rows' "Built by" and "Signed in" files. */
function documentedPaths(): { builders: string[]; signers: string[] } {
  const text = readFileSync(path.join(ROOT, "docs/security.md"), "utf8");
  const section = text.slice(text.indexOf("| What is signed | Built by | Signed in |"));
  const rows = section.split("\n").slice(2);
  const builders = new Set<string>();
  const signers = new Set<string>();
  for (const row of rows) {
    if (!row.startsWith("|")) break;
    const [, , builtBy, signedIn] = row.split("|");
    for (const file of builtBy!.match(/src\/[\w/.-]+\.ts/g) ?? []) builders.add(file);
    for (const file of signedIn!.match(/src\/[\w/.-]+\.ts/g) ?? []) signers.add(file);
  }
  return { builders: [...builders].sort(), signers: [...signers].sort() };
}

describe("the signing paths (docs/security.md)", () => {
  it("signXml is called only where the table says a document is signed", () => {
    const { signers } = documentedPaths();
    expect(signers).toEqual([
      "src/jobs/certification-runs.ts",
      "src/modules/certification/receiver-check.ts",
      "src/modules/ecf/annulments.ts",
      "src/modules/ecf/dgii.ts",
      "src/modules/ecf/issue.ts",
      "src/modules/reception/service.ts",
    ]);
    expect(callers("signXml")).toEqual(signers);
  });

  it("only the builders of our documents and the seed check mark XML as signable", () => {
    const { builders } = documentedPaths();
    expect(builders).toEqual([
      "src/modules/certification/case-xml.ts",
      "src/modules/ecf/anecf.ts",
      "src/modules/ecf/receipts.ts",
      "src/modules/ecf/rfce.ts",
      "src/modules/ecf/seed.ts",
      "src/modules/ecf/xml.ts",
    ]);
    expect(callers("built")).toEqual(builders);
  });

  it("a string cannot be signed without being marked: SignableXml is not a plain string", () => {
    const signature = readFileSync(path.join(ROOT, "src/modules/ecf/signature.ts"), "utf8");
    expect(signature).toMatch(/export type SignableXml = string & \{ readonly signable: unique symbol \};/);
    expect(signature).toMatch(/export function signXml\(xml: SignableXml,/);
  });
});
