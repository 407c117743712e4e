/**
 * What importing DGII's test set costs the Worker (issue 32): CPU and memory of readTestSet
 * (src/modules/certification/test-set-reader.ts: xlsx.ts unpacks the .xlsx with fflate's inflater
 * and reads its XML with saxes in one pass, then the rows become cases) for two workbooks:
 * - 30 rows x 300 columns, every cell a value;
 * - DGII's shape: its e-CF workbook is 26 rows x 5,215 columns (463 KB zipped, a 5.7 MB sheet),
 *   ~2,000 values and the rest `#e`; here the 25 cases of the tests' fixture padded with `#e`
 *   columns to 5,215, plus its 4 RFCE cases.
 * Budgets: 1,000 ms of CPU and 64 MiB of memory (half a Worker's 128 MB) for DGII's shape.
 * Measured in this Node process (process.cpuUsage; heap and array buffers after a forced GC with
 * the result held), the V8 workerd runs. `npm run bench:testset` alone, and part of `npm run bench` (bench/results/latest.json, testSet).
 *
 * Hostile uploads (issue 41): workbooks of at most 1 MiB (the API's body cap) crafted to cost the
 * reader the most within its bounds (src/modules/certification/xlsx.ts: 16 MiB unpacked, text runs,
 * attributes, nesting and cells of fixed size, 300,000 values): a run of whitespace after
 * </sheetData> (the 6 KB file that stalled an isolate for minutes), every cell a value, shared
 * strings, entities, long tags, comments, and the most elements saxes can be handed (empty cells in
 * every column of every row, unknown elements). Budget: the worst under 1,000 ms of CPU. Written to bench/results/testset.json
 * alone, and to latest.json (testSetHostile) in `npm run bench`.
 */
import fs from "node:fs";
import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { strToU8, zipSync } from "fflate";
import { ROOT } from "../scripts/lib/database";
import { readTestSet } from "../src/modules/certification/test-set-reader";
import { MAX_UNPACKED_BYTES } from "../src/modules/certification/xlsx";
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

export interface HostileTestSetResult {
  file: string;
  zippedBytes: number;
  worstCpuMs: number;
  /** What the import answered: the refusal's code and the start of its message, or the cases and problems read. */
  outcome: string;
}

export interface HostileTestSetResults {
  files: HostileTestSetResult[];
  worstCpuMs: number;
  budgetCpuMs: number;
  withinBudget: boolean;
}

const NS = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`;
/** What the parts may unpack to, less room for the workbook's own parts. */
const ROOM = MAX_UNPACKED_BYTES - 4096;
const fill = (unit: string, budget = ROOM) => unit.repeat(Math.floor(budget / unit.length));
const worksheet = (data: string, after = "") => `<worksheet ${NS}><sheetData>${data}</sheetData>${after}</worksheet>`;
function rowsOf(rows: number, cellsPerRow: number, cell: string): string {
  let xml = "";
  for (let r = 1; r <= rows; r++) xml += `<row r="${r}">${cell.repeat(Math.min(cellsPerRow, 16_384))}</row>`;
  return xml;
}

/** An .xlsx of sheet ECF (and shared strings when given), at most 1 MiB zipped. */
function crafted(sheet: string, sharedStrings?: string): Uint8Array {
  const parts: Record<string, Uint8Array> = {
    "xl/workbook.xml": strToU8(`<workbook ${NS}><sheets><sheet name="ECF" sheetId="1" r:id="rId1"/></sheets></workbook>`),
    "xl/_rels/workbook.xml.rels": strToU8(
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
    ),
    "xl/worksheets/sheet1.xml": strToU8(sheet),
  };
  if (sharedStrings) parts["xl/sharedStrings.xml"] = strToU8(sharedStrings);
  const zip = zipSync(parts, { level: 9 });
  if (zip.length > 1024 * 1024) throw new Error(`crafted file of ${zip.length} bytes, over the API's 1 MiB`);
  return zip;
}

