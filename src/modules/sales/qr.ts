import { encode } from "uqr";
import { ecfDate, ecfDateTime } from "../../lib/dates";
import { Big } from "../../lib/decimal";
import type { EcfType } from "../../lib/ncf";

/**
 * The timbre of an e-CF's printed representation (representación impresa, RI): the URL its QR code
 * carries, by which anyone asks DGII whether the e-CF is valid (`../shared/dgii/docs/
 * descripcion-tecnica.txt`, "Consulta timbre (QR)" and "Consulta timbre FC (QR)"; the printed
 * models in `representacion-impresa.pdf`).
 */
export interface TimbreInput {
  /** DGII's e-CF host with its environment, as `dgiiUrls()` gives it: `https://ecf.dgii.gov.do/testecf`. */
  ecfBaseUrl: string;
  /** DGII's consumer-invoice host with its environment: `https://fc.dgii.gov.do/testecf`. */
  fcBaseUrl: string;
  type: EcfType;
  issuerRnc: string;
  /** The buyer's RNC or cédula as the e-CF's RNCComprador carries it; absent when the e-CF has none. */
  buyerRnc?: string | null;
  encf: string;
  /** FechaEmision, YYYY-MM-DD. */
  issueDate: string;
  /** MontoTotal in pesos, as the e-CF (or the RFCE) carries it. */
  total: string;
  /** When the e-CF was signed (its FechaHoraFirma). */
  signedAt: Date;
  /** The first 6 characters of the SignatureValue. */
  securityCode: string;
  /** An E32 under RD$250,000, sent to DGII as its summary (RFCE): the consumer URL. */
  consumerSummary: boolean;
}

export class TimbreError extends Error {}

/**
 * Descripción técnica, "Restricciones de Contenido y/o Caracteres en los XML": in the security code
 * of the QR these characters "tienen un significado especial en la URL y deberán ser reemplazados
 * en esta por su representación hexadecimal". The code is base64 (A-Z a-z 0-9 + / =), so in
 * practice "+", "/" and "=" are the ones met; the whole table is kept as DGII lists it.
 */
const RESERVED_IN_SECURITY_CODE = new Set(" !#$&'()*+,/:;=?@[]\"-.<>\\^_`");

function escapeSecurityCode(code: string): string {
  let out = "";
  for (const ch of code) {
    out += RESERVED_IN_SECURITY_CODE.has(ch) ? `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}` : ch;
  }
  return out;
}

const RNC = /^(?:\d{9}|\d{11})$/;
const ENCF = /^E\d{12}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const BASE64_CODE = /^[A-Za-z0-9+/=]{6}$/;
const DECIMAL = /^\d+(?:\.\d+)?$/;

/**
 * The URL of the QR, parameter names and order as DGII's "Ejemplo URL construida":
 *
 * - e-CF: `{ecf}/consultatimbre?rncemisor=…&rnccomprador=…&encf=…&fechaemision=dd-MM-yyyy
 *   &montototal=…&fechafirma=dd-MM-yyyy%20HH:mm:ss&codigoseguridad=…`;
 * - E32 under RD$250,000 (its RFCE is what DGII holds): `{fc}/consultatimbrefc?rncemisor=…&encf=…
 *   &montototal=…&codigoseguridad=…` ("Consulta timbre FC (QR)"; Recomendaciones, 5: two timbre
 *   services for type 32 by amount).
 *
 * Escaping: the security code by DGII's table of reserved characters (above); the signature time's
 * space as %20, as DGII's example writes it (`fechafirma=10-10-2020%2009:00:00`, colons kept). The
 * other values are digits, "E", "-" and "." (checked here), which DGII's examples print as they are.
 *
 * Without a buyer RNC (a note whose buyer had no RNC or cédula, a buyer known only by a foreign id)
 * `rnccomprador` is left out rather than sent empty: DGII lists the buyer's RNC among the answers
 * as "extraído del e-CF recibido (Si aplica)", and an e-CF without RNCComprador has none to match.
 *
 * The hosts come from configuration (`DGII_ECF_BASE_URL`, `DGII_FC_BASE_URL`), never written here:
 * tests point them at the fake DGII.
 */
