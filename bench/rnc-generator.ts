import { zipSync } from "fflate";

/**
 * DGII-shaped taxpayer files for tests and the bench: Windows-1252 text, CRLF line ends, 11
 * pipe-delimited columns (0 id, 1 legal name, 2 trade name, 3 activity, 4-7 empty, 8 start date,
 * 9 status, 10 regime), zipped as TMP/DGII_RNC.TXT. Runs in Node and in workerd.
 */

export const STATUSES = ["ACTIVO", "SUSPENDIDO", "DADO DE BAJA", "ANULADO", "CESE TEMPORAL", "INACTIVO"] as const;

/** Windows-1252 bytes 0x80-0x9F (-1: undefined in the code page). */
const HIGH = [
  0x20ac, -1, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, -1, 0x017d, -1, -1, 0x2018, 0x2019, 0x201c, 0x201d,
  0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, -1, 0x017e, 0x0178,
];
const HIGH_BYTE = new Map<number, number>(HIGH.flatMap((code, i): [number, number][] => (code === -1 ? [] : [[code, 0x80 + i]])));

export function encodeWindows1252(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80 || (code >= 0xa0 && code <= 0xff)) bytes[i] = code;
    else {
      const byte = HIGH_BYTE.get(code);
      if (byte === undefined) throw new Error(`U+${code.toString(16)} is not in Windows-1252`);
      bytes[i] = byte;
    }
  }
  return bytes;
}

export interface DgiiRecord {
  identification: string;
  name: string;
  comercialName?: string;
  status: string;
  activity?: string;
  startDate?: string;
  regime?: string;
}

export function dgiiLine(r: DgiiRecord): string {
  return [
    r.identification,
    r.name,
    r.comercialName ?? "",
    r.activity ?? "VENTA AL POR MENOR",
    "",
    "",
    "",
    "",
    r.startDate ?? "00/00/0000",
    r.status,
    r.regime ?? "NORMAL",
  ].join("|");
}

/** Lines → CRLF-terminated Windows-1252 text (optionally UTF-8 with a byte-order mark instead). */
export function dgiiText(lines: string[], options: { utf8Bom?: boolean } = {}): Uint8Array {
  const text = lines.map((l) => `${l}\r\n`).join("");
  if (!options.utf8Bom) return encodeWindows1252(text);
  const utf8 = new TextEncoder().encode(text);
  const out = new Uint8Array(utf8.length + 3);
  out.set([0xef, 0xbb, 0xbf]);
  out.set(utf8, 3);
  return out;
}

export function dgiiZip(text: Uint8Array, path = "TMP/DGII_RNC.TXT"): Uint8Array {
  return zipSync({ [path]: [text, { level: 6 }] });
}

// ---------------------------------------------------------------------------------------------
// Synthetic records (bench): deterministic, Spanish names with accents and ñ.

const FIRST = [
  "JOSÉ",
  "MARÍA",
  "JUAN",
  "ANA",
  "LUIS",
  "CARMEN",
  "RAMÓN",
  "ÁNGELA",
  "ANDRÉS",
  "SOFÍA",
  "MIGUEL",
  "NOEMÍ",
  "HÉCTOR",
  "INÉS",
  "JESÚS",
  "ROSA",
  "RAÚL",
  "LUCÍA",
  "TOMÁS",
  "BEATRIZ",
];
const LAST = [
  "PEÑA",
  "NÚÑEZ",
  "MUÑOZ",
  "GÓMEZ",
  "RODRÍGUEZ",
  "ALMÁNZAR",
  "PÉREZ",
  "MARTÍNEZ",
  "FERNÁNDEZ",
  "DÍAZ",
  "CASTAÑO",
  "IBÁÑEZ",
  "BATISTA",
  "SANTANA",
  "DE LA CRUZ",
  "MEJÍA",
  "GARCÍA",
  "ORTIZ",
  "VALDÉZ",
  "ESPAÑOL",
];
const WORDS = [
  "INVERSIONES",
  "COMERCIAL",
  "CONSTRUCTORA",
  "FARMACIA",
  "FERRETERÍA",
  "DISTRIBUIDORA",
  "PANADERÍA",
  "TECNOLOGÍA",
  "AGROINDUSTRIAL",
  "SERVICIOS",
  "COMPAÑÍA",
  "IMPORTADORA",
  "CAFETERÍA",
  "LAVANDERÍA",
  "ÓPTICA",
];
const PLACES = ["DEL CARIBE", "QUISQUEYANA", "DEL CIBAO", "ORIENTAL", "SANTO DOMINGO", "LA ROMANA", "BÁVARO", "SAMANÁ", "BANÍ", "MOCA", "DAJABÓN", "HIGÜEY"];
const SUFFIX = ["SRL", "SAS", "S.A.", "EIRL", ""];

/** Mulberry32: a small deterministic PRNG. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The identification of synthetic record `i`: 9-digit RNCs and 11-digit cédulas, unique per i. */
export function syntheticId(i: number): string {
  return i % 3 === 0 ? String(100_000_000 + i) : String(40_200_000_000 + i);
}

/**
 * Synthetic record `i` of generation `version` (0 = first file). Later versions rename about 1 %
 * of the records and change the status of another 1 %; the caller decides which i exist.
 */
export function syntheticRecord(i: number, version = 0): DgiiRecord {
  const r = prng(i * 7919 + 17);
  const pick = <T>(list: readonly T[]) => list[Math.floor(r() * list.length)]!;
  const person = i % 3 !== 0;
  let name = person ? `${pick(FIRST)} ${pick(FIRST)} ${pick(LAST)} ${pick(LAST)}` : `${pick(WORDS)} ${pick(LAST)} ${pick(PLACES)} ${pick(SUFFIX)}`.trim();
  let comercialName = person ? (r() < 0.2 ? `${pick(WORDS)} ${pick(FIRST)}` : "") : r() < 0.7 ? `${pick(WORDS)} ${pick(PLACES)}` : "";
  const roll = r();
  let status: string = roll < 0.8 ? "ACTIVO" : STATUSES[1 + Math.floor(r() * (STATUSES.length - 1))]!;
  if (version > 0 && i % 97 === version % 97) name = `${name} ${pick(PLACES)}`;
  if (version > 0 && i % 101 === version % 101) status = status === "ACTIVO" ? "SUSPENDIDO" : "ACTIVO";
  if (i % 500 === 7) comercialName = `  ${comercialName}   ${pick(WORDS)}  `; // stray whitespace
  const day = String(1 + (i % 28)).padStart(2, "0");
  const month = String(1 + (i % 12)).padStart(2, "0");
  return {
    identification: syntheticId(i),
    name,
    comercialName,
    status,
    activity: pick(WORDS),
    startDate: i % 10 === 0 ? "00/00/0000" : `${day}/${month}/${1960 + (i % 60)}`,
    regime: i % 4 === 0 ? "RST" : "NORMAL",
  };
}

/** A malformed line for position `i` (wrong column count, empty id, non-digit id). */
export function malformedLine(i: number): string {
  switch (i % 3) {
    case 0:
      return `${syntheticId(i)}|SOLO TRES|COLUMNAS`;
    case 1:
      return dgiiLine({ identification: "   ", name: "SIN IDENTIFICACIÓN", status: "ACTIVO" });
    default:
      return dgiiLine({ identification: `1-0${i}X`, name: "IDENTIFICACIÓN INVÁLIDA", status: "ACTIVO" });
  }
}
