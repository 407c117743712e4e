/**
 * NCF (Número de Comprobante Fiscal) formats and document numbers of a document subtype.
 *
 * - Paper/printed series: `B` + 2-digit type + 8-digit sequence = 11 characters, types
 *   01 02 03 04 11 12 13 14 15 16 17.
 * - Electronic (e-CF): `E` + 2-digit type + 10-digit sequence = 13 characters, types
 *   31 32 33 34 41 43 44 45 46 47.
 * - Non-fiscal series (quotations): any prefix of 1-10 letters, digits or dashes + 8 digits
 *   (`COT00000001`).
 *
 * Used by the document subtypes module (prefix validation, validate-ncf) and by invoices and
 * quotations to number documents: `formatDocumentNumber(subtype.prefix, n)`, or `documentNumberSql`
 * inside a statement.
 */
const B_SERIES = ["B01", "B02", "B03", "B04", "B11", "B12", "B13", "B14", "B15", "B16", "B17"] as const;
const E_SERIES = ["E31", "E32", "E33", "E34", "E41", "E43", "E44", "E45", "E46", "E47"] as const;

/** Every fiscal prefix (B and E series): a subtype with one of them numbers NCFs. */
export function isNcfPrefix(prefix: string): boolean {
  return (B_SERIES as readonly string[]).includes(prefix) || (E_SERIES as readonly string[]).includes(prefix);
}

/**
 * The name of each NCF type as printed on the document: the e-CF types as DGII's Formato e-CF
 * v1.0 lists them ("Tipo de e-CF"), the B series as Norma General 06-2018 names them.
 */
const TYPE_NAMES: Record<string, string> = {
  "01": "Factura de Crédito Fiscal",
  "02": "Factura de Consumo",
  "03": "Nota de Débito",
  "04": "Nota de Crédito",
  "11": "Comprobante de Compras",
  "12": "Registro Único de Ingresos",
  "13": "Comprobante para Gastos Menores",
  "14": "Comprobante para Regímenes Especiales",
  "15": "Comprobante Gubernamental",
  "16": "Comprobante para Exportaciones",
  "17": "Comprobante para Pagos al Exterior",
  "31": "Factura de Crédito Fiscal Electrónica",
  "32": "Factura de Consumo Electrónica",
  "33": "Nota de Débito Electrónica",
  "34": "Nota de Crédito Electrónica",
  "41": "Compras Electrónico",
  "43": "Gastos Menores Electrónico",
  "44": "Regímenes Especiales Electrónica",
  "45": "Gubernamental Electrónico",
  "46": "Comprobante para Exportaciones Electrónico",
  "47": "Comprobante para Pagos al Exterior Electrónico",
};

/** The printed name of a fiscal prefix's document type ("B01" → "Factura de Crédito Fiscal"); null for other prefixes. */
export function documentTypeName(prefix: string): string | null {
  return isNcfPrefix(prefix) ? (TYPE_NAMES[prefix.slice(1)] ?? null) : null;
}

/** Prefixes usable by a subtype of each document type. */
export const PREFIXES_BY_TYPE = {
  invoice: [...B_SERIES, ...E_SERIES],
  credit_note: ["B04", "E34"],
  debit_note: ["B03", "E33"],
} as const satisfies Record<string, readonly string[]>;

/**
 * NCF types a sales invoice may carry (Norma General 06-2018, art. 4; Formato e-CF v1.0, "Tipo de
 * e-CF"): crédito fiscal, consumo, regímenes especiales, gubernamental, exportaciones. 03/04 and
 * 33/34 are debit and credit notes (their own endpoints); 11/13/17 and 41/43/47 are issued by the
 * buyer (compras, gastos menores, pagos al exterior), never on a sale. 12 (registro único de
 * ingresos) is not a document given to a buyer.
 */
export const SALES_INVOICE_PREFIXES: readonly string[] = ["B01", "B02", "B14", "B15", "B16", "E31", "E32", "E44", "E45", "E46"];
export const NOTE_PREFIXES: readonly string[] = ["B03", "B04", "E33", "E34"];

/**
 * A paper NCF issued in contingency and the e-CF type that replaces it (Formato e-CF v1.0,
 * section F, NCFModificado: with CodigoModificacion 4 "el tipo del NCF modificado sea el
 * equivalente al tipo de e-CF que se está emitiendo"; CERTIFICATION.md, "Contingency"): the sales
 * invoices (issue 33), and the debit and credit notes B03 → E33, B04 → E34 (issue 43).
 */
