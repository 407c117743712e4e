import { describe, expect, it } from "vitest";
import { caseXml, withSignaturePlaceholder } from "../../src/modules/certification/case-xml";
import { validateMany } from "../support/dgii-xsd";
import { approvalRows, ecfCases, type Row, rfceCases } from "../support/test-sets";

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
  it("builds every case of the fixture set (25 e-CF, 4 RFCE, 2 ACECF), valid against DGII's schemas, each row value in it", async () => {
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
    expect(built.length).toBe(31);
  });
});
