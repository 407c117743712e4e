/**
 * The .xlsx reader of DGII's test sets (issue 32; bounded under attack, issue 41): the zip's parts
 * unpacked with fflate's inflater and the workbook's XML read by saxes in one forward pass, each
 * bound checked while reading, before anything is built.
 *
 * An .xlsx is a zip of XML parts (ECMA-376 Part 1, SpreadsheetML): xl/workbook.xml names the
 * sheets, xl/_rels/workbook.xml.rels says which part holds each, xl/sharedStrings.xml the strings
 * the cells point at (t="s"), xl/styles.xml which cells are dates (a number whose style has a date
 * format), xl/worksheets/*.xml the cells (`<c r="B2" t="…" s="…"><v>…</v></c>`).
 *
 * What an upload can cost is bounded by what is read, not by what the file declares:
 * - the zip: one end-of-central-directory record on one disk (its count on this disk equals its
 *   total), no ZIP64 record, no two entries of the same name, at most MAX_PARTS entries; the sizes
 *   of the parts to unpack summed before inflating any (MAX_UNPACKED_BYTES, 413), and each part's
 *   inflation stopped as soon as it gives more than its entry declared (the inflater is fed
 *   INFLATE_CHUNK bytes at a time, so it never runs far past that);
 * - the XML: read once, front to back, by saxes (linear: no part of it read twice); a run of text
 *   between two tags, an attribute's value, the attributes of an element, the elements open at
 *   once and a cell's text have fixed maximums (MAX_TEXT_RUN, MAX_ATTRIBUTE_VALUE, MAX_ATTRIBUTES, MAX_DEPTH,
 *   MAX_CELL_CHARS), refused as soon as saxes hands over what passes them;
 * - the grid: a cell must lie within A1:XFD1048576 (a worksheet's extent: 16,384 columns,
 *   1,048,576 rows; Excel's specifications and limits) and a cell holding a value within the rows
 *   the caller allows; only cells holding a value are kept, each row sparse.
 */
import { Inflate } from "fflate";
import { SaxesParser, type SaxesTagPlain } from "saxes";
import { AppError, fieldError } from "../../lib/errors";

/**
 * What the workbook may unpack to. DGII's e-CF set is 463 KB zipped and 6 MB unpacked (a sheet of
 * 26 rows x 5,215 columns); 16 MiB leaves room and bounds what a small zip can make the Worker read
 * (a 1 MiB upload crafted to cost the most takes well under a second: bench/testset.ts).
 */
export const MAX_UNPACKED_BYTES = 16 * 1024 * 1024;
/** Cells holding a value, over the sheets read: DGII's e-CF set has 26 x 5,215 (about 136,000, mostly `#e`). */
export const MAX_VALUES = 300_000;
/** Entries of the zip: an .xlsx has a dozen or two. */
export const MAX_PARTS = 1000;
/** Excel's own limit on a cell's text (Excel specifications and limits: 32,767 characters). */
export const MAX_CELL_CHARS = 32_767;
/** Characters of XML between two tags: a cell's text and room for its escapes (`&amp;`). */
export const MAX_TEXT_RUN = 64 * 1024;
/** Characters of one attribute's value. */
export const MAX_ATTRIBUTE_VALUE = 64 * 1024;
/** Attributes of one element: a worksheet's root declares a dozen namespaces, a cell has three to five attributes. */
const MAX_ATTRIBUTES = 64;
/**
 * Elements over the parts read: saxes's cost is mostly per element (a 16 MiB sheet of `<c/>` is 4
 * million). A workbook of DGII's e-CF set's shape has about 325,000; 300,000 values of inline strings (`<c><is><t>`) and
 * their rows take 1.3 million.
 */
const MAX_ELEMENTS = 1_500_000;
/** Elements open at once: SpreadsheetML nests about six deep (worksheet, sheetData, row, c, is, r, t). */
const MAX_DEPTH = 32;
/** A worksheet's extent (Excel specifications and limits): columns A to XFD, rows 1 to 1,048,576. */
const MAX_COLUMN = 16_384;
const MAX_ROW = 1_048_576;
/** Compressed bytes given to the inflater at a time: a deflate stream gives at most ~1,032 times its size, ~4 MiB here. */
const INFLATE_CHUNK = 4096;

