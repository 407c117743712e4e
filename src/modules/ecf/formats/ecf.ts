/**
 * The e-CF (comprobante fiscal electrónico) of every type, 31 to 47, as DGII's format defines it:
 * Formato e-CF v1.0 (docs/formato-e-cf-v1.0) and DGII's XSDs of March 2025 (e-CF-31.xsd …
 * e-CF-47.xsd), plus DGII's 2026 change: TipoIngresos optional in E33 and E34. One table for all
 * types (presence per type, in ECF_KINDS' order) and the simple types it uses, declared once; a
 * type that DGII defines differently for some e-CF types says so (byKind). Names are DGII's, so
 * each line can be set beside its publication. schema.ts turns this into XSD; how to apply a
 * change of DGII's: docs/ecf.md, "The formats".
 */

import { byKind, codes, type DocumentFormat, list, text } from "./model";

export const ECF_KINDS = ["31", "32", "33", "34", "41", "43", "44", "45", "46", "47"] as const;
export type EcfKind = (typeof ECF_KINDS)[number];

export const ECF_TYPES = {
  versionType: codes("decimal", "1.0"),
  TipoeCFType: codes("integer", "31-34 41 43-47"),
  eNCFValidationType: { base: "string", maxLength: 13, minLength: 13, pattern: ["([a-z0-9A-Z]{13})"] },
  IndicadorEnvioDiferidoType: codes("integer", "1"),
  IndicadorMontoGravadoType: codes("integer", "0 1"),
  IndicadorServicioTodoIncluidoType: codes("integer", "1"),
  TipoIngresosValidationType: byKind(
    { base: "string", enumeration: list("01-06"), pattern: ["[0]{1}[1-6]{1}"] },
    { "31 32": codes("string", "01-06"), "45": { base: "integer", enumeration: list("01-06"), pattern: ["[0]{1}[1-6]{1}"] } },
  ),
  TipoPagoType: codes("integer", "1-3"),
  TerminoPagoValidationType: { base: "string", pattern: [String.raw`[\s\d\w]{1,15}`] },
  FormaPagoType: codes("integer", "1-8"),
  TipoCuentaPagoType: codes("string", "CT AH OT"),
  NumeroCuentaPagoType: text(1, 28),
  BancoPagoType: text(1, 75),
  RNCValidationType: { base: "string", pattern: ["[0-9]{11}|[0-9]{9}"] },
  TelefonoValidationType: { base: "string", maxLength: 12, pattern: [String.raw`\d{3}-\d{3}-\d{4}`] },
  CorreoValidationType: { base: "string", maxLength: 80, pattern: [String.raw`\w+([-+.]\w+)*@\w+([-.]\w+)*\.\w+([-.]\w+)*`] },
  NumeroLineaType: byKind(
    { base: "integer", maxInclusive: 1000, minInclusive: 1, pattern: ["[0-9]{0,4}"], totalDigits: 4 },
    { "33 34": { base: "integer", maxInclusive: 10000, minInclusive: 1, pattern: ["[0-9]{1,5}"], totalDigits: 5 } },
  ),
  IndicadorFacturacionType: codes("integer", "0-4"),
  IndicadorBienoServicioType: codes("integer", "1 2"),
  TipoDescuentoRecargoType: codes("string", "$ %"),
  TipoAjusteType: codes("string", "D R"),
  IndicadorFacturacionDRType: codes("integer", "1-4"),
  CodigoModificacionType: codes("integer", "1-5"),
  TipoMonedaType: codes("string", "BRL CAD CHF CHY XDR DKK EUR GBP JPY NOK SCP SEK USD VEF HTG MXN COP"),
  IndicadorNorma1007Type: codes("integer", "0 1"),
  IndicadorAgenteRetencionoPercepcionType: codes("integer", "1 2"),
  CodificacionTipoImpuestosType: codes("string", "001-039"),
  UnidadMedidaType: byKind(codes("integer", "1-62"), { "33 44": codes("string", "1-62") }),
  ProvinciaMunicipioType: codes(
    "string",
    "010000 010100 010101 020000 020100-020109 020200-020202 020300-020303 020400-020405 020500 020501 020600-020604 020700-020702 020800-020804 020900 020901 021000 021001 030000 030001 030101 030102 030200-030202 030300-030307 030400 030401 030500-030502 040000 040100-040104 040200 040201 040300-040302 040400-040402 040500-040504 040600 040601 040700-040702 040800-040802 040900 040901 041000 041001 041100-041102 050000 050100-050102 050200-050203 050300 050301 050400 050401 050500-050502 060000 060100-060105 060200-060203 060300 060301 060400 060401 060500-060505 060600 060601 060700-060702 070000 070100-070103 070200-070203 070300-070302 070400-070402 070500-070502 070600 070601 080000 080100-080104 080200-080203 090000 090100-090109 090200 090201 090300-090304 090400 090401 100000 100100-100103 100200-100202 100300 100301 100400-100402 100500-100502 100600-100602 110000 110100-110104 110200-110203 120000 120100-120102 120200 120201 120300-120302 130000 130100-130105 130200-130203 130300-130303 130400-130402 140000 140100-140104 140200-140203 140300-140302 140400 140401 150000 150100 150101 150200-150202 150300-150304 150400 150401 150500-150502 150600 150601 160000 160100-160102 160200-160202 170000 170100-170110 170200-170203 170300 170301 180000 180100-180103 180200-180202 180300 180301 180400 180401 180500-180502 180600-180604 180700-180703 180800-180804 180900 180901 190000 190100-190102 190200-190202 190300 190301 200000 200100-200104 200200 200201 200300 200301 210000 210100-210103 210200 210201 210300-210303 210400-210402 210500-210504 210600-210602 210700 210701 210800 210801 220000 220100-220111 220200-220203 220300-220303 220400-220402 220500-220503 220600-220602 230000 230100 230101 230200-230203 230300 230301 230400 230401 230500 230501 230600 230601 240000 240100-240106 240200-240202 240300 240301 240400-240404 250000 250100-250102 250104-250107 250200 250201 250300-250303 250400-250402 250500-250504 250600-250602 250700-250703 250800-250803 250900 250901 251000 251001 260000 260100 260101 260200 260201 260300 260301 270000 270100-270104 270200-270205 270300-270304 280000 280100-280106 280200 280201 280300-280303 290000 290100-290104 290200 290201 290300-290303 290400 290402 290403 290500 290501 300000 300100-300104 300200-300202 300300 300301 310000 310100-310105 310200 310201 310300 310301 320000 320100-320102 320200 320201 320300-320302 320400-320402 320500-320502 320600-320603 320700-320703",
  ),
  FechaValidationType: { base: "string", pattern: [String.raw`(3[01]|[12][0-9]|0?[1-9])\-(1[012]|0?[1-9])\-((19|20)\d{2})`] },
  DateTimeValidationType: {
    base: "string",
    maxLength: 19,
    pattern: [String.raw`(3[01]|[12][0-9]|0[1-9])-(1[0-2]|0[1-9])-((19|20)\d{2}) (2[0-3]|[01]?[0-9]):([0-5]?[0-9]):([0-5]?[0-9])`],
  },
  Integer2ValidationType: { base: "integer", pattern: ["[0-9]{1,2}"], totalDigits: 2 },
  Integer4ValidationTypeMayorUno: { base: "integer", minExclusive: 1, pattern: ["[0-9]{1,4}"], totalDigits: 4 },
  Integer4V1To1000ValidationType: { base: "integer", maxInclusive: 1000, minInclusive: 1, pattern: ["[0-9]{1,4}"], totalDigits: 4 },
  Integer20ValidationType: { base: "integer", pattern: ["[0-9]{1,20}"], totalDigits: 20 },
  Decimal5D1or2ValidationTypeMayorCero: { base: "decimal", fractionDigits: 2, minExclusive: 0, pattern: ["[0-9]{1,3}(.[0-9]{1,2})?"], totalDigits: 5 },
  Decimal7D1or4ValidationTypeMayorCero: byKind(
    { base: "decimal", fractionDigits: 4, minExclusive: 0, pattern: ["[0-9]{1,3}(.[0-9]{1,4})?"], totalDigits: 7 },
    { "41": { base: "decimal", fractionDigits: 4, pattern: ["[0-9]{1,3}(.[0-9]{1,4})?"], totalDigits: 7 } },
  ),
  Decimal18D1or2ValidationTypeMayorIgualCero: { base: "decimal", fractionDigits: 2, pattern: [String.raw`[0-9]{1,16}(\.[0-9]{1,2})?`], totalDigits: 18 },
  Decimal18D1or2ValidationTypeMayorCero: {
    base: "decimal",
    fractionDigits: 2,
    minExclusive: 0,
    pattern: [String.raw`[0-9]{1,16}(\.[0-9]{1,2})?`],
    totalDigits: 18,
  },
  Decimal18D1or2ValidationTypeNegativoPositivo: { base: "decimal", fractionDigits: 2, pattern: ["[+-]?[0-9]{1,16}(.[0-9]{1,2})?"], totalDigits: 18 },
  Decimal19D1or3ValidationTypeMayorIgualCero: { base: "decimal", fractionDigits: 3, pattern: ["[0-9]{1,16}(.[0-9]{1,3})?"], totalDigits: 19 },
  Decimal20D1or4ValidationTypeMayorIgualCero: { base: "decimal", fractionDigits: 4, pattern: [String.raw`(\d{1,16})(\.\d{1,4})?`], totalDigits: 20 },
  Alfa20Type: byKind(
    { base: "string", maxLength: 20, pattern: [String.raw`[a-zA-ZñÑáéíóúÁÉÍÓÚ,\s]*`] },
    { "33 34": { base: "string", maxLength: 20, pattern: [String.raw`^[a-zA-ZñÑáéíóúÁÉÍÓÚ,\s]*$`] } },
  ),
  AlfNum7Type: text(1, 7),
  AlfNum10Type: text(1, 10),
  AlfNum11a19ValidationType: text(11, 19),
  AlfNum14Type: text(1, 14),
  AlfNum20Type: text(1, 20),
  AlfNum25Type: text(1, 25),
  AlfNum35Type: text(1, 35),
  AlfNum40Type: text(1, 40),
  AlfNum45Type: text(1, 45),
  AlfNum50Type: text(1, 50),
  AlfNum60Type: text(1, 60),
  AlfNum80Type: text(1, 80),
  AlfNum90ValidationType: text(1, 90),
  AlfNum100Type: text(1, 100),
  AlfNum150Type: text(1, 150),
  AlfNum250Type: text(1, 250),
  AlfNum1000Type: text(1, 1000),
  TipoAfiliacionType: codes("integer", "1 2"),
  LiquidacionType: codes("integer", "1 2"),
  Integer5ValidationTypeMayorUno: { base: "integer", minExclusive: 1, pattern: ["[0-9]{1,5}"], totalDigits: 5 },
  Integer5V1To10000ValidationType: { base: "integer", maxInclusive: 10000, minInclusive: 1, pattern: ["[0-9]{1,5}"], totalDigits: 5 },
  IndicadorNotaCreditoType: { base: "integer", maxInclusive: 1, minInclusive: 0 },
  ViaTransporteType: codes("string", "01-03"),
  Alfa60Type: byKind(
    { base: "string", maxLength: 60, pattern: [String.raw`(\D[^0-9]+[a-zA-ZñÑáéíóúÁÉÍÓÚ])`] },
    { "47": { base: "string", maxLength: 60, pattern: [String.raw`[a-zA-ZñÑáéíóúÁÉÍÓÚ,\s]*`] } },
  ),
  Alfa35Type: byKind(
    { base: "string", maxLength: 35, pattern: [String.raw`(\D[^0-9]+[a-zA-ZñÑáéíóúÁÉÍÓÚ])`] },
    { "47": { base: "string", maxLength: 35, pattern: [String.raw`[a-zA-ZñÑáéíóúÁÉÍÓÚ,\s]*`] } },
  ),
  Alfa3Type: byKind(
    { base: "string", maxLength: 3, pattern: [String.raw`\D[^0-9]+[a-zA-ZñÑáéíóúÁÉÍÓÚ]`] },
    { "47": { base: "string", maxLength: 3, pattern: ["[a-zA-ZñÑáéíóúÁÉÍÓÚ]*"] } },
  ),
} satisfies DocumentFormat["types"];

