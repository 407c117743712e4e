/**
 * DGII's reasons for annulling an NCF, as Formato 608 ("Envío de Comprobantes Anulados") codes
 * them. An NCF that was voided before it reached anyone is reported with one of these; a
 * correction of a document that did reach its buyer is a credit or debit note instead.
 */
export const ANNULMENT_REASONS = {
  "01": "Deterioro de factura pre-impresa",
  "02": "Errores de impresión (factura pre-impresa)",
  "03": "Impresión defectuosa",
  "04": "Corrección de la información",
  "05": "Cambio de productos",
  "06": "Devolución de productos",
  "07": "Omisión de productos",
  "08": "Errores en secuencia de NCF",
  "09": "Por cese de operaciones",
  "10": "Pérdida o hurto de talonarios",
} as const;

export type AnnulmentReason = keyof typeof ANNULMENT_REASONS;

export const ANNULMENT_REASON_CODES = Object.keys(ANNULMENT_REASONS) as [AnnulmentReason, ...AnnulmentReason[]];

/** When a request names no reason (the spec's DELETE has no body): "corrección de la información". */
export const DEFAULT_ANNULMENT_REASON: AnnulmentReason = "04";