const NOT_A_WORKBOOK = "The file is not an .xlsx workbook (DGII's test sets are .xlsx files).";
const refuse = (message: string) => fieldError("file", message);
const count = (n: number) => n.toLocaleString("en-US");

/** A number cell: the file's text of the number, as Excel stored it. */
export class NumberCell {
  /** `date1904`: the workbook counts serial days in the 1904 system, should the column hold a date. */
  constructor(
    readonly text: string,
    readonly date1904 = false,
  ) {}
}

export type Cell = string | NumberCell | boolean | Date | null;

export interface Sheet {
  name: string;
  /** Rows from row 1; a row's cells by column (0-based), sparse: only the cells holding a value are set. */
  rows: Cell[][];
}

// ---- The zip

const u16 = (d: Uint8Array, at: number) => d[at]! | (d[at + 1]! << 8);
const u32 = (d: Uint8Array, at: number) => (d[at]! | (d[at + 1]! << 8) | (d[at + 2]! << 16) | (d[at + 3]! << 24)) >>> 0;

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

interface Entry {
  name: string;
  method: number;
  compressed: number;
  size: number;
  localHeader: number;
}

/**
 * The zip's central directory as fflate's unzipSync walks it (the last end-of-central-directory
 * record within 64 KiB of the end, its count of entries on this disk), with every way that walk
 * and the archive's other counts could disagree refused.
 */
function centralDirectory(data: Uint8Array): Entry[] {
  let end = -1;
  for (let at = data.length - 22; at >= 0 && data.length - at <= 22 + 0xffff; at--) {
    if (u32(data, at) === EOCD) {
      end = at;
      break;
    }
  }
  if (end < 0) throw refuse(NOT_A_WORKBOOK);
  if (end >= 20 && u32(data, end - 20) === ZIP64_LOCATOR) {
    throw refuse("The workbook's zip has a ZIP64 end-of-central-directory record; a test set is far under ZIP64's 4 GB and needs none.");
  }
  const onDisk = u16(data, end + 8);
  const total = u16(data, end + 10);
  if (u16(data, end + 4) !== 0 || u16(data, end + 6) !== 0 || onDisk !== total) {
    throw refuse(`The workbook's zip says it has ${total} entries but ${onDisk} on this disk; a workbook is one zip on one disk.`);
  }
  if (total > MAX_PARTS) throw refuse(`The workbook's zip has ${count(total)} entries; a workbook has at most ${count(MAX_PARTS)}.`);
  const entries: Entry[] = [];
  const names = new Set<string>();
  const decoder = new TextDecoder();
  let at = u32(data, end + 16);
  for (let i = 0; i < total; i++) {
    if (at + 46 > data.length || u32(data, at) !== CENTRAL) throw refuse(NOT_A_WORKBOOK);
    const nameLength = u16(data, at + 28);
    if (at + 46 + nameLength > data.length) throw refuse(NOT_A_WORKBOOK);
    const name = decoder.decode(data.subarray(at + 46, at + 46 + nameLength));
    if (names.has(name)) throw refuse(`The workbook's zip has two entries named "${name}"; each part of a workbook is one entry.`);
    names.add(name);
    const compressed = u32(data, at + 20);
    const size = u32(data, at + 24);
    if (compressed === 0xffffffff || size === 0xffffffff) {
      throw refuse(`The workbook's zip entry "${name}" defers its sizes to a ZIP64 record; a test set needs none.`);
    }
    if (u16(data, at + 8) & 1) throw refuse(`The workbook's zip entry "${name}" is encrypted.`);
    entries.push({ name, method: u16(data, at + 10), compressed, size, localHeader: u32(data, at + 42) });
    at += 46 + nameLength + u16(data, at + 30) + u16(data, at + 32);
  }
  return entries;
}