function hostileFiles(): [string, Uint8Array][] {
  return [
    ["whitespace after </sheetData>, up to the unpacked limit", crafted(worksheet("", fill(" ")))],
    ["every cell a number, 501 rows up to the unpacked limit", crafted(worksheet(rowsOf(501, ROOM / 501 / 15, "<c><v>1</v></c>")))],
    [
      "every cell a shared string, half the limit strings",
      crafted(worksheet(rowsOf(501, ROOM / 2 / 501 / 22, `<c t="s"><v>0</v></c>`)), `<sst ${NS}>${fill("<si><t>x</t></si>", ROOM / 2)}</sst>`),
    ],
    ["cells of 6,000 entities (&amp;), up to the limit", crafted(worksheet(`<row r="1">${fill(`<c t="str"><v>${"&amp;".repeat(6000)}</v></c>`)}</row>`))],
    ["tags of 10,000 attributes, up to the limit", crafted(worksheet(`<row r="1">${fill(`<c ${"a='1' ".repeat(10_000)}/>`)}</row>`))],
    ["empty comments, up to the limit", crafted(worksheet(fill("<!---->")))],
    ["empty cells, up to the limit", crafted(worksheet(`<row r="1">${fill("<c/>")}</row>`))],
    ["rows of 16,384 empty cells (A to XFD), up to the limit", crafted(worksheet(rowsOf(Math.floor(ROOM / (16_384 * 4)), 16_384, "<c/>")))],
    [
      "rows of 16,384 cells of two unknown attributes, up to the limit",
      crafted(worksheet(rowsOf(Math.floor(ROOM / (16_384 * 17)), 16_384, `<c a0="" a1=""/>`))),
    ],
    ["unknown elements after </sheetData>, up to the limit", crafted(worksheet("", fill("<x/>")))],
    ["elements nested without end, up to the limit", crafted(worksheet(`<row r="1">${fill("<c>")}`))],
  ];
}

export async function measureHostileTestSets(): Promise<HostileTestSetResults> {
  const files: HostileTestSetResult[] = [];
  for (const [file, bytes] of hostileFiles()) {
    let worst = 0;
    let outcome = "";
    for (let i = 0; i < 3; i++) {
      const start = process.cpuUsage();
      try {
        const read = await readTestSet(bytes.slice().buffer);
        outcome = `read: ${read.cases.length} cases, ${read.problems.length + read.unlisted} problems`;
      } catch (error) {
        const e = error as { code?: string; message: string };
        outcome = `${e.code ?? "error"}: ${e.message.slice(0, 120)}`;
      }
      const used = process.cpuUsage(start);
      worst = Math.max(worst, (used.user + used.system) / 1000);
    }
    files.push({ file, zippedBytes: bytes.length, worstCpuMs: Math.round(worst), outcome });
  }
  const worstCpuMs = Math.max(...files.map((f) => f.worstCpuMs));
  return { files, worstCpuMs, budgetCpuMs: CPU_BUDGET_MS, withinBudget: worstCpuMs <= CPU_BUDGET_MS };
}

export function describeHostileTestSets(r: HostileTestSetResults): string[] {
  return [
    `hostile test set uploads (≤ 1 MiB each): worst ${r.worstCpuMs} ms CPU of 3 runs (budget ${r.budgetCpuMs} ms) ${r.withinBudget ? "✅" : "❌"}`,
    ...r.files.map((f) => `  ${f.file} (${(f.zippedBytes / 1024).toFixed(0)} KiB): ${f.worstCpuMs} ms — ${f.outcome}`),
  ];
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(ROOT, "bench/testset.ts")) {
  const results = await measureTestSet();
  for (const line of describeTestSet(results)) console.log(line);
  const hostile = await measureHostileTestSets();
  for (const line of describeHostileTestSets(hostile)) console.log(line);
  const file = path.join(ROOT, "bench/results/testset.json");
  fs.writeFileSync(file, `${JSON.stringify({ measuredAt: new Date().toISOString(), testSet: results, hostile }, null, 2)}\n`);
  console.log(`Wrote ${path.relative(ROOT, file)}`);
  if (results.some((r) => !r.withinBudget) || !hostile.withinBudget) process.exitCode = 1;
}
