import { and, asc, desc, eq } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import * as schema from "../../db/schema";
import { AppError, type FieldErrors, notFound } from "../../lib/errors";
import { timestamp } from "../../lib/format";
import type { SchemaName } from "../../lib/xsd";
import { caseXml, schemaErrorColumn, withSignaturePlaceholder } from "./case-xml";
import { type ReadTestSet, readTestSet, type TestSetKind, type TestSetProblem } from "./test-set-reader";
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

/** `ECF[101010101E310000000001].MontoTotal` → ["Row 3: MontoTotal must be …"]: the case, the column and why. */
function problemErrors(problems: TestSetProblem[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const p of problems) {
    const key = `${p.sheet}[${p.case ?? `row ${p.row}`}].${p.column}`;
    errors[key] = [...(errors[key] ?? []), `Row ${p.row}: ${p.column} ${p.message}`];
  }
  return errors;
}

/** Reads DGII's workbook and stores the set and its cases; a row that cannot make a document refuses the whole file (422). */
export async function importTestSet(db: AnyDb, tenantId: number, userId: number | null, fileName: string, bytes: ArrayBuffer): Promise<number> {
  const read = await readTestSet(bytes);
  if (!read.problems.length) read.problems.push(...(await documentProblems(read)));
  if (read.problems.length) {
    throw new AppError(
      "validation_failed",
      "The test set has rows that cannot make a document (errors: each case, column and why); nothing was imported.",
      problemErrors(read.problems),
    );
  }
  const [set] = await db
    .insert(sets)
    .values({ tenantId, kind: read.kind, fileName, uploadedBy: userId, caseCount: read.cases.length })
    .returning({ id: sets.id });
  await db.insert(cases).values(
    read.cases.map((c, i) => ({
      tenantId,
      testSetId: set!.id,
      position: i + 1,
      sheet: c.sheet,
      row: c.row,
      caseName: c.name,
      document: c.document,
      ecfType: c.type,
      encf: c.encf,
      fields: c.fields,
    })),
  );
  return set!.id;
}

// Loaded on first use, as reception does: the validator's WebAssembly module is the Worker's (the Node tools that read the route table never load it).
const validateAgainstSchema = async (xml: string, name: SchemaName) => (await import("../../lib/xsd")).validateAgainstSchema(xml, name);

/**
 * Each case built into its document (case-xml.ts) and checked against our definition of its
 * format (src/lib/xsd.ts) before anything is stored: a case that cannot make a valid document is
 * refused with the import, naming the element at fault. The check stands in a FechaHoraFirma, a
 * security code and a Signature, which the run adds when it signs.
 */
async function documentProblems(read: ReadTestSet): Promise<TestSetProblem[]> {
  const problems: TestSetProblem[] = [];
  for (const c of read.cases) {
    const report = (column: string, message: string) => problems.push({ sheet: c.sheet, row: c.row, case: c.name, column, message });
    const built = caseXml(c, { signedAt: "01-01-2026 00:00:00", securityCode: "000000" });
    for (const p of built.problems) report(p.column, p.message);
    const checked = await validateAgainstSchema(withSignaturePlaceholder(built.xml), built.schema);
    for (const error of checked.errors)
      report(schemaErrorColumn(error), `makes the document invalid against ${built.schema}.xsd: ${error.replace(/^line \d+: /, "")}`);
  }
  return problems;
}

function summary(row: typeof sets.$inferSelect): TestSetSummaryView {
  return {
    id: row.id,
    kind: row.kind as TestSetKind,
    file_name: row.fileName,
    uploaded_by: row.uploadedBy,
    uploaded_at: timestamp(row.uploadedAt)!,
    case_count: row.caseCount,
  };
}

/** The tenant's test sets, the newest first. */
export async function listTestSets(db: AnyDb, tenantId: number): Promise<TestSetSummaryView[]> {
  const rows = await db.select().from(sets).where(eq(sets.tenantId, tenantId)).orderBy(desc(sets.uploadedAt), desc(sets.id));
  return rows.map(summary);
}

export async function getTestSet(db: AnyDb, tenantId: number, id: number): Promise<TestSetView> {
  const [row] = await db
    .select()
    .from(sets)
    .where(and(eq(sets.tenantId, tenantId), eq(sets.id, id)));
  if (!row) throw notFound("Test set");
  const rows = await db
    .select()
    .from(cases)
    .where(and(eq(cases.tenantId, tenantId), eq(cases.testSetId, id)))
    .orderBy(asc(cases.position));
  return {
    ...summary(row),
    run: await latestRun(db, tenantId, id),
    cases: rows.map((c) => ({
      position: c.position,
      sheet: c.sheet,
      row: c.row,
      name: c.caseName,
      document: c.document as TestCaseView["document"],
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
