/**
 * The vocabulary of the format definitions (ecf.ts, messages.ts): simple types and element tables,
 * which schema.ts turns into XSD 1.0 text. The facts (element names and order, types, lengths,
 * patterns, code tables, presence per e-CF type) are DGII's: see docs/ecf.md, "The formats".
 */

export type Base = "string" | "integer" | "decimal";

/** An XSD simple type: a restriction of `base` by the facets given (all of them must hold). */
export interface SimpleType {
  base: Base;
  /** The code table: the value must be one of these. */
  enumeration?: readonly string[];
  /** XSD regular expressions, matched against the whole value; one of them must match. */
  pattern?: readonly string[];
  length?: number;
  minLength?: number;
  maxLength?: number;
  totalDigits?: number;
  fractionDigits?: number;
  minInclusive?: number | string;
  maxInclusive?: number | string;
  minExclusive?: number | string;
  maxExclusive?: number | string;
}

/** A simple type whose definition differs between e-CF types: `variants` keyed by kinds ("33 34"). */
export interface KindDependent {
  fallback: SimpleType;
  variants: Record<string, SimpleType>;
}

export interface DocumentFormat {
  /** The schema's name, as `validateAgainstSchema` takes it: "e-CF-31", "ARECF", … */
  kinds: readonly string[];
  types: Record<string, SimpleType | KindDependent>;
  /**
   * The elements in document order, one a line, nested by two spaces:
   * `name  presence  maxOccurs  type`. presence has one character per kind (in `kinds`' order):
   * 0 absent, 1 mandatory, 3 optional (DGII's conditional elements, 2, are optional to a schema:
   * their condition is not a schema rule). maxOccurs is a number or `n` (unbounded); type is a
   * simple type of `types`, `xs:string`/`xs:dateTime`, `-` for an element holding others, or `any`
   * for the signature (`*`: any one element, not validated). maxOccurs and type may differ by kind:
   * `1000|33,34:10000` is 10000 in E33 and E34, 1000 elsewhere.
   */
  elements: string;
}

/**
 * A code table written compactly: codes separated by spaces; `a-b` is every integer from a to b,
 * zero-padded to a's width when a starts with 0 ("01-06" is 01 02 … 06, "1-62" is 1 … 62).
 */
export function list(spec: string): string[] {
  const out: string[] = [];
  for (const token of spec.trim().split(/\s+/)) {
    const range = /^(\d+)-(\d+)$/.exec(token);
    if (!range) {
      out.push(token);
      continue;
    }
    const [, from, to] = range as unknown as [string, string, string];
    const width = from.length > 1 && from.startsWith("0") ? from.length : 0;
    for (let n = Number(from); n <= Number(to); n++) out.push(String(n).padStart(width, "0"));
  }
  return out;
}

/** A code table of `base` values (see `list`). */
export const codes = (base: Base, spec: string): SimpleType => ({ base, enumeration: list(spec) });

/** Text of `min` to `max` characters. */
export const text = (minLength: number, maxLength: number): SimpleType => ({ base: "string", minLength, maxLength });

/** A type defined one way for most kinds and otherwise for some: `byKind(t, { "33 34": u })`. */
export const byKind = (fallback: SimpleType, variants: Record<string, SimpleType>): KindDependent => ({ fallback, variants });
