import { ecfDate, ecfDateTime } from "../../lib/dates";
import { Big } from "../../lib/decimal";
import type { EcfType } from "../../lib/ncf";
import { built, DSIG, parseUntrustedXml, type SignableXml, type XmlDocument, type XmlElement } from "./signature";
import { children, EcfBuildError, money } from "./xml";

/**
 * The receiver's answers to an e-CF, and what we read of the e-CF and answers we receive.
 *
 * - ARECF, the acuse de recibo (Formato Acuse de Recibo v1.0, `docs/formato-arecf-v1.0.txt`; schema
 *   ARECF.xsd): the receiver confirms to the issuer that the e-CF was received, or not and why;
 *   it neither accepts nor rejects it (section 1).
 * - ACECF, the aprobación comercial (Formato Aprobación Comercial v1.0,
 *   `docs/formato-acecf-v1.0.txt`; schema ACECF.xsd): the buyer accepts or rejects the transaction,
 *   to the issuer with a copy to DGII (section 1).
 *
 * Both are signed by signature.ts (each schema ends with xs:any for the Signature). The readers
 * parse with @xmldom/xmldom 0.8, as the signer does, and check only what they return: they do not
 * validate a document against its schema nor verify its signature.
 */

/** CodigoMotivoNoRecibido (Formato ARECF, field 6). */
export const ARECF_REASONS = {
  1: "Error de especificación",
  2: "Error de firma digital",
  3: "Envío duplicado",
  4: "RNC comprador no corresponde",
} as const;
export type ArecfReason = keyof typeof ARECF_REASONS;

export interface ArecfInput {
  /** RNCComprador: the receiver, who sends the acknowledgement (field 3). */
  receiverRnc: string;
  /** RNCEmisor: who issued the e-CF (field 2). */
  issuerRnc: string;
  encf: string;
  /** Estado (field 5): 0 e-CF recibido, 1 e-CF no recibido. */
  received: boolean;
  /** CodigoMotivoNoRecibido: conditional to Estado 1 (field 6). */
  reasonCode?: ArecfReason;
  /** FechaHoraAcuseRecibo (field 7). */
  at: Date;
}

export interface AcecfInput {
  /** RNCEmisor: who issued the e-CF (field 2). */
  issuerRnc: string;
  encf: string;
  /** FechaEmision of the e-CF, YYYY-MM-DD (field 4). */
  issueDate: string;
  /** MontoTotal of the e-CF (field 5). */
  totalAmount: string;
  /** RNCComprador: the buyer, who sends the approval (field 6). */
  buyerRnc: string;
  /** Estado (field 7): 1 e-CF aceptado, 2 e-CF rechazado. */
  approved: boolean;
  /** DetalleMotivoRechazo: conditional to Estado 2, up to 250 characters (field 8). */
  reason?: string;
  /** FechaHoraAprobacionComercial (field 9). */
  at: Date;
}

/** The e-CF types of Formato e-CF v1.0 (section 1). */
const ECF_TYPES: readonly EcfType[] = ["31", "32", "33", "34", "41", "43", "44", "45", "46", "47"];
/** RNC (9 digits) or cédula (11): the messages' RNC fields (Formato ARECF fields 2-3, ACECF fields 2 and 6). */
const RNC = /^(\d{9}|\d{11})$/;
/** An e-NCF: E, the type's 2 digits and 10 digits (Formato e-CF, field 3). */
const ENCF = /^E(\d{2})\d{10}$/;

function checkIds(ids: { rnc: string[]; encf: string }, message: string) {
  for (const rnc of ids.rnc) if (!RNC.test(rnc)) throw new EcfBuildError(`${message}: ${rnc} is not an RNC (9 digits) or cédula (11).`);
  if (!ENCF.test(ids.encf)) throw new EcfBuildError(`${message}: ${ids.encf} is not an e-NCF.`);
}

