import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type Command, parseCommandLine } from "../../scripts/lib/args";
import { runCommand } from "../../scripts/lib/run";

/**
 * Every script under scripts/ answers `--help` with its usage (exit 0) and an option it does not
 * know with one line on stderr (exit 2), before doing anything (issue 44: `npm run deploy -- --help`
 * crashed with a stack trace). Each one, run as a user runs it, where that is quick; those that load
 * the whole app to start (a few seconds each here) are held to the same through their exported
 * command line and the line that reads it first, so the suite stays within its time.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const scripts = fs
  .readdirSync(path.join(ROOT, "scripts"))
  .filter((name) => /\.(ts|sh)$/.test(name))
  .sort();
/** Run as a user runs them: no import of the app before the command line is read. */
const SPAWNED = [
  "deploy.ts",
  "ensure-chromium.sh",
  "fake-dgii.ts",
  "fake-providers.ts",
  "non-null-count.ts",
  "rnc-file-server.ts",
  "rnc-status.ts",
  "rnc-sync.ts",
  "soak.ts",
  "tenant-create.ts",
];
/** Imported: each loads the app (routes, schemas) or a renderer before its first line runs. */
const IMPORTED: Record<string, () => Promise<{ COMMAND: Command }>> = {
  "client-generate.ts": () => import("../../scripts/client-generate"),
  "dev.ts": () => import("../../scripts/dev"),
  "docs-pictures.ts": () => import("../../scripts/docs-pictures"),
  "routes-table.ts": () => import("../../scripts/routes-table"),
};

/** `sh` for a shell script; node with tsx's loader for TypeScript (what `tsx` runs, without its extra process). */
function run(script: string, args: string[]) {
  const file = path.join("scripts", script);
  const [command, first] = script.endsWith(".sh") ? ["sh", [file]] : [process.execPath, ["--import", "tsx", file]];
  return runCommand(command as string, [...(first as string[]), ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" } });
}

describe("every script's command line (issue 44)", () => {
  it("is covered here: each script is run or imported", () => {
    expect([...SPAWNED, ...Object.keys(IMPORTED)].sort()).toEqual(scripts);
  });

  // Concurrently: each is a process mostly waiting for its start.
  it.concurrent.each(SPAWNED)("%s: --help prints its usage and exits 0; --bogus says so in one line and exits 2", async (script) => {
    const [help, bogus] = await Promise.all([run(script, ["--help"]), run(script, ["--bogus"])]);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: /);
    expect(help.stdout.trim().split("\n").length).toBeGreaterThan(2);
    expect(help.stderr).toBe("");
    expect(bogus.code).toBe(2);
    expect(bogus.stdout).toBe("");
    expect(bogus.stderr.trim().split("\n")).toHaveLength(1);
    expect(bogus.stderr).toContain("--bogus");
    expect(bogus.stderr).toContain("--help for the usage");
  });

  it.each(Object.keys(IMPORTED))("%s: the same, from its command line, read before anything else runs", async (script) => {
    const module = await IMPORTED[script]!();
    expect(module.COMMAND.usage).toMatch(/^Usage: /);
    expect(parseCommandLine(module.COMMAND, ["--help"])).toEqual({ help: true });
    const bogus = parseCommandLine(module.COMMAND, ["--bogus"]);
    expect(bogus).toEqual({ error: "Unknown option '--bogus'" });
    // Its entry reads the command line (commandLine exits 0 on --help, 2 on an error) as its first step.
    const source = fs.readFileSync(path.join(ROOT, "scripts", script), "utf8");
    expect(source).toMatch(
      /(if \(isMain\(import\.meta\.url\)\) \{\n {2}(const \{ values \} = )?commandLine\(COMMAND\);|async function main\(\): Promise<number> \{\n {2}commandLine\(COMMAND\);)/,
    );
  });
});
