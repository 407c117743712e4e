/**
 * Turns a format definition (model.ts) into the XSD 1.0 text of one document kind, the shape DGII's
 * schemas have (nested anonymous sequences, named simple types), so that libxml2 (xmllint-wasm)
 * judges a document by our definitions exactly as by DGII's (test/node/formats-conformance.test.ts).
 */

import type { DocumentFormat, KindDependent, SimpleType } from "./model";

export interface Row {
  depth: number;
  name: string;
  presence: string;
  max: string;
  type: string;
  children: Row[];
}

export function parseRows(table: string, kinds: number): Row[] {
  const root: Row[] = [];
  const stack: Row[] = [];
  for (const line of table.split("\n")) {
    if (!line.trim()) continue;
    const indent = line.length - line.trimStart().length;
    const [name, presence, max, type, ...rest] = line.trim().split(/\s+/);
    if (indent % 2 || !name || !presence || !max || !type || rest.length || presence.length !== kinds || !/^[013]+$/.test(presence)) {
      throw new Error(`format table: malformed line "${line}"`);
    }
    const row: Row = { depth: indent / 2, name, presence, max, type, children: [] };
    stack.length = row.depth;
    const parent = stack[row.depth - 1];
    if (row.depth && !parent) throw new Error(`format table: "${name}" has no parent`);
    (parent ? parent.children : root).push(row);
    stack.push(row);
  }
  return root;
}

/** `a|33,34:b` → b for kind 33 and 34, a for the others. */
export function forKind(value: string, kind: string): string {
  const [fallback, ...variants] = value.split("|");
  for (const variant of variants) {
    const colon = variant.indexOf(":");
    if (variant.slice(0, colon).split(",").includes(kind)) return variant.slice(colon + 1);
  }
  return fallback as string;
}

const attribute = (value: string) => value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

const FACETS = ["length", "minLength", "maxLength", "totalDigits", "fractionDigits", "minInclusive", "maxInclusive", "minExclusive", "maxExclusive"] as const;

function simpleType(name: string, type: SimpleType): string {
  const facets = [
    ...(type.enumeration ?? []).map((value) => `<xs:enumeration value="${attribute(value)}"/>`),
    ...(type.pattern ?? []).map((value) => `<xs:pattern value="${attribute(value)}"/>`),
    ...FACETS.filter((facet) => type[facet] !== undefined).map((facet) => `<xs:${facet} value="${attribute(String(type[facet]))}"/>`),
  ];
  return `<xs:simpleType name="${name}"><xs:restriction base="xs:${type.base}">${facets.join("")}</xs:restriction></xs:simpleType>`;
}

function resolve(definition: SimpleType | KindDependent, kind: string): SimpleType {
  if (!("fallback" in definition)) return definition;
  for (const [kinds, variant] of Object.entries(definition.variants)) if (kinds.split(" ").includes(kind)) return variant;
  return definition.fallback;
}

/** The XSD text of `format` for `kind` (one of `format.kinds`). */
export function schemaOf(format: DocumentFormat, kind: string): string {
  const index = format.kinds.indexOf(kind);
  if (index < 0) throw new Error(`format: no kind ${kind}`);
  const used = new Set<string>();
  const element = (row: Row): string => {
    const presence = row.presence[index];
    const max = forKind(row.max, kind);
    const occurs = `minOccurs="${presence === "1" ? 1 : 0}" maxOccurs="${max === "n" ? "unbounded" : max}"`;
    if (row.type === "any") return `<xs:any processContents="skip" ${occurs}/>`;
    if (row.type === "-") {
      const children = row.children.filter((child) => child.presence[index] !== "0").map(element);
      return `<xs:element name="${row.name}" ${occurs}><xs:complexType><xs:sequence>${children.join("")}</xs:sequence></xs:complexType></xs:element>`;
    }
    const type = forKind(row.type, kind);
    if (!type.startsWith("xs:")) {
      if (!format.types[type]) throw new Error(`format: ${row.name} has an unknown type ${type}`);
      used.add(type);
    }
    return `<xs:element name="${row.name}" type="${type}" ${occurs}/>`;
  };
  const [root, ...others] = parseRows(format.elements, format.kinds.length);
  if (!root || others.length || root.presence[index] !== "1") throw new Error("format table: one root element, present");
  const body = `<xs:element name="${root.name}"><xs:complexType><xs:sequence>${root.children
    .filter((child) => child.presence[index] !== "0")
    .map(element)
    .join("")}</xs:sequence></xs:complexType></xs:element>`;
  const types = [...used].map((name) => simpleType(name, resolve(format.types[name] as SimpleType | KindDependent, kind)));
  return `<?xml version="1.0" encoding="utf-8"?>\n<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">${body}${types.join("")}</xs:schema>\n`;
}
