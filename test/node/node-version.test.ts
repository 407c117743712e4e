import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The Node versions README promises are those every installed package runs on (issue 44: unpdf
 * 1.8.1 wanted Node ≥ 22 while README said 20): package.json's engines is the promise, README says
 * it in words, and each package of the lock file that declares engines.node admits all of it.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
// semver ships with npm's tree (vite, wrangler); its API, untyped here.
const semver = createRequire(import.meta.url)("semver") as { subset(sub: string, dom: string): boolean; validRange(range: string): string | null };

describe("the Node versions README states (issue 44)", () => {
  const promised = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { engines: { node: string } }).engines.node;

  it("are package.json's engines, in README's words", () => {
    expect(promised).toBe("^20.19.0 || ^22.12.0 || >=24.0.0");
    expect(fs.readFileSync(path.join(ROOT, "README.md"), "utf8")).toContain("Node 20.19 or a later 20, Node 22.12 or a later 22, or Node 24 or newer");
  });

  it("are admitted by every installed package that declares the Node it needs", () => {
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, { optional?: boolean }> };
    const refusing: string[] = [];
    let declared = 0;
    for (const [where, entry] of Object.entries(lock.packages)) {
      if (!where || entry.optional) continue;
      const manifest = path.join(ROOT, where, "package.json");
      if (!fs.existsSync(manifest)) continue;
      const needs = (JSON.parse(fs.readFileSync(manifest, "utf8")) as { engines?: { node?: string } }).engines?.node;
      if (!needs || !semver.validRange(needs)) continue;
      declared++;
      if (!semver.subset(promised, needs)) refusing.push(`${where.replace(/^node_modules\//, "")} wants node ${needs}`);
    }
    expect(declared).toBeGreaterThan(20);
    expect(refusing).toEqual([]);
  });
});
