import { ecfDate, ecfDateTime } from "../../lib/dates";
import { Big } from "../../lib/decimal";
import type { EcfType } from "../../lib/ncf";
import type { TaxBreakdown } from "../sales/lines";
import { cents, inDop } from "../sales/money";
import type { DocumentSnapshot } from "../sales/schemas";
import { built, type SignableXml } from "./signature";

/**
 * The e-CF as XML, in the order of DGII's schema for its type (`../shared/dgii/xsd/e-CF-{type}.xsd`;
 * fields and their rules: Formato e-CF v1.0, `docs/formato-e-cf-v1.0.txt`, whose columns say per type
 * whether a field is mandatory (1), conditional (2), optional (3) or absent (0)). Written by an
 * ordered writer that escapes every value (no value is ever concatenated unescaped), without empty
 * elements (the schemas forbid them): an absent value leaves its element out. The Signature is
 * appended by signature.ts after FechaHoraFirma, where the schema's final xs:any expects it.
 *
 * Types built: 31 crédito fiscal, 32 consumo, 33 nota de débito, 34 nota de crédito, 44 regímenes
 * especiales, 45 gubernamental, 46 exportaciones; and those the tenant issues as the buyer about its
 * own purchases, where it is the Emisor: 41 compras (the Comprador section names the informal
 * seller, by cédula), 43 gastos menores (no Comprador) and 47 pagos al exterior (the Comprador is
 * the foreign beneficiary). A document that its type cannot carry (an E44
 * with ITBIS, an E31 without the buyer's RNC, a note without the e-CF it modifies) is a programming
 * error of the caller and throws `EcfBuildError`: issuing must refuse it before taking an e-NCF.
 *
 * Amounts: the document's lines, breakdown and total are in the document's currency. DGII's main
 * amounts are in pesos and the OtraMoneda section and each line's OtraMonedaDetalle carry the
 * foreign ones ("Monto … Otra Moneda = Monto … dividido por Tipo de Cambio", Formato e-CF, Otra
 * Moneda, fields 134-136). So with a foreign currency every peso amount is the document's amount ×
 * the rate, rounded to the cent, and the foreign amounts are the document's own.
 */

/** A line as the e-CF's DetallesItems carries it, in the document's currency. */
export interface EcfLine {
  name: string;
  /** 1 bien, 2 servicio (IndicadorBienoServicio). */
  goodsOrService: 1 | 2;
  quantity: string;
  unitPrice: string;
  discountAmount: string;
  /** MontoItem: quantity × price − discount (taxes apart). */
  amount: string;
  /** IndicadorFacturacion: 1 ITBIS 18 %, 2 ITBIS 16 %, 3 ITBIS 0 %, 4 exento, 0 no facturable. */
  billingIndicator: 0 | 1 | 2 | 3 | 4;
  /** Tabla I codes of the line's additional taxes (ISC, propina, others): TablaImpuestoAdicional, at most 2. */
  additionalTaxCodes?: string[];
  /** UnidadMedida, a Tabla IV code (Formato e-CF, Tabla IV). */
  unit?: string;
  /**
   * What DGII's ISC on alcohol and tobacco (Tabla I 006-039) asks of the line: CantidadReferencia
   * and UnidadReferencia (the presentation per unit), TablaSubcantidad (litres of absolute alcohol or
   * cigarettes per unit), GradosAlcohol (006-018), PrecioUnitarioReferencia (the retail price, 023-039).
   */
  isc?: {
    referenceQuantity?: string;
    referenceUnit?: string;
    subquantity?: { quantity: string; unit: string };
    alcoholDegrees?: string;
    referenceUnitPrice?: string;
  };
  /**
   * What the buyer withholds of this line, in the document's currency: the Retencion area (Formato
   * e-CF, Ítem fields 5-7), MontoITBISRetenido and MontoISRRetenido. Mandatory on every line of an
   * E41 and an E47 (area 1; an E47 withholds ISR only), conditional on E31, E33 and E34, absent
   * elsewhere.
   */
  withholding?: { itbis?: string; isr?: string };
}

