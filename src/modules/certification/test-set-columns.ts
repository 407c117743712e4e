/**
 * The columns of DGII's test sets (issue 32; ../shared/CERTIFICATION.md, "The test sets' layout"):
 * every column header DGII's e-CF set carries, as the XML element it fills, with how many indexes
 * it takes (`Campo`, `Campo[n]`, `Campo[n][m]`). Read from the headers of DGII's own workbook
 * (sheets ECF: 26 rows x 5,215 columns, and RFCE: 5 x 56) and the element names of DGII's schemas
 * (e-CF-31 … e-CF-47, RFCE-32; Formato e-CF v1.0); a header not listed here cannot be placed in a
 * document and its case is refused.
 */

/** Columns of sheet ECF that take no index (IdDoc, Emisor, Comprador, InformacionesAdicionales, Transporte, Totales, OtraMoneda, Subtotales, InformacionReferencia). */
const ECF_PLAIN = `CasoPrueba Version TipoeCF ENCF FechaVencimientoSecuencia IndicadorNotaCredito IndicadorEnvioDiferido
IndicadorMontoGravado TipoIngresos TipoPago FechaLimitePago TerminoPago TipoCuentaPago NumeroCuentaPago BancoPago FechaDesde
FechaHasta TotalPaginas RNCEmisor RazonSocialEmisor NombreComercial Sucursal DireccionEmisor Municipio Provincia CorreoEmisor
WebSite ActividadEconomica CodigoVendedor NumeroFacturaInterna NumeroPedidoInterno ZonaVenta RutaVenta InformacionAdicionalEmisor
FechaEmision RNCComprador IdentificadorExtranjero RazonSocialComprador ContactoComprador CorreoComprador DireccionComprador
MunicipioComprador ProvinciaComprador PaisComprador FechaEntrega ContactoEntrega DireccionEntrega TelefonoAdicional
FechaOrdenCompra NumeroOrdenCompra CodigoInternoComprador ResponsablePago InformacionAdicionalComprador FechaEmbarque
NumeroEmbarque NumeroContenedor NumeroReferencia NombrePuertoEmbarque CondicionesEntrega TotalFob Seguro Flete OtrosGastos
TotalCif RegimenAduanero NombrePuertoSalida NombrePuertoDesembarque PesoBruto PesoNeto UnidadPesoBruto UnidadPesoNeto
CantidadBulto UnidadBulto VolumenBulto UnidadVolumen ViaTransporte PaisOrigen DireccionDestino PaisDestino
RNCIdentificacionCompaniaTransportista NombreCompaniaTransportista NumeroViaje Conductor DocumentoTransporte Ficha Placa
RutaTransporte ZonaTransporte NumeroAlbaran MontoGravadoTotal MontoGravadoI1 MontoGravadoI2 MontoGravadoI3 MontoExento ITBIS1
ITBIS2 ITBIS3 TotalITBIS TotalITBIS1 TotalITBIS2 TotalITBIS3 MontoImpuestoAdicional MontoTotal MontoNoFacturable MontoPeriodo
SaldoAnterior MontoAvancePago ValorPagar TotalITBISRetenido TotalISRRetencion TotalITBISPercepcion TotalISRPercepcion TipoMoneda
TipoCambio MontoGravadoTotalOtraMoneda MontoGravado1OtraMoneda MontoGravado2OtraMoneda MontoGravado3OtraMoneda
MontoExentoOtraMoneda TotalITBISOtraMoneda TotalITBIS1OtraMoneda TotalITBIS2OtraMoneda TotalITBIS3OtraMoneda
MontoImpuestoAdicionalOtraMoneda MontoTotalOtraMoneda NumeroSubTotal DescripcionSubtotal Orden SubTotalMontoGravadoTotal
SubTotalMontoGravadoI1 SubTotalMontoGravadoI2 SubTotalMontoGravadoI3 SubTotaITBIS SubTotaITBIS1 SubTotaITBIS2 SubTotaITBIS3
SubTotalImpuestoAdicional SubTotalExento MontoSubTotal Lineas NCFModificado RNCOtroContribuyente FechaNCFModificado
CodigoModificacion RazonModificacion`;

