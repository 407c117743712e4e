import { CEDULA_EXCEPTIONS, RNC_EXCEPTIONS } from "./identification-exceptions";

/**
 * Dominican identification numbers: RNC (9 digits, DGII check digit), cédula (11 digits, Luhn) and
 * passports (free, 5-20 letters and digits). Input may carry spaces and dashes; numbers are stored
 * as digits only. The real numbers the DGII issued that fail their check digit are accepted
 * (see identification-exceptions.ts).
 */
export const IDENTIFICATION_TYPES = ["rnc", "cedula", "passport"] as const;
export type IdentificationType = (typeof IDENTIFICATION_TYPES)[number];

const RNC_WEIGHTS = [7, 9, 8, 6, 5, 4, 3, 2] as const;

/** Strips spaces and dashes (and surrounding whitespace). */
export function compactIdentification(raw: string): string {
  return raw.replace(/[\s-]+/g, "");
}

/** The RNC check digit of the first 8 digits: r = Σ wᵢdᵢ mod 11, check = (10 − r) mod 9 + 1. */
function rncCheckDigit(first8: string): number {
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += RNC_WEIGHTS[i]! * Number(first8[i]);
  return ((10 - (sum % 11)) % 9) + 1;
}

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function isValidRnc(raw: string): boolean {
  const n = compactIdentification(raw);
  if (!/^\d+$/.test(n)) return false;
  if (RNC_EXCEPTIONS.has(n)) return true;
  return n.length === 9 && rncCheckDigit(n.slice(0, 8)) === Number(n[8]);
}

function isValidCedula(raw: string): boolean {
  const n = compactIdentification(raw);
  if (!/^\d+$/.test(n)) return false;
  if (CEDULA_EXCEPTIONS.has(n)) return true;
  return n.length === 11 && luhnValid(n);
}

type IdentificationResult = { ok: true; value: string } | { ok: false; message: string };

/** Validates and normalizes an identification of the given type. */
export function normalizeIdentification(type: IdentificationType, raw: string): IdentificationResult {
  const n = compactIdentification(raw.trim());
  switch (type) {
    case "rnc":
      if (!/^\d{9}$/.test(n) && !RNC_EXCEPTIONS.has(n)) return { ok: false, message: "An RNC has 9 digits." };
      return isValidRnc(n) ? { ok: true, value: n } : { ok: false, message: "This RNC has an invalid check digit." };
    case "cedula":
      if (!/^\d{11}$/.test(n) && !CEDULA_EXCEPTIONS.has(n)) return { ok: false, message: "A cédula has 11 digits." };
      return isValidCedula(n) ? { ok: true, value: n } : { ok: false, message: "This cédula has an invalid check digit." };
    case "passport": {
      const value = n.toUpperCase();
      return /^[A-Z0-9]{5,20}$/.test(value) ? { ok: true, value } : { ok: false, message: "A passport number has 5 to 20 letters and digits." };
    }
  }
}

/**
 * The attributes of a certificate's subject that name its holder's taxpayer id (X.520): serialNumber
 * (2.5.4.5) and organizationIdentifier (2.5.4.97).
 */
export type CertificateIdAttribute = "serialNumber" | "organizationIdentifier";

/**
 * The semantics identifiers (ETSI EN 319 412-1, 5.1.3 and 5.1.4: three letters of the scheme, the
 * country, "-", the number) that INDOTEL-accredited authorities write on the certificates taxpayers
 * sign e-CF with, and what each may hold (docs/security.md, "Who a certificate names"):
 * `IDCDO-` a cédula (identity card) in serialNumber, on a person's certificate for tax procedures;
 * `VATDO-` an RNC (or the cédula a person is registered under) in organizationIdentifier, on a
 * company's. Any other (a passport `PASDO-`, another country's, a bare number) names no RNC nor
 * cédula: read as one, a passport number of 9 digits would pass for someone's RNC.
 */
const CERTIFICATE_ID_SCHEMES: Record<CertificateIdAttribute, Record<string, readonly ("rnc" | "cedula")[]>> = {
  serialNumber: { IDCDO: ["cedula"] },
  organizationIdentifier: { VATDO: ["rnc", "cedula"] },
};

const HOW_AUTHORITIES_WRITE = "an accredited authority writes a cédula as serialNumber IDCDO-…, an RNC as organizationIdentifier VATDO-…";

/** The RNC or cédula (digits) a certificate's serialNumber or organizationIdentifier names, with valid check digits; else why not. */
export function certificateIdentifier(attribute: CertificateIdAttribute, raw: string): IdentificationResult {
  const value = raw.trim().slice(0, 64);
  const match = /^([A-Z]{3}[A-Z]{2})-(.{1,40})$/.exec(value);
  if (!match) return { ok: false, message: `The certificate's ${attribute} "${value}" names no Dominican taxpayer: ${HOW_AUTHORITIES_WRITE}.` };
  const types = CERTIFICATE_ID_SCHEMES[attribute][match[1]!];
  if (!types) {
    const what = match[1] === "PASDO" ? "a passport" : `a ${match[1]}- identifier`;
    return { ok: false, message: `The certificate's ${attribute} ${value} is ${what}, not an RNC nor a cédula: ${HOW_AUTHORITIES_WRITE}.` };
  }
  const digits = compactIdentification(match[2]!);
  const type = types.find((candidate) => (candidate === "rnc" ? digits.length !== 11 : digits.length === 11)) ?? types[0]!;
  const result = normalizeIdentification(type, digits);
  return result.ok ? result : { ok: false, message: `The certificate's ${attribute} ${value}: ${result.message}` };
}