export function timbreUrl(input: TimbreInput): string {
  if (!RNC.test(input.issuerRnc)) throw new TimbreError(`The issuer's RNC must be 9 or 11 digits, not "${input.issuerRnc}".`);
  const buyer = input.buyerRnc?.trim() || null;
  if (buyer !== null && !RNC.test(buyer)) throw new TimbreError(`The buyer's RNC must be 9 or 11 digits, not "${buyer}".`);
  if (!ENCF.test(input.encf) || input.encf.slice(1, 3) !== input.type) throw new TimbreError(`"${input.encf}" is not an e-NCF of type ${input.type}.`);
  if (!ISO_DATE.test(input.issueDate)) throw new TimbreError(`The issue date must be YYYY-MM-DD, not "${input.issueDate}".`);
  if (!DECIMAL.test(input.total)) throw new TimbreError(`The total must be a plain decimal, not "${input.total}".`);
  if (!BASE64_CODE.test(input.securityCode)) throw new TimbreError("The security code is the first 6 characters of the SignatureValue (base64).");
  if (Number.isNaN(input.signedAt.getTime())) throw new TimbreError("The signature time is not a date.");
  if (input.consumerSummary && input.type !== "32") throw new TimbreError(`Only an E32 is summarized for DGII, not an E${input.type}.`);

  // MontoTotal's own format in the e-CF and the RFCE (two decimals), so the QR repeats what DGII holds.
  const total = new Big(input.total).toFixed(2);
  const code = escapeSecurityCode(input.securityCode);
  if (input.consumerSummary) {
    return `${trimSlash(input.fcBaseUrl)}/consultatimbrefc?rncemisor=${input.issuerRnc}&encf=${input.encf}&montototal=${total}&codigoseguridad=${code}`;
  }
  const parameters = [
    `rncemisor=${input.issuerRnc}`,
    ...(buyer ? [`rnccomprador=${buyer}`] : []),
    `encf=${input.encf}`,
    `fechaemision=${ecfDate(input.issueDate)}`,
    `montototal=${total}`,
    `fechafirma=${ecfDateTime(input.signedAt).replace(" ", "%20")}`,
    `codigoseguridad=${code}`,
  ];
  return `${trimSlash(input.ecfBaseUrl)}/consultatimbre?${parameters.join("&")}`;
}

const trimSlash = (url: string) => url.replace(/\/+$/, "");

/** A QR code as its modules: `modules[row][column]`, true for dark; no quiet zone (the drawing adds it). */
export interface QrMatrix {
  version: number;
  size: number;
  modules: boolean[][];
}

/**
 * The version DGII asks for (Descripción técnica, "Consulta timbre (QR)" and "Consulta timbre FC
 * (QR)", VERSIÓN: "Se utilizará la versión 8 de código QR para la representación impresa").
 */
export const TIMBRE_QR_VERSION = 8;

/**
 * The QR code of a timbre URL, encoded by uqr (a port of Nayuki's QR Code generator: pure
 * JavaScript, no canvas, DOM or Buffer, so it runs in workerd).
 *
 * Version 8 (49×49 modules) as DGII says, when the URL fits in it; a version-8 symbol holds at most
 * 192 bytes (ISO/IEC 18004, level L), which the consumer URL (about 130 bytes) fits but the e-CF
 * URL (about 205-230 bytes: seven parameters) never does, so that one takes the smallest version
 * that holds it (10 or 11). Error correction at least M (15% of the symbol recoverable): the code
 * is printed, often on thermal paper that fades and folds; uqr raises it to Q or H when the chosen
 * version has room to spare, which never makes the symbol larger.
 */
export function timbreQr(url: string): QrMatrix {
  const qr = encode(url, { ecc: "M", minVersion: TIMBRE_QR_VERSION, boostEcc: true, border: 0 });
  return { version: qr.version, size: qr.size, modules: qr.data };
}
