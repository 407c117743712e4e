/**
 * CPU a stranger can make the receiver spend with one body (issue 30, "Parsing is bounded before
 * anything else"): each hostile body at the receiver's cap (768 KiB), through what every XML text
 * from outside goes through first — src/lib/xml-bounds.ts, then the parse (signature.ts
 * parseUntrustedXml). Budgets: a body the bounds refuse costs at most 50 ms of CPU (one linear pass over 768 KiB); one they let
 * through (a crowd of empty elements up to the limit) at most 3 times a valid e-CF of 1,000 lines
 * (DGII's largest, ~380 KiB), measured beside them. For scale, the one shape the bounds exist for —
 * nested namespace declarations — is also parsed by @xmldom/xmldom without the bounds, at 1/16 of
 * the size (its cost grows with the square of the declarations in scope: 1 MB took 16-27 s).
 * Measured in this Node process (process.cpuUsage), the V8 workerd runs.
 * `npm run bench:hostile-xml` alone, and part of `npm run bench` (bench/results/latest.json, hostileXml).
 */
import path from "node:path";
import { ROOT } from "../scripts/lib/database";
import { MAX_RECEIVER_BODY_BYTES } from "../src/http/request-checks";
import { parseUntrustedXml, parseXml } from "../src/modules/ecf/signature";
import { buildEcf } from "../src/modules/ecf/xml";
import { documentFor } from "../test/support/ecf-documents";

export interface HostileXmlResult {
  body: string;
  bytes: number;
  /** What parseUntrustedXml answered: the refusal's reason, or "parsed". */
  outcome: string;
  worstCpuMs: number;
  budgetCpuMs: number | null;
  withinBudget: boolean;
}

const REFUSED_BUDGET_MS = 50;
const PARSED_BUDGET_FACTOR = 3;
const RUNS = 5;

function cpuMs(work: () => void): number {
  const start = process.cpuUsage();
  work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** `unit` repeated to fill `bytes`, between `open` and `close`. */
function filled(bytes: number, open: string, unit: string, close: (count: number) => string): string {
  const count = Math.floor((bytes - open.length - 64) / (unit.length + 8));
  return `${open}${unit.repeat(count)}${close(count)}`;
}

function bodies(cap: number): [string, string][] {
  return [
    ["nested namespace declarations", filled(cap, "<ECF>", '<a xmlns:n="urn:n">', (n) => `${"</a>".repeat(n)}</ECF>`)],
    ["deep nesting", filled(cap, "<ECF>", "<a>", (n) => `${"</a>".repeat(n)}</ECF>`)],
    ["one element with attributes", `<ECF ${'a="1" '.repeat(Math.floor((cap - 16) / 7))}/>`],
    ["attribute names without spaces", `<ECF a${'=""b'.repeat(Math.floor((cap - 16) / 4))}=""/>`],
    ["an entity bomb's DOCTYPE", `<?xml version="1.0"?><!DOCTYPE ECF [${'<!ENTITY a "aaaaaaaaaa">'.repeat(Math.floor((cap - 64) / 26))}]><ECF/>`],
    ["comments and text", `<ECF>${"<!-- x -->text".repeat(Math.floor((cap - 16) / 14))}</ECF>`],
    ["many empty elements", `<ECF>${"<a/>".repeat(Math.floor((cap - 16) / 4))}</ECF>`],
    ["the most elements allowed", `<ECF>${"<a/>".repeat(49_990)}</ECF>`],
    ["a valid e-CF of 1,000 lines", buildEcf(documentFor(1000))],
  ];
}

function outcomeOf(text: string): string {
  try {
    parseUntrustedXml(text);
    return "parsed";
  } catch (error) {
    return (error as Error).message.slice(0, 80);
  }
}

export function measureHostileXml(): HostileXmlResult[] {
  const measured = bodies(MAX_RECEIVER_BODY_BYTES).map(([body, text]) => {
    outcomeOf(text); // warm-up
    const worst = Math.max(...Array.from({ length: RUNS }, () => cpuMs(() => outcomeOf(text))));
    return { body, text, worst, outcome: outcomeOf(text) };
  });
  const valid = measured.find((m) => m.body.startsWith("a valid e-CF"))!;
  const results: HostileXmlResult[] = measured.map((m) => {
    const budget = m === valid ? null : m.outcome === "parsed" ? Math.round(valid.worst * PARSED_BUDGET_FACTOR * 10) / 10 : REFUSED_BUDGET_MS;
    return {
      body: m.body,
      bytes: Buffer.byteLength(m.text),
      outcome: m.outcome,
      worstCpuMs: Math.round(m.worst * 10) / 10,
      budgetCpuMs: budget,
      withinBudget: budget === null || m.worst <= budget,
    };
  });
  const unbounded = filled(MAX_RECEIVER_BODY_BYTES / 16, "<ECF>", '<a xmlns:n="urn:n">', (n) => `${"</a>".repeat(n)}</ECF>`);
  const cost = cpuMs(() => {
    try {
      parseXml(unbounded);
    } catch {
      // Its well-formedness is not the point: the time is.
    }
  });
  results.push({
    body: "nested namespace declarations, parsed without the bounds (for scale)",
    bytes: Buffer.byteLength(unbounded),
    outcome: "parsed by @xmldom/xmldom",
    worstCpuMs: Math.round(cost * 10) / 10,
    budgetCpuMs: null,
    withinBudget: true,
  });
  return results;
}

export function describeHostileXml(results: HostileXmlResult[]): string[] {
  return results.map(
    (r) =>
      `hostile XML, ${r.body} (${(r.bytes / 1024).toFixed(0)} KiB): ${r.outcome}; worst ${r.worstCpuMs} ms CPU${r.budgetCpuMs === null ? "" : ` (budget ${r.budgetCpuMs} ms) ${r.withinBudget ? "✅" : "❌"}`}`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(ROOT, "bench/hostile-xml.ts")) {
  const results = measureHostileXml();
  for (const line of describeHostileXml(results)) console.log(line);
  if (results.some((r) => !r.withinBudget)) process.exitCode = 1;
}