/** The e-CF a note or replacement refers to (InformacionReferencia). */
export interface EcfReference {
  /** NCFModificado: the e-NCF (or paper NCF) modified or replaced. */
  ncf: string;
  /** FechaNCFModificado, YYYY-MM-DD. */
  date: string;
  /** 1 anula, 2 corrige texto, 3 corrige montos (notes only), 4 reemplazo de contingencia, 5 referencia a una factura de consumo (E31 only). */
  modificationCode: 1 | 2 | 3 | 4 | 5;
  /** RazonModificacion (notes only), up to 90 characters. */
  reason?: string;
  /** RNCOtroContribuyente: when the modified NCF was issued under another RNC (dissolution, merger). */
  otherTaxpayerRnc?: string;
}

export interface EcfDocument {
  type: EcfType;
  encf: string;
  /** The sequence's expiry (FechaVencimientoSecuencia), YYYY-MM-DD; not carried by E32 and E34. */
  sequenceExpiry: string;
  issueDate: string;
  /** 1 contado, 2 crédito, 3 gratuito (TipoPago). */
  paymentType: 1 | 2 | 3;
  /** FechaLimitePago, YYYY-MM-DD: conditional to a credit sale (TipoPago 2). */
  dueDate?: string;
  /** TipoIngresos (Formato e-CF, field 8): 01 operaciones (no financieros), 02 financieros, 03 extraordinarios, 04 arrendamientos, 05 venta de activo depreciable, 06 otros. Not carried by E41, E43 and E47 (field 8: 0). */
  incomeType: "01" | "02" | "03" | "04" | "05" | "06";
  snapshot: DocumentSnapshot;
  lines: EcfLine[];
  breakdown: TaxBreakdown;
  /** The document's total in its currency: lines' taxable amounts plus all their taxes. */
  total: string;
  /** FechaHoraFirma, in the Dominican Republic's time. */
  signedAt: Date;
  /** InformacionReferencia: mandatory on E33 and E34, else for a replacement (4) or an E31 referring to an E32 (5). */
  reference?: EcfReference;
  /** E34's IndicadorNotaCredito; by default 1 when the modified e-CF is more than 30 days older than the note. */
  creditNoteIndicator?: 0 | 1;
  /**
   * IndicadorEnvioDiferido 1 (Formato e-CF v1.0, field 6): a sale made offline by a branch device
   * of a taxpayer DGII authorized to send deferred; DGII must have it within 24 hours (CA5197).
   * The seller's types only: E41, E43 and E47 do not carry it.
   */
  deferredSending?: boolean;
  /** A foreign currency (Tabla II code) and its rate in pesos: the OtraMoneda section. */
  currency?: { code: string; exchangeRate: string };
}

export class EcfBuildError extends Error {}

/** RD$250,000: from this total an E32 names its buyer and is sent whole instead of as an RFCE (Formato e-CF, RNC Comprador; Formato RFCE). */
export const CONSUMER_THRESHOLD_DOP = "250000";

const escapeXml = (value: string) => value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");

export type Node = string | null | undefined | Node[] | { [name: string]: Node };

/** An element with text or children; nothing at all when it has neither (the schemas forbid empty elements). */
export function element(name: string, content: Node): string {
  if (content === null || content === undefined || content === "") return "";
  if (typeof content === "string") return `<${name}>${escapeXml(content)}</${name}>`;
  const inner = Array.isArray(content) ? content.map((child) => (typeof child === "string" ? child : "")).join("") : children(content);
  return inner ? `<${name}>${inner}</${name}>` : "";
}

export function children(fields: { [name: string]: Node }): string {
  return Object.entries(fields)
    .map(([name, content]) => element(name, content))
    .join("");
}

export const money = (value: string | Big) => new Big(value).toFixed(2);
const positive = (value: string | Big) => (new Big(value).gt(0) ? money(value) : null);

/** Up to 4 decimals, at least 2 (PrecioUnitarioItem: Decimal20D1or4; TipoCambio: Decimal7D1or4). */
const price = (value: string | Big) => {
  const fixed = new Big(value).toFixed(4);
  return fixed.replace(/(\.\d\d)(\d*?)0+$/, "$1$2");
};

