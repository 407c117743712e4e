import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/database";
import { copyTrackedFiles, dryRunBuild, reportedUpload } from "../../scripts/lib/dry-run";
import { runCommand } from "../../scripts/lib/run";

/**
 * A user's clone has the repository and nothing beside it (issue 31): the repository's tracked files
 * are copied into a temporary folder with no `../shared` next to it (node_modules linked, as after
 * `npm install`), and `wrangler deploy --dry-run` must build the Worker there.
 */
const base = fs.mkdtempSync(path.join(os.tmpdir(), "sucursal-clone-"));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const clone = path.join(base, "sucursal");

describe("a clone without ../shared", () => {
  it("builds with wrangler deploy --dry-run", async () => {
    const copied = copyTrackedFiles(ROOT, clone);
    expect(copied).toBeGreaterThan(100);
    expect(fs.existsSync(path.join(base, "shared"))).toBe(false);
    const outdir = path.join(base, "out");
    const build = await dryRunBuild(clone, outdir);
    expect(build.code, build.output).toBe(0);
    expect(build.output).toContain("--dry-run: exiting now.");
    expect(reportedUpload(build.output)?.gzipKib).toBeGreaterThan(0);
    expect(fs.statSync(path.join(outdir, "index.js")).size).toBeGreaterThan(0);
  }, 180_000);

  it("says why a test needing ../shared is skipped, in vitest's default output (issue 44)", async () => {
    if (!fs.existsSync(clone)) copyTrackedFiles(ROOT, clone);
    const run = await runCommand(
      path.join(clone, "node_modules", ".bin", "vitest"),
      ["run", "--project", "node", "test/node/ecf-xsd.test.ts", "test/node/formats-conformance.test.ts"],
      { cwd: clone, env: { ...process.env, CI: "", NO_COLOR: "1" } },
    );
    const output = run.stdout + run.stderr;
    expect(run.code, output).toBe(0);
    expect(output).toContain(
      `ecf-xsd.test.ts: skipped "every schema of xsd-strict compiles in libxml2": ${path.join(base, "shared/dgii/xsd-strict")} is absent`,
    );
    expect(output).toContain("formats-conformance.test.ts: skipped the conformance of our formats to DGII's XSDs:");
  }, 180_000);
});
