import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import type { TestSet } from "../../src/modules/certification/schemas";
import type { DataWithMessage } from "../support/api";
import { seedTenant } from "../support/seed";
import { APPROVAL_HEADERS, ISSUER_RNC, upload } from "../support/test-sets";

type TestSetData = import("zod").infer<typeof TestSet>;

const PATH = "/ecf/certification/test-sets";
const NS = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`;
const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

/** 2026-06-23 17:45:47 and 2020-04-01 as Excel's serial days, 1900 system (from 1899-12-30); the 1904 system counts 1,462 days fewer. */
const APPROVED_AT = 46196.74012731481;
const ISSUED_ON = 43922;
const DAYS_1900_TO_1904 = 1462;

const inline = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;

/**
 * An approvals workbook as Excel writes one, not as DGII's (every cell text): the e-NCF a rich-text
 * shared string (two runs, bold, and a phonetic guide that is no part of the text), the reason a
 * shared string with character references and Excel's `_xHHHH_` escapes, the RNC and the state
 * numbers, the dates numbers styled as dates (built-in format 14 and a custom date-time), the amount
 * a number with binary noise under a format whose quoted literal has a `d` (no date), and the
 * approval's date a second time, an unstyled number in a date column (still a serial day, in the
 * workbook's date system).
 */
function excelWorkbook(date1904: boolean): ArrayBuffer {
  const shift = date1904 ? DAYS_1900_TO_1904 : 0;
  const headers = APPROVAL_HEADERS;
  const sheet =
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet ${NS}><sheetData>` +
    `<row r="1">${headers.map((h, i) => inline(`${String.fromCharCode(65 + i)}1`, h)).join("")}</row>` +
    `<row r="2">${inline("A2", "1.0")}<c r="B2"><v>131880681</v></c><c r="C2" t="s"><v>0</v></c>` +
    `<c r="D2" s="1"><v>${ISSUED_ON - shift}</v></c><c r="E2" s="3"><v>1500.2500000000002</v></c>${inline("F2", ISSUER_RNC)}` +
    `<c r="G2"><v>2</v></c><c r="H2" t="s"><v>1</v></c><c r="I2" s="2"><v>${APPROVED_AT - shift}</v></c></row>` +
    `<row r="3">${inline("A3", "1.0")}<c r="B3"><v>131880681</v></c>${inline("C3", "E310000000003")}` +
    `<c r="D3"><v>${ISSUED_ON - shift}</v></c>${inline("E3", "10.00")}${inline("F3", ISSUER_RNC)}<c r="G3"><v>1</v></c><c r="I3"><v>${APPROVED_AT - shift}</v></c></row>` +
    `</sheetData></worksheet>`;
  const strings =
    `<sst ${NS} count="2" uniqueCount="2">` +
    `<si><r><rPr><b/></rPr><t>E31</t></r><r><t xml:space="preserve">0000000002</t></r><rPh sb="0" eb="3"><t>ignored</t></rPh></si>` +
    `<si><t>Sin c&#243;digo_x000D__x000A_ni RNC &amp; literal _x005F_x0041_</t></si></sst>`;
  const styles =
    `<styleSheet ${NS}><numFmts count="2"><numFmt numFmtId="164" formatCode="dd/mm/yyyy\\ hh:mm:ss"/>` +
    `<numFmt numFmtId="165" formatCode="&quot;USD&quot;\\ #,##0.00"/></numFmts>` +
    `<cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="14" applyNumberFormat="1"/><xf numFmtId="164" applyNumberFormat="1"/><xf numFmtId="165" applyNumberFormat="1"/></cellXfs></styleSheet>`;
  return zipOf(sheet, { "xl/sharedStrings.xml": strings, "xl/styles.xml": styles }, date1904 ? `<workbookPr date1904="1"/>` : "<workbookPr/>");
}

/** An .xlsx of sheet ACEECF_Generadas and the given parts, written here byte by byte with fflate. */
function zipOf(sheet: string, parts: Record<string, string> = {}, workbookPr = ""): ArrayBuffer {
  const zip = zipSync({
    "[Content_Types].xml": strToU8(
      `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>`,
    ),
    "xl/workbook.xml": strToU8(`<workbook ${NS}>${workbookPr}<sheets><sheet name="ACEECF_Generadas" sheetId="1" r:id="rId1"/></sheets></workbook>`),
    "xl/_rels/workbook.xml.rels": strToU8(
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
        `<Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/>` +
        `<Relationship Id="rId2" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/>` +
        `<Relationship Id="rId3" Type="${REL}/styles" Target="/xl/styles.xml"/></Relationships>`,
    ),
    "xl/worksheets/sheet1.xml": strToU8(sheet),
    ...Object.fromEntries(Object.entries(parts).map(([name, xml]) => [name, strToU8(xml)])),
  });
  return zip.slice().buffer;
}

