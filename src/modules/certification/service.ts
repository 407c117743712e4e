import { and, count, eq, isNotNull, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import * as schema from "../../db/schema";
import { AppError } from "../../lib/errors";
import { timestamp } from "../../lib/format";
import type { EcfEnvironment } from "../ecf/schemas";
import { CERTIFICATION_STEPS, type CertificationStep, stepByNumber } from "./steps";
import { testSetStep } from "./test-set-runs";

const marks = schema.ecfCertificationMarks;

export type StepState = "pending" | "in_progress" | "done" | "failed" | "not_applicable";

export interface StepView {
  number: number;
  name: string;
  run_by: "sucursal" | "admin";
  state: StepState;
  sucursal_does: string;
  admin_does: string;
  evidence: Record<string, number | string | null>;
  note: string | null;
  marked_at: string | null;
  marked_by: number | null;
}

export interface CertificationView {
  environment: EcfEnvironment;
  uses_certified_provider: boolean;
  /** The first step that keeps the tenant from switching to production, or null. */
  blocking_step: number | null;
  steps: StepView[];
}

/** What a step Sucursal runs has seen: its state and its evidence. */
interface Observed {
  state: StepState;
  evidence: Record<string, number | string | null>;
}

/**
 * Step 4 (Simulación e-CF): the e-CF accepted in certecf, per TipoeCF, against the types the tenant
 * has an active electronic sequence for; an E32 under RD$250,000 counts as its summary (RFCE),
 * which is what DGII receives (Formato RFCE v1.0, introduction).
 */
async function simulation(db: AnyDb, tenantId: number): Promise<Observed> {
  const docs = schema.ecfDocuments;
  const subtypes = schema.documentSubtypes;
  // Issued together (issue 46: GET /ecf/certification in one round trip).
  const [accepted, sequences] = await Promise.all([
    db
      .select({ type: docs.ecfType, summary: sql<boolean>`${docs.summaryXml} IS NOT NULL`, n: count() })
      .from(docs)
      .where(and(eq(docs.tenantId, tenantId), eq(docs.environment, "certecf"), sql`${docs.status} IN ('accepted', 'accepted_conditional')`))
      .groupBy(docs.ecfType, sql`${docs.summaryXml} IS NOT NULL`),
    db
      .selectDistinct({ prefix: subtypes.prefix })
      .from(subtypes)
      .where(and(eq(subtypes.tenantId, tenantId), eq(subtypes.isElectronic, true), eq(subtypes.isActive, true))),
  ]);
  const required = [...new Set(sequences.map((s) => s.prefix.replace(/^E/, "")))].sort();
  const evidence: Record<string, number> = {};
  for (const type of required) evidence[`accepted_e${type}`] = 0;
  let total = 0;
  for (const row of accepted) {
    const key = row.summary ? "accepted_rfce" : `accepted_e${row.type}`;
    evidence[key] = (evidence[key] ?? 0) + row.n;
    if (row.summary) evidence[`accepted_e${row.type}`] = (evidence[`accepted_e${row.type}`] ?? 0) + row.n;
    total += row.n;
  }
  const missing = required.filter((type) => !evidence[`accepted_e${type}`]);
  const state: StepState = total === 0 ? "pending" : missing.length === 0 && required.length > 0 ? "done" : "in_progress";
  return { state, evidence: { ...evidence, types_required: required.length, types_missing: missing.length } };
}

/** Step 9 (Recepción e-CF): e-CF that reached the receiver while the tenant was in certecf. */
async function receptions(db: AnyDb, tenantId: number): Promise<Observed> {
  const received = schema.receivedEcf;
  const [row] = await db
    .select({ n: count(), last: sql<string | null>`max(${received.receivedAt})::text` })
    .from(received)
    .where(and(eq(received.tenantId, tenantId), eq(received.environment, "certecf"), eq(received.authenticated, true)));
  const n = row?.n ?? 0;
  return { state: n > 0 ? "done" : "pending", evidence: { received_ecf: n } };
}

/** Step 11 (Recepción aprobaciones comerciales): ACECF received for the tenant's certecf e-CF. */
async function approvalsReceived(db: AnyDb, tenantId: number): Promise<Observed> {
  const docs = schema.ecfDocuments;
  const [row] = await db
    .select({ n: count() })
    .from(docs)
    .where(and(eq(docs.tenantId, tenantId), eq(docs.environment, "certecf"), isNotNull(docs.commercialAt)));
  const n = row?.n ?? 0;
  return { state: n > 0 ? "done" : "pending", evidence: { commercial_approvals_received: n } };
}

const OBSERVERS: Record<number, (db: AnyDb, tenantId: number) => Promise<Observed>> = {
  // Steps 2 and 3: the runs of DGII's test sets (test-set-runs.ts).
  2: (db, tenantId) => testSetStep(db, tenantId, "ecf"),
  3: (db, tenantId) => testSetStep(db, tenantId, "approval"),
  4: simulation,
  9: receptions,
  11: approvalsReceived,
};

/** The tenant's certification: each of DGII's 14 steps with its state, evidence and the admin's notes. */
export async function getCertification(db: AnyDb, tenantId: number): Promise<CertificationView> {
  // Every statement issued together, one round trip (issue 46): each step Sucursal runs is
  // observed whatever the settings say, and what a step a certified provider skips saw is dropped.
  const [[settings], markRows, observedRows] = await Promise.all([
    db
      .select({ environment: schema.ecfSettings.environment, provider: schema.ecfSettings.usesCertifiedProvider })
      .from(schema.ecfSettings)
      .where(eq(schema.ecfSettings.tenantId, tenantId)),
    db.select().from(marks).where(eq(marks.tenantId, tenantId)),
    Promise.all(Object.entries(OBSERVERS).map(async ([step, observe]) => [Number(step), await observe(db, tenantId)] as const)),
  ]);
  const provider = settings?.provider ?? false;
  const marked = new Map(markRows.map((m) => [m.step, m]));
  const observed = new Map(observedRows);
  const steps: StepView[] = [];
  for (const step of CERTIFICATION_STEPS) {
    const mark = marked.get(step.number);
    const base = {
      number: step.number,
      name: step.name,
      run_by: step.runBy,
      sucursal_does: step.sucursalDoes,
      admin_does: step.adminDoes,
      note: mark?.note ?? null,
      marked_at: timestamp(mark?.markedAt ?? null),
      marked_by: mark?.markedBy ?? null,
    };
    if (provider && step.providerSkips) {
      steps.push({ ...base, state: "not_applicable", evidence: {} });
    } else if (step.runBy === "sucursal") {
      steps.push({ ...base, ...observed.get(step.number)! });
    } else {
      steps.push({ ...base, state: mark ? "done" : "pending", evidence: {} });
    }
  }
  const blocking = provider ? undefined : steps.find((s) => s.run_by === "sucursal" && s.state !== "done");
  return {
    environment: (settings?.environment ?? "testecf") as EcfEnvironment,
    uses_certified_provider: provider,
    blocking_step: blocking?.number ?? null,
    steps,
  };
}

/**
 * Refuses the switch to production (environment `ecf`) while a step Sucursal runs is not done,
 * unless the tenant uses a certified provider (DGII opens production only after certification).
 */
export async function assertReadyForProduction(db: AnyDb, tenantId: number): Promise<void> {
  const view = await getCertification(db, tenantId);
  if (view.blocking_step === null) return;
  const step = stepByNumber(view.blocking_step)!;
  throw new AppError(
    "certification_incomplete",
    `Step ${step.number} of DGII's certification (${step.name}) is not done: see GET /api/v1/ecf/certification. A tenant that issues through a certified provider says so with PUT /api/v1/ecf/certification.`,
  );
}

export async function setCertifiedProvider(db: AnyDb, tenantId: number, usesCertifiedProvider: boolean): Promise<void> {
  await db
    .insert(schema.ecfSettings)
    .values({ tenantId, usesCertifiedProvider, updatedAt: new Date() })
    .onConflictDoUpdate({ target: schema.ecfSettings.tenantId, set: { usesCertifiedProvider, updatedAt: new Date() } });
}

/** The admin steps only: a step Sucursal runs is read from its evidence, never marked. */
function adminStep(number: number): CertificationStep {
  const step = stepByNumber(number);
  if (!step) throw new AppError("not_found", `Certification step ${number} not found: DGII's steps are 1 to 14.`);
  if (step.runBy !== "admin") {
    throw new AppError(
      "certification_step_observed",
      `Step ${number} (${step.name}) is run by Sucursal: its state comes from what Sucursal did, not from a mark.`,
    );
  }
  return step;
}

export async function markStep(db: AnyDb, tenantId: number, number: number, note: string, userId: number, now = new Date()): Promise<void> {
  adminStep(number);
  await db
    .insert(marks)
    .values({ tenantId, step: number, note, markedBy: userId, markedAt: now })
    .onConflictDoUpdate({ target: [marks.tenantId, marks.step], set: { note, markedBy: userId, markedAt: now } });
}

export async function unmarkStep(db: AnyDb, tenantId: number, number: number): Promise<void> {
  adminStep(number);
  const removed = await db
    .delete(marks)
    .where(and(eq(marks.tenantId, tenantId), eq(marks.step, number)))
    .returning({ step: marks.step });
  if (removed.length === 0) throw new AppError("not_found", `Step ${number} is not marked done.`);
}
