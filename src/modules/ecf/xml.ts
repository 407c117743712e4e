import { Big } from "../../lib/decimal";
import type { TaxBreakdown } from "../sales/lines";
import type { DocumentSnapshot } from "../sales/schemas";

/**
 * The e-CF as XML, in the order of DGII's schema for its type (`../shared/dgii/xsd/e-CF-31.xsd`;
 * fields and their rules: Formato e-CF v1.0). Written by an ordered writer that escapes every value
 * (no value is ever concatenated unescaped), without empty elements (the schemas forbid them): an
 * absent value leaves its element out. The Signature is appended by signature.ts after
 * FechaHoraFirma, where the schema's final xs:any expects it.
 *
 * This step builds the Factura de Crédito Fiscal Electrónica (31) from a document's snapshot, lines
 * and tax breakdown; the other types follow the same writer.
 */

/** A line as the e-CF's DetallesItems carries it. */
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
}

export interface EcfDocument {
  type: "31";
  encf: string;
  /** The sequence's expiry (FechaVencimientoSecuencia), YYYY-MM-DD. */
  sequenceExpiry: string;
  issueDate: string;
  /** 1 contado, 2 crédito, 3 gratuito (TipoPago). */
  paymentType: 1 | 2 | 3;
  /** TipoIngresos (Formato e-CF, Tabla de tipos de ingresos): 01 ingresos por operaciones. */
  incomeType: "01" | "02" | "03" | "04" | "05" | "06";
  snapshot: DocumentSnapshot;
  lines: EcfLine[];
  breakdown: TaxBreakdown;
  total: string;
  /** FechaHoraFirma, in the Dominican Republic's time. */
  signedAt: Date;
}

const escapeXml = (value: string) => value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");

type Node = string | null | undefined | Node[] | { [name: string]: Node };

/** An element with text or children; nothing at all when it has neither (the schemas forbid empty elements). */
function element(name: string, content: Node): string {
  if (content === null || content === undefined || content === "") return "";
  if (typeof content === "string") return `<${name}>${escapeXml(content)}</${name}>`;
  const inner = Array.isArray(content) ? content.map((child) => (typeof child === "string" ? child : "")).join("") : children(content);
  return inner ? `<${name}>${inner}</${name}>` : "";
}

function children(fields: { [name: string]: Node }): string {
  return Object.entries(fields)
    .map(([name, content]) => element(name, content))
    .join("");
}

/** dd-MM-yyyy, the schemas' date format. */
export const ecfDate = (isoDate: string) => `${isoDate.slice(8, 10)}-${isoDate.slice(5, 7)}-${isoDate.slice(0, 4)}`;

/** dd-MM-yyyy HH:mm:ss in the Dominican Republic (UTC−4, no daylight saving). */
export function ecfDateTime(at: Date): string {
  const local = new Date(at.getTime() - 4 * 3_600_000).toISOString();
  return `${ecfDate(local.slice(0, 10))} ${local.slice(11, 19)}`;
}

const money = (value: string | Big) => new Big(value).toFixed(2);
const positive = (value: string) => (new Big(value).gt(0) ? money(value) : null);

/** Prices keep up to 4 decimals, at least 2 (PrecioUnitarioItem: Decimal20D1or4). */
const price = (value: string) => {
  const fixed = new Big(value).toFixed(4);
  return fixed.replace(/(\.\d\d)(\d*?)0+$/, "$1$2");
};

export function buildEcf(doc: EcfDocument): string {
  const { issuer, buyer } = doc.snapshot;
  const itbis = (rate: string) => doc.breakdown.itbis.find((entry) => new Big(entry.rate).eq(rate));
  const taxed = [itbis("18"), itbis("16"), itbis("0")];
  const taxedTotal = taxed.reduce((sum, entry) => sum.plus(entry?.base ?? 0), new Big(0));
  const itbisTotal = taxed.reduce((sum, entry) => sum.plus(entry?.amount ?? 0), new Big(0));
  const body = children({
    Encabezado: {
      Version: "1.0",
      IdDoc: {
        TipoeCF: doc.type,
        eNCF: doc.encf,
        FechaVencimientoSecuencia: ecfDate(doc.sequenceExpiry),
        // 0: line amounts are without ITBIS (Formato e-CF, IndicadorMontoGravado).
        IndicadorMontoGravado: "0",
        TipoIngresos: doc.incomeType,
        TipoPago: String(doc.paymentType),
      },
      Emisor: {
        RNCEmisor: issuer.rnc,
        RazonSocialEmisor: issuer.legal_name,
        NombreComercial: issuer.trade_name,
        DireccionEmisor: issuer.address,
        FechaEmision: ecfDate(doc.issueDate),
      },
      Comprador: {
        RNCComprador: buyer.identification,
        RazonSocialComprador: buyer.name,
      },
      Totales: {
        MontoGravadoTotal: taxedTotal.gt(0) ? money(taxedTotal) : null,
        MontoGravadoI1: taxed[0] ? money(taxed[0].base) : null,
        MontoGravadoI2: taxed[1] ? money(taxed[1].base) : null,
        MontoGravadoI3: taxed[2] ? money(taxed[2].base) : null,
        MontoExento: positive(doc.breakdown.exempt_base),
        ITBIS1: taxed[0] ? "18" : null,
        ITBIS2: taxed[1] ? "16" : null,
        ITBIS3: taxed[2] ? "0" : null,
        TotalITBIS: taxedTotal.gt(0) ? money(itbisTotal) : null,
        TotalITBIS1: taxed[0] ? money(taxed[0].amount) : null,
        TotalITBIS2: taxed[1] ? money(taxed[1].amount) : null,
        TotalITBIS3: taxed[2] ? money(taxed[2].amount) : null,
        MontoTotal: money(doc.total),
      },
    },
    DetallesItems: doc.lines.map((line, i) =>
      element("Item", {
        NumeroLinea: String(i + 1),
        IndicadorFacturacion: String(line.billingIndicator),
        // NombreItem holds 80 characters; a longer description goes whole in DescripcionItem.
        NombreItem: line.name.slice(0, 80),
        IndicadorBienoServicio: String(line.goodsOrService),
        DescripcionItem: line.name.length > 80 ? line.name.slice(0, 1000) : null,
        CantidadItem: money(line.quantity),
        PrecioUnitarioItem: price(line.unitPrice),
        DescuentoMonto: positive(line.discountAmount),
        MontoItem: money(line.amount),
      } as { [name: string]: Node }),
    ),
    FechaHoraFirma: ecfDateTime(doc.signedAt),
  });
  return `<?xml version="1.0" encoding="utf-8"?><ECF>${body}</ECF>`;
}