/** What each type may and must carry (Formato e-CF v1.0 columns 31-47, and each type's XSD). */
interface TypeRules {
  sequenceExpiry: boolean;
  /** IdentificadorExtranjero exists in the type's schema. */
  foreignBuyerId: boolean;
  /** ITBIS allowed: every rate, only 0 % (E46, whose lines are "ITBIS tasa cero", footnote 51), or none (E44, footnote 50). */
  itbis: "all" | "zero" | "none";
  exempt: boolean;
  /** Additional taxes: all of Tabla I, only 001-005 (E44, footnote 16), or none (E46). */
  additional: "all" | "other" | "none";
  /** IndicadorFacturacion values a line may have. */
  indicators: number[];
  /** The line's ISC detail (CantidadReferencia … PrecioUnitarioReferencia) exists in the schema. */
  iscDetail: boolean;
  /** TipoIngresos (field 8): 0 on the buyer's types 41, 43 and 47. */
  incomeType: boolean;
  /** FechaLimitePago (field 10): 0 on E43. */
  dueDate: boolean;
  /** DescuentoMonto and TablaSubDescuento (Ítem fields 26-29): 0 on E43 and E47. */
  discounts: boolean;
  /**
   * The line's Retencion area (Ítem fields 5-7): 0 absent, 1 on every line (E41, E47), 2 on the
   * lines that have a withholding; and whether it may carry MontoITBISRetenido (field 6: 0 on E47).
   */
  retention: 0 | 1 | 2;
  itbisRetention: boolean;
}

const ALL = [0, 1, 2, 3, 4];
const SELLER = { incomeType: true, dueDate: true, discounts: true, retention: 0, itbisRetention: true } as const;
/** Every ITBIS rate, exempt and additional taxes: E31-E34 and E45. */
const TAXED = { ...SELLER, itbis: "all", exempt: true, additional: "all", indicators: ALL, iscDetail: true } as const;
/**
 * The buyer's types: no TipoIngresos, no additional taxes (Totales fields 104-109: 0) and no
 * MontoNoFacturable (field 111: 0, hence no line of indicator 0). E43 and E47 lines are exempt
 * (IndicadorFacturacion 4, footnote 50) and have no discounts.
 */
const BUYER = { sequenceExpiry: true, exempt: true, additional: "none", iscDetail: false, incomeType: false } as const;
const RULES: Record<EcfType, TypeRules> = {
  "31": { ...TAXED, sequenceExpiry: true, foreignBuyerId: false, retention: 2 },
  "32": { ...TAXED, sequenceExpiry: false, foreignBuyerId: true },
  "33": { ...TAXED, sequenceExpiry: true, foreignBuyerId: true, retention: 2 },
  "34": { ...TAXED, sequenceExpiry: false, foreignBuyerId: true, retention: 2 },
  "44": { ...SELLER, sequenceExpiry: true, foreignBuyerId: true, itbis: "none", exempt: true, additional: "other", indicators: [0, 4], iscDetail: false },
  "45": { ...TAXED, sequenceExpiry: true, foreignBuyerId: false },
  "46": { ...SELLER, sequenceExpiry: true, foreignBuyerId: true, itbis: "zero", exempt: false, additional: "none", indicators: [0, 3], iscDetail: false },
  "41": { ...BUYER, foreignBuyerId: false, itbis: "all", indicators: [1, 2, 3, 4], dueDate: true, discounts: true, retention: 1, itbisRetention: true },
  "43": { ...BUYER, foreignBuyerId: false, itbis: "none", indicators: [4], dueDate: false, discounts: false, retention: 0, itbisRetention: false },
  "47": { ...BUYER, foreignBuyerId: true, itbis: "none", indicators: [4], dueDate: true, discounts: false, retention: 1, itbisRetention: false },
};

/** The types whose IdDoc may carry IndicadorEnvioDiferido (Formato e-CF v1.0, field 6: all but E41, E43, E47). */
const DEFERRED_TYPES = new Set<EcfType>(["31", "32", "33", "34", "44", "45", "46"]);

const sum = (values: (Big | null)[]) => values.reduce<Big>((acc, value) => acc.plus(value ?? 0), new Big(0));

/** One side (pesos or the foreign currency) of the document's totals, as Totales and OtraMoneda carry them. */
export interface EcfAmounts {
  /** MontoGravadoI1-3 (18 %, 16 %, 0 %): null when no line is taxed at that rate. */
  taxed: [Big | null, Big | null, Big | null];
  /** TotalITBIS1-3. */
  itbis: [Big | null, Big | null, Big | null];
  taxedTotal: Big | null;
  itbisTotal: Big | null;
  exempt: Big | null;
  additional: { code: string; kind: TaxBreakdown["additional"][number]["kind"]; rate: string; amount: Big }[];
  additionalTotal: Big | null;
  /** MontoTotal = MontoGravadoTotal + MontoExento + TotalITBIS + MontoImpuestoAdicional (Formato e-CF, field 110). */
  total: Big;
  /** MontoNoFacturable (field 111), outside MontoTotal. */
  nonBillable: Big | null;
}

