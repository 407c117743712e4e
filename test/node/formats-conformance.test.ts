import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { validateXML } from "xmllint-wasm";
import { Big } from "../../src/lib/decimal";
import { buildAnecf } from "../../src/modules/ecf/anecf";
import { type SchemaName, schemaText } from "../../src/modules/ecf/formats";
import { buildAcecf, buildArecf } from "../../src/modules/ecf/receipts";
import { buildRfce } from "../../src/modules/ecf/rfce";
import { seedToSign } from "../../src/modules/ecf/seed";
import { buildEcf, type EcfDocument } from "../../src/modules/ecf/xml";
import { lineAmounts, taxBreakdown } from "../../src/modules/sales/lines";
import { sayWhySkipped, sign } from "../support/dgii-xsd";
import { documentFor } from "../support/ecf-documents";

/**
 * Our definitions of DGII's formats (src/modules/ecf/formats/) held against DGII's own XSDs
 * (../shared/dgii/xsd-strict/, March 2025) by one validator, libxml2 (xmllint-wasm's Node build):
 * for each schema, a corpus — the documents our builders make, signed, and systematic mutations of
 * each (every element removed, repeated, moved after its next sibling, its value too long, of a
 * wrong pattern, outside a code table, an unknown element beside it) — must be accepted or refused
 * alike by both. The only differences allowed are listed in ALLOWED, each with its reason.
 */
const DGII = path.resolve(__dirname, "../../../shared/dgii/xsd-strict");

/**
 * Where our definitions differ from xsd-strict on purpose. The two defects xsd-strict corrects (a
 * .NET `(?:` group in ACECF and RFCE-32, a type name with a leading space in e-CF-31) are not
 * differences of verdict: xsd-strict is DGII's text with them corrected, ours is written correct.
 */
const ALLOWED: { schema: SchemaName; mutation: RegExp; reason: string }[] = [
  { schema: "e-CF-33", mutation: /^removed TipoIngresos$/, reason: "DGII's 2026 change: TipoIngresos optional (minOccurs 0) in E33" },
  { schema: "e-CF-34", mutation: /^removed TipoIngresos$/, reason: "DGII's 2026 change: TipoIngresos optional (minOccurs 0) in E34" },
];

interface Span {
  name: string;
  start: number;
  end: number;
  /** The text between the tags, for an element holding no others. */
  value: { start: number; end: number } | null;
}

/** The elements of a compact XML document (no comments, no CDATA), outside the signature. */
function spans(xml: string): Span[] {
  const out: Span[] = [];
  const open: { name: string; start: number; contentStart: number; leaf: boolean }[] = [];
  const tag = /<(\/?)([A-Za-z_][\w.:-]*)[^>]*?(\/?)>/g;
  for (let m = tag.exec(xml); m; m = tag.exec(xml)) {
    const [whole, closing, name, selfClosing] = m as unknown as [string, string, string, string];
    if (closing) {
      const top = open.pop()!;
      const parentless = open.length === 0;
      if (!parentless && !open.some((o) => o.name === "Signature")) {
        out.push({ name, start: top.start, end: m.index + whole.length, value: top.leaf ? { start: top.contentStart, end: m.index } : null });
      }
      continue;
    }
    if (open.length) open[open.length - 1]!.leaf = false;
    if (selfClosing) continue;
    open.push({ name, start: m.index, contentStart: m.index + whole.length, leaf: true });
  }
  return out.filter((span) => span.name !== "Signature");
}

/** Each mutation of `xml`, named. */
function mutations(xml: string): [string, string][] {
  const all = spans(xml);
  const out: [string, string][] = [];
  const cut = (a: number, b: number, insert: string) => xml.slice(0, a) + insert + xml.slice(b);
  for (const span of all) {
    const element = xml.slice(span.start, span.end);
    out.push([`removed ${span.name}`, cut(span.start, span.end, "")]);
    out.push([`repeated ${span.name}`, cut(span.end, span.end, element)]);
    out.push([`unknown element after ${span.name}`, cut(span.end, span.end, "<Desconocido>1</Desconocido>")]);
    const next = all.find((other) => other.start === span.end);
    if (next) out.push([`${span.name} after ${next.name}`, cut(span.start, next.end, xml.slice(next.start, next.end) + element)]);
    if (span.value) {
      const value = xml.slice(span.value.start, span.value.end);
      out.push([`${span.name} too long`, cut(span.value.start, span.value.end, value + "7".repeat(1001))]);
      out.push([`${span.name} of a wrong pattern`, cut(span.value.start, span.value.end, `x${value}-?`)]);
      out.push([`${span.name} outside its code table`, cut(span.value.start, span.value.end, "98")]);
      out.push([`${span.name} empty`, cut(span.value.start, span.value.end, "")]);
    }
  }
  return out;
}