/** One entry's bytes, inflated in fixed chunks and stopped as soon as they pass the size its entry declares. */
function inflateEntry(data: Uint8Array, entry: Entry): Uint8Array {
  const local = entry.localHeader;
  if (local + 30 > data.length || u32(data, local) !== LOCAL) throw refuse(NOT_A_WORKBOOK);
  const start = local + 30 + u16(data, local + 26) + u16(data, local + 28);
  if (start + entry.compressed > data.length) throw refuse(NOT_A_WORKBOOK);
  const input = data.subarray(start, start + entry.compressed);
  const larger = () =>
    refuse(`The workbook's part "${entry.name}" unpacks to more than the ${count(entry.size)} bytes its zip entry declares; nothing past them is read.`);
  if (entry.method === 0) {
    if (entry.compressed !== entry.size) throw larger();
    return input.slice();
  }
  if (entry.method !== 8) throw refuse(`The workbook's part "${entry.name}" is compressed with method ${entry.method}; an .xlsx uses deflate (8) or none (0).`);
  const out = new Uint8Array(entry.size);
  let length = 0;
  let ended = false;
  const inflater = new Inflate((chunk, final) => {
    if (length + chunk.length > out.length) throw larger();
    out.set(chunk, length);
    length += chunk.length;
    ended = final;
  });
  try {
    for (let at = 0; at < input.length; at += INFLATE_CHUNK) {
      inflater.push(input.subarray(at, at + INFLATE_CHUNK), at + INFLATE_CHUNK >= input.length);
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw refuse(NOT_A_WORKBOOK);
  }
  if (!ended || length !== out.length) throw refuse(NOT_A_WORKBOOK);
  return out;
}

/** The XML parts of the zip (the parts a workbook's reader reads), their declared sizes summed before any is inflated. */
function unzipParts(bytes: ArrayBuffer): Map<string, Uint8Array> {
  const data = new Uint8Array(bytes);
  const entries = centralDirectory(data).filter((e) => e.name.endsWith(".xml") || e.name.endsWith(".rels"));
  const total = entries.reduce((sum, e) => sum + e.size, 0);
  if (total > MAX_UNPACKED_BYTES) {
    throw new AppError(
      "payload_too_large",
      `The workbook unpacks to ${count(total)} bytes; a test set may unpack to at most ${count(MAX_UNPACKED_BYTES)} (DGII's unpacks to about 6 MB).`,
      { file: [`unpacks to more than ${MAX_UNPACKED_BYTES} bytes`] },
    );
  }
  return new Map(entries.map((e) => [e.name, inflateEntry(data, e)]));
}

// ---- The XML

/** Excel's `_xHHHH_` escapes of characters XML cannot hold (ECMA-376 Part 1, 22.9.2.19 ST_Xstring); entities are saxes's. */
const unescapeX = (text: string) =>
  text.includes("_x") ? text.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))) : text;

/** `r:id` → `id`: SpreadsheetML's prefixes are conventions, the local name is what is meant. */
const localName = (name: string) => name.slice(name.indexOf(":") + 1);

/** An element's attributes by local name (read only where an element's attributes are wanted). */
function attributes(tag: SaxesTagPlain): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(tag.attributes)) out[localName(name)] = value;
  return out;
}

type ReadPart = (bytes: Uint8Array, part: string, handler: XmlHandler) => void;

interface XmlHandler {
  open(name: string, tag: SaxesTagPlain): void;
  close(name: string): void;
  /** Character data, entities and CDATA decoded. */
  text(text: string): void;
}

/**
 * A part read by saxes (the maintained, non-validating SAX parser jsdom uses): one forward pass
 * over the text as written, no re-scan. saxes keeps a frame per open element and gathers a run
 * of text, an attribute or a tag whole before handing it over, so what it may gather is bounded
 * here, from its events: the elements open at once (MAX_DEPTH) and the attributes of one element
 * (MAX_ATTRIBUTES, counted as each is read), each attribute's value (MAX_ATTRIBUTE_VALUE) and each run of text
 * (MAX_TEXT_RUN). A refusal thrown from a handler stops the parse where it is.
 *
 * At most seven handlers: saxes adds each as a property of the parser, and with an eighth V8 reads
 * them slower in its per-character loop (a part took 6 times as long). So an error is caught as
 * saxes throws it, and a processing instruction (none in SpreadsheetML) does not move where a run
 * of text is said to start.
 */
