import { sql } from "drizzle-orm";
import { DEFAULT_ANNULMENT_REASON } from "../../lib/annulments";
import { Row608 } from "./schemas";
import type { ReportSource } from "./service";

/**
 * Formato 608, "Formato de Envío de Comprobantes Anulados" (Norma General 07-2018): the company's
 * B-series NCFs annulled in the period — invoices deleted or cancelled once issued
 * (`ncf_annulments`, with the reason the request gave) and voided purchases that carried a number
 * the company issued (B11, B13, B17; voiding records only a free-text reason, so they are reported
 * with 04, "corrección de la información", the default of src/lib/annulments.ts).
 *
 * e-NCF are left out: an unused e-NCF is annulled with DGII's ANECF message ("Anulación de e-NCF",
 * Descripción técnica), so DGII already has it, and one DGII received is reversed by a credit note.
 * The row's date is the annulled document's issue date; the period is the month of the annulment
 * (docs/reports.md, "608").
 */
export const annulments608: ReportSource<Row608> = {
  format: "608",
  columns: Object.keys(Row608) as (keyof Row608)[],
  statement: (tenantId, period, workspaceId) => sql`
    SELECT r.ncf, to_char(r.issue_date, 'YYYYMMDD') AS date, r.reason_code, count(*) OVER () AS total
    FROM (
      SELECT a.ncf, i.issue_date, a.reason_code
      FROM ncf_annulments a JOIN invoices i ON i.id = a.invoice_id AND i.tenant_id = ${tenantId}
      WHERE a.tenant_id = ${tenantId} AND a.annulled_on BETWEEN ${period.from}::date AND ${period.to}::date AND a.ncf LIKE 'B%'
        ${workspaceId === undefined ? sql`` : sql`AND a.workspace_id = ${workspaceId}`}
      UNION ALL
      SELECT p.ncf, p.issue_date, ${DEFAULT_ANNULMENT_REASON}::text
      FROM purchases p
      WHERE p.tenant_id = ${tenantId} AND p.status = 'voided' AND p.ncf LIKE 'B%'
        AND (p.voided_at AT TIME ZONE 'America/Santo_Domingo')::date BETWEEN ${period.from}::date AND ${period.to}::date
        ${workspaceId === undefined ? sql`` : sql`AND p.workspace_id = ${workspaceId}`}
    ) r
    ORDER BY r.issue_date, r.ncf`,
  row: (raw) => ({ ncf: String(raw.ncf), date: String(raw.date), annulment_type: String(raw.reason_code) }),
};
