import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/database";
import { copyTrackedFiles, dryRunBuild, reportedUpload } from "../../scripts/lib/dry-run";

/**
 * A user's clone has the repository and nothing beside it (issue 31): the repository's tracked files
 * are copied into a temporary folder with no `../shared` next to it (node_modules linked, as after
 * `npm install`), and `wrangler deploy --dry-run` must build the Worker there.
 */
const base = fs.mkdtempSync(path.join(os.tmpdir(), "sucursal-clone-"));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe("a clone without ../shared", () => {
  it("builds with wrangler deploy --dry-run", async () => {
    const clone = path.join(base, "sucursal");
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
});
