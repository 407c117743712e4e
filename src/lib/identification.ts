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