export function buildArecf(input: ArecfInput): SignableXml {
  checkIds({ rnc: [input.issuerRnc, input.receiverRnc], encf: input.encf }, "ARECF");
  // CodigoMotivoNoRecibido is conditional to Estado 1 (Formato ARECF, field 6): with it, and only with it.
  if (input.received === (input.reasonCode !== undefined))
    throw new EcfBuildError("ARECF: a reason code (1-4) goes with, and only with, an e-CF not received.");
  if (input.reasonCode !== undefined && !(input.reasonCode in ARECF_REASONS))
    throw new EcfBuildError(`ARECF: ${input.reasonCode} is not a CodigoMotivoNoRecibido (1-4).`);
  const body = children({
    DetalleAcusedeRecibo: {
      Version: "1.0",
      RNCEmisor: input.issuerRnc,
      RNCComprador: input.receiverRnc,
      eNCF: input.encf,
      Estado: input.received ? "0" : "1",
      CodigoMotivoNoRecibido: input.reasonCode === undefined ? null : String(input.reasonCode),
      FechaHoraAcuseRecibo: ecfDateTime(input.at),
    },
  });
  return built(`<?xml version="1.0" encoding="utf-8"?><ARECF>${body}</ARECF>`);
}

export function buildAcecf(input: AcecfInput): SignableXml {
  checkIds({ rnc: [input.issuerRnc, input.buyerRnc], encf: input.encf }, "ACECF");
  // DetalleMotivoRechazo is conditional to Estado 2 (Formato ACECF, field 8): a rejection says why.
  const reason = input.reason?.trim() || undefined;
  if (input.approved === (reason !== undefined)) throw new EcfBuildError("ACECF: a reason goes with, and only with, a rejection.");
  if (reason && reason.length > 250) throw new EcfBuildError("ACECF: DetalleMotivoRechazo holds at most 250 characters.");
  // MontoTotal: the e-CF's, ≥ 0 with 2 decimals (ACECF.xsd, Decimal18D2Validation).
  if (new Big(input.totalAmount).lt(0)) throw new EcfBuildError("ACECF: MontoTotal is the e-CF's total, never negative.");
  const body = children({
    DetalleAprobacionComercial: {
      Version: "1.0",
      RNCEmisor: input.issuerRnc,
      eNCF: input.encf,
      FechaEmision: ecfDate(input.issueDate),
      MontoTotal: money(input.totalAmount),
      RNCComprador: input.buyerRnc,
      Estado: input.approved ? "1" : "2",
      DetalleMotivoRechazo: reason,
      FechaHoraAprobacionComercial: ecfDateTime(input.at),
    },
  });
  return built(`<?xml version="1.0" encoding="utf-8"?><ACECF>${body}</ACECF>`);
}

/** A received document that is not what it claims: not well-formed, another root, a missing or malformed field. */
export class EcfReadError extends Error {}

/**
 * The root of a document read from outside: the tree the caller parsed once (parseUntrustedXml), or
 * a text parsed here the same way (bounded before any parser runs).
 */
function root(source: XmlDocument | string, name: string): XmlElement {
  let element: XmlElement;
  try {
    element = (typeof source === "string" ? parseUntrustedXml(source) : source).documentElement!;
  } catch (error) {
    throw new EcfReadError((error as Error).message);
  }
  if (!element) throw new EcfReadError("The XML has no root element.");
  if (element.localName !== name) throw new EcfReadError(`Expected an ${name}, got an ${element.localName}.`);
  return element;
}

/** The direct child elements of that name. */
function elementsOf(from: XmlElement, name: string): XmlElement[] {
  return Array.from(from.childNodes as unknown as ArrayLike<XmlElement>).filter((child) => child.nodeType === 1 && child.localName === name);
}

/** The text of the element at that path of direct children, or null when absent. */
function optional(from: XmlElement, path: string[]): string | null {
  let node: XmlElement | undefined = from;
  for (const name of path) {
    node = elementsOf(node, name)[0];
    if (!node) return null;
  }
  return node.textContent?.trim() || null;
}

function required(from: XmlElement, path: string[], pattern?: RegExp): string {
  const value = optional(from, path);
  if (value === null) throw new EcfReadError(`${from.localName}: ${path.join("/")} is missing.`);
  if (pattern && !pattern.test(value)) throw new EcfReadError(`${from.localName}: ${path.join("/")} "${value}" is malformed.`);
  return value;
}

/** dd-MM-yyyy (day and month may have one digit in ACECF.xsd's DateValidation) to YYYY-MM-DD. */
function isoDate(value: string): string {
  const [day = "", month = "", year = ""] = value.split("-");
  return `${year}-${month.padStart(2, "0")}-${day.padStart(2, "0")}`;
}

/** dd-MM-yyyy HH:mm:ss in the Dominican Republic (UTC−4, no daylight saving) to the instant. */
function instant(value: string): Date {
  const [date = "", time = ""] = value.split(" ");
  const [hours = 0, minutes = 0, seconds = 0] = time.split(":").map(Number);
  return new Date(Date.parse(`${isoDate(date)}T00:00:00Z`) + ((hours + 4) * 3600 + minutes * 60 + seconds) * 1000);
}

