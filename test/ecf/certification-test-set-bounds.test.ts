import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import type { TestSetSummary } from "../../src/modules/certification/schemas";
import type { Data } from "../support/api";
import { seedTenant } from "../support/seed";
import { APPROVAL_HEADERS, ISSUER_RNC, upload } from "../support/test-sets";

type Summary = import("zod").infer<typeof TestSetSummary>;

const PATH = "/ecf/certification/test-sets";
const SHEET_PART = "xl/worksheets/sheet1.xml";
const NS = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`;

const approval = (encf: string, state = "1") => ["1.0", "131880681", encf, "01-04-2020", "10.00", ISSUER_RNC, state, "#e", "23-06-2026 17:45:47"];
const encfOf = (n: number) => `E31${String(n).padStart(10, "0")}`;

function letters(column: number): string {
  let s = "";
  for (let c = column; c > 0; c = Math.floor((c - 1) / 26)) s = String.fromCharCode(65 + ((c - 1) % 26)) + s;
  return s;
}

/** A row of inline-string cells, as a program other than Excel may write them. */
const row = (r: number, values: string[]) =>
  `<row r="${r}">${values.map((v, i) => `<c r="${letters(i + 1)}${r}" t="inlineStr"><is><t>${v}</t></is></c>`).join("")}</row>`;

const sheetXml = (rows: string, afterData = "") =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet ${NS}><sheetData>${rows}</sheetData>${afterData}</worksheet>`;

/** The approvals sheet with one valid approval: what DGII's ACEECF_Generadas holds. */
const validRows = row(1, APPROVAL_HEADERS) + row(2, approval(encfOf(2)));

/** The parts of an .xlsx: sheet ACEECF_Generadas from `sheet`, and any extra parts, last. */
function parts(sheet: string, extra: Record<string, string> = {}): Record<string, Uint8Array> {
  const parts: Record<string, Uint8Array> = {
    "[Content_Types].xml": strToU8(
      `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>`,
    ),
    "xl/workbook.xml": strToU8(`<workbook ${NS}><sheets><sheet name="ACEECF_Generadas" sheetId="1" r:id="rId1"/></sheets></workbook>`),
    "xl/_rels/workbook.xml.rels": strToU8(
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    ),
    [SHEET_PART]: strToU8(sheet),
  };
  for (const [name, text] of Object.entries(extra)) parts[name] = strToU8(text);
  return parts;
}

/** An .xlsx written here with fflate, byte by byte what the test means. */
const craft = (sheet: string, extra: Record<string, string> = {}) => zipSync(parts(sheet, extra));

const u32 = (d: Uint8Array, at: number) => new DataView(d.buffer, d.byteOffset).getUint32(at, true);
const setU16 = (d: Uint8Array, at: number, v: number) => new DataView(d.buffer, d.byteOffset).setUint16(at, v, true);
const setU32 = (d: Uint8Array, at: number, v: number) => new DataView(d.buffer, d.byteOffset).setUint32(at, v, true);
/** fflate writes the end-of-central-directory record last, without a comment. */
function endOfDirectory(zip: Uint8Array): number {
  expect(u32(zip, zip.length - 22)).toBe(0x06054b50);
  return zip.length - 22;
}

/** The central directory entry of `name`. */
function directoryEntry(zip: Uint8Array, name: string): number {
  for (let at = 0; at + 46 < zip.length; at++) {
    if (u32(zip, at) !== 0x02014b50) continue;
    const length = zip[at + 28]! | (zip[at + 29]! << 8);
    if (new TextDecoder().decode(zip.subarray(at + 46, at + 46 + length)) === name) return at;
  }
  throw new Error(`no entry ${name}`);
}

async function post(tenant: Awaited<ReturnType<typeof seedTenant>>, bytes: Uint8Array) {
  return tenant.api.post(PATH, undefined, { rawBody: upload(bytes.slice().buffer) });
}

type Tenant = Awaited<ReturnType<typeof seedTenant>>;

/** The refusal, exactly: status, code, message and errors; nothing stored. */
async function expectRefused(tenant: Tenant, res: Awaited<ReturnType<typeof post>>, status: number, message: string, errors?: Record<string, string[]>) {
  expect(res.status, res.text.slice(0, 2000)).toBe(status);
  const body = res.body as unknown as { code: string; message: string; errors: Record<string, string[]> };
  expect(body.code).toBe(status === 413 ? "payload_too_large" : "validation_failed");
  expect(body.message).toBe(message);
  expect(body.errors).toEqual(errors ?? { file: [message] });
  expect((await tenant.api.get<Data<Summary[]>>(PATH)).body.data).toEqual([]);
}

