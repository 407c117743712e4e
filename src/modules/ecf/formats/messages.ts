/**
 * DGII's other messages, each its own small table (model.ts): presence 1 mandatory, 3 optional.
 * Facts from DGII's format documents and XSDs of March 2025 (docs/formato-{rfce,anecf,arecf,acecf}-v1.0,
 * Descripción técnica); names are DGII's. Where one of DGII's patterns looks wrong (RFCE's FechaType
 * `[12][$0-9]`, ACECF's `(20|20)`), it is kept as DGII publishes it: a document DGII's schema
 * accepts must be accepted here, and refused alike (test/node/formats-conformance.test.ts).
 */

import { ECF_TYPES } from "./ecf";
import { codes, type DocumentFormat, list, text } from "./model";

/** Resumen de factura de consumo (RFCE, an E32 under RD$250,000): Formato RFCE v1.0, RFCE-32.xsd. */
export const RFCE_FORMAT: DocumentFormat = {
  kinds: ["RFCE-32"],
  types: {
    FormaPagoType: ECF_TYPES.FormaPagoType,
    TipoPagoType: ECF_TYPES.TipoPagoType,
    VersionType: { base: "decimal", enumeration: list("1.0"), pattern: ["[1]{1}.[0]{1}"] },
    TipoeCFType: codes("integer", "32"),
    eNCFType: { base: "string", maxLength: 13, minLength: 13, pattern: ["([a-z0-9A-Z]{13,13})*"] },
    FechaType: { base: "string", pattern: [String.raw`\s*(3[01]|[12][$0-9]|0?[1-9])\-(1[012]|0?[1-9])\-((19|20)\d{2})\s*`] },
    TipoIngresosType: { base: "integer", enumeration: list("01-06"), pattern: ["[0]{1}[1-6]{1}"] },
    Decimal18D2MayorIgual0Type: { base: "decimal", fractionDigits: 2, pattern: ["[0-9]{1,16}(.[0-9]{2})?"], totalDigits: 18 },
    RNCType: { base: "integer", pattern: ["[0-9]{11}|[0-9]{9}"] },
    AlfaNum150RType: text(1, 150),
    AlfaNum150Type: { base: "string", maxLength: 150 },
    AlfaNum20Type: { base: "string", maxLength: 20 },
    Decimal18D2Mayor0Type: { base: "decimal", fractionDigits: 2, minInclusive: "0.01", pattern: ["[0-9]{1,16}(.[0-9]{2})?"], totalDigits: 18 },
    Decimal18D2NegativoType: { base: "decimal", fractionDigits: 2, pattern: ["[+-]?[0-9]{1,16}(.[0-9]{2})?"], totalDigits: 18 },
    CodigoSeguridadeCFType: { base: "string", pattern: [".{6}"] },
    ImpuestosAdicionalesType: codes("string", "001-039"),
  },
  elements: `
RFCE                                               1  1   -
  Encabezado                                       1  1   -
    Version                                        1  1   VersionType
    IdDoc                                          1  1   -
      TipoeCF                                      1  1   TipoeCFType
      eNCF                                         1  1   eNCFType
      TipoIngresos                                 1  1   TipoIngresosType
      TipoPago                                     1  1   TipoPagoType
      TablaFormasPago                              3  1   -
        FormaDePago                                3  7   -
          FormaPago                                3  1   FormaPagoType
          MontoPago                                3  1   Decimal18D2MayorIgual0Type
    Emisor                                         1  1   -
      RNCEmisor                                    1  1   RNCType
      RazonSocialEmisor                            1  1   AlfaNum150RType
      FechaEmision                                 1  1   FechaType
    Comprador                                      1  1   -
      RNCComprador                                 3  1   RNCType
      IdentificadorExtranjero                      3  1   AlfaNum20Type
      RazonSocialComprador                         3  1   AlfaNum150Type
    Totales                                        1  1   -
      MontoGravadoTotal                            3  1   Decimal18D2MayorIgual0Type
      MontoGravadoI1                               3  1   Decimal18D2MayorIgual0Type
      MontoGravadoI2                               3  1   Decimal18D2MayorIgual0Type
      MontoGravadoI3                               3  1   Decimal18D2MayorIgual0Type
      MontoExento                                  3  1   Decimal18D2MayorIgual0Type
      TotalITBIS                                   3  1   Decimal18D2MayorIgual0Type
      TotalITBIS1                                  3  1   Decimal18D2MayorIgual0Type
      TotalITBIS2                                  3  1   Decimal18D2MayorIgual0Type
      TotalITBIS3                                  3  1   Decimal18D2MayorIgual0Type
      MontoImpuestoAdicional                       3  1   Decimal18D2Mayor0Type
      ImpuestosAdicionales                         3  1   -
        ImpuestoAdicional                          3  20  -
          TipoImpuesto                             3  1   ImpuestosAdicionalesType
          MontoImpuestoSelectivoConsumoEspecifico  3  1   Decimal18D2Mayor0Type
          MontoImpuestoSelectivoConsumoAdvalorem   3  1   Decimal18D2Mayor0Type
          OtrosImpuestosAdicionales                3  1   Decimal18D2Mayor0Type
      MontoTotal                                   1  1   Decimal18D2MayorIgual0Type
      MontoNoFacturable                            3  1   Decimal18D2NegativoType
      MontoPeriodo                                 3  1   Decimal18D2NegativoType
    CodigoSeguridadeCF                             1  1   CodigoSeguridadeCFType
  *                                                1  1   any
`,
};

