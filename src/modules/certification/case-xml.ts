/**
 * A case of DGII's test sets (issue 32, steps 2 and 3) as the XML of its document: the row's
 * values, element by element, in the order of our definition of DGII's format for its type
 * (src/modules/ecf/formats/: Formato e-CF v1.0, Formato RFCE v1.0, Formato ACECF v1.0). Nothing is
 * recomputed: each element holds the row's text. Only what the set cannot carry is added: the
 * run's e-NCF (a rerun takes new numbers), FechaHoraFirma (when it is signed) and, for a summary
 * (RFCE), the security code of the E32 it summarizes (CodigoSeguridadeCF).
 *
 * The set's columns name the elements (test-set-columns.ts): `Campo` once per document, `Campo[n]`
 * for the n-th of a repeated element (a line, a payment, a phone, a global discount, a page) and
 * `Campo[n][m]` for the m-th entry of line n's tables. So an element's column carries one index per
 * repeated element around it. The set spells three columns its own way: ENCF (IdDoc's eNCF),
 * NumeroLineaDoR (DescuentoORecargo's NumeroLinea), and the Subtotal section, repeated in the
 * schema, is written once without an index. A field that no element of the document's type takes
 * (an element absent from that type, a column no schema has) is a problem of the case.
 */

import type { SchemaName } from "../ecf/formats";
import { ECF_FORMAT, ECF_KINDS } from "../ecf/formats/ecf";
import { ACECF_FORMAT, RFCE_FORMAT } from "../ecf/formats/messages";
import type { DocumentFormat } from "../ecf/formats/model";
import { forKind, parseRows, type Row } from "../ecf/formats/schema";
import { built, type SignableXml } from "../ecf/signature";
import type { CaseDocument } from "./test-set-reader";

export interface CaseInput {
  document: CaseDocument;
  /** TipoeCF. */
  type: string;
  fields: [string, string][];
}

export interface CaseXmlOptions {
  /** The e-NCF the document carries: the run's (by default the set's own, field ENCF/eNCF). */
  encf?: string;
  /** FechaHoraFirma of an e-CF, dd-MM-yyyy HH:mm:ss. */
  signedAt?: string;
  /** CodigoSeguridadeCF of a summary (RFCE): the first 6 characters of its E32's SignatureValue. */
  securityCode?: string;
  /**
   * The set's e-NCF → this run's, for the references between cases (a note's NCFModificado naming
   * an invoice of the set): a rerun's notes modify that run's invoices, not the first run's.
   */
  references?: ReadonlyMap<string, string>;
}

export interface CaseProblem {
  column: string;
  message: string;
  /**
   * A required element the row leaves empty: the group it is missing from and that group's
   * elements. libxml2 says it of the group ("Missing child element(s)") or of an element after it
   * in the group ("not expected"), with a list of what was expected that it cuts short.
   */
  missingFrom?: { group: string; elements: string[] };
}

export interface CaseXml {
  /** The unsigned document; it is signed as it stands (the Signature becomes the root's last child). */
  xml: SignableXml;
  schema: SchemaName;
  /** Fields the document could not place: each names its column and why. */
  problems: CaseProblem[];
}

/** The set's name of an element where it differs from the schema's, by the element's path. */
const COLUMN_OF_PATH: Record<string, string> = {
  "IdDoc/eNCF": "ENCF",
  "DescuentoORecargo/NumeroLinea": "NumeroLineaDoR",
};

/** Repeated in the schema, written once in the set (Subtotales of sheet ECF carries no index). */
const UNINDEXED = new Set(["Subtotal"]);
/** Once in the schema, indexed in the set: the page's additional-tax subtotals, `Campo[n][1]`. */
const INDEXED = new Set(["SubtotalImpuestoAdicional"]);

interface Tree {
  rows: Row[];
  index: number;
  kind: string;
}

const ECF_TREE = parseRows(ECF_FORMAT.elements, ECF_FORMAT.kinds.length);
const RFCE_TREE = parseRows(RFCE_FORMAT.elements, 1);
const ACECF_TREE = parseRows(ACECF_FORMAT.elements, 1);

