/**
 * What importing DGII's test set costs the Worker (issue 32): CPU and memory of readTestSet
 * (src/modules/certification/test-set-reader.ts: read-excel-file's universal build unpacks the
 * .xlsx with fflate and parses its XML with saxen, then the rows become cases) for two workbooks:
 * - 30 rows x 300 columns, every cell a value;
 * - DGII's shape: its e-CF workbook is 26 rows x 5,215 columns (463 KB zipped, a 5.7 MB sheet),
 *   ~2,000 values and the rest `#e`; here the 25 cases of the tests' fixture padded with `#e`
 *   columns to 5,215, plus its 4 RFCE cases.
 * Budgets: 1,000 ms of CPU and 64 MiB of memory (half a Worker's 128 MB) for DGII's shape.
 * Measured in this Node process (process.cpuUsage; heap and array buffers after a forced GC with
 * the result held), the V8 workerd runs. `npm run bench:testset` alone, and part of `npm run bench` (bench/results/latest.json, testSet).
 */
import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { ROOT } from "../scripts/lib/database";
import { readTestSet } from "../src/modules/certification/test-set-reader";
import { ecfCase, ecfCases, type Row, rfceCases, workbook } from "../test/support/test-sets";

export interface TestSetBenchResult {
  shape: string;
  rows: number;
  columns: number;
  zippedBytes: number;
  cases: number;
  worstCpuMs: number;
  coldCpuMs: number;
  /** Heap and array buffers held after the read, the result alive, over the baseline; null without a forced GC. */
  retainedMiB: number | null;
  /** The largest heap + array buffers seen right after a read (before collection); null without a forced GC. */
  peakMiB: number | null;
  budgetCpuMs: number | null;
  budgetMiB: number | null;
  withinBudget: boolean;
}

const RUNS = 5;
const DGII_COLUMNS = 5215;
const CPU_BUDGET_MS = 1000;
const MEMORY_BUDGET_MIB = 64;

// A forced collection between runs, without --expose-gc on the command line (npm run bench runs under tsx).
v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as (() => void) | undefined;
const MIB = 1024 * 1024;

function memory(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** 30 cases of 40 lines: 20 columns of the document and 7 per line, about 300, every cell a value. */
function dense(): Row[] {
  return Array.from({ length: 30 }, (_, i) =>
    ecfCase(
      "31",
      i + 1,
      Array.from({ length: 40 }, (_, n) => ({ name: `ARTICULO ${n + 1}`, quantity: n + 1, price: 1000 + n })),
    ),
  );
}

/** The fixture's 25 cases, padded with `#e` line columns (lines 3 to 62, as DGII's sheet has them) up to 5,215 columns. */
function dgiiShaped(): Row[] {
  const cases = ecfCases();
  const headers = new Set(cases.flatMap((row) => row.map(([h]) => h)));
  const padding: string[] = [];
  const fields = ["NumeroLinea", "IndicadorFacturacion", "NombreItem", "IndicadorBienoServicio", "DescripcionItem", "CantidadItem", "UnidadMedida"];
  const tables = ["TipoCodigo", "CodigoItem", "TipoSubDescuento", "SubDescuentoPorcentaje", "MontoSubDescuento", "TipoSubRecargo", "SubRecargoPorcentaje"];
  const pad = (header: string) => {
    if (!headers.has(header)) padding.push(header);
  };
  for (let n = 3; headers.size + padding.length < DGII_COLUMNS; n++) {
    for (const f of fields) pad(`${f}[${n}]`);
    for (const t of tables) for (let m = 1; m <= 5; m++) pad(`${t}[${n}][${m}]`);
  }
  const extra = padding.slice(0, DGII_COLUMNS - headers.size);
  return cases.map((row) => [...row, ...extra.map((h): [string, string] => [h, "#e"])]);
}

async function measure(shape: string, sheets: Record<string, Row[]>, budget: boolean): Promise<TestSetBenchResult> {
  const bytes = await workbook(sheets);
  const ecf = sheets.ECF!;
  const columns = new Set(ecf.flatMap((row) => row.map(([h]) => h))).size;
  const cpu = async () => {
    const start = process.cpuUsage();
    const read = await readTestSet(bytes.slice(0));
    const used = process.cpuUsage(start);
    return { ms: (used.user + used.system) / 1000, read };
  };
  const cold = await cpu();
  if (cold.read.problems.length) throw new Error(`${shape}: ${JSON.stringify(cold.read.problems.slice(0, 3))}`);
  let worst = 0;
  let peak = 0;
  let retained = 0;
  for (let i = 0; i < RUNS; i++) {
    gc?.();
    const base = memory();
    const run = await cpu();
    peak = Math.max(peak, memory() - base);
    gc?.();
    retained = Math.max(retained, memory() - base);
    worst = Math.max(worst, run.ms);
    if (run.read.cases.length !== cold.read.cases.length) throw new Error("runs differ");
  }
  const round = (n: number) => Math.round(n * 10) / 10;
  const retainedMiB = gc ? round(retained / MIB) : null;
  const peakMiB = gc ? round(peak / MIB) : null;
  return {
    shape,
    rows: ecf.length + 1,
    columns,
    zippedBytes: bytes.byteLength,
    cases: cold.read.cases.length,
    worstCpuMs: round(worst),
    coldCpuMs: round(cold.ms),
    retainedMiB,
    peakMiB,
    budgetCpuMs: budget ? CPU_BUDGET_MS : null,
    budgetMiB: budget ? MEMORY_BUDGET_MIB : null,
    withinBudget: !budget || (worst <= CPU_BUDGET_MS && (peakMiB === null || peakMiB <= MEMORY_BUDGET_MIB)),
  };
}

export async function measureTestSet(): Promise<TestSetBenchResult[]> {
  return [
    await measure("30 rows x 300 columns, every cell a value", { ECF: dense() }, false),
    await measure("DGII's shape: 26 rows x 5,215 columns, mostly #e, and sheet RFCE", { ECF: dgiiShaped(), RFCE: rfceCases() }, true),
  ];
}

export function describeTestSet(results: TestSetBenchResult[]): string[] {
  return results.map(
    (r) =>
      `test set import, ${r.shape} (${r.rows} x ${r.columns}, ${(r.zippedBytes / 1024).toFixed(0)} KiB zipped, ${r.cases} cases): worst ${r.worstCpuMs} ms CPU of ${RUNS} warm runs, the first ${r.coldCpuMs} ms${r.peakMiB === null ? "" : `; ${r.peakMiB} MiB allocated by a read, ${r.retainedMiB} MiB held by its result`}${r.budgetCpuMs === null ? "" : ` (budget ${r.budgetCpuMs} ms, ${r.budgetMiB} MiB) ${r.withinBudget ? "✅" : "❌"}`}`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(ROOT, "bench/testset.ts")) {
  const results = await measureTestSet();
  for (const line of describeTestSet(results)) console.log(line);
  if (results.some((r) => !r.withinBudget)) process.exitCode = 1;
}
