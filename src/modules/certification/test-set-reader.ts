/**
 * DGII's test sets (certification steps 2 and 3, issue 32) read from the .xlsx DGII gives: one case
 * per row, each a list of XML element names and the text DGII gives for them. Layout
 * (../shared/CERTIFICATION.md, "The test sets' layout", from public implementations; DGII does
 * not document it): sheet `ECF` (the e-CF cases) and sheet `RFCE` (the summaries of the E32 under
 * RD$250,000, the same e-NCFs as some of sheet ECF's), or sheet `ACEECF_Generadas` (the commercial
 * approvals). Row 1 names the columns; `CasoPrueba` names the case; `Campo[n]` is line n's (or the
 * n-th payment's, phone's…), `Campo[n][m]` entry m of line n's table; a cell `#e` means "leave the
 * element out", as an empty cell does.
 *
 * Nothing is recomputed: the set's values are the document's. A number Excel stored as a number
 * comes back as the shortest text of its 15 significant digits (what Excel shows: 0.1+0.2 stored
 * as 0.30000000000000004 is "0.3"); a date as dd-MM-yyyy, DGII's form. DGII's own workbook stores
 * every cell as text, so these matter for a set re-saved by another program.
 *
 * The reader is read-excel-file's universal build (fflate + saxen, no Node API: it runs in workerd),
 * patched (patches/read-excel-file+9.3.17.patch) to unzip with fflate's unzipSync: its own unzip
 * inflates a part of 512 KB or more in a Web Worker, which workerd has not, and DGII's e-CF sheet
 * is 5.7 MB.
 */
import { Big } from "../../lib/decimal";
import { AppError, fieldError } from "../../lib/errors";
import {
  APPROVAL_COLUMNS,
  DATE_FIELDS,
  DATE_TIME_FIELDS,
  ECF_COLUMNS,
  ECF_TYPES,
  HEADER_SPELLINGS,
  LINE_FIELDS,
  LINE_TABLES,
  RFCE_COLUMNS,
  type SheetColumns,
  valueProblem,
} from "./test-set-columns";

export type TestSetKind = "ecf" | "approval";
/** What a case becomes: an e-CF, the summary (RFCE) of an E32 under RD$250,000, or a commercial approval (ACECF). */
export type CaseDocument = "ecf" | "rfce" | "acecf";

export interface TestSetCase {
  sheet: string;
  /** The row in the sheet, 1-based as a spreadsheet shows it. */
  row: number;
  name: string;
  document: CaseDocument;
  /** TipoeCF: 31 … 47. */
  type: string;
  encf: string;
  /** The row's elements in column order, `#e` and empty cells left out; `[name, value]`. */
  fields: [string, string][];
}

export interface TestSetProblem {
  sheet: string;
  row: number;
  /** The row's CasoPrueba (its e-NCF for an approval), or null when it has none. */
  case: string | null;
  column: string;
  message: string;
}

export interface ReadTestSet {
  kind: TestSetKind;
  cases: TestSetCase[];
  problems: TestSetProblem[];
}

const OMITTED = "#e";
const SHEET_ECF = "ECF";
const SHEET_RFCE = "RFCE";
const SHEET_APPROVALS = "ACEECF_Generadas";
/**
 * What the workbook may unpack to. DGII's e-CF set is 463 KB zipped and 6 MB unpacked (a sheet of
 * 26 rows x 5,215 columns); 32 MiB leaves room and bounds what a small zip can make the Worker
 * hold (read-excel-file unpacks every part into memory).
 */
export const MAX_UNPACKED_BYTES = 32 * 1024 * 1024;
/** Rows per sheet: DGII's sets have 25 e-CF, 4 RFCE and a dozen approvals. */
export const MAX_CASES = 500;
/** Formato RFCE v1.0, introduction: the summary is for the E32 under RD$250,000. */
const RFCE_LIMIT = new Big("250000");

const NOT_A_WORKBOOK = "The file is not an .xlsx workbook (DGII's test sets are .xlsx files).";

interface Column {
  /** The header as written (trimmed). */
  header: string;
  /** The schema's element name, the header's misspelling corrected. */
  element: string;
  /** The field's name: the element with the header's indexes, `MontoSubRecargo[1][2]`. */
  name: string;
  indexes: number[];
  known: boolean;
}

/** A number cell, as the reader gives it through parseNumber: the file's text of the number. */
class NumberCell {
  constructor(readonly text: string) {}
}

type Cell = string | NumberCell | boolean | Date | null;

const HEADER = /^([A-Za-z][A-Za-z0-9]*)((?:\[\d+\])*)$/;