function readXml(bytes: Uint8Array, part: string, handler: XmlHandler, elements: { count: number }): void {
  const tooLong = (what: string, at: number, limit: number) =>
    refuse(
      `The workbook's part "${part}" has ${what} longer than ${count(limit)} characters (at character ${count(at)}); a test set's cells hold at most ${count(MAX_CELL_CHARS)}.`,
    );
  const parser = new SaxesParser({ position: true, xmlns: false } as const);
  // Where the last markup ended: a run of text starts there (saxes hands the run over at its end).
  let markupEnd = 0;
  let depth = 0;
  let attributeCount = 0;
  const markup = () => {
    markupEnd = parser.position;
  };
  // A document type declaration (entities, external subsets) has no place in an .xlsx part.
  parser.on("doctype", () => {
    throw refuse(`The workbook's part "${part}" has a document type declaration (<!DOCTYPE…); an .xlsx part has none.`);
  });
  parser.on("attribute", ({ name, value }) => {
    if (++attributeCount > MAX_ATTRIBUTES) {
      throw refuse(`The workbook's part "${part}" has an element with more than ${MAX_ATTRIBUTES} attributes (at character ${count(parser.position)}).`);
    }
    if (value.length > MAX_ATTRIBUTE_VALUE) throw tooLong(`an attribute (${localName(name).slice(0, 20)})`, parser.position, MAX_ATTRIBUTE_VALUE);
  });
  parser.on("opentag", (tag) => {
    attributeCount = 0;
    if (++elements.count > MAX_ELEMENTS) {
      throw refuse(
        `The workbook's parts hold more than ${count(MAX_ELEMENTS)} elements (at character ${count(parser.position)} of "${part}"); a workbook of DGII's test set's shape has about 325,000.`,
      );
    }
    if (!tag.isSelfClosing && ++depth > MAX_DEPTH) {
      throw refuse(`The workbook's part "${part}" nests elements more than ${MAX_DEPTH} deep (at character ${count(parser.position)}).`);
    }
    handler.open(localName(tag.name), tag);
    markup();
  });
  parser.on("closetag", (tag) => {
    if (!tag.isSelfClosing) depth--;
    handler.close(localName(tag.name));
    markup();
  });
  parser.on("text", (text) => {
    if (text.length > MAX_TEXT_RUN) throw tooLong("a run of text", markupEnd, MAX_TEXT_RUN);
    handler.text(text);
  });
  parser.on("cdata", (text) => {
    if (text.length > MAX_TEXT_RUN) throw tooLong("a run of text", markupEnd, MAX_TEXT_RUN);
    handler.text(text);
    markup();
  });
  parser.on("comment", markup);
  try {
    parser.write(new TextDecoder().decode(bytes)).close();
  } catch (error) {
    if (error instanceof AppError) throw error;
    // saxes throws what is not well-formed (it has no error handler here: see above).
    throw refuse(`The workbook's part "${part}" is not well-formed XML (${(error as Error).message}).`);
  }
}

/** Text gathered across runs (a cell's `<t>` pieces, around comments), refused past Excel's limit of a cell. */
class TextBuffer {
  private text = "";
  constructor(private readonly where: () => string) {}
  add(text: string): void {
    if (this.text.length + text.length > MAX_CELL_CHARS) {
      throw refuse(`${this.where()} holds more than ${count(MAX_CELL_CHARS)} characters, Excel's limit of a cell.`);
    }
    this.text += text;
  }
  take(): string {
    const text = unescapeX(this.text);
    this.text = "";
    return text;
  }
}

/** `xl/worksheets/sheet1.xml` from a relationship's target, relative to xl/ or absolute. */
function resolveTarget(target: string): string {
  const segments = target.startsWith("/") ? [] : ["xl"];
  for (const s of target.split("/")) {
    if (s === "" || s === ".") continue;
    if (s === "..") segments.pop();
    else segments.push(s);
  }
  return segments.join("/");
}

