/**
 * npm run bench:pdf [-- --lines 1000 --chars 1000 --runs 3]
 *
 * CPU time of rendering one document PDF (src/modules/sales/pdf.ts, what GET …/pdf and the bulk
 * ZIP call) with `--lines` lines whose descriptions are `--chars` characters long, in this Node
 * process (process.cpuUsage: user + system). Budget (issue 15): 1,000 lines × 1,000 characters in
 * under 1 s of CPU. Runs `--runs` times after one warm-up render; reports each run and the worst.
 * Results: bench/results/pdf.json. No database, no Worker: the renderer is pure JavaScript.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cliOptions } from "../scripts/lib/args";
import { ROOT } from "../scripts/lib/database";
import { type PdfDocumentData, renderDocumentPdf } from "../src/modules/sales/pdf";
import { prng } from "./rnc-generator";

const RESULTS = path.join(ROOT, "bench/results/pdf.json");
const BUDGET_CPU_MS = 1000;

const options = cliOptions({ lines: { type: "string" }, chars: { type: "string" }, runs: { type: "string" } });
const LINES = Number(options.lines ?? 1000);
const CHARS = Number(options.chars ?? 1000);
const RUNS = Number(options.runs ?? 3);

/** Words of Spanish text (accents included: they take the WinAnsi path), seeded so runs compare. */
function description(random: () => number, length: number): string {
  const words = [
    "Instalación",
    "eléctrica",
    "del",
    "local",
    "comercial",
    "según",
    "cotización",
    "aprobada",
    "ñandú",
    "Mantenimiento",
    "preventivo",
    "trimestral",
    "equipos",
    "refrigeración",
  ];
  let text = "";
  while (text.length < length) text += `${words[Math.floor(random() * words.length)]} `;
  return text.slice(0, length);
}

function documentData(): PdfDocumentData {
  const random = prng(20261122);
  return {
    title: "Cotización",
    numberLabel: "No.",
    issuer: {
      legalName: "Comercial Bench SRL",
      tradeName: null,
      rnc: "131246796",
      address: "Calle El Conde 1, Santo Domingo",
      branchName: "Principal",
      branchAddress: null,
    },
    documentNumber: "COT00000001",
    subtypeName: "Cotización",
    issueDate: "2026-11-22",
    dueDate: "2026-12-22",
    dueDateLabel: "Válida hasta",
    customer: { name: "Cliente de prueba", identification: "131246796", identificationType: "rnc" },
    lines: Array.from({ length: LINES }, (_, i) => ({
      description: description(random, CHARS),
      quantity: "1.00",
      unitPrice: `${100 + i}.00`,
      discount: "0.00",
      discountAmount: "0.00",
      taxes: "ITBIS 18%",
      itbis: "0.00",
      amount: `${100 + i}.00`,
      total: `${100 + i}.00`,
    })),
    taxBreakdown: [{ label: "ITBIS 18% (base 100.00)", amount: "18.00" }],
    totals: [{ label: "Total", value: "1.00", bold: true }],
    notes: description(random, 20_000),
  };
}

async function cpuMsOf(work: () => Promise<unknown>): Promise<{ cpuMs: number; wallMs: number }> {
  const wall = performance.now();
  const start = process.cpuUsage();
  await work();
  const used = process.cpuUsage(start);
  return { cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - wall };
}

const data = documentData();
let bytes = 0;
await renderDocumentPdf(data); // warm-up: font metrics decompressed, code compiled
const runs: { cpuMs: number; wallMs: number }[] = [];
for (let i = 0; i < RUNS; i++) {
  runs.push(
    await cpuMsOf(async () => {
      bytes = (await renderDocumentPdf(data)).length;
    }),
  );
}
const worst = Math.max(...runs.map((r) => r.cpuMs));
const round = (n: number) => Math.round(n * 10) / 10;
const results = {
  measuredAt: new Date().toISOString(),
  machine: { node: process.version, cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? "" },
  what: `renderDocumentPdf of ${LINES} lines with ${CHARS}-character descriptions and 20,000-character notes, in Node (process.cpuUsage, user + system), after one warm-up render`,
  lines: LINES,
  descriptionChars: CHARS,
  pdfBytes: bytes,
  runs: runs.map((r) => ({ cpuMs: round(r.cpuMs), wallMs: round(r.wallMs) })),
  worstCpuMs: round(worst),
  budgetCpuMs: BUDGET_CPU_MS,
  withinBudget: worst < BUDGET_CPU_MS,
};
fs.mkdirSync(path.dirname(RESULTS), { recursive: true });
fs.writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
console.log(
  `PDF of ${LINES} lines × ${CHARS} chars: ${results.runs.map((r) => `${r.cpuMs} ms CPU`).join(", ")} (budget ${BUDGET_CPU_MS} ms) ${results.withinBudget ? "✅" : "❌"}; ${bytes} bytes`,
);
if (!results.withinBudget) process.exitCode = 1;