function treeOf(input: CaseInput): { tree: Tree; schema: SchemaName; format: DocumentFormat } {
  if (input.document === "rfce") return { tree: { rows: RFCE_TREE, index: 0, kind: "RFCE-32" }, schema: "RFCE-32", format: RFCE_FORMAT };
  if (input.document === "acecf") return { tree: { rows: ACECF_TREE, index: 0, kind: "ACECF" }, schema: "ACECF", format: ACECF_FORMAT };
  const index = (ECF_KINDS as readonly string[]).indexOf(input.type);
  if (index < 0) throw new Error(`case-xml: no e-CF type ${input.type}`);
  return { tree: { rows: ECF_TREE, index, kind: input.type }, schema: `e-CF-${input.type}` as SchemaName, format: ECF_FORMAT };
}

const escapeXml = (value: string) => value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");

const indexText = (indexes: number[]) => indexes.map((i) => `[${i}]`).join("");

/** `MontoSubDescuento[1][2]` → ["MontoSubDescuento", [1, 2]]. */
function splitName(name: string): [string, number[]] {
  const match = /^([A-Za-z0-9]+)((?:\[\d+\])*)$/.exec(name);
  if (!match) return [name, []];
  return [match[1]!, [...match[2]!.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]))];
}

/**
 * The case's document. `problems` lists what the row holds that the document cannot place; the
 * XML is built from the rest (a document with problems is never sent: the import refuses it).
 */
export function caseXml(input: CaseInput, options: CaseXmlOptions = {}): CaseXml {
  const { tree, schema } = treeOf(input);
  /** base column → (index text → value). */
  const values = new Map<string, Map<string, string>>();
  const used = new Set<string>();
  const put = (name: string, value: string) => {
    const [base, indexes] = splitName(name);
    const byIndex = values.get(base) ?? new Map<string, string>();
    byIndex.set(indexText(indexes), value);
    values.set(base, byIndex);
  };
  for (const [name, value] of input.fields) {
    if (name === "CasoPrueba") continue;
    put(name, value);
  }
  const reference = values.get("NCFModificado")?.get("");
  if (reference !== undefined && options.references?.has(reference)) put("NCFModificado", options.references.get(reference)!);
  if (options.encf) put(input.document === "acecf" ? "eNCF" : "ENCF", options.encf);
  if (options.signedAt && input.document === "ecf") put("FechaHoraFirma", options.signedAt);
  if (options.securityCode && input.document === "rfce") put("CodigoSeguridadeCF", options.securityCode);

  const present = (row: Row) => row.presence[tree.index] !== "0";
  const repeated = (row: Row) => !UNINDEXED.has(row.name) && (INDEXED.has(row.name) || forKind(row.max, tree.kind) !== "1");
  const columnOf = (row: Row, parent: string) => COLUMN_OF_PATH[`${parent}/${row.name}`] ?? row.name;

  /** The leaves under `row` (itself if a leaf) as [column, index count below the prefix]. */
  const leaves = (row: Row, parent: string, depth: number): [string, number][] => {
    if (row.type === "any") return [];
    if (row.type !== "-") return [[columnOf(row, parent), depth + (repeated(row) ? 1 : 0)]];
    const inner = depth + (repeated(row) ? 1 : 0);
    return row.children.filter(present).flatMap((child) => leaves(child, row.name, inner));
  };

  /** The indexes at position `prefix.length` that the fields give for the leaves under `row`. */
  const entries = (row: Row, parent: string, prefix: number[]): number[] => {
    const found = new Set<number>();
    const head = indexText(prefix);
    for (const [column, count] of leaves(row, parent, prefix.length)) {
      for (const key of values.get(column)?.keys() ?? []) {
        const [, indexes] = splitName(`x${key}`);
        if (indexes.length === count && key.startsWith(head)) found.add(indexes[prefix.length]!);
      }
    }
    return [...found].sort((a, b) => a - b);
  };

  const problems: CaseProblem[] = [];
  const what =
    input.document === "ecf"
      ? `an E${input.type} (Formato e-CF v1.0)`
      : input.document === "rfce"
        ? "a summary RFCE (Formato RFCE v1.0)"
        : "an ACECF (Formato ACECF v1.0)";
  const mandatory = (row: Row) => row.presence[tree.index] === "1";

  /**
   * The first element the schema requires under `row` (itself for a leaf), as the column a row
   * fills it from: a mandatory group left empty is named by the first cell it needs.
   */
  const firstRequired = (row: Row, parent: string, indexes: number[]): { column: string; element: string } | null => {
    const own = repeated(row) ? [...indexes, 1] : indexes;
    if (row.type !== "-") return { column: `${columnOf(row, parent)}${indexText(own)}`, element: row.name };
    for (const child of row.children) {
      if (!present(child) || !mandatory(child) || child.type === "any") continue;
      const found = firstRequired(child, row.name, own);
      if (found) return found;
    }
    return null;
  };

  const emit = (row: Row, parent: string, prefix: number[]): string => {
    if (!present(row) || row.type === "any") return "";
    const occurrences = repeated(row) ? entries(row, parent, prefix).map((i) => [...prefix, i]) : [prefix];
    let out = "";
    for (const indexes of occurrences) {
      if (row.type !== "-") {
        const column = columnOf(row, parent);
        const key = indexText(indexes);
        const value = values.get(column)?.get(key);
        if (value === undefined) continue;
        used.add(`${column}${key}`);
        out += `<${row.name}>${escapeXml(value)}</${row.name}>`;
      } else {
        const inner = row.children.map((child) => ({ child, xml: emit(child, row.name, indexes) }));
        if (inner.every((part) => !part.xml)) {
          // A group the schema requires whose elements are all optional is written empty (an E32's Comprador without a buyer).
          if (mandatory(row) && !repeated(row) && !firstRequired(row, parent, prefix)) out += `<${row.name}></${row.name}>`;
          continue;
        }
        // A mandatory element the row leaves empty: named by its cell, in words (libxml2 would name the parent).
        for (const { child, xml } of inner) {
          if (xml || !present(child) || !mandatory(child) || child.type === "any") continue;
          const required = firstRequired(child, row.name, indexes);
          if (required)
            problems.push({
              column: required.column,
              message: `is empty (or #e), but ${what} requires it: ${required.element} of ${child.type === "-" ? child.name : row.name}.`,
              missingFrom: { group: row.name, elements: row.children.map((c) => c.name) },
            });
        }
        out += `<${row.name}>${inner.map((part) => part.xml).join("")}</${row.name}>`;
      }
    }
    return out;
  };

  const root = tree.rows[0]!;
  const xml = `<?xml version="1.0" encoding="utf-8"?>${emit(root, "", []) || `<${root.name}></${root.name}>`}`;
  for (const [column, byIndex] of values) {
    for (const key of byIndex.keys()) {
      if (!used.has(`${column}${key}`))
        problems.push({ column: `${column}${key}`, message: `is not an element of ${what}: the document has no place for it.` });
    }
  }
  return { xml: built(xml), schema, problems };
}