/** Columns of sheet ECF repeated at the document's level, `Campo[n]`: payments, phones, additional taxes, global discounts and surcharges, pages. */
const ECF_REPEATED = `FormaPago MontoPago TelefonoEmisor TipoImpuesto TasaImpuestoAdicional MontoImpuestoSelectivoConsumoEspecifico
MontoImpuestoSelectivoConsumoAdvalorem OtrosImpuestosAdicionales TipoImpuestoOtraMoneda TasaImpuestoAdicionalOtraMoneda
MontoImpuestoSelectivoConsumoEspecificoOtraMoneda MontoImpuestoSelectivoConsumoAdvaloremOtraMoneda
OtrosImpuestosAdicionalesOtraMoneda NumeroLineaDoR TipoAjuste IndicadorNorma1007 DescripcionDescuentooRecargo TipoValor
ValorDescuentooRecargo MontoDescuentooRecargo MontoDescuentooRecargoOtraMoneda IndicadorFacturacionDescuentooRecargo PaginaNo
NoLineaDesde NoLineaHasta SubtotalMontoGravadoPagina SubtotalMontoGravado1Pagina SubtotalMontoGravado2Pagina
SubtotalMontoGravado3Pagina SubtotalExentoPagina SubtotalItbisPagina SubtotalItbis1Pagina SubtotalItbis2Pagina
SubtotalItbis3Pagina SubtotalImpuestoAdicionalPagina SubtotalImpuestoAdicionalPaginaTabla MontoSubtotalPagina
SubtotalMontoNoFacturablePagina`;

/** Columns of a line (DetalleItem), `Campo[n]`, n the line's number. */
const ECF_LINE = `NumeroLinea IndicadorFacturacion IndicadorAgenteRetencionoPercepcion MontoITBISRetenido MontoISRRetenido NombreItem
IndicadorBienoServicio DescripcionItem CantidadItem UnidadMedida CantidadReferencia UnidadReferencia GradosAlcohol
PrecioUnitarioReferencia FechaElaboracion FechaVencimientoItem PesoNetoKilogramo PesoNetoMineria TipoAfiliacion Liquidacion
PrecioUnitarioItem DescuentoMonto RecargoMonto PrecioOtraMoneda DescuentoOtraMoneda RecargoOtraMoneda MontoItemOtraMoneda MontoItem`;

/**
 * Columns of a line's tables, `Campo[n][m]`: entry m of line n's codes, sub-quantities,
 * sub-discounts, sub-surcharges and additional taxes. Each group is one repeated XML element; its
 * entries are numbered from 1 without gaps.
 */
export const LINE_TABLES: Record<string, string> = {
  TipoCodigo: "CodigosItem",
  CodigoItem: "CodigosItem",
  Subcantidad: "TablaSubcantidad",
  CodigoSubcantidad: "TablaSubcantidad",
  TipoSubDescuento: "TablaSubDescuento",
  SubDescuentoPorcentaje: "TablaSubDescuento",
  MontoSubDescuento: "TablaSubDescuento",
  TipoSubRecargo: "TablaSubRecargo",
  SubRecargoPorcentaje: "TablaSubRecargo",
  MontoSubRecargo: "TablaSubRecargo",
  TipoImpuesto: "TablaImpuestoAdicional",
};

/** Columns of a page's tables, `Campo[n][m]` (Paginacion). */
const ECF_PAGE_TABLES = "SubtotalImpuestoSelectivoConsumoEspecificoPagina SubtotalOtrosImpuesto";

/**
 * DGII's e-CF workbook spells the amount of a sub-surcharge `MontosubRecargo`; the schemas'
 * element is `MontoSubRecargo` (e-CF-31.xsd, TablaSubRecargo). The set's field takes the schema's name.
 */
export const HEADER_SPELLINGS: Record<string, string> = { MontosubRecargo: "MontoSubRecargo" };

const words = (text: string) => text.split(/\s+/).filter(Boolean);

/** The element names of each sheet, with the index counts each takes. */
export type SheetColumns = Map<string, ReadonlySet<number>>;

function columns(...groups: [string[], number][]): SheetColumns {
  const map = new Map<string, Set<number>>();
  for (const [names, indexes] of groups) {
    for (const name of names) map.set(name, new Set([...(map.get(name) ?? []), indexes]));
  }
  return map;
}

export const LINE_FIELDS: ReadonlySet<string> = new Set(words(ECF_LINE));

export const ECF_COLUMNS = columns(
  [words(ECF_PLAIN), 0],
  [words(ECF_REPEATED), 1],
  [words(ECF_LINE), 1],
  [Object.keys(LINE_TABLES), 2],
  [words(ECF_PAGE_TABLES), 2],
);

/** Sheet RFCE: the summary of an E32 under RD$250,000 (Formato RFCE v1.0). */
export const RFCE_COLUMNS = columns(
  [
    words(`CasoPrueba Version TipoeCF ENCF TipoIngresos TipoPago RNCEmisor RazonSocialEmisor FechaEmision RNCComprador
IdentificadorExtranjero RazonSocialComprador MontoGravadoTotal MontoGravadoI1 MontoGravadoI2 MontoGravadoI3 MontoExento TotalITBIS
TotalITBIS1 TotalITBIS2 TotalITBIS3 MontoImpuestoAdicional MontoTotal MontoNoFacturable MontoPeriodo CodigoSeguridadeCF`),
    0,
  ],
  [
    words(`FormaPago MontoPago TipoImpuesto MontoImpuestoSelectivoConsumoEspecifico MontoImpuestoSelectivoConsumoAdvalorem
OtrosImpuestosAdicionales`),
    1,
  ],
);