/**
 * Presence per type: 31 32 33 34 41 43 44 45 46 47. TipoIngresos: 1 in DGII's March 2025 XSDs for
 * E33 and E34, 3 since DGII's 2026 change (minOccurs 0 in E33 and E34).
 */
const ECF_ELEMENTS = `
ECF                                                          1111111111  1                 -
  Encabezado                                                 1111111111  1                 -
    Version                                                  1111111111  1                 versionType
    IdDoc                                                    1111111111  1                 -
      TipoeCF                                                1111111111  1                 TipoeCFType
      eNCF                                                   1111111111  1                 eNCFValidationType
      IndicadorNotaCredito                                   0001000000  1                 IndicadorNotaCreditoType
      FechaVencimientoSecuencia                              1010111111  1                 FechaValidationType
      IndicadorEnvioDiferido                                 3333003330  1                 IndicadorEnvioDiferidoType
      IndicadorMontoGravado                                  3333300300  1                 IndicadorMontoGravadoType
      IndicadorServicioTodoIncluido                          3333003300  1                 IndicadorServicioTodoIncluidoType
      TipoIngresos                                           1133001110  1                 TipoIngresosValidationType
      TipoPago                                               1111331113  1                 TipoPagoType
      FechaLimitePago                                        3333303333  1                 FechaValidationType
      TerminoPago                                            3330303333  1                 TerminoPagoValidationType
      TablaFormasPago                                        3330303333  1                 -
        FormaDePago                                          1110101111  7                 -
          FormaPago                                          1110101111  1                 FormaPagoType
          MontoPago                                          1110101111  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      TipoCuentaPago                                         3330303333  1                 TipoCuentaPagoType
      NumeroCuentaPago                                       3330303333  1                 NumeroCuentaPagoType
      BancoPago                                              3330303333  1                 BancoPagoType
      FechaDesde                                             3333003333  1                 FechaValidationType
      FechaHasta                                             3333003333  1                 FechaValidationType
      TotalPaginas                                           3333333333  1                 Integer4ValidationTypeMayorUno|33,34:Integer5ValidationTypeMayorUno
    Emisor                                                   1111111111  1                 -
      RNCEmisor                                              1111111111  1                 RNCValidationType
      RazonSocialEmisor                                      1111111111  1                 AlfNum150Type
      NombreComercial                                        3333333333  1                 AlfNum150Type
      Sucursal                                               3333333333  1                 AlfNum20Type
      DireccionEmisor                                        1111111111  1                 AlfNum100Type
      Municipio                                              3333333333  1                 ProvinciaMunicipioType
      Provincia                                              3333333333  1                 ProvinciaMunicipioType
      TablaTelefonoEmisor                                    3333333333  1                 -
        TelefonoEmisor                                       1111111111  3                 TelefonoValidationType
      CorreoEmisor                                           3333333333  1                 CorreoValidationType
      WebSite                                                3333333333  1                 AlfNum50Type
      ActividadEconomica                                     3333333333  1                 AlfNum100Type
      CodigoVendedor                                         3333003330  1                 AlfNum60Type
      NumeroFacturaInterna                                   3333333333  1                 AlfNum20Type
      NumeroPedidoInterno                                    3333333333  1                 Integer20ValidationType
      ZonaVenta                                              3333003330  1                 AlfNum20Type
      RutaVenta                                              3333003330  1                 AlfNum20Type
      InformacionAdicionalEmisor                             3333333333  1                 AlfNum250Type
      FechaEmision                                           1111111111  1                 FechaValidationType
    Comprador                                                1133101113  1                 -
      RNCComprador                                           1333103130  1                 RNCValidationType
      IdentificadorExtranjero                                0333003033  1                 AlfNum20Type
      RazonSocialComprador                                   1333101113  1                 AlfNum150Type
      ContactoComprador                                      3333303330  1                 AlfNum80Type
      CorreoComprador                                        3333303330  1                 CorreoValidationType
      DireccionComprador                                     3333303330  1                 AlfNum100Type
      MunicipioComprador                                     3333303330  1                 ProvinciaMunicipioType
      ProvinciaComprador                                     3333303330  1                 ProvinciaMunicipioType
      PaisComprador                                          0000000030  1                 Alfa60Type
      FechaEntrega                                           3333003330  1                 FechaValidationType
      ContactoEntrega                                        3333003330  1                 AlfNum100Type
      DireccionEntrega                                       3333003330  1                 AlfNum100Type
      TelefonoAdicional                                      3333003330  1                 TelefonoValidationType
      FechaOrdenCompra                                       3333003330  1                 FechaValidationType
      NumeroOrdenCompra                                      3333003330  1                 AlfNum20Type
      CodigoInternoComprador                                 3333303330  1                 AlfNum20Type
      ResponsablePago                                        3333303330  1                 Alfa20Type
      InformacionAdicionalComprador                          3333303330  1                 AlfNum150Type
    InformacionesAdicionales                                 3333003330  1                 -
      FechaEmbarque                                          3333003330  1                 FechaValidationType
      NumeroEmbarque                                         3333003330  1                 AlfNum25Type
      NumeroContenedor                                       3333003330  1                 AlfNum100Type
      NumeroReferencia                                       3333003330  1                 Integer20ValidationType|45:AlfNum20Type
      NombrePuertoEmbarque                                   0000000030  1                 AlfNum40Type
      CondicionesEntrega                                     0000000030  1                 Alfa3Type
      TotalFob                                               0000000030  1                 Decimal18D1or2ValidationTypeMayorCero
      Seguro                                                 0000000030  1                 Decimal18D1or2ValidationTypeMayorCero
      Flete                                                  0000000030  1                 Decimal18D1or2ValidationTypeMayorCero
      OtrosGastos                                            0000000030  1                 Decimal18D1or2ValidationTypeMayorCero
      TotalCif                                               0000000030  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      RegimenAduanero                                        0000000030  1                 Alfa35Type
      NombrePuertoSalida                                     0000000030  1                 AlfNum40Type
      NombrePuertoDesembarque                                0000000030  1                 AlfNum40Type
      PesoBruto                                              3333003330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      PesoNeto                                               3333003330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      UnidadPesoBruto                                        3333003330  1                 UnidadMedidaType
      UnidadPesoNeto                                         3333003330  1                 UnidadMedidaType
      CantidadBulto                                          3333003330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      UnidadBulto                                            3333003330  1                 UnidadMedidaType
      VolumenBulto                                           3333003330  1                 Decimal18D1or2ValidationTypeMayorCero
      UnidadVolumen                                          3333003330  1                 UnidadMedidaType
    Transporte                                               3333003333  1                 -
      ViaTransporte                                          0000000030  1                 ViaTransporteType
      PaisOrigen                                             0000000030  1                 Alfa60Type
      DireccionDestino                                       0000000030  1                 AlfNum100Type
      PaisDestino                                            0000000033  1                 Alfa60Type
      RNCIdentificacionCompaniaTransportista                 0000000030  1                 AlfNum20Type
      NombreCompaniaTransportista                            0000000030  1                 AlfNum150Type
      NumeroViaje                                            0000000030  1                 AlfNum20Type
      Conductor                                              3333003330  1                 AlfNum20Type
      DocumentoTransporte                                    3333003330  1                 Integer20ValidationType
      Ficha                                                  3333003330  1                 AlfNum10Type
      Placa                                                  3333003330  1                 AlfNum7Type
      RutaTransporte                                         3333003330  1                 AlfNum20Type
      ZonaTransporte                                         3333003330  1                 AlfNum20Type
      NumeroAlbaran                                          3333003330  1                 AlfNum20Type
    Totales                                                  1111111111  1                 -
      MontoGravadoTotal                                      3333300330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      MontoGravadoI1                                         3333300300  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      MontoGravadoI2                                         3333300300  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      MontoGravadoI3                                         3333300330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      MontoExento                                            3333333303  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      ITBIS1                                                 3333300300  1                 Integer2ValidationType
      ITBIS2                                                 3333300300  1                 Integer2ValidationType
      ITBIS3                                                 3333300330  1                 Integer2ValidationType
      TotalITBIS                                             3333300330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      TotalITBIS1                                            3333300300  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      TotalITBIS2                                            3333300300  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      TotalITBIS3                                            3333300330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      MontoImpuestoAdicional                                 3333003300  1                 Decimal18D1or2ValidationTypeMayorCero
      ImpuestosAdicionales                                   3333003300  1                 -
        ImpuestoAdicional                                    1111001100  20                -
          TipoImpuesto                                       1113001100  1                 CodificacionTipoImpuestosType
          TasaImpuestoAdicional                              1113001100  1                 Decimal5D1or2ValidationTypeMayorCero
          MontoImpuestoSelectivoConsumoEspecifico            3333000300  1                 Decimal18D1or2ValidationTypeMayorCero
          MontoImpuestoSelectivoConsumoAdvalorem             3333000300  1                 Decimal18D1or2ValidationTypeMayorCero
          OtrosImpuestosAdicionales                          3333001300  1                 Decimal18D1or2ValidationTypeMayorCero
      MontoTotal                                             1111111111  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      MontoNoFacturable                                      3333003330  1                 Decimal18D1or2ValidationTypeNegativoPositivo
      MontoPeriodo                                           3333333333  1                 Decimal18D1or2ValidationTypeNegativoPositivo
      SaldoAnterior                                          3333333333  1                 Decimal18D1or2ValidationTypeNegativoPositivo
      MontoAvancePago                                        3333333333  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      ValorPagar                                             3333333333  1                 Decimal18D1or2ValidationTypeNegativoPositivo
      TotalITBISRetenido                                     3033300000  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      TotalISRRetencion                                      3033300003  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      TotalITBISPercepcion                                   3033300000  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      TotalISRPercepcion                                     3033300000  1                 Decimal18D1or2ValidationTypeMayorIgualCero
    OtraMoneda                                               3333333333  1                 -
      TipoMoneda                                             3333333333  1                 TipoMonedaType
      TipoCambio                                             3333333333  1                 Decimal7D1or4ValidationTypeMayorCero
      MontoGravadoTotalOtraMoneda                            3333300330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      MontoGravado1OtraMoneda                                3333300300  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      MontoGravado2OtraMoneda                                3333300300  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      MontoGravado3OtraMoneda                                3333300330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      MontoExentoOtraMoneda                                  3333333303  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      TotalITBISOtraMoneda                                   3333300330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      TotalITBIS1OtraMoneda                                  3333300300  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      TotalITBIS2OtraMoneda                                  3333300300  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      TotalITBIS3OtraMoneda                                  3333300330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      MontoImpuestoAdicionalOtraMoneda                       3333003300  1                 Decimal18D1or2ValidationTypeMayorCero
      ImpuestosAdicionalesOtraMoneda                         3333003300  1                 -
        ImpuestoAdicionalOtraMoneda                          1111001100  20                -
          TipoImpuestoOtraMoneda                             1111003300  1                 CodificacionTipoImpuestosType
          TasaImpuestoAdicionalOtraMoneda                    1111003300  1                 Decimal5D1or2ValidationTypeMayorCero
          MontoImpuestoSelectivoConsumoEspecificoOtraMoneda  3333000300  1                 Decimal18D1or2ValidationTypeMayorCero
          MontoImpuestoSelectivoConsumoAdvaloremOtraMoneda   3333000300  1                 Decimal18D1or2ValidationTypeMayorCero
          OtrosImpuestosAdicionalesOtraMoneda                3333003300  1                 Decimal18D1or2ValidationTypeMayorCero
      MontoTotalOtraMoneda                                   3333333333  1                 Decimal18D1or2ValidationTypeMayorIgualCero
  DetallesItems                                              1111111111  1                 -
    Item                                                     1111111111  1000|33,34:10000  -
      NumeroLinea                                            1111111111  1                 NumeroLineaType
      TablaCodigosItem                                       3333333333  1                 -
        CodigosItem                                          1111111111  5                 -
          TipoCodigo                                         1111111111  1                 AlfNum14Type
          CodigoItem                                         1111111111  1                 AlfNum35Type
      IndicadorFacturacion                                   1111111111  1                 IndicadorFacturacionType
      Retencion                                              3033100001  1                 -
        IndicadorAgenteRetencionoPercepcion                  3033100001  1                 IndicadorAgenteRetencionoPercepcionType
        MontoITBISRetenido                                   3033300000  1                 Decimal18D1or2ValidationTypeMayorIgualCero
        MontoISRRetenido                                     3033300001  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      NombreItem                                             1111111111  1                 AlfNum80Type
      IndicadorBienoServicio                                 1111111111  1                 IndicadorBienoServicioType
      DescripcionItem                                        3333333333  1                 AlfNum1000Type
      CantidadItem                                           1111111111  1                 Decimal18D1or2ValidationTypeMayorCero
      UnidadMedida                                           3333333333  1                 UnidadMedidaType
      CantidadReferencia                                     3333000300  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      UnidadReferencia                                       3333000300  1                 UnidadMedidaType
      TablaSubcantidad                                       3333000300  1                 -
        SubcantidadItem                                      1111000100  5                 -
          Subcantidad                                        3333000300  1                 Decimal19D1or3ValidationTypeMayorIgualCero
          CodigoSubcantidad                                  3333000300  1                 UnidadMedidaType
      GradosAlcohol                                          3333000300  1                 Decimal5D1or2ValidationTypeMayorCero
      PrecioUnitarioReferencia                               3333000300  1                 Decimal18D1or2ValidationTypeMayorCero
      FechaElaboracion                                       3333303330  1                 FechaValidationType
      FechaVencimientoItem                                   3333303330  1                 FechaValidationType
      Mineria                                                0333000030  1                 -
        PesoNetoKilogramo                                    0333000030  1                 Decimal19D1or3ValidationTypeMayorIgualCero
        PesoNetoMineria                                      0333000030  1                 Decimal19D1or3ValidationTypeMayorIgualCero
        TipoAfiliacion                                       0333000030  1                 TipoAfiliacionType
        Liquidacion                                          0333000030  1                 LiquidacionType
      PrecioUnitarioItem                                     1111111111  1                 Decimal20D1or4ValidationTypeMayorIgualCero
      DescuentoMonto                                         3333303330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      TablaSubDescuento                                      3333303330  1                 -
        SubDescuento                                         1111101110  12                -
          TipoSubDescuento                                   1111101110  1                 TipoDescuentoRecargoType
          SubDescuentoPorcentaje                             3333303330  1                 Decimal5D1or2ValidationTypeMayorCero
          MontoSubDescuento                                  3333303330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      RecargoMonto                                           3333303330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      TablaSubRecargo                                        3333303330  1                 -
        SubRecargo                                           1111101110  12                -
          TipoSubRecargo                                     1111101110  1                 TipoDescuentoRecargoType
          SubRecargoPorcentaje                               3333303330  1                 Decimal5D1or2ValidationTypeMayorCero
          MontoSubRecargo                                    3333303330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      TablaImpuestoAdicional                                 3333003300  1                 -
        ImpuestoAdicional                                    1111001100  2                 -
          TipoImpuesto                                       1111001100  1                 CodificacionTipoImpuestosType
      OtraMonedaDetalle                                      3333333333  1                 -
        PrecioOtraMoneda                                     3333333333  1                 Decimal20D1or4ValidationTypeMayorIgualCero
        DescuentoOtraMoneda                                  3333333333  1                 Decimal18D1or2ValidationTypeMayorIgualCero
        RecargoOtraMoneda                                    3333333333  1                 Decimal18D1or2ValidationTypeMayorIgualCero
        MontoItemOtraMoneda                                  3333333333  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      MontoItem                                              1111111111  1                 Decimal18D1or2ValidationTypeMayorIgualCero
  Subtotales                                                 3333333333  1                 -
    Subtotal                                                 1111111111  20                -
      NumeroSubTotal                                         3333333333  1                 Integer2ValidationType
      DescripcionSubtotal                                    3333333333  1                 AlfNum40Type
      Orden                                                  3333333333  1                 Integer2ValidationType
      SubTotalMontoGravadoTotal                              3333300330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      SubTotalMontoGravadoI1                                 3333300300  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      SubTotalMontoGravadoI2                                 3333300300  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      SubTotalMontoGravadoI3                                 3333300330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      SubTotaITBIS                                           3333300330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      SubTotaITBIS1                                          3333300300  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      SubTotaITBIS2                                          3333300300  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      SubTotaITBIS3                                          3333300330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      SubTotalImpuestoAdicional                              3333303300  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      SubTotalExento                                         3333333303  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      MontoSubTotal                                          3333333333  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      Lineas                                                 3333333333  1                 Integer2ValidationType
  DescuentosORecargos                                        3333303330  1                 -
    DescuentoORecargo                                        1111101110  20                -
      NumeroLinea                                            1111101110  1                 Integer2ValidationType
      TipoAjuste                                             1111101110  1                 TipoAjusteType
      IndicadorNorma1007                                     3333000300  1                 IndicadorNorma1007Type
      DescripcionDescuentooRecargo                           3333303330  1                 AlfNum45Type
      TipoValor                                              3333303330  1                 TipoDescuentoRecargoType
      ValorDescuentooRecargo                                 3333303330  1                 Decimal5D1or2ValidationTypeMayorCero
      MontoDescuentooRecargo                                 3333303330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      MontoDescuentooRecargoOtraMoneda                       3333303330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      IndicadorFacturacionDescuentooRecargo                  3333303330  1                 IndicadorFacturacionDRType
  Paginacion                                                 3333333333  1                 -
    Pagina                                                   1111111111  1000|33,34:10000  -
      PaginaNo                                               3333333333  1                 Integer4V1To1000ValidationType|33,34:Integer5V1To10000ValidationType
      NoLineaDesde                                           3333333333  1                 Integer4V1To1000ValidationType|33,34:Integer5V1To10000ValidationType
      NoLineaHasta                                           3333333333  1                 Integer4V1To1000ValidationType|33,34:Integer5V1To10000ValidationType
      SubtotalMontoGravadoPagina                             3333300330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      SubtotalMontoGravado1Pagina                            3333300300  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      SubtotalMontoGravado2Pagina                            3333300300  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      SubtotalMontoGravado3Pagina                            3333300330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      SubtotalExentoPagina                                   3333333303  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      SubtotalItbisPagina                                    3333300330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      SubtotalItbis1Pagina                                   3333300300  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      SubtotalItbis2Pagina                                   3333300300  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      SubtotalItbis3Pagina                                   3333300330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      SubtotalImpuestoAdicionalPagina                        3333003300  1                 Decimal18D1or2ValidationTypeMayorCero
      SubtotalImpuestoAdicional                              3333003300  1                 -
        SubtotalImpuestoSelectivoConsumoEspecificoPagina     3333000300  1                 Decimal18D1or2ValidationTypeMayorCero
        SubtotalOtrosImpuesto                                3333003300  1                 Decimal18D1or2ValidationTypeMayorCero
      MontoSubtotalPagina                                    3333333333  1                 Decimal18D1or2ValidationTypeMayorIgualCero
      SubtotalMontoNoFacturablePagina                        3333003330  1                 Decimal18D1or2ValidationTypeMayorIgualCero
  InformacionReferencia                                      3311333333  1                 -
    NCFModificado                                            3311333333  1                 AlfNum11a19ValidationType
    RNCOtroContribuyente                                     3333333333  1                 RNCValidationType
    FechaNCFModificado                                       3311333333  1                 FechaValidationType
    CodigoModificacion                                       3311333333  1                 CodigoModificacionType
    RazonModificacion                                        0033000000  1                 AlfNum90ValidationType
  FechaHoraFirma                                             1111111111  1                 DateTimeValidationType
  *                                                          1111111111  1                 any
`;

export const ECF_FORMAT: DocumentFormat = { kinds: ECF_KINDS, types: ECF_TYPES, elements: ECF_ELEMENTS };
