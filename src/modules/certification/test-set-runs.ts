import { and, asc, desc, eq, gte, inArray, isNotNull, lte, max, ne, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { AnyDb } from "../../db/client";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import { AppError, notFound } from "../../lib/errors";
import { timestamp } from "../../lib/format";
import { problemsRefusal } from "./case-problems";
import type { TestSetKind, TestSetProblem } from "./test-set-reader";

/**
 * Running DGII's test sets (issue 32, steps 2 and 3; docs/ecf.md, "Step 2: the e-CF test set").
 * A run takes every case of the set in order (sheet ECF, then RFCE; or the approvals), signs it and
 * sends it to CerteCF (jobs/certification-runs.ts), one at a time: a case is sent once the one
 * before it is accepted. DGII's rule is that one rejection restarts the whole set, so a rejection
 * stops the run, and a new run starts every case over with new e-NCF numbers.
 *
 * Numbers: one owner per number. A run's e-CF carry the set's e-NCF with the sequence moved past
 * every number of that type already taken in the tenant's name — by a run before (sent or not),
 * by the tenant's own e-CF in certecf (the simulation, step 4), or handed out by its E-series
 * ranges (document subtypes) — and the run then takes its numbers from those ranges (their next
 * number moves past the run's highest), so an invoice of the simulation never gets a number a run
 * sent, nor a run one an invoice sent. The first run of a fresh tenant sends the set's own e-NCFs;
 * a rerun shifts each type's sequences by the same amount, so their order and gaps stay as DGII
 * gave them. The summary (RFCE) of an E32 takes the number its E32 takes, and a note's
 * NCFModificado naming an invoice of the set names that invoice's number in the same run
 * (jobs/certification-runs.ts). A commercial approval is about an e-CF someone else issued: its
 * eNCF is never changed.
 */

const sets = schema.ecfCertificationTestSets;
const cases = schema.ecfCertificationTestCases;
const runs = schema.ecfCertificationRuns;

export type RunState = "running" | "completed" | "stopped";

export interface RunView {
  id: number;
  number: number;
  state: RunState;
  environment: string;
  started_by: number | null;
  started_at: string;
  finished_at: string | null;
  /** The case whose rejection stopped the run. */
  stopped_at_case: { position: number; name: string; encf: string | null } | null;
  stop_reason: string | null;
  /** DGII could not be reached at the last attempt: the run tries again (backing off). */
  last_error: string | null;
  progress: { cases: number; pending: number; sent: number; accepted: number; rejected: number };
}

/** `E310000000001` → 1. */
const sequenceOf = (encf: string) => Number(encf.slice(3));
const encfOf = (type: string, sequence: number) => `E${type}${String(sequence).padStart(10, "0")}`;

/**
 * Each case's e-NCF in a new run (see above): per type, the set's sequences shifted past the
 * highest sequence of that type taken in the tenant's name; then the tenant's ranges of those
 * types are moved past the run's numbers. The ranges are locked first (FOR UPDATE), so an invoice
 * issued meanwhile waits and then numbers after the run.
 */
async function runNumbers(db: AnyDb, tenantId: number, setCases: (typeof cases.$inferSelect)[]): Promise<Map<number, string>> {
  const subtypes = schema.documentSubtypes;
  const documents = schema.ecfDocuments;
  const prefixes = [...new Set(setCases.filter((c) => c.document !== "acecf").map((c) => `E${c.ecfType}`))];
  if (!prefixes.length) return new Map(setCases.map((c) => [c.id, c.encf]));
  const ranges = await db
    .select({ id: subtypes.id, prefix: subtypes.prefix, start: subtypes.startNumber, end: subtypes.endNumber, next: subtypes.nextNumber })
    .from(subtypes)
    .where(and(eq(subtypes.tenantId, tenantId), inArray(subtypes.prefix, prefixes)))
    .orderBy(asc(subtypes.id))
    .for("update");
  const byRuns = await db
    .select({ type: cases.ecfType, last: max(sql<number>`substring(${cases.runEncf} from 4)::bigint`) })
    .from(cases)
    .where(and(eq(cases.tenantId, tenantId), isNotNull(cases.runEncf), ne(cases.document, "acecf")))
    .groupBy(cases.ecfType);
  const byDocuments = await db
    .select({ type: documents.ecfType, last: max(sql<number>`substring(${documents.encf} from 4)::bigint`) })
    .from(documents)
    .where(and(eq(documents.tenantId, tenantId), eq(documents.environment, "certecf")))
    .groupBy(documents.ecfType);
  const lastUsed = new Map<string, number>();
  const taken = (type: string, last: number) => lastUsed.set(type, Math.max(lastUsed.get(type) ?? 0, last));
  for (const u of [...byRuns, ...byDocuments]) taken(u.type, Number(u.last ?? 0));
  // What a range handed out: start … next - 1 (nothing while next is its start).
  for (const r of ranges) if (r.next > r.start) taken(r.prefix.slice(1), r.next - 1);
  const first = new Map<string, number>();
  for (const c of setCases) if (c.document !== "acecf") first.set(c.ecfType, Math.min(first.get(c.ecfType) ?? Number.MAX_SAFE_INTEGER, sequenceOf(c.encf)));
  const numbers = new Map<number, string>();
  for (const c of setCases) {
    if (c.document === "acecf") {
      numbers.set(c.id, c.encf);
      continue;
    }
    const last = lastUsed.get(c.ecfType) ?? 0;
    const lowest = first.get(c.ecfType)!;
    const shift = last >= lowest ? last - lowest + 1 : 0;
    const sequence = sequenceOf(c.encf) + shift;
    // The sequence part of an e-NCF has 10 digits (Formato e-CF v1.0, eNCF).
    if (sequence > 9_999_999_999) throw new AppError("validation_failed", `The e-NCF sequence of type ${c.ecfType} is exhausted for a new run.`);
    numbers.set(c.id, encfOf(c.ecfType, sequence));
  }
  // The run takes its numbers from the ranges that hold them: each range's next number moves past
  // the run's highest of its type when its numbers and the run's meet (a range past them is untouched).
  const span = new Map<string, { low: number; high: number }>();
  for (const c of setCases) {
    if (c.document === "acecf") continue;
    const sequence = sequenceOf(numbers.get(c.id)!);
    const known = span.get(c.ecfType);
    span.set(c.ecfType, { low: Math.min(known?.low ?? sequence, sequence), high: Math.max(known?.high ?? sequence, sequence) });
  }
  for (const r of ranges) {
    const run = span.get(r.prefix.slice(1));
    if (!run || r.start > run.high || r.end < run.low || r.next > run.high) continue;
    await db
      .update(subtypes)
      .set({ nextNumber: Math.min(run.high, r.end) + 1, updatedAt: new Date() })
      .where(and(eq(subtypes.tenantId, tenantId), eq(subtypes.id, r.id), lte(subtypes.nextNumber, run.high), gte(subtypes.endNumber, run.low)));
  }
  return numbers;
}

/**
 * DGII's set for a company names it: the issuer (RNCEmisor) of every e-CF and summary, the buyer
 * (RNCComprador) of every approval. A set naming another RNC is refused before anything is sent
 * (DGII would refuse each document as signed by someone not delegated for that RNC).
 */
async function issuerProblems(db: AnyDb, tenantId: number, setCases: (typeof cases.$inferSelect)[]): Promise<void> {
  const [company] = await db.select({ rnc: schema.companyProfiles.rnc }).from(schema.companyProfiles).where(eq(schema.companyProfiles.tenantId, tenantId));
  if (!company?.rnc)
    throw new AppError("fiscal_profile_incomplete", "The company has no RNC (PATCH /api/v1/company): DGII's test set names the company's RNC in each case.");
  const problems: TestSetProblem[] = [];
  const check = (fields: [string, string][], where: { sheet: string; row: number; case: string }, column: string, who: string) => {
    const value = fields.find(([name]) => name === column)?.[1];
    if (value !== company.rnc)
      problems.push({
        ...where,
        column,
        message: `is ${value ? `"${value}"` : "empty"}, not the company's RNC ${company.rnc}: DGII's set for this company names it as ${who}. Upload the set DGII gave this company, or correct the company's RNC (PATCH /api/v1/company).`,
      });
  };
  for (const c of setCases) {
    const where = { sheet: c.sheet, row: c.row, case: c.caseName };
    if (c.document === "acecf") check(c.fields, where, "RNCComprador", "the buyer who approves");
    else check(c.fields, where, "RNCEmisor", "the issuer");
    if (c.summaryFields && c.summaryRow !== null) check(c.summaryFields, { sheet: "RFCE", row: c.summaryRow, case: c.caseName }, "RNCEmisor", "the issuer");
  }
  if (problems.length) throw problemsRefusal("The test set names an RNC other than the company's (errors: each case and column); nothing was sent.", problems);
}

/**
 * Starts a run of the set: only in CerteCF (409 certification_not_certecf otherwise), one run of a
 * set at a time (409 certification_run_in_progress), with a signing certificate. Every case goes
 * back to pending with its number in this run; the run's first step is queued after the commit.
 */
export async function startRun(db: AnyDb, tenantId: number, userId: number | null, setId: number): Promise<number> {
  const [set] = await db
    .select()
    .from(sets)
    .where(and(eq(sets.tenantId, tenantId), eq(sets.id, setId)))
    .for("update");
  if (!set) throw notFound("Test set");
  const [settings] = await db
    .select({ environment: schema.ecfSettings.environment, certificate: schema.ecfSettings.certificateEncrypted })
    .from(schema.ecfSettings)
    .where(eq(schema.ecfSettings.tenantId, tenantId));
  if (settings?.environment !== "certecf") {
    throw new AppError(
      "certification_not_certecf",
      `DGII's test sets run in its certification environment (certecf); the tenant's e-CF environment is ${settings?.environment ?? "not set"}. Set it with PUT /api/v1/ecf/settings first.`,
    );
  }
  if (!settings.certificate) throw new AppError("ecf_not_configured", "No e-CF signing certificate: PUT /api/v1/ecf/certificate.");
  const [running] = await db
    .select({ number: runs.number })
    .from(runs)
    .where(and(eq(runs.tenantId, tenantId), eq(runs.testSetId, setId), eq(runs.state, "running")));
  if (running)
    throw new AppError(
      "certification_run_in_progress",
      `Run ${running.number} of this test set is still running; a new run starts once it has completed or stopped.`,
    );
  const [last] = await db
    .select({ number: max(runs.number) })
    .from(runs)
    .where(and(eq(runs.tenantId, tenantId), eq(runs.testSetId, setId)));
  const setCases = await db
    .select()
    .from(cases)
    .where(and(eq(cases.tenantId, tenantId), eq(cases.testSetId, setId)))
    .orderBy(asc(cases.position));
  await issuerProblems(db, tenantId, setCases);
  const numbers = await runNumbers(db, tenantId, setCases);
  const run = await db
    .insert(runs)
    .values({ tenantId, testSetId: setId, number: (last?.number ?? 0) + 1, environment: "certecf", startedBy: userId })
    .returning({ id: runs.id })
    .then(oneRow);
  for (const c of setCases) {
    await db
      .update(cases)
      .set({
        state: "pending",
        runId: run.id,
        runEncf: numbers.get(c.id)!,
        xml: null,
        summaryXml: null,
        securityCode: null,
        trackId: null,
        dgiiState: null,
        dgiiMessages: null,
        sentAt: null,
        answeredAt: null,
      })
      .where(eq(cases.id, c.id));
  }
  return run.id;
}

/** The set's latest run, or null before its first one. */
export async function latestRun(db: AnyDb, tenantId: number, setId: number): Promise<RunView | null> {
  // The run, its cases counted by state and the case it stopped at, in one statement (issue 46: a
  // read takes one round trip, never a statement waiting for the run's id). Joined, so drizzle
  // names every column with its table: the subquery's run is the outer row.
  const stoppedCase = alias(cases, "stopped_case");
  const counted = (states: string[]) => sql`count(*) FILTER (WHERE ${inArray(cases.state, states)})`;
  const progress = sql<RunView["progress"]>`(
    SELECT json_build_object(
      'cases', ${counted(["pending", "sent", "accepted", "accepted_conditional", "rejected"])},
      'pending', ${counted(["pending"])}, 'sent', ${counted(["sent"])},
      'accepted', ${counted(["accepted", "accepted_conditional"])}, 'rejected', ${counted(["rejected"])})
    FROM ${cases} WHERE ${cases.tenantId} = ${tenantId} AND ${cases.testSetId} = ${setId} AND ${cases.runId} = ${runs.id})`;
  const [found] = await db
    .select({ run: runs, progress, stopped: { position: stoppedCase.position, name: stoppedCase.caseName, encf: stoppedCase.runEncf } })
    .from(runs)
    .leftJoin(stoppedCase, and(eq(stoppedCase.tenantId, tenantId), eq(stoppedCase.id, runs.stoppedCaseId)))
    .where(and(eq(runs.tenantId, tenantId), eq(runs.testSetId, setId)))
    .orderBy(desc(runs.number))
    .limit(1);
  if (!found) return null;
  const { run, progress: counts, stopped } = found;
  return {
    id: run.id,
    number: run.number,
    state: run.state as RunState,
    environment: run.environment,
    started_by: run.startedBy,
    started_at: timestamp(run.startedAt),
    finished_at: timestamp(run.finishedAt),
    stopped_at_case: stopped,
    stop_reason: run.stopReason,
    last_error: run.lastError,
    progress: { cases: counts.cases, pending: counts.pending, sent: counts.sent, accepted: counts.accepted, rejected: counts.rejected },
  };
}

/**
 * Steps 2 (kind ecf) and 3 (kind approval) of GET /ecf/certification: done once a run of a set of
 * that kind had every case accepted; in progress while the latest runs; failed when the latest run
 * stopped on a rejection (a new run starts the set over); pending before any run.
 */
export async function testSetStep(
  db: AnyDb,
  tenantId: number,
  kind: TestSetKind,
): Promise<{ state: "pending" | "in_progress" | "done" | "failed"; evidence: Record<string, number | string | null> }> {
  // Each run's accepted cases counted in the runs' statement (issue 46: one round trip; the run
  // whose count is shown is known only from the rows).
  const acceptedOfRun = sql<number>`(${db
    .select({ n: sql<number>`count(*)::int` })
    .from(cases)
    .where(and(eq(cases.tenantId, tenantId), eq(cases.runId, runs.id), inArray(cases.state, ["accepted", "accepted_conditional"])))})`;
  const rows = await db
    .select({ id: runs.id, state: runs.state, setId: runs.testSetId, finishedAt: runs.finishedAt, accepted: acceptedOfRun })
    .from(runs)
    .innerJoin(sets, eq(sets.id, runs.testSetId))
    .where(and(eq(runs.tenantId, tenantId), eq(sets.kind, kind)))
    .orderBy(desc(runs.startedAt), desc(runs.id));
  const completed = rows.find((r) => r.state === "completed");
  const latest = rows[0];
  const state = completed ? "done" : !latest ? "pending" : latest.state === "running" ? "in_progress" : "failed";
  const accepted = (completed ?? latest)?.accepted ?? 0;
  return {
    state,
    evidence: {
      runs: rows.length,
      last_run_state: latest?.state ?? null,
      completed_run_id: completed?.id ?? null,
      completed_at: timestamp(completed?.finishedAt ?? null),
      cases_accepted: accepted,
    },
  };
}