/** Which of `documents` libxml2 accepts against `schema` (one run for all of them). */
async function accepted(documents: string[], schema: string): Promise<boolean[]> {
  const files = documents.map((contents, i) => ({ fileName: `d${i}.xml`, contents }));
  const result = await validateXML({ xml: files, schema: [{ fileName: "schema.xsd", contents: schema }], maxMemoryPages: 32_768 });
  // xmllint says of each file "dN.xml validates" or "dN.xml fails to validate" (nothing when it does not parse).
  const valid = new Set([...result.rawOutput.matchAll(/^(d\d+\.xml) validates$/gm)].map((m) => m[1]));
  return files.map((file) => valid.has(file.fileName));
}

const ECF_NUMBERS: Record<string, string> = { "31": "E310000000001" };
function ecf(type: EcfDocument["type"], changes: Partial<EcfDocument> = {}): string {
  const doc = documentFor(3);
  return buildEcf({ ...doc, type, encf: ECF_NUMBERS[type] ?? `E${type}0000000007`, ...changes });
}

/** documentFor's three lines, exempt (indicator 4) or ITBIS 0 % (3): what E43, E44, E46 and E47 carry. */
function exemptLines(indicator: 3 | 4): Partial<EcfDocument> {
  const tax = indicator === 4 ? { id: 2, name: "Exento", type: "exento", rate: "0.00" } : { id: 3, name: "ITBIS 0%", type: "itbis", rate: "0.00" };
  const doc = documentFor(3);
  const amounts = doc.lines.map((line) => lineAmounts({ quantity: line.quantity, unitPrice: line.unitPrice, discount: "0", taxes: [tax] }));
  return {
    lines: doc.lines.map((line, i) => ({ ...line, discountAmount: "0.00", amount: amounts[i]!.subtotal, billingIndicator: indicator })),
    breakdown: taxBreakdown(amounts),
    total: amounts.reduce((sum, a) => sum.plus(a.total), new Big(0)).toFixed(2),
  };
}

const NOTE = { reference: { ncf: "E310000000001", date: "2026-11-02", modificationCode: 3 as const, reason: "Ajuste de precio" } };

/** The corpus of each schema: the documents our builders make (unsigned; signed below). */
function builderCorpus(): Record<SchemaName, string[]> {
  const consumer = { ...documentFor(3).snapshot, buyer: { ...documentFor(3).snapshot.buyer, identification_type: null, identification: null } };
  const tryBuild = (build: () => string) => {
    try {
      return [build()];
    } catch {
      return [];
    }
  };
  return {
    "e-CF-31": [ecf("31"), ecf("31", { paymentType: 2, dueDate: "2026-12-23" })],
    "e-CF-32": [ecf("32"), ...tryBuild(() => ecf("32", { snapshot: consumer }))],
    "e-CF-33": [ecf("33", NOTE)],
    "e-CF-34": [ecf("34", NOTE)],
    "e-CF-41": tryBuild(() => ecf("41")),
    "e-CF-43": [...tryBuild(() => ecf("43", exemptLines(4))), ...tryBuild(() => ecf("43", { ...exemptLines(4), snapshot: consumer }))],
    "e-CF-44": tryBuild(() => ecf("44", exemptLines(4))),
    "e-CF-45": tryBuild(() => ecf("45")),
    "e-CF-46": tryBuild(() => ecf("46", exemptLines(3))),
    "e-CF-47": tryBuild(() => {
      const exempt = exemptLines(4);
      const abroad = { ...documentFor(3).snapshot.buyer, name: "John Smith", identification_type: "passport", identification: "X1234567" };
      return ecf("47", {
        ...exempt,
        lines: exempt.lines!.map((line) => ({ ...line, goodsOrService: 2 as const, withholding: { isr: "10.00" } })),
        snapshot: { ...documentFor(3).snapshot, buyer: abroad },
      });
    }),
    "RFCE-32": [buildRfce({ ...documentFor(3), type: "32", encf: "E320000000009" }, "a1B2c3")],
    ANECF: [buildAnecf({ rnc: "131246796", at: new Date("2026-11-23T14:05:09Z"), ranges: [{ type: "31", from: "E310000000010", to: "E310000000020" }] })],
    ARECF: [
      buildArecf({ receiverRnc: "131246796", issuerRnc: "101000122", encf: "E310000000123", received: true, at: new Date("2026-11-23T14:05:09Z") }),
      buildArecf({
        receiverRnc: "131246796",
        issuerRnc: "101000122",
        encf: "E310000000123",
        received: false,
        reasonCode: 4,
        at: new Date("2026-11-23T14:05:09Z"),
      }),
    ],
    ACECF: [
      buildAcecf({
        issuerRnc: "101000122",
        encf: "E310000000123",
        issueDate: "2026-11-20",
        totalAmount: "18200.00",
        buyerRnc: "131246796",
        approved: true,
        at: new Date("2026-11-23T14:05:09Z"),
      }),
      buildAcecf({
        issuerRnc: "101000122",
        encf: "E310000000123",
        issueDate: "2026-11-20",
        totalAmount: "18200.00",
        buyerRnc: "131246796",
        approved: false,
        reason: "Mercancía no recibida",
        at: new Date("2026-11-23T14:05:09Z"),
      }),
    ],
    Semilla: [
      seedToSign(
        '<?xml version="1.0" encoding="utf-8"?><SemillaModel><valor>c2VtaWxsYQ==</valor><fecha>2026-11-23T14:05:09.1234567-04:00</fecha></SemillaModel>',
      ),
    ],
  };
}