const DATE = /^\d{1,2}-\d{1,2}-\d{4}$/;
const DATE_TIME = /^\d{1,2}-\d{1,2}-\d{4} \d{1,2}:\d{1,2}:\d{1,2}$/;
const AMOUNT = /^-?\d+(\.\d+)?$/;

export function readArecf(xml: XmlDocument | string): ArecfInput {
  const detail = root(xml, "ARECF");
  const at = ["DetalleAcusedeRecibo"];
  const received = required(detail, [...at, "Estado"], /^[01]$/) === "0";
  const reason = optional(detail, [...at, "CodigoMotivoNoRecibido"]);
  if (reason !== null && !/^[1-4]$/.test(reason)) throw new EcfReadError(`ARECF: CodigoMotivoNoRecibido "${reason}" is not 1-4.`);
  return {
    receiverRnc: required(detail, [...at, "RNCComprador"], RNC),
    issuerRnc: required(detail, [...at, "RNCEmisor"], RNC),
    encf: required(detail, [...at, "eNCF"]),
    received,
    reasonCode: reason === null ? undefined : (Number(reason) as ArecfReason),
    at: instant(required(detail, [...at, "FechaHoraAcuseRecibo"], DATE_TIME)),
  };
}

export function readAcecf(xml: XmlDocument | string): AcecfInput {
  const detail = root(xml, "ACECF");
  const at = ["DetalleAprobacionComercial"];
  return {
    issuerRnc: required(detail, [...at, "RNCEmisor"], RNC),
    encf: required(detail, [...at, "eNCF"]),
    issueDate: isoDate(required(detail, [...at, "FechaEmision"], DATE)),
    totalAmount: money(required(detail, [...at, "MontoTotal"], AMOUNT)),
    buyerRnc: required(detail, [...at, "RNCComprador"], RNC),
    approved: required(detail, [...at, "Estado"], /^[12]$/) === "1",
    reason: optional(detail, [...at, "DetalleMotivoRechazo"]) ?? undefined,
    at: instant(required(detail, [...at, "FechaHoraAprobacionComercial"], DATE_TIME)),
  };
}

/** What we keep of a received e-CF before anything else: what the acuse and the aprobación comercial answer about. */
export interface EcfHeader {
  type: EcfType;
  encf: string;
  issuerRnc: string;
  issuerName: string;
  /** RNCComprador: absent on an E43, an E32 under RD$250,000, a foreign buyer (Formato e-CF, field 38). */
  buyerRnc: string | null;
  /** FechaEmision, YYYY-MM-DD. */
  issueDate: string;
  totalAmount: string;
  /** TotalITBIS: absent where the e-CF has no taxed line, and on E43, E44 and E47. */
  itbisTotal: string | null;
  /** The first 6 characters of the SignatureValue: the e-CF's código de seguridad (Formato e-CF, Firma Digital). */
  securityCode: string;
}

export function readEcfHeader(xml: XmlDocument | string): EcfHeader {
  const ecf = root(xml, "ECF");
  const header = (section: string, name: string, pattern?: RegExp) => required(ecf, ["Encabezado", section, name], pattern);
  const type = header("IdDoc", "TipoeCF") as EcfType;
  if (!ECF_TYPES.includes(type)) throw new EcfReadError(`ECF: TipoeCF "${type}" is not an e-CF type.`);
  const encf = header("IdDoc", "eNCF", ENCF);
  if (encf.slice(1, 3) !== type) throw new EcfReadError(`ECF: the e-NCF ${encf} is not of type ${type}.`);
  const itbis = optional(ecf, ["Encabezado", "Totales", "TotalITBIS"]);
  if (itbis !== null && !AMOUNT.test(itbis)) throw new EcfReadError(`ECF: TotalITBIS "${itbis}" is malformed.`);
  const signature = ecf.getElementsByTagNameNS(DSIG, "SignatureValue")[0]?.textContent?.replace(/\s+/g, "") ?? "";
  if (signature.length < 6) throw new EcfReadError("ECF: the e-CF is not signed (no SignatureValue).");
  const buyer = optional(ecf, ["Encabezado", "Comprador", "RNCComprador"]);
  if (buyer !== null && !RNC.test(buyer)) throw new EcfReadError(`ECF: RNCComprador "${buyer}" is malformed.`);
  return {
    type,
    encf,
    issuerRnc: header("Emisor", "RNCEmisor", RNC),
    issuerName: header("Emisor", "RazonSocialEmisor"),
    buyerRnc: buyer,
    issueDate: isoDate(header("Emisor", "FechaEmision", DATE)),
    totalAmount: money(header("Totales", "MontoTotal", AMOUNT)),
    itbisTotal: itbis === null ? null : money(itbis),
    securityCode: signature.slice(0, 6),
  };
}