const OUTSIDE = "lies outside A1:XFD1048576, the extent of a worksheet (columns A to XFD, rows 1 to 1,048,576).";
const PROBLEMS = "The test set has rows that cannot make a document (errors: each case, column and why); nothing was imported.";

/**
 * What an upload of a test set can cost is bounded (issue 41, §1 and §2): each workbook here is
 * crafted byte by byte (fflate), small, and made to cost the Worker what DGII's sets never do.
 */
describe("a test set upload under attack", () => {
  it("imports the crafted workbook when nothing is wrong with it (the baseline of the tricks below)", async () => {
    const tenant = await seedTenant();
    const res = await post(tenant, craft(sheetXml(validRows)));
    expect(res.status, res.text).toBe(201);
  });

  it("refuses 4 MiB of whitespace after </sheetData> (a 6 KB file that stalled the isolate) and a cell over Excel's 32,767 characters", async () => {
    const tenant = await seedTenant();
    const xml = sheetXml(validRows, " ".repeat(4 * 1024 * 1024));
    const zipped = craft(xml);
    expect(zipped.length).toBeLessThan(10_000);
    const at = xml.indexOf("</sheetData>") + "</sheetData>".length;
    await expectRefused(
      tenant,
      await post(tenant, zipped),
      422,
      `The workbook's part "${SHEET_PART}" has a run of text longer than 65,536 characters (at character ${at.toLocaleString("en-US")}); a test set's cells hold at most 32,767.`,
    );

    // Two runs of 20,000 characters, each under the run's limit, make one cell of 40,000.
    const long = `<row r="3"><c r="A3" t="inlineStr"><is><r><t>${"a".repeat(20_000)}</t></r><r><t>${"b".repeat(20_000)}</t></r></is></c></row>`;
    await expectRefused(
      tenant,
      await post(tenant, craft(sheetXml(validRows + long))),
      422,
      "Cell A3 of sheet ACEECF_Generadas holds more than 32,767 characters, Excel's limit of a cell.",
    );
  });

  it("refuses a zip with a ZIP64 record, whose counts and offsets fflate would read instead of the end record's", async () => {
    const tenant = await seedTenant();
    const zip = craft(sheetXml(validRows));
    const end = endOfDirectory(zip);
    const entries = zip[end + 10]! | (zip[end + 11]! << 8);
    const directorySize = u32(zip, end + 12);
    const directoryOffset = u32(zip, end + 16);
    // ZIP64 end-of-central-directory record (56 bytes) and its locator (20), consistent with the zip, before the end record.
    const record = new Uint8Array(56 + 20);
    setU32(record, 0, 0x06064b50);
    setU32(record, 4, 44);
    setU16(record, 12, 45);
    setU16(record, 14, 45);
    setU32(record, 24, entries);
    setU32(record, 32, entries);
    setU32(record, 40, directorySize);
    setU32(record, 48, directoryOffset);
    setU32(record, 56, 0x07064b50);
    setU32(record, 64, end);
    setU32(record, 72, 1);
    const zip64 = new Uint8Array(zip.length + record.length);
    zip64.set(zip.subarray(0, end));
    zip64.set(record, end);
    zip64.set(zip.subarray(end), end + record.length);
    await expectRefused(
      tenant,
      await post(tenant, zip64),
      422,
      "The workbook's zip has a ZIP64 end-of-central-directory record; a test set is far under ZIP64's 4 GB and needs none.",
    );
  });

  it("counts the part of 40 MiB the end record's total leaves out (fflate follows the count on this disk): refused, as its size is", async () => {
    const tenant = await seedTenant();
    const all = parts(sheetXml(validRows), { "xl/padding.xml": `<a>${" ".repeat(40 * 1024 * 1024)}</a>` });
    const unpacked = Object.values(all).reduce((sum, p) => sum + p.length, 0);
    const zip = zipSync(all);
    expect(zip.length).toBeLessThan(1024 * 1024);
    await expectRefused(
      tenant,
      await post(tenant, zip),
      413,
      `The workbook unpacks to ${unpacked.toLocaleString("en-US")} bytes; a test set may unpack to at most 16,777,216 (DGII's unpacks to about 6 MB).`,
      {
        file: ["unpacks to more than 16777216 bytes"],
      },
    );
    // The total says 4 entries, the count on this disk 5: the padding, last, was inflated and imported (201).
    const end = endOfDirectory(zip);
    setU16(zip, end + 10, 4);
    await expectRefused(
      tenant,
      await post(tenant, zip),
      422,
      "The workbook's zip says it has 4 entries but 5 on this disk; a workbook is one zip on one disk.",
    );
  });

  it("refuses two entries of the same name (which one is the sheet depends on who reads the zip)", async () => {
    const tenant = await seedTenant();
    const other = sheetXml(row(1, APPROVAL_HEADERS) + row(2, approval(encfOf(3))));
    const zip = craft(sheetXml(validRows), { "xl/worksheets/sheet9.xml": other });
    const renamed = new TextEncoder().encode(SHEET_PART);
    zip.set(renamed, directoryEntry(zip, "xl/worksheets/sheet9.xml") + 46);
    // The local header's name too, so the entry reads the same from either end.
    const local = new TextDecoder("latin1").decode(zip).indexOf("xl/worksheets/sheet9.xml");
    zip.set(renamed, local);
    await expectRefused(
      tenant,
      await post(tenant, zip),
      422,
      `The workbook's zip has two entries named "${SHEET_PART}"; each part of a workbook is one entry.`,
    );
  });

  it("stops inflating a part that gives more than its entry declares (8 MiB declared as 1 KiB)", async () => {
    const tenant = await seedTenant();
    const zip = craft(sheetXml(validRows), { "xl/padding.xml": `<a>${" ".repeat(8 * 1024 * 1024)}</a>` });
    const entry = directoryEntry(zip, "xl/padding.xml");
    setU32(zip, entry + 24, 1024);
    setU32(zip, u32(zip, entry + 42) + 22, 1024);
    await expectRefused(
      tenant,
      await post(tenant, zip),
      422,
      `The workbook's part "xl/padding.xml" unpacks to more than the 1,024 bytes its zip entry declares; nothing past them is read.`,
    );
  });

  it("refuses a cell past row 1,048,576, past column XFD (ZZZZZZ1), and a value below the rows a set can have, before building any grid", async () => {
    const tenant = await seedTenant();
    await expectRefused(
      tenant,
      await post(tenant, craft(sheetXml(`${validRows}<row r="1048577"><c r="A1048577" t="inlineStr"><is><t>x</t></is></c></row>`))),
      422,
      `Row 1048577 of sheet ACEECF_Generadas ${OUTSIDE}`,
    );
    await expectRefused(
      tenant,
      await post(tenant, craft(sheetXml(`${validRows}<row r="3"><c r="A1048577" t="inlineStr"><is><t>x</t></is></c></row>`))),
      422,
      `Cell A1048577 of sheet ACEECF_Generadas ${OUTSIDE}`,
    );
    await expectRefused(
      tenant,
      await post(tenant, craft(sheetXml(`<row r="1"><c r="ZZZZZZ1" t="inlineStr"><is><t>CasoPrueba</t></is></c></row>`))),
      422,
      `Cell ZZZZZZ1 of sheet ACEECF_Generadas ${OUTSIDE}`,
    );
    // Within a worksheet, but a set has at most 500 cases (rows 2 to 501): the value is refused, no row built up to it.
    await expectRefused(
      tenant,
      await post(tenant, craft(sheetXml(`${validRows}<row r="1048576"><c r="XFD1048576"><v>1</v></c></row>`))),
      422,
      "Cell XFD1048576 of sheet ACEECF_Generadas holds a value; a test set has at most 500 cases, in rows 2 to 501 under the header row.",
    );
  });

  it("lists the first 100 problems of 10,000 unknown columns and says how many more there were", async () => {
    const tenant = await seedTenant();
    const unknown = Array.from({ length: 10_000 }, (_, i) => `Desconocido${i + 1}`);
    const zip = craft(sheetXml(row(1, [...APPROVAL_HEADERS, ...unknown]) + row(2, [...approval(encfOf(2)), ...unknown.map(() => "x")])));
    expect(zip.length).toBeLessThan(1024 * 1024);
    const errors = Object.fromEntries(
      unknown
        .slice(0, 100)
        .map((h) => [`ACEECF_Generadas[${encfOf(2)}].${h}`, [`Row 2: ${h} is not an element of sheet ACEECF_Generadas in DGII's test sets (unknown column).`]]),
    );
    await expectRefused(tenant, await post(tenant, zip), 422, `${PROBLEMS} The first 100 of 10,000 problems are listed; 9,900 more are not.`, errors);
  });

  it("lists the first 100 of 150 rows' problems and says how many more there were (a 52 KB upload gave a 6.7 MB body)", async () => {
    const tenant = await seedTenant();
    const rows = Array.from({ length: 150 }, (_, i) => row(i + 2, approval(encfOf(i + 2), "9"))).join("");
    const errors = Object.fromEntries(
      Array.from({ length: 100 }, (_, i) => [`ACEECF_Generadas[${encfOf(i + 2)}].Estado`, [`Row ${i + 2}: Estado is "9": 1 (aprobado) or 2 (rechazado).`]]),
    );
    await expectRefused(
      tenant,
      await post(tenant, craft(sheetXml(row(1, APPROVAL_HEADERS) + rows))),
      422,
      `${PROBLEMS} The first 100 of 150 problems are listed; 50 more are not.`,
      errors,
    );
  });
});
