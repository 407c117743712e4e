/**
 * `npm run soak`: the reliability suites (test/security) at their large sizes — ≥ 10,000 seeded
 * fuzz cases, 1,000 parallel invoices on one NCF sequence, 3,000 random transfers, 20 rounds of
 * connection cuts — then a summary table, saved to bench/results/soak.json. Not part of npm test.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { command, commandLine } from "./lib/args";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RESULTS = path.join(ROOT, "bench/results");
const RECORDS = path.join(RESULTS, ".soak-records.json");

interface Record {
  suite: string;
  cases: number;
  failures: number;
  invariants: number;
  notes?: string;
}

export const COMMAND = command({
  usage: `Usage: npm run soak [-- test/security/<file>…]

The reliability suites (test/security, or the files given) at their large sizes, then a summary
table, saved to bench/results/soak.json. Takes no options; not part of npm test.`,
  options: {},
  positionals: true,
});
const { positionals } = commandLine(COMMAND);

mkdirSync(RESULTS, { recursive: true });
rmSync(RECORDS, { force: true });
const started = new Date();
const run = spawnSync("npx", ["vitest", "run", "--project", "workers", ...(positionals.length ? positionals : ["test/security"])], {
  cwd: ROOT,
  stdio: "inherit",
  env: { ...process.env, SUCURSAL_SOAK: "1", SUCURSAL_SOAK_RECORDS: RECORDS },
});
const finished = new Date();
const records: Record[] = existsSync(RECORDS) ? JSON.parse(readFileSync(RECORDS, "utf8")) : [];
rmSync(RECORDS, { force: true });

const totals = records.reduce((t, r) => ({ cases: t.cases + r.cases, failures: t.failures + r.failures, invariants: t.invariants + r.invariants }), {
  cases: 0,
  failures: 0,
  invariants: 0,
});
const rows = [
  ...records.map((r) => [r.suite, String(r.cases), String(r.failures), String(r.invariants)]),
  ["total", String(totals.cases), String(totals.failures), String(totals.invariants)],
];
const header = ["suite", "cases tried", "failures", "invariants checked"];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
console.log(`\nsoak: ${((finished.getTime() - started.getTime()) / 1000).toFixed(0)} s, vitest exit ${run.status}`);
console.log(line(header));
console.log(widths.map((w) => "-".repeat(w)).join("  "));
for (const row of rows) console.log(line(row));
for (const r of records) if (r.notes) console.log(`  ${r.suite}: ${r.notes}`);

writeFileSync(
  path.join(RESULTS, "soak.json"),
  `${JSON.stringify({ started: started.toISOString(), finished: finished.toISOString(), seconds: Math.round((finished.getTime() - started.getTime()) / 1000), vitestExitCode: run.status, totals, suites: records }, null, 2)}\n`,
);
console.log(`\nwritten to bench/results/soak.json`);
process.exit(run.status ?? 1);