/** Sheet ACEECF_Generadas: one commercial approval (ACECF, Formato ACECF v1.0) per row. */
export const APPROVAL_COLUMNS = columns([
  words("Version RNCEmisor eNCF FechaEmision MontoTotal RNCComprador Estado DetalleMotivoRechazo FechaHoraAprobacionComercial"),
  0,
]);

/** The electronic types of Formato e-CF v1.0 (TipoeCFType in every e-CF schema). */
export const ECF_TYPES: ReadonlySet<string> = new Set(["31", "32", "33", "34", "41", "43", "44", "45", "46", "47"]);

// ---- Values whose form the schemas fix and the set's text can be checked against.

/** FechaValidationType (e-CF-31.xsd and the others): dd-MM-yyyy. */
const DATE = /^(3[01]|[12][0-9]|0?[1-9])-(1[012]|0?[1-9])-((19|20)\d{2})$/;
/** ACECF's FechaHoraAprobacionComercial (ACECF.xsd): dd-MM-yyyy HH:mm:ss. */
const DATE_TIME = /^(3[01]|[12][0-9]|0[1-9])-(1[012]|0[1-9])-((19|20)\d{2}) ([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$/;
/** RNCValidationType: an RNC (9 digits) or a cédula (11). */
const RNC = /^([0-9]{11}|[0-9]{9})$/;
/** Decimal18D1or2ValidationType…: up to 16 digits and 1 or 2 decimals, not negative. */
const AMOUNT = /^[0-9]{1,16}(\.[0-9]{1,2})?$/;

/** The elements of type FechaValidationType in DGII's e-CF schemas. */
export const DATE_FIELDS: ReadonlySet<string> = new Set(
  words(`FechaVencimientoSecuencia FechaLimitePago FechaDesde FechaHasta FechaEmision FechaEntrega FechaOrdenCompra FechaEmbarque
FechaElaboracion FechaVencimientoItem FechaNCFModificado`),
);
export const DATE_TIME_FIELDS: ReadonlySet<string> = new Set(["FechaHoraAprobacionComercial"]);

/**
 * The amounts whose type is an amount of 1 or 2 decimals in every schema that has them
 * (Decimal18D1or2ValidationTypeMayorIgualCero, …MayorCero, Decimal18D2MayorIgual0Type), and the
 * document's totals.
 */
const AMOUNT_FIELDS: ReadonlySet<string> = new Set(
  words(`MontoGravadoTotal MontoGravadoI1 MontoGravadoI2 MontoGravadoI3 MontoExento TotalITBIS TotalITBIS1 TotalITBIS2 TotalITBIS3
MontoTotal MontoPago CantidadItem DescuentoMonto RecargoMonto MontoItem MontoSubDescuento MontoSubRecargo MontoITBISRetenido
MontoISRRetenido TotalITBISRetenido TotalISRRetencion TotalITBISPercepcion TotalISRPercepcion MontoAvancePago TotalFob TotalCif
Seguro Flete OtrosGastos PesoBruto PesoNeto CantidadBulto VolumenBulto MontoGravadoTotalOtraMoneda MontoGravado1OtraMoneda
MontoGravado2OtraMoneda MontoGravado3OtraMoneda MontoExentoOtraMoneda TotalITBISOtraMoneda TotalITBIS1OtraMoneda
TotalITBIS2OtraMoneda TotalITBIS3OtraMoneda MontoTotalOtraMoneda MontoItemOtraMoneda DescuentoOtraMoneda RecargoOtraMoneda`),
);

const RNC_FIELDS: ReadonlySet<string> = new Set(["RNCEmisor", "RNCComprador", "RNCOtroContribuyente"]);

/** Why `value` cannot be element `name` (by its schema type), or null when it can or there is no telling. */
export function valueProblem(name: string, value: string): string | null {
  if (DATE_FIELDS.has(name) && !DATE.test(value)) return `must be a date dd-MM-yyyy (FechaValidationType); "${value}" is not.`;
  if (DATE_TIME_FIELDS.has(name) && !DATE_TIME.test(value)) return `must be a date and time dd-MM-yyyy HH:mm:ss; "${value}" is not.`;
  if (RNC_FIELDS.has(name) && !RNC.test(value)) return `must be an RNC of 9 digits or a cédula of 11 (RNCValidationType); "${value}" is not.`;
  if (AMOUNT_FIELDS.has(name) && !AMOUNT.test(value)) return `must be an amount of up to 16 digits and 2 decimals, not negative; "${value}" is not.`;
  return null;
}