/** The exchange rate to pesos: 1 for a document in pesos. */
export const exchangeRate = (doc: Pick<EcfDocument, "currency">) =>
  doc.currency && doc.currency.code !== "DOP" ? new Big(doc.currency.exchangeRate) : new Big(1);

/**
 * The totals in the document's currency (`own`) and in pesos (`dop`: each amount × rate, rounded to
 * the cent; the sums are sums of the rounded amounts, so each side adds up exactly as DGII checks).
 * Also checks that the breakdown accounts for the document's whole total.
 */
export function ecfAmounts(doc: Pick<EcfDocument, "breakdown" | "total" | "currency">): { own: EcfAmounts; dop: EcfAmounts } {
  const { breakdown } = doc;
  const rate = exchangeRate(doc);
  const side = (convert: (value: string) => Big): EcfAmounts => {
    const entry = (percent: string) => breakdown.itbis.find((item) => new Big(item.rate).eq(percent));
    const entries = [entry("18"), entry("16"), entry("0")];
    const taxed = entries.map((item) => (item ? convert(item.base) : null)) as EcfAmounts["taxed"];
    const itbis = entries.map((item) => (item ? convert(item.amount) : null)) as EcfAmounts["itbis"];
    const any = entries.some(Boolean);
    const exempt = new Big(breakdown.exempt_base).gt(0) ? convert(breakdown.exempt_base) : null;
    const additional = breakdown.additional
      .filter((item) => new Big(item.amount).gt(0))
      .map((item) => {
        if (!item.code) throw new EcfBuildError(`The tax "${item.name}" has no DGII code (Formato e-CF, Tabla I); an e-CF cannot carry it.`);
        return { code: item.code, kind: item.kind, rate: item.rate, amount: convert(item.amount) };
      });
    if (additional.length > 20) throw new EcfBuildError("An e-CF carries at most 20 additional taxes (ImpuestosAdicionales).");
    const additionalTotal = additional.length ? sum(additional.map((item) => item.amount)) : null;
    const taxedTotal = any ? sum(taxed) : null;
    const itbisTotal = any ? sum(itbis) : null;
    const nonBillable = new Big(breakdown.non_billable).eq(0) ? null : convert(breakdown.non_billable);
    return {
      taxed,
      itbis,
      taxedTotal,
      itbisTotal,
      exempt,
      additional,
      additionalTotal,
      total: sum([taxedTotal, exempt, itbisTotal, additionalTotal]),
      nonBillable,
    };
  };
  const own = side((value) => new Big(value));
  const dop = side((value) => cents(new Big(value).times(rate)));
  const accounted = own.total.plus(own.nonBillable ?? 0);
  if (!accounted.eq(doc.total)) {
    throw new EcfBuildError(`The tax breakdown accounts for ${accounted.toFixed(2)} of the document's total ${money(doc.total)}.`);
  }
  return { own, dop };
}

/** The buyer's RNC or cédula (RNCComprador), or a foreign id (IdentificadorExtranjero: a passport). */
export function buyerIds(snapshot: DocumentSnapshot): { rnc: string | null; foreign: string | null } {
  const { identification, identification_type: kind } = snapshot.buyer;
  if (!identification) return { rnc: null, foreign: null };
  if (kind === "passport") return { rnc: null, foreign: identification };
  return { rnc: identification.replace(/\D/g, ""), foreign: null };
}