interface WorkbookInfo {
  sheets: { name: string; relationship: string }[];
  date1904: boolean;
}

function workbookInfo(read: ReadPart, xml: Uint8Array): WorkbookInfo {
  const info: WorkbookInfo = { sheets: [], date1904: false };
  read(xml, "xl/workbook.xml", {
    open(name, tag) {
      if (name === "workbookPr") {
        const v = tag.attributes.date1904;
        info.date1904 = v === "1" || v === "true";
      } else if (name === "sheet") {
        const a = attributes(tag);
        if (a.name !== undefined && a.id !== undefined) info.sheets.push({ name: unescapeX(a.name), relationship: a.id });
      }
    },
    close() {},
    text() {},
  });
  return info;
}

function relationships(read: ReadPart, xml: Uint8Array): Map<string, { type: string; part: string }> {
  const out = new Map<string, { type: string; part: string }>();
  read(xml, "xl/_rels/workbook.xml.rels", {
    open(name, tag) {
      if (name !== "Relationship") return;
      const a = attributes(tag);
      if (a.Id && a.Target && a.TargetMode !== "External") out.set(a.Id, { type: a.Type ?? "", part: resolveTarget(a.Target) });
    },
    close() {},
    text() {},
  });
  return out;
}

function sharedStrings(read: ReadPart, xml: Uint8Array, part: string): string[] {
  const strings: string[] = [];
  let inString = false;
  let inText = false;
  let phonetic = 0;
  const buffer = new TextBuffer(() => `Shared string ${count(strings.length + 1)} (${part})`);
  read(xml, part, {
    open(name, tag) {
      if (name === "si") inString = true;
      else if (name === "rPh") phonetic++;
      else if (name === "t" && inString && !phonetic && !tag.isSelfClosing) inText = true;
    },
    close(name) {
      if (name === "t") inText = false;
      else if (name === "rPh") phonetic--;
      else if (name === "si") {
        inString = false;
        strings.push(buffer.take());
      }
    },
    text(text) {
      if (inText) buffer.add(text);
    },
  });
  return strings;
}

/** The built-in number formats that are dates or times (ECMA-376 Part 1, 18.8.30 numFmt; 27–36 and 50–58: East Asian dates). */
const BUILT_IN_DATE_FORMATS = new Set([
  14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58,
]);

/** A format code shows a date when, its literals ("…", \x), colours and conditions ([…]) set aside, it has a day, month, year, hour or second. */
function isDateFormatCode(code: string): boolean {
  // Excel's format codes are at most 255 characters; a longer one is no date (and bounds the patterns below).
  if (code.length > 255) return false;
  const bare = code
    .replace(/"[^"]*"/g, "")
    .replace(/\\./g, "")
    .replace(/\[[^\]]*\]/g, "")
    .replace(/[_*]./g, "");
  return /[dmyhs]/i.test(bare);
}

/** Which cell styles (indexes into cellXfs) show a date. */
function dateStyles(read: ReadPart, xml: Uint8Array | undefined, part: string): boolean[] {
  if (!xml) return [];
  const custom = new Map<number, string>();
  const styles: number[] = [];
  let inCellXfs = false;
  read(xml, part, {
    open(name, tag) {
      if (name === "numFmt") {
        const a = attributes(tag);
        custom.set(Number(a.numFmtId), unescapeX(a.formatCode ?? ""));
      } else if (name === "cellXfs") inCellXfs = true;
      else if (name === "xf" && inCellXfs) styles.push(Number(tag.attributes.numFmtId ?? 0));
    },
    close(name) {
      if (name === "cellXfs") inCellXfs = false;
    },
    text() {},
  });
  return styles.map((id) => (custom.has(id) ? isDateFormatCode(custom.get(id)!) : BUILT_IN_DATE_FORMATS.has(id)));
}

/** Column letters to their number (A → 1, XFD → 16,384); 0 when they are not 1 to 3 letters or lie past XFD. */
function columnNumber(letters: string): number {
  if (!/^[A-Z]{1,3}$/.test(letters)) return 0;
  let n = 0;
  for (let i = 0; i < letters.length; i++) n = n * 26 + (letters.charCodeAt(i) - 64);
  return n <= MAX_COLUMN ? n : 0;
}

