import { describe, expect, it } from "vitest";
import { caseXml } from "../../src/modules/certification/case-xml";
import { sign, validate } from "../support/dgii-xsd";
import { approvalRows, ecfCases, type Row, rfceCases } from "../support/test-sets";

/** A fixture row as the import stores it: headers trimmed, DGII's misspelling corrected, `#e` and empty cells left out. */
const fieldsOf = (row: Row): [string, string][] =>
  row.filter(([, v]) => v !== "#e" && v !== null).map(([name, value]) => [name.trim().replace("MontosubRecargo", "MontoSubRecargo"), String(value)]);

const escapeXml = (value: string) => value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");

/** The schema's element of a field: its name without indexes, the set's own spellings mapped. */
const elementOf = (name: string) => ({ ENCF: "eNCF", NumeroLineaDoR: "NumeroLinea" })[name.replace(/\[.*$/, "")] ?? name.replace(/\[.*$/, "");

/**
 * Each case of DGII's test sets becomes the XML of its type from the row alone (issue 32, step 2):
 * element by element in the schema's order, `#e` left out, lines and their tables placed. Signed,
 * each validates against DGII's own XSDs (../shared/dgii/xsd-strict, libxml2: the independent
 * validator), and each of the row's values is in it, as written.
 */
describe("test set cases as XML", () => {
  const cases = [
    ...ecfCases().map((row) => ({ row, document: "ecf" as const, xsd: `e-CF-${row.find(([h]) => h === "TipoeCF")![1]}.xsd` })),
    ...rfceCases().map((row) => ({ row, document: "rfce" as const, xsd: "RFCE-32.xsd" })),
    ...approvalRows([
      { encf: "E310000000002", total: "4674.35", state: "1" },
      { encf: "E310000000004", total: "18283.00", state: "2", reason: "Mercancía no recibida" },
    ]).map((row) => ({ row, document: "acecf" as const, xsd: "ACECF.xsd" })),
  ];

  it.each(cases.map((c) => [`${c.document} ${String(c.row.find(([h]) => /^e?NCF$/i.test(h))![1])}`, c] as const))("%s", async (_, c) => {
    const fields = fieldsOf(c.row);
    const type = fields.find(([n]) => n === "TipoeCF")?.[1] ?? fields.find(([n]) => n === "eNCF")![1].slice(1, 3);
    const built = caseXml({ document: c.document, type, fields }, { signedAt: "24-06-2026 10:00:00", securityCode: "Abc123" });
    expect(built.problems).toEqual([]);
    const signed = await sign(built.xml);
    const result = await validate(signed.xml, c.xsd);
    expect(result.errors).toEqual([]);
    for (const [name, value] of fields) {
      if (name === "CasoPrueba") continue;
      const element = elementOf(name);
      expect(signed.xml, name).toContain(`<${element}>${escapeXml(value)}</${element}>`);
    }
  });
});
