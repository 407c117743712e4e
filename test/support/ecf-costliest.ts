import { MAX_RECEIVER_BODY_BYTES } from "../../src/http/request-checks";
import type { SignableXml } from "../../src/modules/ecf/signature";
import { buildEcf } from "../../src/modules/ecf/xml";
import { documentFor } from "./ecf-documents";
import { signable } from "./signable";

/**
 * The costliest e-CF DGII's schemas accept within the receiver's body cap (768 KiB,
 * MAX_RECEIVER_BODY_BYTES): what the bound on elements (src/lib/xml-bounds.ts maxElements) and the
 * hostile-XML bench's budget (bench/hostile-xml.ts) are measured against. An E33 (a debit note):
 * e-CF-33.xsd and e-CF-34.xsd allow `Item` maxOccurs="10000" in `DetallesItems` and `Pagina`
 * maxOccurs="10000" in `Paginacion`, every other type 1,000 of each (Formato e-CF v1.0, note 48:
 * up to 10,000 lines); the two schemas' `Item` is the same. At the cap the bytes bind, not the
 * 10,000: the shortest Item the schema accepts is ~430 bytes.
 *
 * Two shapes, both valid against DGII's e-CF-33.xsd (test/node/xml-bounds.test.ts validates them,
 * signed, with libxml2), filled with Items until the next one would pass the cap less
 * SIGNATURE_ROOM (the signature DGII's signing document describes: SignedInfo, SignatureValue,
 * KeyInfo/X509Data/X509Certificate, ~2.1 KiB and 13 elements with a test certificate):
 *
 * - `every-optional-element`: each Item carries every optional element e-CF-33.xsd's `Item` has,
 *   its repeating tables at their maxOccurs — `TablaCodigosItem/CodigosItem` 5 (TipoCodigo,
 *   CodigoItem), `TablaSubcantidad/SubcantidadItem` 5 (Subcantidad, CodigoSubcantidad),
 *   `TablaSubDescuento/SubDescuento` 12 and `TablaSubRecargo/SubRecargo` 12 (type, percentage,
 *   amount), `TablaImpuestoAdicional/ImpuestoAdicional` 2 (TipoImpuesto), plus `Retencion` (3),
 *   `Mineria` (4), `OtraMonedaDetalle` (4) and the single fields: 167 elements an Item (ITEM_ELEMENTS),
 *   ~6 KB with the shortest values the types allow, so 129 Items at the cap (21,589 elements signed).
 * - `most-elements`: the most elements the schema lets 768 KiB hold. Elements whose children are
 *   all optional may be empty, and those are the cheapest per byte: `Paginacion` with 10,000 empty
 *   `Pagina` (9 bytes each), `Subtotales` with 20 empty `Subtotal`, and Items of only the required
 *   fields (NumeroLinea, IndicadorFacturacion, NombreItem, IndicadorBienoServicio, CantidadItem,
 *   PrecioUnitarioItem, MontoItem) plus empty `Retencion`, `Mineria`, `OtraMonedaDetalle` and
 *   `TablaSubcantidad` with 5 empty `SubcantidadItem`: 17 elements in ~430 bytes, ~1,600 Items
 *   (37,387 elements signed). Every other element costs more bytes per element than these Items'
 *   average (~25): the header's repeating tables (FormaDePago 7, TelefonoEmisor 3, the totals'
 *   ImpuestoAdicional 20, DescuentoORecargo 20) would displace more elements of Items than they
 *   add, so no valid e-CF within the cap holds more than a few dozen above this one.
 *
 * DGII's business rules (totals matching the lines, pages matching TotalPaginas) are not the
 * schema's: these documents are what a sender can post and the schema check lets through, which is
 * what parsing must afford. The signature's own content is the schema's `xs:any`
 * (processContents="skip"), held to DGII's shape by the receiver's signature check, not here.
 */
export type CostliestShape = "every-optional-element" | "most-elements";

export const SIGNATURE_ROOM = 3 * 1024;
export const ITEM_ELEMENTS = 167;

const el = (name: string, inner = "") => (inner === "" ? `<${name}/>` : `<${name}>${inner}</${name}>`);
const times = (n: number, one: (i: number) => string) => Array.from({ length: n }, (_, i) => one(i)).join("");

