import { and, asc, desc, eq } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import { AppError, notFound } from "../../lib/errors";
import { timestamp } from "../../lib/format";
import type { SchemaName } from "../ecf/xsd";
import { problemsRefusal } from "./case-problems";
import { type DgiiService, type PlannedCase, planCases, SERVICE_OF, type SentAs, summaryInput } from "./case-sending";
import { type CaseInput, caseXml, explainedByMissing, schemaErrorColumn, withSignaturePlaceholder } from "./case-xml";
import { readTestSet, type TestSetKind, type TestSetProblem } from "./test-set-reader";
import { latestRun, type RunView } from "./test-set-runs";

/**
 * DGII's test sets (issue 32, steps 2 and 3): imported whole or not at all, each case checked to
 * make a valid document; run by test-set-runs.ts.
 */

const sets = schema.ecfCertificationTestSets;
const cases = schema.ecfCertificationTestCases;

export interface TestSetSummaryView {
  id: number;
  kind: TestSetKind;
  file_name: string;
  uploaded_by: number | null;
  uploaded_at: string;
  case_count: number;
}

export interface TestCaseView {
  position: number;
  sheet: string;
  row: number;
  name: string;
  document: "ecf" | "rfce" | "acecf";
  /** What DGII receives (an E32 under RD$250,000: its summary, rfce) and where. */
  sent_as: SentAs;
  sent_to: DgiiService;
  /** An E32 sent as its summary: the row of sheet RFCE giving the summary's values, null when they are the E32 row's. */
  summary_row: number | null;
  type: string;
  encf: string;
  state: "pending" | "sent" | "accepted" | "accepted_conditional" | "rejected";
  run_encf: string | null;
  track_id: string | null;
  dgii_state: string | null;
  dgii_messages: { codigo: string; valor: string }[];
  sent_at: string | null;
  answered_at: string | null;
  fields: { name: string; value: string }[];
}

export interface TestSetView extends TestSetSummaryView {
  run: RunView | null;
  cases: TestCaseView[];
}

/** Reads DGII's workbook and stores the set and its cases; a row that cannot make a document refuses the whole file (422). */
export async function importTestSet(db: AnyDb, tenantId: number, userId: number | null, fileName: string, bytes: ArrayBuffer): Promise<number> {
  const read = await readTestSet(bytes);
  const planned = planCases(read.cases, read.problems);
  if (!read.problems.length) read.problems.push(...(await documentProblems(planned)));
  if (read.problems.length) {
    throw problemsRefusal(
      "The test set has rows that cannot make a document (errors: each case, column and why); nothing was imported.",
      read.problems,
      read.unlisted,
    );
  }
  const set = await db
    .insert(sets)
    .values({ tenantId, kind: read.kind, fileName, uploadedBy: userId, caseCount: planned.length })
    .returning({ id: sets.id })
    .then(oneRow);
  await db.insert(cases).values(
    planned.map((c, i) => ({
      tenantId,
      testSetId: set.id,
      position: i + 1,
      sheet: c.sheet,
      row: c.row,
      caseName: c.name,
      document: c.document,
      sentAs: c.sentAs,
      summaryRow: c.summary?.row ?? null,
      summaryFields: c.summary?.fields ?? null,
      ecfType: c.type,
      encf: c.encf,
      fields: c.fields,
    })),
  );
  return set.id;
}

/** "25 sent whole to recepcion, 4 as their summary (RFCE) to recepcionfc": how the set's cases go to DGII, for the import's message. */
export function sendingSummary(view: Pick<TestCaseView, "sent_as" | "document">[]): string {
  const count = (as: SentAs, document?: string) => view.filter((c) => c.sent_as === as && (document === undefined || c.document === document)).length;
  const parts = [
    count("ecf") && `${count("ecf")} sent whole to recepcion`,
    count("rfce", "ecf") && `${count("rfce", "ecf")} E32 under RD$250,000 as their summary (RFCE) to recepcionfc`,
    count("rfce", "rfce") && `${count("rfce", "rfce")} summaries (RFCE) to recepcionfc`,
    count("acecf") && `${count("acecf")} ACECF to aprobacioncomercial`,
  ];
  return parts.filter(Boolean).join(", ");
}

// Loaded on first use, as reception does: the validator's WebAssembly module is the Worker's (the Node tools that read the route table never load it).
const validateAgainstSchema = async (xml: string, name: SchemaName) => (await import("../ecf/xsd")).validateAgainstSchema(xml, name);

/**
 * Each case built into its document (case-xml.ts) and checked against our definition of its
 * format (src/modules/ecf/xsd.ts) before anything is stored: a case that cannot make a valid document is
 * refused with the import, naming the cell at fault and why; an E32 sent as its summary, its
 * summary too (on sheet RFCE's row when it gives it). The check stands in a FechaHoraFirma, a
 * security code and a Signature, which the run adds when it signs.
 */