/** Anulación de e-NCF (ANECF): Formato ANECF v1.0, ANECF.xsd. */
export const ANECF_FORMAT: DocumentFormat = {
  kinds: ["ANECF"],
  types: {
    versionType: codes("string", "1.0"),
    CFType: codes("integer", "31-34 41 43-47"),
    RNCValidation: { base: "integer", pattern: [String.raw`(\d{11,11})|(\d{9,9})`] },
    AlfaNum13Validation: text(13, 13),
    Num10Validation: { base: "integer", pattern: [String.raw`(\d{1,10})`] },
    Num2Validation: { base: "integer", pattern: [String.raw`\d{1,2}`] },
    DateAndTimeValidation: { base: "string", pattern: ["(3[01]|[12][0-9]|0[1-9])-(1[0-2]|0[1-9])-[0-9]{4} (2[0-3]|[01]?[0-9]):([0-5]?[0-9]):([0-5]?[0-9])"] },
  },
  elements: `
ANECF                                   1  1      -
  Encabezado                            1  1      -
    Version                             1  1      versionType
    RncEmisor                           1  1      RNCValidation
    CantidadeNCFAnulados                1  1      Num10Validation
    FechaHoraAnulacioneNCF              1  1      DateAndTimeValidation
  DetalleAnulacion                      1  1      -
    Anulacion                           1  10     -
      NoLinea                           1  10     Num2Validation
      TipoeCF                           1  1      CFType
      TablaRangoSecuenciasAnuladaseNCF  1  1      -
        Secuencias                      1  10000  -
          SecuenciaeNCFDesde            1  1      AlfaNum13Validation
          SecuenciaeNCFHasta            1  1      AlfaNum13Validation
      CantidadeNCFAnulados              1  1      Num10Validation
  *                                     1  1      any
`,
};

/** Acuse de recibo (ARECF): Formato ARECF v1.0, ARECF.xsd. */
export const ARECF_FORMAT: DocumentFormat = {
  kinds: ["ARECF"],
  types: {
    VersionType: { base: "decimal", enumeration: list("1.0"), fractionDigits: 1, totalDigits: 2 },
    RNCType: { base: "integer", pattern: ["[0-9]{11}|[0-9]{9}"] },
    eNCFType: { base: "string", maxLength: 13, minLength: 9, pattern: ["([a-z0-9A-Z]{13,13})|([a-z0-9A-Z]{11,11})|([a-z0-9A-Z]{9,9})*"] },
    EstadoType: codes("integer", "0 1"),
    CodigoMotivoNoRecibidoType: codes("integer", "1-4"),
    DateAndTimeType: { base: "string", pattern: ["(3[01]|[12][0-9]|0[1-9])-(1[0-2]|0[1-9])-[0-9]{4} (2[0-3]|[01]?[0-9]):([0-5]?[0-9]):([0-5]?[0-9])"] },
  },
  elements: `
ARECF                       1  1  -
  DetalleAcusedeRecibo      1  1  -
    Version                 1  1  VersionType
    RNCEmisor               1  1  RNCType
    RNCComprador            1  1  RNCType
    eNCF                    1  1  eNCFType
    Estado                  1  1  EstadoType
    CodigoMotivoNoRecibido  3  1  CodigoMotivoNoRecibidoType
    FechaHoraAcuseRecibo    1  1  DateAndTimeType
  *                         3  1  any
`,
};

/** Aprobación comercial (ACECF): Formato ACECF v1.0, ACECF.xsd. */
export const ACECF_FORMAT: DocumentFormat = {
  kinds: ["ACECF"],
  types: {
    versionType: codes("string", "1.0"),
    EstadoType: codes("integer", "1 2"),
    AlfaNum250Validation: { base: "string", maxLength: 250 },
    AlfaNum11Validation: { base: "string", pattern: ["([a-z0-9A-Z]{13,13})|([a-z0-9A-Z]{11,11})|([a-z0-9A-Z]{9,9})"] },
    RNCValidation: { base: "integer", pattern: [String.raw`(\d{11,11})|(\d{9,9})`] },
    DateValidation: { base: "string", pattern: [String.raw`(3[01]|[12][0-9]|0?[1-9])\-(1[012]|0?[1-9])\-((20|20)\d{2})`] },
    DateAndTimeValidation: { base: "string", pattern: ["(3[01]|[12][0-9]|0[1-9])-(1[0-2]|0[1-9])-[0-9]{4} (2[0-3]|[01]?[0-9]):([0-5]?[0-9]):([0-5]?[0-9])"] },
    Decimal18D2Validation: { base: "decimal", fractionDigits: 2, pattern: [String.raw`[0-9]+(\.[0-9]{2})`], totalDigits: 18 },
  },
  elements: `
ACECF                             1  1  -
  DetalleAprobacionComercial      1  1  -
    Version                       1  1  versionType
    RNCEmisor                     1  1  RNCValidation
    eNCF                          1  1  AlfaNum11Validation
    FechaEmision                  1  1  DateValidation
    MontoTotal                    1  1  Decimal18D2Validation
    RNCComprador                  1  1  RNCValidation
    Estado                        1  1  EstadoType
    DetalleMotivoRechazo          3  1  AlfaNum250Validation
    FechaHoraAprobacionComercial  1  1  DateAndTimeValidation
  *                               3  1  any
`,
};

/** The seed of DGII's authentication (SemillaModel): Descripción técnica, Obtener archivo semilla; Semilla.xsd. */
export const SEED_FORMAT: DocumentFormat = {
  kinds: ["Semilla"],
  types: {},
  elements: `
SemillaModel  1  1  -
  valor       1  1  xs:string
  fecha       1  1  xs:dateTime
  *           1  1  any
`,
};
