import { ecfDate } from "../../lib/dates";
import type { Big } from "../../lib/decimal";
import { built, type SignableXml } from "./signature";
import { buyerIds, CONSUMER_THRESHOLD_DOP, children, type EcfAmounts, EcfBuildError, type EcfDocument, ecfAmounts, element, money } from "./xml";

/**
 * The Resumen Factura de Consumo Electrónica (RFCE): what DGII receives of an E32 under
 * RD$250,000 instead of the whole e-CF, which goes to the buyer (Formato RFCE v1.0,
 * `docs/formato-rfce-v1.0.txt`; schema RFCE-32.xsd). Built from the same document as the E32 so its
 * totals are the E32's, in pesos, and carries the E32's security code (CodigoSeguridadeCF: the
 * first 6 characters of the signed E32's SignatureValue). Signed like the e-CF by signature.ts; the
 * schema ends with xs:any for the Signature and, unlike the e-CF, has no FechaHoraFirma.
 */
export function buildRfce(doc: EcfDocument, securityCode: string): SignableXml {
  if (doc.type !== "32") throw new EcfBuildError(`An RFCE summarizes an E32, not an E${doc.type}.`);
  if (!/^.{6}$/.test(securityCode)) throw new EcfBuildError("CodigoSeguridadeCF is the 6 first characters of the E32's SignatureValue.");
  const { dop } = ecfAmounts(doc);
  if (dop.total.gte(CONSUMER_THRESHOLD_DOP)) throw new EcfBuildError("An E32 of RD$250,000 or more is sent whole, not as an RFCE.");
  const ids = buyerIds(doc.snapshot);
  const body = children({
    Encabezado: {
      Version: "1.0",
      IdDoc: { TipoeCF: "32", eNCF: doc.encf, TipoIngresos: doc.incomeType, TipoPago: String(doc.paymentType) },
      Emisor: { RNCEmisor: doc.snapshot.issuer.rnc, RazonSocialEmisor: doc.snapshot.issuer.legal_name, FechaEmision: ecfDate(doc.issueDate) },
      // The format makes the buyer optional (3, fields 11-13) but RFCE-32.xsd requires the element:
      // it carries what the E32's Comprador carries (at least the contact's name).
      Comprador: { RNCComprador: ids.rnc, IdentificadorExtranjero: ids.foreign, RazonSocialComprador: doc.snapshot.buyer.name },
      Totales: totals(dop),
      CodigoSeguridadeCF: securityCode,
    },
  });
  return built(`<?xml version="1.0" encoding="utf-8"?><RFCE>${body}</RFCE>`);
}

const KIND_FIELD: Record<EcfAmounts["additional"][number]["kind"], string> = {
  isc_specific: "MontoImpuestoSelectivoConsumoEspecifico",
  isc_ad_valorem: "MontoImpuestoSelectivoConsumoAdvalorem",
  propina: "OtrosImpuestosAdicionales",
  other: "OtrosImpuestosAdicionales",
};

/** The E32's Totales without the rates (the RFCE has neither ITBIS1-3 nor TasaImpuestoAdicional). */
function totals(amounts: EcfAmounts) {
  const at = (value: Big | null) => (value ? money(value) : null);
  return {
    MontoGravadoTotal: at(amounts.taxedTotal),
    MontoGravadoI1: at(amounts.taxed[0]),
    MontoGravadoI2: at(amounts.taxed[1]),
    MontoGravadoI3: at(amounts.taxed[2]),
    MontoExento: at(amounts.exempt),
    TotalITBIS: at(amounts.itbisTotal),
    TotalITBIS1: at(amounts.itbis[0]),
    TotalITBIS2: at(amounts.itbis[1]),
    TotalITBIS3: at(amounts.itbis[2]),
    MontoImpuestoAdicional: at(amounts.additionalTotal),
    ImpuestosAdicionales: amounts.additional.length
      ? amounts.additional.map((item) => element("ImpuestoAdicional", { TipoImpuesto: item.code, [KIND_FIELD[item.kind]]: money(item.amount) }))
      : null,
    MontoTotal: money(amounts.total),
    MontoNoFacturable: at(amounts.nonBillable),
  };
}