const days = (from: string, to: string) => (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000;

function check(doc: EcfDocument, rules: TypeRules) {
  const fail = (message: string) => {
    throw new EcfBuildError(`E${doc.type}: ${message}`);
  };
  if (!doc.encf.startsWith(`E${doc.type}`)) fail(`the e-NCF ${doc.encf} is not of this type.`);
  if (doc.lines.length === 0) fail("an e-CF has at least one line (Formato e-CF, Detalle de Bienes o Servicios).");
  for (const line of doc.lines) {
    if (!rules.indicators.includes(line.billingIndicator)) {
      fail(`a line with IndicadorFacturacion ${line.billingIndicator}: this type allows only ${rules.indicators.join(", ")} (Formato e-CF, footnotes 50-51).`);
    }
    if ((line.additionalTaxCodes?.length ?? 0) > 2) fail("a line carries at most 2 additional taxes (TablaImpuestoAdicional).");
    if (!rules.discounts && new Big(line.discountAmount).gt(0)) fail("this type has no line discounts (Formato e-CF, Ítem fields 26-29: 0).");
    checkWithholding(line, rules, fail);
  }
  if (!rules.dueDate && doc.dueDate) fail("this type has no FechaLimitePago (Formato e-CF, field 10: 0).");
  if (!rules.indicators.includes(0) && !new Big(doc.breakdown.non_billable).eq(0)) fail("this type has no MontoNoFacturable (Formato e-CF, field 111: 0).");
  const { breakdown } = doc;
  const taxedRates = breakdown.itbis.map((item) => new Big(item.rate));
  if (rules.itbis === "none" && taxedRates.length) fail("this type carries no ITBIS (Formato e-CF, Totales: ITBIS fields 0).");
  if (rules.itbis === "zero" && taxedRates.some((rate) => !rate.eq(0))) fail("this type carries only ITBIS at 0 % (Formato e-CF, footnote 51).");
  if (!rules.exempt && new Big(breakdown.exempt_base).gt(0)) fail("this type has no exempt amount (Formato e-CF, Monto Exento: 0).");
  for (const item of breakdown.additional) {
    if (rules.additional === "none") fail("this type carries no additional taxes (Formato e-CF, Impuestos Adicionales: 0).");
    if (rules.additional === "other" && !(item.code && item.code >= "001" && item.code <= "005")) {
      fail(`the tax ${item.code ?? item.name}: this type carries only Tabla I codes 001-005 (Formato e-CF, footnote 16).`);
    }
  }
  const note = doc.type === "33" || doc.type === "34";
  const ref = doc.reference;
  if (note && !ref) fail("a note names the e-CF it modifies (InformacionReferencia is mandatory).");
  if (ref) {
    if (!note && ref.modificationCode <= 3) fail(`CodigoModificacion ${ref.modificationCode} applies only to notes (Formato e-CF, footnote 80).`);
    if (ref.modificationCode === 5 && doc.type !== "31") fail("CodigoModificacion 5 applies only to an E31 (Formato e-CF, footnote 81).");
  }
}

/** Retencion (Formato e-CF, Ítem fields 5-7): what a line may withhold on its type. */
function checkWithholding(line: EcfLine, rules: TypeRules, fail: (message: string) => never) {
  const held = line.withholding;
  if (!held) {
    // MontoISRRetenido is 1 on E47 (field 7): a payment abroad states the ISR withheld, 0 if none.
    if (rules.retention === 1 && !rules.itbisRetention) fail("each line states the ISR withheld (MontoISRRetenido, Ítem field 7: 1).");
    return;
  }
  if (rules.retention === 0) fail("this type carries no withholding (Formato e-CF, Retencion area: 0).");
  if (held.itbis !== undefined && !rules.itbisRetention) fail("this type withholds no ITBIS (MontoITBISRetenido, Ítem field 6: 0).");
  if (held.isr === undefined && rules.retention === 1 && !rules.itbisRetention) fail("each line states the ISR withheld (MontoISRRetenido, Ítem field 7: 1).");
  for (const amount of [held.itbis, held.isr]) if (amount !== undefined && new Big(amount).lt(0)) fail("a withheld amount is ≥ 0 (Ítem fields 6-7).");
  // An exempt line has no ITBIS to withhold: its MontoITBISRetenido is 0 (footnote 53).
  if (line.billingIndicator === 4 && held.itbis !== undefined && !new Big(held.itbis).eq(0))
    fail("an exempt line withholds no ITBIS (Formato e-CF, footnote 53).");
  // On an E41 the ISR withheld is conditional to a service (Ítem field 7, validation b).
  if (rules.retention === 1 && rules.itbisRetention && held.isr !== undefined && line.goodsOrService !== 2) {
    fail("ISR is withheld on services only (MontoISRRetenido, Ítem field 7: IndicadorBienoServicio 2).");
  }
}

interface Withheld {
  itbis: Big | null;
  isr: Big | null;
}

/**
 * The line's Retencion in pesos: IndicadorAgenteRetencionoPercepcion is always 1 (R), percepción
 * not being in force (footnote 52); an exempt line withheld as R states MontoITBISRetenido 0
 * (footnote 53). Null where the area is absent: its type has none, or it is conditional (E31, E33,
 * E34) and the line withholds nothing.
 */
function withheld(line: EcfLine, rules: TypeRules, toDop: (value: string) => Big): Withheld | null {
  const held = line.withholding;
  if (rules.retention === 0 || (rules.retention === 2 && !held)) return null;
  const itbis = held?.itbis ?? (line.billingIndicator === 4 ? "0" : undefined);
  return {
    itbis: rules.itbisRetention && itbis !== undefined ? toDop(itbis) : null,
    isr: held?.isr !== undefined ? toDop(held.isr) : null,
  };
}

const retention = (held: Withheld | null | undefined): Node =>
  held
    ? {
        IndicadorAgenteRetencionoPercepcion: "1",
        MontoITBISRetenido: held.itbis ? money(held.itbis) : null,
        MontoISRRetenido: held.isr ? money(held.isr) : null,
      }
    : null;

function buyer(doc: EcfDocument, rules: TypeRules, totalDop: Big): Node {
  // Gastos menores have no Comprador (Formato e-CF, área Comprador: 0 on E43).
  if (doc.type === "43") return null;
  const ids = buyerIds(doc.snapshot);
  const name = doc.snapshot.buyer.name;
  const known = Boolean(ids.rnc || ids.foreign);
  if (ids.foreign && !rules.foreignBuyerId)
    throw new EcfBuildError(`E${doc.type}: the buyer needs an RNC or cédula (this type has no IdentificadorExtranjero).`);
  const fields = { RNCComprador: ids.rnc, IdentificadorExtranjero: rules.foreignBuyerId ? ids.foreign : undefined, RazonSocialComprador: name };
  switch (doc.type) {
    case "31":
    case "41":
    case "45":
      // RNC Comprador and Razón Social Comprador: 1 (Formato e-CF, fields 38 and 40). On an E41 the
      // Comprador is the informal seller the tenant bought from, identified by cédula.
      if (!ids.rnc) throw new EcfBuildError(`E${doc.type}: the buyer's RNC or cédula is mandatory.`);
      return fields;
    case "32":
      // From RD$250,000 the buyer is identified (fields 38-40, footnote 4). The área Comprador is
      // mandatory (1) on an E32 whatever the total, so below it carries at least the contact's name.
      if (totalDop.gte(CONSUMER_THRESHOLD_DOP) && !known) throw new EcfBuildError("E32: from RD$250,000 the buyer's RNC, cédula or foreign id is mandatory.");
      return fields;
    case "33":
    case "34":
      // Comprador is conditional on notes (bitácora 19-11-2021): when the buyer is known.
      return known ? fields : null;
    case "47":
      // The beneficiary abroad: Comprador, IdentificadorExtranjero and Razón Social are optional (3)
      // and RNC Comprador is absent (0) (Formato e-CF, fields 38-40).
      if (ids.rnc) throw new EcfBuildError("E47: the beneficiary abroad is identified by a foreign id (IdentificadorExtranjero), not an RNC or cédula.");
      return fields;
    default:
      // E44 and E46: Razón Social 1; RNC or foreign id when the buyer has one.
      return fields;
  }
}

export function buildEcf(doc: EcfDocument): SignableXml {
  const rules = RULES[doc.type];
  check(doc, rules);
  const { issuer } = doc.snapshot;
  const { own, dop } = ecfAmounts(doc);
  const rate = exchangeRate(doc);
  const foreign = doc.currency !== undefined && doc.currency.code !== "DOP";
  const toDop = (value: string) => inDop(value, rate);
  const ref = doc.reference;
  const withholdings = doc.lines.map((line) => withheld(line, rules, toDop));
  // TotalITBISRetenido and TotalISRRetencion: the sums of the lines' (Totales fields 116-117), where a line has them.
  const withheldTotal = (pick: (held: Withheld) => Big | null) => {
    const amounts = withholdings.map((held) => (held ? pick(held) : null)).filter((amount) => amount !== null);
    return amounts.length ? money(sum(amounts)) : null;
  };
  if (doc.deferredSending && !DEFERRED_TYPES.has(doc.type))
    throw new EcfBuildError(`an e-CF of type ${doc.type} cannot be sent deferred (IndicadorEnvioDiferido)`);
  const creditNoteIndicator = doc.type === "34" ? String(doc.creditNoteIndicator ?? (ref && days(ref.date, doc.issueDate) > 30 ? 1 : 0)) : null;
  const body = children({
    Encabezado: {
      Version: "1.0",
      IdDoc: {
        TipoeCF: doc.type,
        eNCF: doc.encf,
        FechaVencimientoSecuencia: rules.sequenceExpiry ? ecfDate(doc.sequenceExpiry) : null,
        // E34 only, in the schema where the others have the expiry (Formato e-CF, field 5).
        IndicadorNotaCredito: creditNoteIndicator,
        IndicadorEnvioDiferido: doc.deferredSending ? "1" : null,
        // 0: line amounts are without ITBIS; conditional to taxed lines and absent on E44 and E46 (field 7).
        IndicadorMontoGravado: rules.itbis === "all" && own.taxedTotal ? "0" : null,
        TipoIngresos: rules.incomeType ? doc.incomeType : null,
        TipoPago: String(doc.paymentType),
        FechaLimitePago: doc.paymentType === 2 && doc.dueDate ? ecfDate(doc.dueDate) : null,
      },
      Emisor: {
        RNCEmisor: issuer.rnc,
        RazonSocialEmisor: issuer.legal_name,
        NombreComercial: issuer.trade_name,
        DireccionEmisor: issuer.address,
        FechaEmision: ecfDate(doc.issueDate),
      },
      Comprador: buyer(doc, rules, dop.total),
      Totales: {
        ...totals(dop, rules, ""),
        TotalITBISRetenido: withheldTotal((held) => held.itbis),
        TotalISRRetencion: withheldTotal((held) => held.isr),
      },
      OtraMoneda: foreign
        ? {
            TipoMoneda: doc.currency!.code,
            TipoCambio: price(rate),
            ...totals(own, rules, "OtraMoneda"),
          }
        : null,
    },
    DetallesItems: doc.lines.map((line, i) =>
      element("Item", {
        NumeroLinea: String(i + 1),
        IndicadorFacturacion: String(line.billingIndicator),
        Retencion: retention(withholdings[i]),
        // NombreItem holds 80 characters; a longer description goes whole in DescripcionItem.
        NombreItem: line.name.slice(0, 80),
        IndicadorBienoServicio: String(line.goodsOrService),
        DescripcionItem: line.name.length > 80 ? line.name.slice(0, 1000) : null,
        CantidadItem: money(line.quantity),
        UnidadMedida: line.unit,
        ...(rules.iscDetail
          ? {
              CantidadReferencia: line.isc?.referenceQuantity ? money(line.isc.referenceQuantity) : null,
              UnidadReferencia: line.isc?.referenceUnit,
              TablaSubcantidad: line.isc?.subquantity
                ? [element("SubcantidadItem", { Subcantidad: new Big(line.isc.subquantity.quantity).toFixed(3), CodigoSubcantidad: line.isc.subquantity.unit })]
                : null,
              GradosAlcohol: line.isc?.alcoholDegrees ? money(line.isc.alcoholDegrees) : null,
              PrecioUnitarioReferencia: line.isc?.referenceUnitPrice ? money(toDop(line.isc.referenceUnitPrice)) : null,
            }
          : {}),
        PrecioUnitarioItem: price(new Big(line.unitPrice).times(rate)),
        DescuentoMonto: positive(toDop(line.discountAmount)),
        // DescuentoMonto "totaliza los subdescuentos" and the table is conditional to a discount (fields 26-29): one, in amount.
        TablaSubDescuento: new Big(line.discountAmount).gt(0)
          ? [element("SubDescuento", { TipoSubDescuento: "$", MontoSubDescuento: money(toDop(line.discountAmount)) })]
          : null,
        TablaImpuestoAdicional:
          rules.additional !== "none" && line.additionalTaxCodes?.length
            ? line.additionalTaxCodes.map((code) => element("ImpuestoAdicional", { TipoImpuesto: code }))
            : null,
        OtraMonedaDetalle: foreign
          ? {
              PrecioOtraMoneda: price(line.unitPrice),
              DescuentoOtraMoneda: positive(line.discountAmount),
              MontoItemOtraMoneda: money(line.amount),
            }
          : null,
        MontoItem: money(toDop(line.amount)),
      } as { [name: string]: Node }),
    ),
    InformacionReferencia: ref
      ? {
          NCFModificado: ref.ncf,
          RNCOtroContribuyente: ref.otherTaxpayerRnc,
          FechaNCFModificado: ecfDate(ref.date),
          CodigoModificacion: String(ref.modificationCode),
          // RazonModificacion: 3 on notes, 0 elsewhere (section F, field 5).
          RazonModificacion: doc.type === "33" || doc.type === "34" ? ref.reason?.slice(0, 90) : null,
        }
      : null,
    FechaHoraFirma: ecfDateTime(doc.signedAt),
  });
  return built(`<?xml version="1.0" encoding="utf-8"?><ECF>${body}</ECF>`);
}

const ADDITIONAL_AMOUNT: Record<EcfAmounts["additional"][number]["kind"], string> = {
  isc_specific: "MontoImpuestoSelectivoConsumoEspecifico",
  isc_ad_valorem: "MontoImpuestoSelectivoConsumoAdvalorem",
  propina: "OtrosImpuestosAdicionales",
  other: "OtrosImpuestosAdicionales",
};

/**
 * Totales (suffix "") or the amounts of OtraMoneda (suffix "OtraMoneda"), whose names differ only
 * by the suffix except the taxed bases (MontoGravado1OtraMoneda for MontoGravadoI1). Propina legal
 * is Tabla I code 001 and goes, like CDT and the other 001-005 taxes, to OtrosImpuestosAdicionales.
 */
function totals(amounts: EcfAmounts, rules: TypeRules, suffix: "" | "OtraMoneda"): { [name: string]: Node } {
  const at = (value: Big | null) => (value ? money(value) : null);
  const all = rules.itbis === "all";
  const itbis = rules.itbis !== "none";
  const taxedName = (n: number) => (suffix ? `MontoGravado${n}OtraMoneda` : `MontoGravadoI${n}`);
  const additionalName = (name: string) => (suffix ? `${name}OtraMoneda` : name);
  return {
    [`MontoGravadoTotal${suffix}`]: itbis ? at(amounts.taxedTotal) : null,
    [taxedName(1)]: all ? at(amounts.taxed[0]) : null,
    [taxedName(2)]: all ? at(amounts.taxed[1]) : null,
    [taxedName(3)]: itbis ? at(amounts.taxed[2]) : null,
    [`MontoExento${suffix}`]: rules.exempt ? at(amounts.exempt) : null,
    // The rates are in Totales only (fields 97-99).
    ...(suffix
      ? {}
      : { ITBIS1: all && amounts.taxed[0] ? "18" : null, ITBIS2: all && amounts.taxed[1] ? "16" : null, ITBIS3: itbis && amounts.taxed[2] ? "0" : null }),
    [`TotalITBIS${suffix}`]: itbis ? at(amounts.itbisTotal) : null,
    [`TotalITBIS1${suffix}`]: all ? at(amounts.itbis[0]) : null,
    [`TotalITBIS2${suffix}`]: all ? at(amounts.itbis[1]) : null,
    [`TotalITBIS3${suffix}`]: itbis ? at(amounts.itbis[2]) : null,
    [`MontoImpuestoAdicional${suffix}`]: rules.additional !== "none" ? at(amounts.additionalTotal) : null,
    [`ImpuestosAdicionales${suffix}`]:
      rules.additional !== "none" && amounts.additional.length
        ? amounts.additional.map((item) =>
            element(`ImpuestoAdicional${suffix}`, {
              [additionalName("TipoImpuesto")]: item.code,
              [additionalName("TasaImpuestoAdicional")]: money(item.rate),
              [additionalName(ADDITIONAL_AMOUNT[item.kind])]: money(item.amount),
            }),
          )
        : null,
    [`MontoTotal${suffix}`]: money(amounts.total),
    // Not facturable amounts are in pesos only (field 111; OtraMoneda has no such field).
    ...(suffix || !rules.indicators.includes(0) ? {} : { MontoNoFacturable: at(amounts.nonBillable) }),
  };
}