/** Excel's serial day: day 1 is 1900-01-01 (counted from 1899-12-30 past its 1900-02-29), or from 1904-01-01 in the 1904 system. */
export function serialDate(serial: number, date1904 = false): Date {
  const days = serial + (date1904 ? 1462 : 0);
  return new Date(Math.round((Date.UTC(1899, 11, 30) + days * 86_400_000) / 1000) * 1000);
}

interface SheetContext {
  name: string;
  part: string;
  strings: string[];
  dates: boolean[];
  date1904: boolean;
  /** The last row a cell holding a value may be on, and why (for the refusal). */
  maxRow: number;
  maxRowReason: string;
  /** Cells holding a value read so far, over every sheet. */
  values: { count: number };
}

function sheetRows(read: ReadPart, xml: Uint8Array, ctx: SheetContext): Cell[][] {
  const rows: Cell[][] = [];
  const where = (ref: string) => `Cell ${ref} of sheet ${ctx.name}`;
  const outside = (what: string) =>
    refuse(`${what} of sheet ${ctx.name} lies outside A1:XFD1048576, the extent of a worksheet (columns A to XFD, rows 1 to 1,048,576).`);
  let inData = false;
  let row = 0;
  let column = 0;
  // The cell being read, when it is not empty; its reference as written (null when it has none).
  let cell: { ref: string | null; row: number; column: number; type: string; style: number } | null = null;
  let inValue = false;
  let inInline = false;
  let inInlineText = false;
  let phonetic = 0;
  let hasValue = false;
  const columnLetters = (n: number) => {
    let s = "";
    for (let c = n; c > 0; c = Math.floor((c - 1) / 26)) s = String.fromCharCode(65 + ((c - 1) % 26)) + s;
    return s;
  };
  const refOf = (c: NonNullable<typeof cell>) => c.ref ?? `${columnLetters(c.column)}${c.row}`;
  const buffer = new TextBuffer(() => where(cell ? refOf(cell) : "?"));
  const finish = () => {
    if (!cell || !hasValue) return;
    const text = buffer.take();
    if (cell.row > ctx.maxRow) throw refuse(`${where(refOf(cell))} holds a value; ${ctx.maxRowReason}`);
    let value: Cell;
    switch (cell.type) {
      case "s": {
        const index = /^[0-9]{1,9}$/.test(text) ? Number(text) : -1;
        if (index < 0 || index >= ctx.strings.length) {
          throw refuse(`${where(refOf(cell))} points at shared string ${text.slice(0, 20)}, which the workbook does not have.`);
        }
        value = ctx.strings[index]!;
        break;
      }
      case "b":
        value = text === "1" || text === "true";
        break;
      case "str":
      case "inlineStr":
      case "e":
        value = text;
        break;
      case "d": {
        const date = new Date(text);
        value = Number.isNaN(date.getTime()) ? text : date;
        break;
      }
      default: {
        const number = Number(text);
        value =
          text.trim() === "" ? null : ctx.dates[cell.style] && Number.isFinite(number) ? serialDate(number, ctx.date1904) : new NumberCell(text, ctx.date1904);
      }
    }
    if (value === null) return;
    if (++ctx.values.count > MAX_VALUES) {
      throw refuse(
        `The workbook's sheets hold more than ${count(MAX_VALUES)} cells with a value (at ${where(refOf(cell))}); DGII's test set has about 136,000.`,
      );
    }
    const cells = rows[cell.row - 1] ?? [];
    rows[cell.row - 1] = cells;
    cells[cell.column - 1] = value;
  };
  read(xml, ctx.part, {
    open(name, tag) {
      const selfClosing = tag.isSelfClosing;
      if (name === "sheetData") {
        inData = true;
        return;
      }
      if (!inData) return;
      if (name === "row") {
        const r = tag.attributes.r;
        if (r === undefined) {
          if (++row > MAX_ROW) throw outside(`Row ${row}`);
        } else {
          if (!/^[1-9][0-9]{0,6}$/.test(r) || Number(r) > MAX_ROW) throw outside(`Row ${r.slice(0, 20)}`);
          row = Number(r);
        }
        column = 0;
      } else if (name === "c") {
        const { r: ref, t: type = "n", s: style } = tag.attributes;
        if (ref === undefined) {
          column++;
          if (column > MAX_COLUMN || row < 1) throw outside(`Cell ${columnLetters(column)}${row}`);
        } else {
          const m = ref.length <= 10 ? /^([A-Z]+)([0-9]+)$/.exec(ref) : null;
          const c = m ? columnNumber(m[1]!) : 0;
          if (!m || !c || !/^[1-9][0-9]{0,6}$/.test(m[2]!) || Number(m[2]) > MAX_ROW) throw outside(`Cell ${ref.slice(0, 20)}`);
          column = c;
          row = Number(m[2]);
        }
        // An empty cell (<c/>, a style only) holds no value: nothing is kept of it.
        cell = selfClosing ? null : { ref: ref ?? null, row, column, type, style: style === undefined ? 0 : Number(style) };
        hasValue = false;
      } else if (cell && name === "v") {
        inValue = !selfClosing;
        hasValue = true;
      } else if (cell && name === "is") {
        inInline = true;
        hasValue = true;
      } else if (inInline && name === "rPh") phonetic++;
      else if (inInline && name === "t" && !phonetic) inInlineText = !selfClosing;
    },
    close(name) {
      if (name === "sheetData") inData = false;
      else if (name === "v") inValue = false;
      else if (name === "t") inInlineText = false;
      else if (name === "rPh") phonetic = Math.max(0, phonetic - 1);
      else if (name === "is") inInline = false;
      else if (name === "c") {
        finish();
        cell = null;
        inValue = inInline = inInlineText = false;
      }
    },
    text(text) {
      if (cell && (inValue || inInlineText)) buffer.add(text);
    },
  });
  return rows;
}

