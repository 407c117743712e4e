/**
 * How each case of a test set goes to DGII (issue 42), decided when the set is imported and shown
 * with each case, so the admin sees it before running:
 *
 * - an e-CF of sheet ECF is sent whole to Recepción (`recepcion`), except
 * - an E32 under RD$250,000, which DGII does not take there ("Las Facturas de Consumo Electrónica
 *   con un monto inferior a los RD$250,000.00, no serán recibidos por este servicio", Descripción
 *   técnica, "Recepción de e-CF"): it is signed whole, kept (the OFV asks for it), and its summary
 *   (RFCE) goes to Recepción FC (`recepcionfc`), as production issues it (ecf/issue.ts). DGII's
 *   sets carry these E32 in sheet ECF like the others; a set may also carry their summaries in a
 *   sheet RFCE, whose row then gives the summary's values (the set's values are the document);
 *   without one, the summary takes the E32 row's own values for the summary's elements;
 * - a row of sheet RFCE whose E32 is not in sheet ECF is a summary on its own;
 * - an approval of sheet ACEECF_Generadas is an ACECF sent to Aprobación Comercial.
 */

import { Big } from "../../lib/decimal";
import { CONSUMER_THRESHOLD_DOP } from "../ecf/xml";
import type { CaseInput } from "./case-xml";
import { RFCE_COLUMNS } from "./test-set-columns";
import type { CaseDocument, TestSetCase, TestSetProblem } from "./test-set-reader";

/** What DGII receives of the case. */
export type SentAs = CaseDocument;
export type DgiiService = "recepcion" | "recepcionfc" | "aprobacioncomercial";

export const SERVICE_OF: Record<SentAs, DgiiService> = { ecf: "recepcion", rfce: "recepcionfc", acecf: "aprobacioncomercial" };

export interface PlannedCase extends TestSetCase {
  sentAs: SentAs;
  /** An E32 sent as its summary with sheet RFCE's row for it: that row (null: the summary takes the E32 row's values). */
  summary: { row: number; name: string; fields: [string, string][] } | null;
}

const fieldOf = (fields: [string, string][], name: string) => fields.find(([n]) => n === name)?.[1] ?? null;

/** An E32 whose MontoTotal (in pesos, Totales) is under RD$250,000: DGII receives its summary (Formato RFCE v1.0). */
export function isConsumerSummary(type: string, fields: [string, string][]): boolean {
  const total = fieldOf(fields, "MontoTotal");
  return type === "32" && total !== null && /^\d+(\.\d+)?$/.test(total) && new Big(total).lt(CONSUMER_THRESHOLD_DOP);
}

/** The summary's elements taken from its E32's row: every field that names an element of sheet RFCE (Formato RFCE v1.0) with the same indexes. */
export function summaryFieldsOf(fields: [string, string][]): [string, string][] {
  return fields.filter(([name]) => {
    const match = /^([A-Za-z0-9]+)((?:\[\d+\])*)$/.exec(name);
    return match !== null && (RFCE_COLUMNS.get(match[1]!)?.has(match[2]!.split("[").length - 1) ?? false);
  });
}

/** The summary (RFCE) an E32 case is sent as: sheet RFCE's row for it, else the E32 row's own values. */
export function summaryInput(c: { ecfType: string; fields: [string, string][]; summaryFields: [string, string][] | null }): CaseInput {
  return { document: "rfce", type: c.ecfType, fields: c.summaryFields ?? summaryFieldsOf(c.fields) };
}

/**
 * The cases as the run sends them: sheet ECF's rows in order (an E32 under RD$250,000 as its
 * summary, paired with its row of sheet RFCE when there is one), then the summaries alone, then
 * the approvals. Problems: an e-NCF twice in sheet ECF, a row of sheet RFCE for an E32 sent whole,
 * two rows of sheet RFCE for one E32.
 */
export function planCases(cases: TestSetCase[], problems: TestSetProblem[]): PlannedCase[] {
  const planned: PlannedCase[] = [];
  const byEncf = new Map<string, PlannedCase>();
  for (const c of cases) {
    if (c.document !== "ecf") continue;
    const earlier = byEncf.get(c.encf);
    if (earlier) {
      problems.push({
        sheet: c.sheet,
        row: c.row,
        case: c.name,
        column: "ENCF",
        message: `repeats the e-NCF of row ${earlier.row} (${c.encf}): DGII receives each e-NCF once.`,
      });
      continue;
    }
    const plan: PlannedCase = { ...c, sentAs: isConsumerSummary(c.type, c.fields) ? "rfce" : "ecf", summary: null };
    byEncf.set(c.encf, plan);
    planned.push(plan);
  }
  for (const c of cases) {
    if (c.document !== "rfce") continue;
    const e32 = byEncf.get(c.encf);
    const problem = (message: string) => problems.push({ sheet: c.sheet, row: c.row, case: c.name, column: "ENCF", message });
    if (!e32) planned.push({ ...c, sentAs: "rfce", summary: null });
    else if (e32.sentAs !== "rfce")
      problem(
        `is the e-NCF of row ${e32.row} of sheet ${e32.sheet}, an E32 of RD$250,000 or more (MontoTotal ${fieldOf(e32.fields, "MontoTotal")}): it is sent whole, with no summary.`,
      );
    else if (e32.summary) problem(`repeats the summary of row ${e32.summary.row} for the E32 of row ${e32.row} of sheet ${e32.sheet}.`);
    else e32.summary = { row: c.row, name: c.name, fields: c.fields };
  }
  for (const c of cases) if (c.document === "acecf") planned.push({ ...c, sentAs: "acecf", summary: null });
  return planned;
}