async function documentProblems(planned: PlannedCase[]): Promise<TestSetProblem[]> {
  const problems: TestSetProblem[] = [];
  const check = async (input: CaseInput, where: { sheet: string; row: number; case: string }) => {
    const report = (column: string, message: string) => problems.push({ ...where, column, message });
    const built = caseXml(input, { signedAt: "01-01-2026 00:00:00", securityCode: "000000" });
    for (const p of built.problems) report(p.column, p.message);
    const checked = await validateAgainstSchema(withSignaturePlaceholder(built.xml), built.schema);
    for (const error of checked.errors) {
      // An element the row leaves empty is said above by its cell; libxml2 says it of the group, or of the element after it.
      if (explainedByMissing(error, built.problems)) continue;
      report(schemaErrorColumn(error), `makes the document invalid against ${built.schema}.xsd: ${error.replace(/^line \d+: /, "")}`);
    }
    return built.problems.length + checked.errors.length === 0;
  };
  for (const c of planned) {
    const valid = await check(c, { sheet: c.sheet, row: c.row, case: c.name });
    if (!valid || c.sentAs !== "rfce" || c.document !== "ecf") continue;
    const where = c.summary ? { sheet: "RFCE", row: c.summary.row, case: c.summary.name } : { sheet: c.sheet, row: c.row, case: c.name };
    await check(summaryInput({ ecfType: c.type, fields: c.fields, summaryFields: c.summary?.fields ?? null }), where);
  }
  return problems;
}

function summary(row: typeof sets.$inferSelect): TestSetSummaryView {
  return {
    id: row.id,
    kind: row.kind as TestSetKind,
    file_name: row.fileName,
    uploaded_by: row.uploadedBy,
    uploaded_at: timestamp(row.uploadedAt),
    case_count: row.caseCount,
  };
}

/** The tenant's test sets, the newest first. */
export async function listTestSets(db: AnyDb, tenantId: number): Promise<TestSetSummaryView[]> {
  const rows = await db.select().from(sets).where(eq(sets.tenantId, tenantId)).orderBy(desc(sets.uploadedAt), desc(sets.id));
  return rows.map(summary);
}

export async function getTestSet(db: AnyDb, tenantId: number, id: number): Promise<TestSetView> {
  // Issued together, one round trip (issue 46): the cases and the latest run, read by the id asked
  // for and the tenant, are answered only once the set is found (404 otherwise).
  const [[row], rows, run] = await Promise.all([
    db
      .select()
      .from(sets)
      .where(and(eq(sets.tenantId, tenantId), eq(sets.id, id))),
    db
      .select()
      .from(cases)
      .where(and(eq(cases.tenantId, tenantId), eq(cases.testSetId, id)))
      .orderBy(asc(cases.position)),
    latestRun(db, tenantId, id),
  ]);
  if (!row) throw notFound("Test set");
  return {
    ...summary(row),
    run,
    cases: rows.map((c) => ({
      position: c.position,
      sheet: c.sheet,
      row: c.row,
      name: c.caseName,
      document: c.document as TestCaseView["document"],
      sent_as: c.sentAs as SentAs,
      sent_to: SERVICE_OF[c.sentAs as SentAs],
      summary_row: c.summaryRow,
      type: c.ecfType,
      encf: c.encf,
      state: c.state as TestCaseView["state"],
      run_encf: c.runEncf,
      track_id: c.trackId,
      dgii_state: c.dgiiState,
      dgii_messages: c.dgiiMessages ?? [],
      sent_at: timestamp(c.sentAt),
      answered_at: timestamp(c.answeredAt),
      fields: c.fields.map(([name, value]) => ({ name, value })),
    })),
  };
}

export type CaseXmlPart = "document" | "summary";

/**
 * A case's signed XML in the set's latest run, byte for byte as it was signed: `document` the case's
 * own (an E32 sent as its summary: the whole E32, which the OFV asks for under "Facturas de consumo
 * < 250Mil"), `summary` the RFCE sent for it. Named as DGII names files: RNCEmisor (an ACECF's
 * RNCComprador) + e-NCF + .xml. 409 before the run has signed it, or for a summary of a case sent whole.
 */
export async function caseXmlFile(db: AnyDb, tenantId: number, setId: number, position: number, part: CaseXmlPart): Promise<{ xml: string; fileName: string }> {
  const [row] = await db
    .select()
    .from(cases)
    .where(and(eq(cases.tenantId, tenantId), eq(cases.testSetId, setId), eq(cases.position, position)));
  if (!row) throw notFound("Test case");
  const label = `Case ${position} (${row.caseName})`;
  if (part === "summary" && row.sentAs !== "rfce")
    throw new AppError("conflict", `${label} is sent whole to ${SERVICE_OF[row.sentAs as SentAs]}: it has no summary.`);
  const xml = part === "summary" && row.document === "ecf" ? row.summaryXml : row.xml;
  if (!xml || !row.runEncf)
    throw new AppError("conflict", `${label} has not been signed in the set's latest run yet: its XML is kept once the run reaches it.`);
  const rnc = row.fields.find(([name]) => name === (row.document === "acecf" ? "RNCComprador" : "RNCEmisor"))?.[1] ?? "";
  return { xml, fileName: `${rnc}${row.runEncf}.xml` };
}