const present = existsSync(DGII);
const suite = present ? describe : describe.skip;
if (!present) {
  sayWhySkipped("formats-conformance.test.ts", "the conformance of our formats to DGII's XSDs");
  describe.skip(`conformance to DGII's XSDs: skipped, ${DGII} is absent (a clone outside the project's workspace); CI runs it`, () => {
    it("holds our formats against DGII's schemas", () => {});
  });
}

suite("The formats are DGII's: our schemas and DGII's xsd-strict judge every document alike", () => {
  const rows: { schema: string; builder: number; corpus: number; agree: number; allowed: number }[] = [];

  it("each schema, on its builder documents and all their mutations (table printed)", { timeout: 600_000 }, async () => {
    const corpus = builderCorpus();
    const disagreements: string[] = [];
    for (const [schema, documents] of Object.entries(corpus) as [SchemaName, string[]][]) {
      expect(documents.length, `${schema}: the builders make at least one document`).toBeGreaterThan(0);
      const dgii = readFileSync(path.join(DGII, `${schema}.xsd`), "utf8");
      const cases: [string, string][] = [];
      for (const document of documents) {
        const signed = (await sign(document)).xml;
        cases.push(["as built", signed], ...mutations(signed));
      }
      const ours = await accepted(
        cases.map(([, xml]) => xml),
        schemaText(schema),
      );
      const theirs = await accepted(
        cases.map(([, xml]) => xml),
        dgii,
      );
      let agree = 0;
      let allowed = 0;
      cases.forEach(([what], i) => {
        if (ours[i] === theirs[i]) agree++;
        else if (ALLOWED.some((a) => a.schema === schema && a.mutation.test(what))) allowed++;
        else disagreements.push(`${schema}: ${what}: ours ${ours[i] ? "accepts" : "refuses"}, DGII's ${theirs[i] ? "accepts" : "refuses"}`);
      });
      // Every document as built is valid for both.
      cases.forEach(([what], i) => {
        if (what === "as built") expect(theirs[i], `${schema} as built, DGII's schema`).toBe(true);
      });
      rows.push({ schema, builder: documents.length, corpus: cases.length, agree, allowed });
    }
    console.log(
      [
        "schema      built  corpus  agree  allowed difference",
        ...rows.map(
          (r) =>
            `${r.schema.padEnd(10)} ${String(r.builder).padStart(6)} ${String(r.corpus).padStart(7)} ${String(r.agree).padStart(6)} ${String(r.allowed).padStart(8)}`,
        ),
      ].join("\n"),
    );
    expect(disagreements).toEqual([]);
    // The allowed differences are real: each shows up in the corpus.
    for (const a of ALLOWED) expect(rows.find((r) => r.schema === a.schema)!.allowed, a.reason).toBeGreaterThan(0);
  });
});
