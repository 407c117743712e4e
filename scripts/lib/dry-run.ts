/**
 * `wrangler deploy --dry-run --outdir`: the Worker built as a deploy would upload it, nothing sent.
 * Used by the test that builds a copy of the repository without ../shared (test/node/clone-build.test.ts)
 * and by the upload-size bench (bench/upload-size.ts).
 */

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { runCommand } from "./run";

/**
 * The repository's tracked files (`git ls-files`) copied into `dest`, with node_modules linked: what
 * a user's clone after `npm install` holds, without anything beside the checkout.
 */
export function copyTrackedFiles(root: string, dest: string): number {
  const files = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
    .split("\0")
    .filter(Boolean);
  let copied = 0;
  for (const file of files) {
    const from = path.join(root, file);
    // A tracked file deleted in the working tree is not part of what is being tested.
    if (!fs.existsSync(from)) continue;
    fs.mkdirSync(path.dirname(path.join(dest, file)), { recursive: true });
    fs.copyFileSync(from, path.join(dest, file));
    copied++;
  }
  fs.symlinkSync(path.join(root, "node_modules"), path.join(dest, "node_modules"), "dir");
  return copied;
}

export interface DryRun {
  code: number;
  output: string;
}

/** Runs the project's wrangler in `cwd`; its config and logs go under `outdir`'s parent, never the user's home. */
export async function dryRunBuild(cwd: string, outdir: string): Promise<DryRun> {
  const env = {
    ...process.env,
    WRANGLER_SEND_METRICS: "false",
    WRANGLER_HIDE_BANNER: "true",
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    XDG_CONFIG_HOME: path.join(path.dirname(outdir), ".wrangler-config"),
    WRANGLER_LOG_PATH: path.join(path.dirname(outdir), ".wrangler-logs"),
  };
  const result = await runCommand(path.join(cwd, "node_modules", ".bin", "wrangler"), ["deploy", "--dry-run", "--outdir", outdir], { cwd, env });
  return { code: result.code, output: result.stdout + result.stderr };
}

export interface UploadSize {
  /** What wrangler uploads as the Worker: the bundle and its modules (wasm, text), in bytes. */
  bytes: number;
  /** Those, gzip-compressed together, as wrangler measures them against the size limit. */
  gzipBytes: number;
  /** The source maps (not uploaded unless `upload_source_maps`, and never counted toward the Worker's size). */
  sourceMapBytes: number;
  sourceMapGzipBytes: number;
  modules: { name: string; bytes: number }[];
}

/**
 * The size of a dry run's output as wrangler reports it ("Total Upload: … / gzip: …", its
 * bundle-reporter: the modules' contents concatenated, then gzipped). README.md is wrangler's note
 * about the folder, not uploaded.
 */
export function uploadSize(outdir: string): UploadSize {
  const names = fs.readdirSync(outdir).filter((name) => name !== "README.md" && fs.statSync(path.join(outdir, name)).isFile());
  const modules = names.filter((name) => !name.endsWith(".map")).map((name) => ({ name, content: fs.readFileSync(path.join(outdir, name)) }));
  const maps = names.filter((name) => name.endsWith(".map")).map((name) => fs.readFileSync(path.join(outdir, name)));
  const all = Buffer.concat(modules.map((module) => module.content));
  const allMaps = Buffer.concat(maps);
  return {
    bytes: all.length,
    gzipBytes: zlib.gzipSync(all).length,
    sourceMapBytes: allMaps.length,
    sourceMapGzipBytes: allMaps.length ? zlib.gzipSync(allMaps).length : 0,
    modules: modules.map((module) => ({ name: module.name.replace(/^[0-9a-f]{40}-/, ""), bytes: module.content.length })).sort((a, b) => b.bytes - a.bytes),
  };
}

/** wrangler's own figure, from its output ("Total Upload: 8513.27 KiB / gzip: 1868.80 KiB"), in KiB. */
export function reportedUpload(output: string): { kib: number; gzipKib: number } | null {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: wrangler colours the figure (ANSI escapes).
  const match = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(output.replace(/\x1b\[[0-9;]*m/g, ""));
  return match ? { kib: Number(match[1]), gzipKib: Number(match[2]) } : null;
}
