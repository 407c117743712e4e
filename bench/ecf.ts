/**
 * CPU of building and signing one e-CF (issue 18's bench: budgets 10 ms for 10 lines, 200 ms for
 * 1,000 lines): src/modules/ecf/xml.ts buildEcf + signature.ts signXml (xml-crypto: C14N, SHA-256,
 * RSA-SHA256 through node:crypto), the work issuing does between its read and its write. Measured
 * in this Node process (process.cpuUsage, user + system) on the same code the Worker runs: workerd
 * runs the same V8 and, under nodejs_compat, node:crypto's RSA on BoringSSL; opening the PKCS#12 is
 * not counted (it is kept per isolate, src/modules/ecf/service.ts openedCertificate). The budget is
 * judged on the worst of 10 runs after warm-ups (100 of 10 lines, 10 of 1,000) (an isolate serves many issues; collections of
 * the garbage they leave fall within the runs, as they would between requests); the first run,
 * before the JIT has optimized anything, is reported beside it. The budget is
 * judged on the worst of 10 runs after warm-ups (100 of 10 lines, 10 of 1,000) (an isolate serves many issues); the first run,
 * before the JIT has optimized anything, is reported beside it.
 * `npm run bench:ecf` alone, and part of `npm run bench` (bench/results/latest.json, ecfSigning).
 */
import fs from "node:fs";
import path from "node:path";
import { makeCertificate } from "../scripts/lib/certificates";
import { ROOT } from "../scripts/lib/database";
import { signingMaterial } from "../src/modules/ecf/certificate";
import { signXml } from "../src/modules/ecf/signature";
import { buildEcf } from "../src/modules/ecf/xml";
import { documentFor } from "../test/support/ecf-documents";

export interface EcfSigningResult {
  lines: number;
  /** The first build and sign of this size in the process: code not yet optimized by the JIT. */
  coldCpuMs: number;
  /** After WARMUP runs, as in an isolate that has served a few issues. */
  runs: number[];
  worstCpuMs: number;
  budgetCpuMs: number;
  withinBudget: boolean;
  xmlBytes: number;
}

const BUDGETS: Record<number, number> = { 10: 10, 1000: 200 };
/** Warm-up runs per size: until V8's optimizing compiler has settled (its background threads count in process.cpuUsage). */
const WARMUP: Record<number, number> = { 10: 100, 1000: 10 };
const RUNS = 10;

function cpuMs(work: () => void): number {
  const start = process.cpuUsage();
  work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

export async function measureEcfSigning(): Promise<EcfSigningResult[]> {
  const cert = await makeCertificate({ authority: null });
  const material = signingMaterial(cert.p12Base64, cert.password);
  const results: EcfSigningResult[] = [];
  for (const lines of [10, 1000]) {
    const doc = documentFor(lines);
    let bytes = 0;
    const cold = cpuMs(() => signXml(buildEcf(doc), material));
    for (let i = 0; i < WARMUP[lines]!; i++) signXml(buildEcf(doc), material);
    const runs = Array.from({ length: RUNS }, () =>
      cpuMs(() => {
        bytes = signXml(buildEcf(doc), material).xml.length;
      }),
    );
    const worst = Math.max(...runs);
    const budget = BUDGETS[lines]!;
    results.push({
      lines,
      coldCpuMs: Math.round(cold * 10) / 10,
      runs: runs.map((r) => Math.round(r * 10) / 10),
      worstCpuMs: Math.round(worst * 10) / 10,
      budgetCpuMs: budget,
      withinBudget: worst <= budget,
      xmlBytes: bytes,
    });
  }
  return results;
}

export function describeEcfSigning(results: EcfSigningResult[]): string[] {
  return results.map(
    (r) =>
      `e-CF E31 of ${r.lines} lines, built and signed: worst ${r.worstCpuMs} ms CPU of ${r.runs.length} warm runs (budget ${r.budgetCpuMs} ms) ${r.withinBudget ? "✅" : "❌"}; first run in the process ${r.coldCpuMs} ms; ${r.xmlBytes} bytes`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(ROOT, "bench/ecf.ts")) {
  const results = await measureEcfSigning();
  for (const line of describeEcfSigning(results)) console.log(line);
  const file = path.join(ROOT, "bench/results/ecf.json");
  fs.writeFileSync(file, `${JSON.stringify({ measuredAt: new Date().toISOString(), node: process.version, results }, null, 2)}\n`);
  console.log(`Results: ${path.relative(ROOT, file)}`);
  if (results.some((r) => !r.withinBudget)) process.exitCode = 1;
}