function column(header: string, known: SheetColumns): Column {
  const match = HEADER.exec(header);
  if (!match) return { header, element: header, name: header, indexes: [], known: false };
  const element = HEADER_SPELLINGS[match[1]!] ?? match[1]!;
  const indexes = [...match[2]!.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
  const name = element + indexes.map((i) => `[${i}]`).join("");
  const ok = indexes.every((i) => i >= 1) && (known.get(element)?.has(indexes.length) ?? false);
  return { header, element, name, indexes, known: ok };
}

const pad = (n: number) => String(n).padStart(2, "0");

function dateText(date: Date, withTime: boolean): string {
  const day = `${pad(date.getUTCDate())}-${pad(date.getUTCMonth() + 1)}-${date.getUTCFullYear()}`;
  return withTime ? `${day} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}` : day;
}

/** Excel's serial day (1900 system: day 1 is 1900-01-01, counted from 1899-12-30 past its 1900-02-29). */
function serialDate(serial: number): Date {
  return new Date(Math.round((Date.UTC(1899, 11, 30) + serial * 86_400_000) / 1000) * 1000);
}

/**
 * A number cell's text (the file's, through parseNumber) as Excel shows it: 15 significant digits,
 * no trailing zeros, so binary noise (0.30000000000000004) goes and what was typed stays.
 */
function numberText(raw: string, element: string): string {
  const value = Number(raw);
  if (!Number.isFinite(value)) return raw;
  if (DATE_FIELDS.has(element) || DATE_TIME_FIELDS.has(element)) return dateText(serialDate(value), DATE_TIME_FIELDS.has(element));
  // An integer a double holds exactly is its digits (a long code typed as a number keeps them all).
  if (Number.isSafeInteger(value)) return String(value);
  const shown = String(Number(value.toPrecision(15)));
  return /e/i.test(shown) ? raw : shown;
}

/** The cell as the set's text, or null for an absent element (`#e`, empty). */
function cellText(cell: Cell, element: string): string | null {
  if (cell === null) return null;
  if (cell instanceof Date) return dateText(cell, DATE_TIME_FIELDS.has(element) || cell.getUTCHours() + cell.getUTCMinutes() + cell.getUTCSeconds() > 0);
  if (typeof cell === "boolean") return cell ? "1" : "0";
  if (cell instanceof NumberCell) return numberText(cell.text, element);
  const text = cell.trim();
  return text === "" || text === OMITTED ? null : text;
}

interface SheetRows {
  sheet: string;
  columns: Column[];
  rows: { row: number; cells: Cell[] }[];
}

function sheetRows(sheet: string, data: Cell[][], known: SheetColumns): SheetRows {
  const [head = [], ...body] = data;
  const columns = head.map((h) => column(h === null ? "" : String(h instanceof NumberCell ? h.text : h).trim(), known));
  const rows = body
    .map((cells, i) => ({ row: i + 2, cells }))
    // A row of empty and `#e` cells is no case (a sheet's trailing rows).
    .filter(({ cells }) => cells.some((c) => cellText(c, "") !== null));
  return { sheet, columns, rows };
}

/** The row's fields in column order and the problems of its columns (unknown, unnamed, values that cannot be their element). */
function rowFields(sheet: SheetRows, cells: Cell[], report: (column: string, message: string) => void): [string, string][] {
  const fields: [string, string][] = [];
  const width = Math.max(sheet.columns.length, cells.length);
  for (let i = 0; i < width; i++) {
    const col = sheet.columns[i] ?? { header: "", element: "", name: "", indexes: [], known: false };
    const raw = cells[i] ?? null;
    const text = cellText(raw, col.element);
    if (text === null) continue;
    if (col.header === "") {
      report(`column ${i + 1}`, `has the value "${text}" but no name in row 1.`);
      continue;
    }
    if (!col.known) {
      report(
        col.header,
        `is not an element of sheet ${sheet.sheet} in DGII's test sets (${col.indexes.length ? "or does not take these indexes" : "unknown column"}).`,
      );
      continue;
    }
    const problem = valueProblem(col.element, text);
    if (problem) report(col.name, problem);
    fields.push([col.name, text]);
  }
  return fields;
}

/**
 * Lines (DetalleItem) are numbered 1, 2, … without gaps, `NumeroLinea[n]` is n, and each line's
 * tables (Campo[n][m]) are numbered the same way within the line: the XML repeats them in that
 * order (Formato e-CF v1.0, Detalle de Bienes o Servicios).
 */
function lineProblems(fields: [string, string][], report: (column: string, message: string) => void): void {
  const lines = new Map<number, string>();
  const entries = new Map<string, Map<number, string>>();
  for (const [name, value] of fields) {
    const match = /^([A-Za-z0-9]+)\[(\d+)\](?:\[(\d+)\])?$/.exec(name);
    if (!match) continue;
    const [, element, n, m] = match as unknown as [string, string, string, string | undefined];
    const line = Number(n);
    if (m === undefined && !LINE_FIELDS.has(element)) continue;
    if (m !== undefined && !LINE_TABLES[element]) continue;
    if (!lines.has(line)) lines.set(line, name);
    if (element === "NumeroLinea" && value !== String(line)) report(name, `is "${value}": line ${line}'s number is ${line}.`);
    if (m !== undefined) {
      const key = `${line}:${LINE_TABLES[element]}`;
      const table = entries.get(key) ?? new Map<number, string>();
      if (!table.has(Number(m))) table.set(Number(m), name);
      entries.set(key, table);
    }
  }
  for (const [line, first] of [...lines].sort((a, b) => a[0] - b[0])) {
    if (line > 1 && !lines.has(line - 1)) report(first, `is on line ${line} but line ${line - 1} has no values: lines are numbered 1, 2, … without gaps.`);
  }
  for (const [key, table] of entries) {
    const [line, group] = key.split(":");
    for (const [entry, first] of [...table].sort((a, b) => a[0] - b[0])) {
      if (entry > 1 && !table.has(entry - 1)) {
        report(first, `is entry ${entry} of line ${line}'s ${group} but entry ${entry - 1} has no values: entries are numbered 1, 2, … without gaps.`);
      }
    }
  }
}

const fieldOf = (fields: [string, string][], name: string) => fields.find(([n]) => n === name)?.[1] ?? null;

function documentCases(sheet: SheetRows, document: "ecf" | "rfce", problems: TestSetProblem[]): TestSetCase[] {
  const cases: TestSetCase[] = [];
  const seen = new Map<string, number>();
  const nameIndex = sheet.columns.findIndex((c) => c.element === "CasoPrueba");
  for (const { row, cells } of sheet.rows) {
    const name = nameIndex >= 0 ? cellText(cells[nameIndex] ?? null, "CasoPrueba") : null;
    let bad = false;
    const report = (column: string, message: string) => {
      bad = true;
      problems.push({ sheet: sheet.sheet, row, case: name, column, message });
    };
    const fields = rowFields(sheet, cells, report);
    if (!name) report("CasoPrueba", "is empty: each case is named by its CasoPrueba.");
    else if (seen.has(name)) report("CasoPrueba", `repeats the case of row ${seen.get(name)}.`);
    else seen.set(name, row);
    const type = fieldOf(fields, "TipoeCF");
    const encf = fieldOf(fields, "ENCF");
    if (!type) report("TipoeCF", "is empty.");
    else if (!ECF_TYPES.has(type)) report("TipoeCF", `is "${type}", not a TipoeCF of Formato e-CF v1.0 (31, 32, 33, 34, 41, 43, 44, 45, 46, 47).`);
    else if (document === "rfce" && type !== "32") report("TipoeCF", `is "${type}": a summary (RFCE) is of an E32 only (Formato RFCE v1.0).`);
    if (!encf) report("ENCF", "is empty.");
    else if (type && !new RegExp(`^E${type}\\d{10}$`).test(encf)) report("ENCF", `is "${encf}", not an e-NCF of type ${type} (E${type} and 10 digits).`);
    if (document === "rfce") {
      const total = fieldOf(fields, "MontoTotal");
      if (total && /^\d+(\.\d+)?$/.test(total) && new Big(total).gte(RFCE_LIMIT)) {
        report("MontoTotal", `is ${total}: a summary (RFCE) is for an E32 under RD$250,000 (Formato RFCE v1.0).`);
      }
    }
    if (document === "ecf") lineProblems(fields, report);
    if (!bad && name && type && encf) cases.push({ sheet: sheet.sheet, row, name, document, type, encf, fields });
  }
  return cases;
}

function approvalCases(sheet: SheetRows, problems: TestSetProblem[]): TestSetCase[] {
  const cases: TestSetCase[] = [];
  const seen = new Map<string, number>();
  const encfIndex = sheet.columns.findIndex((c) => c.element === "eNCF");
  for (const { row, cells } of sheet.rows) {
    const encf = encfIndex >= 0 ? cellText(cells[encfIndex] ?? null, "eNCF") : null;
    let bad = false;
    const report = (column: string, message: string) => {
      bad = true;
      problems.push({ sheet: sheet.sheet, row, case: encf, column, message });
    };
    const fields = rowFields(sheet, cells, report);
    const type = encf?.slice(1, 3) ?? "";
    if (!encf) report("eNCF", "is empty.");
    else if (!/^E\d{12}$/.test(encf) || !ECF_TYPES.has(type)) report("eNCF", `is "${encf}", not an e-NCF (E, a TipoeCF and 10 digits).`);
    else if (seen.has(encf)) report("eNCF", `repeats the approval of row ${seen.get(encf)}.`);
    else seen.set(encf, row);
    for (const required of ["RNCEmisor", "FechaEmision", "MontoTotal", "RNCComprador", "Estado", "FechaHoraAprobacionComercial"]) {
      if (fieldOf(fields, required) === null) report(required, "is empty.");
    }
    const state = fieldOf(fields, "Estado");
    // ACECF.xsd, Estado: 1 approved, 2 rejected; a rejection says why (DetalleMotivoRechazo).
    if (state !== null && state !== "1" && state !== "2") report("Estado", `is "${state}": 1 (aprobado) or 2 (rechazado).`);
    if (state === "2" && fieldOf(fields, "DetalleMotivoRechazo") === null) report("DetalleMotivoRechazo", "is empty: a rejection (Estado 2) says why.");
    if (!bad && encf) cases.push({ sheet: sheet.sheet, row, name: encf, document: "acecf", type, encf, fields });
  }
  return cases;
}

/**
 * Reads DGII's workbook. A file that is not an .xlsx workbook, or has neither an ECF nor an
 * ACEECF_Generadas sheet, is refused (422 on `file`); the rows that cannot make a document come
 * back as problems, each naming its case, its column and why.
 */
export async function readTestSet(bytes: ArrayBuffer): Promise<ReadTestSet> {
  let sheets: { sheet: string; data: Cell[][] }[];
  try {
    await checkUnpackedSize(bytes);
    // Loaded here: only an import of a test set reads a workbook (docs/reliability.md, import time).
    const { default: readXlsxFile } = await import("read-excel-file/universal");
    sheets = (await readXlsxFile(bytes, { parseNumber: (text) => new NumberCell(text), trim: false })) as { sheet: string; data: Cell[][] }[];
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw fieldError("file", NOT_A_WORKBOOK);
  }
  const named = (name: string) => sheets.find((s) => s.sheet === name);
  const problems: TestSetProblem[] = [];
  const ecf = named(SHEET_ECF);
  const approvals = named(SHEET_APPROVALS);
  let kind: TestSetKind;
  let cases: TestSetCase[];
  if (ecf) {
    kind = "ecf";
    cases = documentCases(sheetRows(SHEET_ECF, ecf.data, ECF_COLUMNS), "ecf", problems);
    const rfce = named(SHEET_RFCE);
    if (rfce) cases.push(...documentCases(sheetRows(SHEET_RFCE, rfce.data, RFCE_COLUMNS), "rfce", problems));
  } else if (approvals) {
    kind = "approval";
    cases = approvalCases(sheetRows(SHEET_APPROVALS, approvals.data, APPROVAL_COLUMNS), problems);
  } else {
    throw fieldError(
      "file",
      `The workbook has no sheet ${SHEET_ECF} (the e-CF test set) nor ${SHEET_APPROVALS} (the commercial approvals); its sheets: ${sheets.map((s) => s.sheet).join(", ")}.`,
    );
  }
  if (cases.length + problems.length === 0) throw fieldError("file", "The workbook's test set has no cases (no rows under row 1).");
  if (cases.length > MAX_CASES) throw fieldError("file", `A test set has at most ${MAX_CASES} cases; this one has ${cases.length}.`);
  return { kind, cases, problems };
}

/**
 * The sizes the zip's central directory declares for its parts, summed, against
 * MAX_UNPACKED_BYTES: read before anything is unpacked.
 */
async function checkUnpackedSize(bytes: ArrayBuffer): Promise<void> {
  const view = new DataView(bytes);
  // End of central directory: signature 0x06054b50, at most 64 KiB of comment from the end.
  let end = -1;
  for (let i = bytes.byteLength - 22; i >= Math.max(0, bytes.byteLength - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw fieldError("file", NOT_A_WORKBOOK);
  const entries = view.getUint16(end + 10, true);
  let offset = view.getUint32(end + 16, true);
  let total = 0;
  for (let i = 0; i < entries; i++) {
    if (offset + 46 > bytes.byteLength || view.getUint32(offset, true) !== 0x02014b50) throw fieldError("file", NOT_A_WORKBOOK);
    total += view.getUint32(offset + 24, true);
    offset += 46 + view.getUint16(offset + 28, true) + view.getUint16(offset + 30, true) + view.getUint16(offset + 32, true);
  }
  if (total > MAX_UNPACKED_BYTES) {
    throw new AppError("payload_too_large", `The workbook unpacks to ${total} bytes; a test set may unpack to at most ${MAX_UNPACKED_BYTES}.`, {
      file: [`unpacks to more than ${MAX_UNPACKED_BYTES} bytes`],
    });
  }
}
