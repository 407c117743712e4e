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
 * The workbook is read by xlsx.ts (fflate's inflater and saxes, no Node API: it runs in workerd),
 * which bounds what an upload can cost (issue 41) before any row is built here.
 */
import { Big } from "../../lib/decimal";
import { fieldError } from "../../lib/errors";
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
import { type Cell, NumberCell, readWorkbook, serialDate } from "./xlsx";

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
  /** The first problems found (MAX_KEPT_PROBLEMS at most: a 422 lists no more). */
  problems: TestSetProblem[];
  /** Problems found past those kept, counted only. */
  unlisted: number;
}

/** Problems kept while reading; the 422 lists 100 (case-problems.ts), planning and the schema check add theirs after. */
const MAX_KEPT_PROBLEMS = 100;

type Report = (problem: TestSetProblem) => void;

const OMITTED = "#e";
const SHEET_ECF = "ECF";
const SHEET_RFCE = "RFCE";
const SHEET_APPROVALS = "ACEECF_Generadas";
/** Rows per sheet: DGII's sets have 25 e-CF, 4 RFCE and a dozen approvals. */
export const MAX_CASES = 500;
/** Formato RFCE v1.0, introduction: the summary is for the E32 under RD$250,000. */
const RFCE_LIMIT = new Big("250000");

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

/**
 * A number cell's text (the file's, through parseNumber) as Excel shows it: 15 significant digits,
 * no trailing zeros, so binary noise (0.30000000000000004) goes and what was typed stays.
 */
function numberText(cell: NumberCell, element: string): string {
  const raw = cell.text;
  const value = Number(raw);
  if (!Number.isFinite(value)) return raw;
  // An unstyled number in a date column is a serial day all the same, in the workbook's date system.
  if (DATE_FIELDS.has(element) || DATE_TIME_FIELDS.has(element)) return dateText(serialDate(value, cell.date1904), DATE_TIME_FIELDS.has(element));
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
  if (cell instanceof NumberCell) return numberText(cell, element);
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
  // Row 1 is sparse (only its cells holding a value are set): every column up to its last gets an entry.
  const columns = Array.from(head, (h) => column(h === null || h === undefined ? "" : String(h instanceof NumberCell ? h.text : h).trim(), known));
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

function documentCases(sheet: SheetRows, document: "ecf" | "rfce", add: Report): TestSetCase[] {
  const cases: TestSetCase[] = [];
  const seen = new Map<string, number>();
  const nameIndex = sheet.columns.findIndex((c) => c.element === "CasoPrueba");
  for (const { row, cells } of sheet.rows) {
    const name = nameIndex >= 0 ? cellText(cells[nameIndex] ?? null, "CasoPrueba") : null;
    let bad = false;
    const report = (column: string, message: string) => {
      bad = true;
      add({ sheet: sheet.sheet, row, case: name, column, message });
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

function approvalCases(sheet: SheetRows, add: Report): TestSetCase[] {
  const cases: TestSetCase[] = [];
  const seen = new Map<string, number>();
  const encfIndex = sheet.columns.findIndex((c) => c.element === "eNCF");
  for (const { row, cells } of sheet.rows) {
    const encf = encfIndex >= 0 ? cellText(cells[encfIndex] ?? null, "eNCF") : null;
    let bad = false;
    const report = (column: string, message: string) => {
      bad = true;
      add({ sheet: sheet.sheet, row, case: encf, column, message });
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
  const read = readWorkbook(
    bytes,
    [SHEET_ECF, SHEET_RFCE, SHEET_APPROVALS],
    MAX_CASES + 1,
    `a test set has at most ${MAX_CASES} cases, in rows 2 to ${MAX_CASES + 1} under the header row.`,
  );
  const named = (name: string) => read.sheets.find((s) => s.name === name)?.rows;
  const problems: TestSetProblem[] = [];
  let unlisted = 0;
  const add: Report = (problem) => {
    if (problems.length < MAX_KEPT_PROBLEMS) problems.push(problem);
    else unlisted++;
  };
  const ecf = named(SHEET_ECF);
  const approvals = named(SHEET_APPROVALS);
  let kind: TestSetKind;
  let cases: TestSetCase[];
  if (ecf) {
    kind = "ecf";
    cases = documentCases(sheetRows(SHEET_ECF, ecf, ECF_COLUMNS), "ecf", add);
    const rfce = named(SHEET_RFCE);
    if (rfce) cases.push(...documentCases(sheetRows(SHEET_RFCE, rfce, RFCE_COLUMNS), "rfce", add));
  } else if (approvals) {
    kind = "approval";
    cases = approvalCases(sheetRows(SHEET_APPROVALS, approvals, APPROVAL_COLUMNS), add);
  } else {
    throw fieldError(
      "file",
      `The workbook has no sheet ${SHEET_ECF} (the e-CF test set) nor ${SHEET_APPROVALS} (the commercial approvals); its sheets: ${read.names.join(", ")}.`,
    );
  }
  if (cases.length + problems.length === 0) throw fieldError("file", "The workbook's test set has no cases (no rows under row 1).");
  if (cases.length > MAX_CASES) throw fieldError("file", `A test set has at most ${MAX_CASES} cases; this one has ${cases.length}.`);
  return { kind, cases, problems, unlisted };
}