/**
 * The document with a stand-in for the Signature it will carry, to check it against its schema
 * before it is signed (each schema ends with the Signature, a mandatory xs:any).
 */
export function withSignaturePlaceholder(xml: string): string {
  const close = xml.lastIndexOf("</");
  return `${xml.slice(0, close)}<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"/>${xml.slice(close)}`;
}

/** libxml2's `line 1: element MontoExento: Schemas validity error : Element 'MontoExento': …` → the element it names. */
export function schemaErrorColumn(message: string): string {
  return /Element '([^']+)'/.exec(message)?.[1] ?? /element (\w+)/.exec(message)?.[1] ?? "document";
}

/**
 * Whether libxml2's error is one a missing element (CaseProblem.missingFrom) already says: the
 * group's "Missing child element(s)", or "This element is not expected" of an element of the same
 * group after it (the case's XML holds its elements in the schema's order, so that is the only way
 * an element of the group comes unexpected).
 */
export function explainedByMissing(message: string, problems: CaseProblem[]): boolean {
  const element = /Element '([^']+)'/.exec(message)?.[1];
  if (!element) return false;
  return problems.some(
    (p) =>
      p.missingFrom !== undefined &&
      ((/Missing child element/.test(message) && element === p.missingFrom.group) ||
        (/not expected/.test(message) && p.missingFrom.elements.includes(element))),
  );
}
