import { describe, expect, it } from "vitest";
import { summaryInput } from "../../src/modules/certification/case-sending";
import { caseXml, withSignaturePlaceholder } from "../../src/modules/certification/case-xml";
import { validateMany } from "../support/dgii-xsd";
import { approvalRows, ecfCases, type Row, rfceCases, SMALL_E32 } from "../support/test-sets";

/** A fixture row as the import stores it: headers trimmed, DGII's misspelling corrected, `#e` and empty cells left out. */
const fieldsOf = (row: Row): [string, string][] =>
  row.filter(([, v]) => v !== "#e" && v !== null).map(([name, value]) => [name.trim().replace("MontosubRecargo", "MontoSubRecargo"), String(value)]);

const escapeXml = (value: string) => value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");

/** The schema's element of a field: its name without indexes, the set's own spellings mapped. */
const elementOf = (name: string) => {
  const bare = name.replace(/\[.*$/, "");
  return ({ ENCF: "eNCF", NumeroLineaDoR: "NumeroLinea" } as Record<string, string>)[bare] ?? bare;
};

/**
 * Each case of DGII's test sets becomes the XML of its type from the row alone (issue 32, step 2):
 * element by element in the schema's order, `#e` left out, lines and their tables placed. Each
 * validates against DGII's own XSDs (../shared/dgii/xsd-strict, libxml2: the independent
 * validator; a stand-in for the Signature, whose xs:any DGII's schemas skip — signed, the same
 * documents pass the fake DGII's schema and signature checks in test/ecf/certification-runs.test.ts),
 * and each of the row's values is in it, as written.
 */
describe("test set cases as XML", () => {
  it("builds every case of the fixture set (29 e-CF, 4 RFCE, 2 ACECF), valid against DGII's schemas, each row value in it", async () => {
    const cases = [
      ...ecfCases().map((row) => ({ row, document: "ecf" as const, xsd: `e-CF-${row.find(([h]) => h === "TipoeCF")![1]}.xsd` })),
      ...rfceCases().map((row) => ({ row, document: "rfce" as const, xsd: "RFCE-32.xsd" })),
      ...approvalRows([
        { encf: "E310000000002", total: "4674.35", state: "1" },
        { encf: "E310000000004", total: "18283.00", state: "2", reason: "Mercancía no recibida" },
      ]).map((row) => ({ row, document: "acecf" as const, xsd: "ACECF.xsd" })),
    ];
    const built = cases.map((c) => {
      const fields = fieldsOf(c.row);
      const type = fields.find(([n]) => n === "TipoeCF")?.[1] ?? fields.find(([n]) => n === "eNCF")![1].slice(1, 3);
      const xml = caseXml({ document: c.document, type, fields }, { signedAt: "24-06-2026 10:00:00", securityCode: "Abc123" });
      const name = `${c.document} ${fields.find(([n]) => /^e?NCF$/i.test(n))![1]}`;
      expect(xml.problems, name).toEqual([]);
      return { ...c, name, fields, signed: withSignaturePlaceholder(xml.xml) };
    });
    // One run of libxml2 per schema.
    for (const xsd of new Set(built.map((c) => c.xsd))) {
      const group = built.filter((c) => c.xsd === xsd);
      const errors = await validateMany(
        group.map((c) => c.signed),
        xsd,
      );
      expect(Object.fromEntries(group.map((c, i) => [c.name, errors[i]]))).toEqual(Object.fromEntries(group.map((c) => [c.name, []])));
    }
    for (const c of built) {
      for (const [name, value] of c.fields) {
        if (name === "CasoPrueba") continue;
        const element = elementOf(name);
        expect(c.signed, `${c.name}: ${name}`).toContain(`<${element}>${escapeXml(value)}</${element}>`);
      }
    }
    expect(built.length).toBe(35);
  });

  it("builds the summary of each E32 under RD$250,000 from its row of sheet ECF, valid against RFCE-32.xsd, with the values sheet RFCE gives", async () => {
    const small = ecfCases().filter((row) => SMALL_E32.some((n) => row.find(([h]) => h === "ENCF")?.[1] === `E32${String(n).padStart(10, "0")}`));
    expect(small.length).toBe(4);
    const summaries = small.map((row) => caseXml(summaryInput({ ecfType: "32", fields: fieldsOf(row), summaryFields: null }), { securityCode: "Abc123" }));
    expect(summaries.map((s) => s.problems)).toEqual([[], [], [], []]);
    expect(
      await validateMany(
        summaries.map((s) => withSignaturePlaceholder(s.xml)),
        "RFCE-32.xsd",
      ),
    ).toEqual([[], [], [], []]);
    // The same document as sheet RFCE's row for it gives.
    const fromSheet = rfceCases().map((row) => caseXml({ document: "rfce", type: "32", fields: fieldsOf(row) }, { securityCode: "Abc123" }).xml);
    expect(summaries.map((s) => s.xml)).toEqual(fromSheet);
  });

  it("names the cell a required element is missing from, in words, and remaps a note's reference to the run's number", () => {
    const e33 = fieldsOf(ecfCases().find((row) => row.some(([h, v]) => h === "ENCF" && v === "E330000000001"))!);
    const without = e33.filter(([name]) => name !== "FechaEmision" && !/^MontoItem\[/.test(name));
    const built = caseXml({ document: "ecf", type: "33", fields: without }, { signedAt: "24-06-2026 10:00:00" });
    expect(built.problems.map(({ column, message }) => ({ column, message }))).toEqual([
      { column: "FechaEmision", message: "is empty (or #e), but an E33 (Formato e-CF v1.0) requires it: FechaEmision of Emisor." },
      { column: "MontoItem[1]", message: "is empty (or #e), but an E33 (Formato e-CF v1.0) requires it: MontoItem of Item." },
    ]);
    const remapped = caseXml(
      { document: "ecf", type: "33", fields: e33 },
      { encf: "E330000000007", signedAt: "24-06-2026 10:00:00", references: new Map([["E310000000002", "E310000000009"]]) },
    );
    expect(remapped.problems).toEqual([]);
    expect(remapped.xml).toContain("<eNCF>E330000000007</eNCF>");
    expect(remapped.xml).toContain("<NCFModificado>E310000000009</NCFModificado>");
  });
});