export const REPLACEMENT_ECF_PREFIX: Readonly<Record<string, string>> = {
  B01: "E31",
  B02: "E32",
  B14: "E44",
  B15: "E45",
  B16: "E46",
  B03: "E33",
  B04: "E34",
};
export const PAPER_REPLACEABLE_PREFIXES: readonly string[] = Object.keys(REPLACEMENT_ECF_PREFIX);

export const FREE_PREFIX = /^[A-Z0-9-]{1,10}$/;

/**
 * A pattern of the texts a subtype's prefix field takes for these prefixes: any case (the API
 * upper-cases it) and spaces around (trimmed), for the OpenAPI document.
 */
export function prefixPattern(prefixes: readonly string[]): string {
  const caseless = (prefix: string) => prefix.replace(/[A-Z]/g, (letter) => `[${letter}${letter.toLowerCase()}]`);
  return `^\\s*(?:${prefixes.map(caseless).join("|")})\\s*$`;
}

/** A quotation's prefix as the field takes it: 1 to 10 letters, digits or dashes, never an NCF type's `B`/`E` and two digits. */
export const QUOTATION_PREFIX_PATTERN = "^\\s*(?![BbEe]\\d{2}\\s*$)[A-Za-z0-9-]{1,10}\\s*$";
export const ELECTRONIC_PREFIXES: readonly string[] = E_SERIES;

export function isElectronicPrefix(prefix: string): boolean {
  return (E_SERIES as readonly string[]).includes(prefix);
}

export const ELECTRONIC_DIGITS = 10;
export const SERIES_DIGITS = 8;

/** Digits of the sequence part: 10 for e-CF, 8 for B series and free prefixes. */
/** A document number that is an e-NCF (E…): its document has a signed e-CF. */
export function isElectronicNumber(documentNumber: string | null): boolean {
  return documentNumber !== null && isElectronicPrefix(documentNumber.slice(0, 3));
}

export function sequenceDigits(prefix: string): number {
  return isElectronicPrefix(prefix) ? ELECTRONIC_DIGITS : SERIES_DIGITS;
}

/** The largest sequence number the prefix can express (99,999,999 or 9,999,999,999). */
export function maxSequence(prefix: string): number {
  return 10 ** sequenceDigits(prefix) - 1;
}

/** `B01` + 1 → `B0100000001`; `E31` + 1 → `E310000000001`; `COT` + 1 → `COT00000001`. */
export function formatDocumentNumber(prefix: string, sequence: number): string {
  const digits = sequenceDigits(prefix);
  if (!Number.isSafeInteger(sequence) || sequence < 0 || sequence > maxSequence(prefix)) {
    throw new RangeError(`sequence ${sequence} does not fit ${digits} digits`);
  }
  return `${prefix}${String(sequence).padStart(digits, "0")}`;
}

/**
 * formatDocumentNumber in SQL, for statements that number rows themselves (the invoice insert takes
 * its number in the same statement). `prefix` and `sequence` are SQL expressions written by the
 * caller, never request input.
 */
export function documentNumberSql(prefix: string, sequence: string): string {
  const electronic = E_SERIES.map((p) => `'${p}'`).join(", ");
  return `${prefix} || lpad((${sequence})::text, CASE WHEN ${prefix} IN (${electronic}) THEN ${ELECTRONIC_DIGITS} ELSE ${SERIES_DIGITS} END, '0')`;
}

/** Parses a document number of a given prefix (fiscal or free); null when it does not have that form. */
export function parseDocumentNumber(prefix: string, raw: string): number | null {
  const value = raw.trim().toUpperCase();
  if (!value.startsWith(prefix)) return null;
  const rest = value.slice(prefix.length);
  return new RegExp(`^\\d{${sequenceDigits(prefix)}}$`).test(rest) ? Number(rest) : null;
}

/** Human description of the expected form of numbers of a prefix, for messages. */
export function describeFormat(prefix: string): string {
  const digits = sequenceDigits(prefix);
  return `${prefix} followed by ${digits} digits (${prefix.length + digits} characters)`;
}

/** The e-CF types (TipoeCF, Formato e-CF v1.0): E31 crédito fiscal … E47 pagos al exterior. */
export type EcfType = "31" | "32" | "33" | "34" | "41" | "43" | "44" | "45" | "46" | "47";