/**
 * The workbook's sheet names in order, and the rows of the sheets named in `wanted` (the others are
 * not read). A cell holding a value past row `maxRow` is refused with `maxRowReason`.
 */
export function readWorkbook(bytes: ArrayBuffer, wanted: string[], maxRow: number, maxRowReason: string): { names: string[]; sheets: Sheet[] } {
  const parts = unzipParts(bytes);
  const workbookXml = parts.get("xl/workbook.xml");
  const relsXml = parts.get("xl/_rels/workbook.xml.rels");
  if (!workbookXml || !relsXml) throw refuse(NOT_A_WORKBOOK);
  // Elements read over every part, against MAX_ELEMENTS.
  const elements = { count: 0 };
  const read: ReadPart = (xml, part, handler) => readXml(xml, part, handler, elements);
  const info = workbookInfo(read, workbookXml);
  const rels = relationships(read, relsXml);
  const partOfType = (suffix: string) => [...rels.values()].find((r) => r.type.endsWith(suffix))?.part;
  const stringsPart = partOfType("/sharedStrings") ?? "xl/sharedStrings.xml";
  const stylesPart = partOfType("/styles") ?? "xl/styles.xml";
  const stringsXml = parts.get(stringsPart);
  const strings = stringsXml ? sharedStrings(read, stringsXml, stringsPart) : [];
  const dates = dateStyles(read, parts.get(stylesPart), stylesPart);
  const sheets: Sheet[] = [];
  const values = { count: 0 };
  for (const { name, relationship } of info.sheets) {
    if (!wanted.includes(name)) continue;
    const part = rels.get(relationship)?.part;
    const xml = part ? parts.get(part) : undefined;
    if (!part || xml === undefined) throw refuse(`The workbook names sheet ${name} but has no part for it.`);
    const rows = sheetRows(read, xml, { name, part, strings, dates, date1904: info.date1904, maxRow, maxRowReason, values });
    // Rows without a value are empty, not holes: the reader walks every row.
    sheets.push({ name, rows: Array.from(rows, (r) => r ?? []) });
  }
  return { names: info.sheets.map((s) => s.name), sheets };
}