/** A line of an e-CF's DetallesItems (Formato e-CF v1.0, section B), amounts in pesos as the e-CF carries them. */
export interface EcfItem {
  /** NumeroLinea. */
  number: number;
  /** IndicadorFacturacion: 0 no facturable, 1 ITBIS 18 %, 2 ITBIS 16 %, 3 ITBIS 0 %, 4 exento. */
  billingIndicator: 0 | 1 | 2 | 3 | 4;
  /** NombreItem. */
  name: string;
  /** CantidadItem. */
  quantity: string;
  /** PrecioUnitarioItem. */
  unitPrice: string;
  /** DescuentoMonto: the line's discounts in amount, "0" when absent. */
  discount: string;
  /** MontoItem: quantity × price − discount, taxes apart. */
  amount: string;
  /** OtraMonedaDetalle: the same in the document's foreign currency, when it has one. */
  foreign: { unitPrice: string; discount: string; amount: string } | null;
}

/** What a buyer enters of a received e-CF beyond its header: the due date, the currency and the lines. */
export interface EcfLines {
  /** FechaLimitePago, YYYY-MM-DD: present on a credit sale (TipoPago 2). */
  dueDate: string | null;
  /** OtraMoneda: TipoMoneda (Tabla II code), TipoCambio (pesos per unit) and MontoTotalOtraMoneda. */
  currency: { code: string; rate: string; total: string | null } | null;
  items: EcfItem[];
}

const QUANTITY = /^\d+(\.\d+)?$/;

export function readEcfLines(xml: XmlDocument | string): EcfLines {
  const ecf = root(xml, "ECF");
  const due = optional(ecf, ["Encabezado", "IdDoc", "FechaLimitePago"]);
  if (due !== null && !DATE.test(due)) throw new EcfReadError(`ECF: FechaLimitePago "${due}" is malformed.`);
  const other = ["Encabezado", "OtraMoneda"];
  const code = optional(ecf, [...other, "TipoMoneda"]);
  const foreignTotal = optional(ecf, [...other, "MontoTotalOtraMoneda"]);
  const details = elementsOf(ecf, "DetallesItems")[0];
  const items = details ? elementsOf(details, "Item") : [];
  if (!items.length) throw new EcfReadError("ECF: DetallesItems has no Item.");
  return {
    dueDate: due === null ? null : isoDate(due),
    currency:
      code === null
        ? null
        : {
            code,
            rate: required(ecf, [...other, "TipoCambio"], AMOUNT),
            total: foreignTotal === null || !AMOUNT.test(foreignTotal) ? null : money(foreignTotal),
          },
    items: items.map((item, i) => {
      const amount = (name: string) => optional(item, [name]) ?? "0";
      const checked = (value: string, name: string) => {
        if (!AMOUNT.test(value)) throw new EcfReadError(`ECF: Item ${i + 1} ${name} "${value}" is malformed.`);
        return value;
      };
      const foreign = elementsOf(item, "OtraMonedaDetalle")[0];
      return {
        number: Number(optional(item, ["NumeroLinea"]) ?? i + 1),
        billingIndicator: Number(required(item, ["IndicadorFacturacion"], /^[0-4]$/)) as EcfItem["billingIndicator"],
        name: required(item, ["NombreItem"]),
        quantity: required(item, ["CantidadItem"], QUANTITY),
        unitPrice: required(item, ["PrecioUnitarioItem"], AMOUNT),
        discount: checked(amount("DescuentoMonto"), "DescuentoMonto"),
        amount: required(item, ["MontoItem"], AMOUNT),
        foreign: foreign
          ? {
              unitPrice: required(foreign, ["PrecioOtraMoneda"], AMOUNT),
              discount: checked(optional(foreign, ["DescuentoOtraMoneda"]) ?? "0", "DescuentoOtraMoneda"),
              amount: required(foreign, ["MontoItemOtraMoneda"], AMOUNT),
            }
          : null,
      };
    }),
  };
}
