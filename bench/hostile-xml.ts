/**
 * CPU a stranger can make the receiver spend with one body (issue 30, "Parsing is bounded before
 * anything else"): each hostile body at the receiver's cap (768 KiB), through what every XML text
 * from outside goes through first — src/lib/xml-bounds.ts, then the parse (signature.ts
 * parseUntrustedXml). Budgets: a body the bounds refuse costs at most 50 ms of CPU (one linear pass
 * over 768 KiB); one they let through (a crowd of empty elements up to the limit, 50,000) at most 3
 * times the costliest e-CF DGII's schemas accept within the same cap, measured beside them: an E33
 * signed at the cap in two shapes (test/support/ecf-costliest.ts: every optional element of each
 * Item, ~21,600 elements; the most elements e-CF-33.xsd lets 768 KiB hold, ~37,400), the budget
 * judged on the costlier of the two. A receiver must parse those, whoever sends them. The E31 of
 * 1,000 minimal lines that bench/ecf.ts signs (~380 KiB, ~9,000 elements) is shown for scale. For
 * scale too, the one shape the bounds exist for — nested namespace declarations — is parsed by
 * @xmldom/xmldom without the bounds, at 1/16 of the size (its cost grows with the square of the
 * declarations in scope: 1 MB took 16-27 s).
 * Measured in this Node process (process.cpuUsage), the V8 workerd runs.
 * `npm run bench:hostile-xml` alone, and part of `npm run bench` (bench/results/latest.json, hostileXml).
 */
import path from "node:path";
import { makeCertificate } from "../scripts/lib/certificates";
import { ROOT } from "../scripts/lib/database";
import { MAX_RECEIVER_BODY_BYTES } from "../src/http/request-checks";
import { signingMaterial } from "../src/modules/ecf/certificate";
import { parseUntrustedXml, parseXml, signXml } from "../src/modules/ecf/signature";
import { buildEcf } from "../src/modules/ecf/xml";
import { costliestEcf } from "../test/support/ecf-costliest";
import { documentFor } from "../test/support/ecf-documents";

export interface HostileXmlResult {
  body: string;
  bytes: number;
  /** What parseUntrustedXml answered: the refusal's reason, or "parsed". */
  outcome: string;
  /** Elements in the body (start tags), as the bounds count them; absent from results written before 2026-11-28. */
  elements?: number;
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

/** A body, and what it is to the budget: judged against the references, a reference, or shown for scale. */
type Body = [name: string, text: string, role: "judged" | "reference" | "scale"];

function bodies(cap: number, sign: (xml: ReturnType<typeof buildEcf>) => string): Body[] {
  return [
    ["nested namespace declarations", filled(cap, "<ECF>", '<a xmlns:n="urn:n">', (n) => `${"</a>".repeat(n)}</ECF>`), "judged"],
    ["deep nesting", filled(cap, "<ECF>", "<a>", (n) => `${"</a>".repeat(n)}</ECF>`), "judged"],
    ["one element with attributes", `<ECF ${'a="1" '.repeat(Math.floor((cap - 16) / 7))}/>`, "judged"],
    ["attribute names without spaces", `<ECF a${'=""b'.repeat(Math.floor((cap - 16) / 4))}=""/>`, "judged"],
    ["an entity bomb's DOCTYPE", `<?xml version="1.0"?><!DOCTYPE ECF [${'<!ENTITY a "aaaaaaaaaa">'.repeat(Math.floor((cap - 64) / 26))}]><ECF/>`, "judged"],
    ["comments and text", `<ECF>${"<!-- x -->text".repeat(Math.floor((cap - 16) / 14))}</ECF>`, "judged"],
    ["many empty elements", `<ECF>${"<a/>".repeat(Math.floor((cap - 16) / 4))}</ECF>`, "judged"],
    ["the most elements allowed", `<ECF>${"<a/>".repeat(49_990)}</ECF>`, "judged"],
    ["a valid E33 at the cap, every optional element of each Item", sign(costliestEcf("every-optional-element", cap).xml), "reference"],
    ["a valid E33 at the cap, the most elements its schema allows", sign(costliestEcf("most-elements", cap).xml), "reference"],
    ["a valid e-CF of 1,000 minimal lines", sign(buildEcf(documentFor(1000))), "scale"],
  ];
}

const elementsIn = (text: string) => text.match(/<[^/?!]/g)?.length ?? 0;

function outcomeOf(text: string): string {
  try {
    parseUntrustedXml(text);
    return "parsed";
  } catch (error) {
    return (error as Error).message.slice(0, 80);
  }
}

export async function measureHostileXml(): Promise<HostileXmlResult[]> {
  const certificate = await makeCertificate({ authority: null });
  const material = signingMaterial(certificate.p12Base64, certificate.password);
  const measured = bodies(MAX_RECEIVER_BODY_BYTES, (xml) => signXml(xml, material).xml).map(([body, text, role]) => {
    outcomeOf(text); // warm-up
    const worst = Math.max(...Array.from({ length: RUNS }, () => cpuMs(() => outcomeOf(text))));
    return { body, text, role, worst, outcome: outcomeOf(text) };
  });
  const reference = Math.max(...measured.filter((m) => m.role === "reference").map((m) => m.worst));
  const results: HostileXmlResult[] = measured.map((m) => {
    const budget = m.role !== "judged" ? null : m.outcome === "parsed" ? Math.round(reference * PARSED_BUDGET_FACTOR * 10) / 10 : REFUSED_BUDGET_MS;
    return {
      body: m.body,
      bytes: Buffer.byteLength(m.text),
      outcome: m.outcome,
      elements: elementsIn(m.text),
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
    elements: elementsIn(unbounded),
    worstCpuMs: Math.round(cost * 10) / 10,
    budgetCpuMs: null,
    withinBudget: true,
  });
  return results;
}

export function describeHostileXml(results: HostileXmlResult[]): string[] {
  return results.map(
    (r) =>
      `hostile XML, ${r.body} (${(r.bytes / 1024).toFixed(0)} KiB, ${(r.elements ?? 0).toLocaleString("en-US")} elements): ${r.outcome}; worst ${r.worstCpuMs} ms CPU${r.budgetCpuMs === null ? "" : ` (budget ${r.budgetCpuMs} ms) ${r.withinBudget ? "✅" : "❌"}`}`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(ROOT, "bench/hostile-xml.ts")) {
  const results = await measureHostileXml();
  for (const line of describeHostileXml(results)) console.log(line);
  if (results.some((r) => !r.withinBudget)) process.exitCode = 1;
}