/** An Item with every optional element of e-CF-33.xsd, in the schema's order, the shortest values its types allow. */
export function everyOptionalItem(line: number): string {
  return el(
    "Item",
    el("NumeroLinea", String(line)) +
      el(
        "TablaCodigosItem",
        times(5, () => el("CodigosItem", el("TipoCodigo", "A") + el("CodigoItem", "1"))),
      ) +
      el("IndicadorFacturacion", "1") +
      el("Retencion", el("IndicadorAgenteRetencionoPercepcion", "1") + el("MontoITBISRetenido", "0") + el("MontoISRRetenido", "0")) +
      el("NombreItem", "x") +
      el("IndicadorBienoServicio", "1") +
      el("DescripcionItem", "x") +
      el("CantidadItem", "1") +
      el("UnidadMedida", "1") +
      el("CantidadReferencia", "1") +
      el("UnidadReferencia", "1") +
      el(
        "TablaSubcantidad",
        times(5, () => el("SubcantidadItem", el("Subcantidad", "1") + el("CodigoSubcantidad", "1"))),
      ) +
      el("GradosAlcohol", "1") +
      el("PrecioUnitarioReferencia", "1") +
      el("FechaElaboracion", "1-1-2026") +
      el("FechaVencimientoItem", "1-1-2027") +
      el("Mineria", el("PesoNetoKilogramo", "1") + el("PesoNetoMineria", "1") + el("TipoAfiliacion", "1") + el("Liquidacion", "1")) +
      el("PrecioUnitarioItem", "1") +
      el("DescuentoMonto", "0") +
      el(
        "TablaSubDescuento",
        times(12, () => el("SubDescuento", el("TipoSubDescuento", "%") + el("SubDescuentoPorcentaje", "1") + el("MontoSubDescuento", "0"))),
      ) +
      el("RecargoMonto", "0") +
      el(
        "TablaSubRecargo",
        times(12, () => el("SubRecargo", el("TipoSubRecargo", "%") + el("SubRecargoPorcentaje", "1") + el("MontoSubRecargo", "0"))),
      ) +
      el(
        "TablaImpuestoAdicional",
        times(2, (i) => el("ImpuestoAdicional", el("TipoImpuesto", `00${i + 1}`))),
      ) +
      el("OtraMonedaDetalle", el("PrecioOtraMoneda", "1") + el("DescuentoOtraMoneda", "0") + el("RecargoOtraMoneda", "0") + el("MontoItemOtraMoneda", "1")) +
      el("MontoItem", "1"),
  );
}

/** The most elements per byte an Item can carry: the required fields and the empty optional containers. */
function densestItem(line: number): string {
  return el(
    "Item",
    el("NumeroLinea", String(line)) +
      el("IndicadorFacturacion", "1") +
      el("Retencion") +
      el("NombreItem", "x") +
      el("IndicadorBienoServicio", "1") +
      el("CantidadItem", "1") +
      el(
        "TablaSubcantidad",
        times(5, () => el("SubcantidadItem")),
      ) +
      el("Mineria") +
      el("PrecioUnitarioItem", "1") +
      el("OtraMonedaDetalle") +
      el("MontoItem", "1"),
  );
}

export interface CostliestEcf {
  /** Unsigned, at most `bytes` − SIGNATURE_ROOM bytes of UTF-8. */
  xml: SignableXml;
  items: number;
  /** Elements in the unsigned text (the signature adds 13). */
  elements: number;
}

/** The costliest E33 of `shape` within `bytes` once signed (by default the receiver's cap). */
export function costliestEcf(shape: CostliestShape, bytes = MAX_RECEIVER_BODY_BYTES): CostliestEcf {
  const base = buildEcf({
    ...documentFor(1),
    type: "33",
    encf: "E330000000001",
    reference: { ncf: "E310000000001", date: "2026-11-20", modificationCode: 3, reason: "Ajuste de precios" },
  });
  const [head, tail] = base.split(/<DetallesItems>[\s\S]*<\/DetallesItems>/);
  // DetallesItems is followed by Subtotales?, DescuentosORecargos?, Paginacion?, then InformacionReferencia.
  if (head === undefined || tail === undefined || !tail.startsWith("<InformacionReferencia>"))
    throw new Error("costliestEcf: an E33 not in the expected order");
  const after =
    shape === "most-elements"
      ? el(
          "Subtotales",
          times(20, () => el("Subtotal")),
        ) +
        el(
          "Paginacion",
          times(10_000, () => el("Pagina")),
        )
      : "";
  const item = shape === "most-elements" ? densestItem : everyOptionalItem;
  const room = bytes - SIGNATURE_ROOM - Buffer.byteLength(`${head}<DetallesItems></DetallesItems>${after}${tail}`);
  const items: string[] = [];
  let used = 0;
  for (let line = 1; line <= 10_000; line++) {
    const next = item(line); // ASCII: its length is its bytes
    if (used + next.length > room) break;
    items.push(next);
    used += next.length;
  }
  const xml = `${head}<DetallesItems>${items.join("")}</DetallesItems>${after}${tail}`;
  return { xml: signable(xml), items: items.length, elements: xml.match(/<[^/?!]/g)?.length ?? 0 };
}