/** What the approval above is, whichever date system the workbook counts in. */
const EXPECTED_FIELDS = [
  { name: "Version", value: "1.0" },
  { name: "RNCEmisor", value: "131880681" },
  { name: "eNCF", value: "E310000000002" },
  { name: "FechaEmision", value: "01-04-2020" },
  { name: "MontoTotal", value: "1500.25" },
  { name: "RNCComprador", value: ISSUER_RNC },
  { name: "Estado", value: "2" },
  { name: "DetalleMotivoRechazo", value: "Sin código\r\nni RNC & literal _x0041_" },
  { name: "FechaHoraAprobacionComercial", value: "23-06-2026 17:45:47" },
];

/**
 * The test set reader (src/modules/certification/xlsx.ts: fflate's inflater and saxes, in
 * workerd) reads a workbook as Excel saves it, seen through the import (issue 32): styled dates,
 * the 1904 date system, rich-text shared strings, character references and `_xHHHH_` escapes.
 */
describe("the .xlsx reader in workerd", () => {
  for (const date1904 of [false, true]) {
    it(`reads an Excel-saved approval: rich-text strings, escapes, numbers and styled dates (${date1904 ? "1904" : "1900"} date system)`, async () => {
      const tenant = await seedTenant();
      const res = await tenant.api.post<DataWithMessage<TestSetData>>(PATH, undefined, { rawBody: upload(excelWorkbook(date1904)) });
      expect(res.status, res.text.slice(0, 2000)).toBe(201);
      expect(res.body.data.cases.map((c) => [c.sheet, c.row, c.document, c.type, c.encf])).toEqual([
        ["ACEECF_Generadas", 2, "acecf", "31", "E310000000002"],
        ["ACEECF_Generadas", 3, "acecf", "31", "E310000000003"],
      ]);
      expect(res.body.data.cases[0]!.fields).toEqual(EXPECTED_FIELDS);
      // Row 3's dates are unstyled numbers: read as serial days of the workbook's own system all the same.
      expect(res.body.data.cases[1]!.fields).toEqual([
        { name: "Version", value: "1.0" },
        { name: "RNCEmisor", value: "131880681" },
        { name: "eNCF", value: "E310000000003" },
        { name: "FechaEmision", value: "01-04-2020" },
        { name: "MontoTotal", value: "10.00" },
        { name: "RNCComprador", value: ISSUER_RNC },
        { name: "Estado", value: "1" },
        { name: "FechaHoraAprobacionComercial", value: "23-06-2026 17:45:47" },
      ]);
    });
  }
});

/** What saxes may gather is bounded from its events (issue 41): each refusal names the part and where. */
describe("the .xlsx reader's bounds on what saxes gathers", () => {
  const refusal = async (sheet: string, message: string) => {
    const tenant = await seedTenant();
    const res = await tenant.api.post(PATH, undefined, { rawBody: upload(zipOf(sheet)) });
    expect(res.status, res.text.slice(0, 2000)).toBe(422);
    expect(res.body).toMatchObject({ code: "validation_failed", message, errors: { file: [message] } });
  };
  const SHEET = "xl/worksheets/sheet1.xml";

  it("refuses an element of 65 attributes, elements nested 33 deep, a document type declaration and XML that is not well-formed", async () => {
    const head = `<worksheet ${NS}><sheetData><row r="1">`;
    const attributes = Array.from({ length: 65 }, (_, i) => `a${i}=""`).join(" ");
    // Refused as saxes reads the 65th attribute, before the element is handed over.
    await refusal(
      `${head}<c ${attributes}/></row></sheetData></worksheet>`,
      `The workbook's part "${SHEET}" has an element with more than 64 attributes (at character ${head.length + 3 + attributes.length}).`,
    );
    // worksheet, sheetData and row are 3 deep: the 30th <c> is the 33rd.
    await refusal(
      `${head}${"<c>".repeat(40)}</sheetData></worksheet>`,
      `The workbook's part "${SHEET}" nests elements more than 32 deep (at character ${head.length + 30 * 3}).`,
    );
    await refusal(
      `<!DOCTYPE worksheet [<!ENTITY a "aaaaaaaaaa">]><worksheet ${NS}><sheetData/></worksheet>`,
      `The workbook's part "${SHEET}" has a document type declaration (<!DOCTYPE…); an .xlsx part has none.`,
    );
    await refusal(
      `${head}</c></row></sheetData></worksheet>`,
      `The workbook's part "${SHEET}" is not well-formed XML (1:${head.length + 4}: unexpected close tag.).`,
    );
  });

  it("refuses more than 1,500,000 elements over the parts it reads (a workbook of DGII's shape has about 325,000)", async () => {
    const head = `<worksheet ${NS}><sheetData></sheetData>`;
    // workbook.xml holds 3 elements and its relationships 4; the sheet's worksheet and sheetData 2 more: the 1,499,992nd <x/> is one too many.
    await refusal(
      `${head}${"<x/>".repeat(1_500_000)}</worksheet>`,
      `The workbook's parts hold more than 1,500,000 elements (at character ${(head.length + 1_499_992 * 4).toLocaleString("en-US")} of "${SHEET}"); a workbook of DGII's test set's shape has about 325,000.`,
    );
  });
});
