import { and, asc, eq, inArray, ne } from "drizzle-orm";
import { withTenantTransaction } from "../db/client";
import * as schema from "../db/schema";
import { config, type Env } from "../env";
import { ecfDateTime } from "../lib/dates";
import { AppError } from "../lib/errors";
import { log } from "../lib/log";
import { summaryInput } from "../modules/certification/case-sending";
import { caseXml } from "../modules/certification/case-xml";
import type { SigningMaterial } from "../modules/ecf/certificate";
import {
  type DgiiMessage,
  DgiiRefused,
  DgiiUnavailable,
  queryConsumerSummary,
  queryResult,
  queryTrackIds,
  refusalMessages,
  sendCommercialApproval,
  sendConsumerSummary,
  sendEcf,
  trackIdToFollow,
  UNJUDGED,
  withDgiiToken,
} from "../modules/ecf/dgii";
import { dgiiPaceOf, secondsUntil } from "../modules/ecf/dgii-pace";
import type { EcfEnvironment } from "../modules/ecf/schemas";
import { dgiiUrls, tenantSigningMaterial } from "../modules/ecf/service";
import { signXml } from "../modules/ecf/signature";
import { dueRows, endLease, outageDelaySeconds, type SweepOptions } from "./due";
import { type CertificationRunRef, enqueueCertificationRuns } from "./messages";

/**
 * A run of DGII's test set, stepped through ECF_QUEUE (issue 32; modules/certification/test-set-runs.ts):
 * the run row is its own outbox entry, due at `next_attempt_at`, and one message is one step, in
 * the tenant's transaction holding the run's lock (FOR UPDATE SKIP LOCKED) across DGII's calls.
 * A step takes the first case not answered yet, in the set's order:
 *
 * - sent (an e-CF DGII gave a trackId): its result is queried, as production e-CF are (jobs/ecf.ts:
 *   the same token, Consulta Resultado, the same backoff between queries);
 * - pending: built from its row with the run's e-NCF (case-xml.ts; a note's NCFModificado naming
 *   an invoice of the set takes that invoice's number in this run), signed with the tenant's
 *   certificate, and sent as the import decided (certification/case-sending.ts): an e-CF to
 *   Recepción (its result asked at once, then later through its trackId while DGII has it in
 *   process); an E32 under RD$250,000 signed whole and kept, its summary (RFCE, carrying the E32's
 *   security code) to the consumer-invoice host (fc; answered at once); an ACECF to Aprobación
 *   Comercial (answered at once).
 *
 * Every answer is judged by its body, as production's are (issue 33): a reception or an approval
 * answered 200 whose codigo/estado says rechazada is a rejection. An accepted case lets the step go
 * on with the next one; a rejected one stops the run with the case and DGII's messages; the last
 * case accepted completes it. DGII unreachable: the step is retried with the e-CF outage backoff
 * (30 s doubling, capped at 15 min), for as long as it takes. The signing certificate removed
 * meanwhile stops the run, saying so: nothing can be signed (not even DGII's seed) until one is
 * uploaded again. Nothing here writes an invoice, a stock movement or an ecf_documents row: the
 * set's e-CF stay out of the books.
 */

const runs = schema.ecfCertificationRuns;
const cases = schema.ecfCertificationTestCases;
type CaseRow = typeof cases.$inferSelect;

/** Cases answered within the step (an e-CF whose result was ready at once, an RFCE, an ACECF) before it hands over to the next message. */
const ACTIONS_PER_STEP = 10;

const FINAL_BY_CODE: Record<number, "accepted" | "rejected" | "accepted_conditional"> = { 1: "accepted", 2: "rejected", 4: "accepted_conditional" };
const DGII_WORDS = { accepted: "Aceptado", rejected: "Rechazado", accepted_conditional: "Aceptado Condicional", in_process: "En Proceso" } as const;

export interface RunStepResult {
  /** backoff: DGII asked the company to wait (a 429 or 503, modules/ecf/dgii-pace.ts): nothing tried, the sweep takes it after the wait. */
  outcome: "in_process" | "retry" | "final" | "not_due" | "done" | "unavailable" | "backoff";
  state?: string;
  retryInSeconds?: number;
}

const fieldOf = (row: CaseRow, name: string) => row.fields.find(([n]) => n === name)?.[1] ?? "";

/** One step of a run (see above), inside its tenant's transaction. */
export async function stepCertificationRun(env: Env, ref: CertificationRunRef, options: { now?: Date } = {}): Promise<RunStepResult> {
  const now = options.now ?? new Date();
  return withTenantTransaction(env, ref.tenant_id, async (db) => {
    await endLease(db, "ecf_certification_runs", ref.certification_run_id);
    const [run] = await db
      .select()
      .from(runs)
      .where(and(eq(runs.tenantId, ref.tenant_id), eq(runs.id, ref.certification_run_id)))
      .for("update", { skipLocked: true });
    if (!run) return { outcome: "unavailable" };
    if (run.state !== "running") return { outcome: "done", state: run.state };
    const dueIn = Math.ceil((run.nextAttemptAt.getTime() - now.getTime()) / 1000);
    if (dueIn > 0) return { outcome: "not_due", retryInSeconds: dueIn };
    // DGII asked the company to wait: no call of its to DGII until then (issue 48).
    const pace = await dgiiPaceOf(db, run.tenantId, now);
    if (pace.waitingUntil) return { outcome: "backoff", state: "running", retryInSeconds: secondsUntil(pace.waitingUntil, now) };

    const settings = config(env);
    const environment = run.environment as EcfEnvironment;
    const urls = dgiiUrls(settings, environment);
    const attempts = run.attempts + 1;
    const context = { tenantId: run.tenantId, runId: run.id, attempts };
    const saveRun = (values: Partial<typeof runs.$inferSelect>) =>
      db
        .update(runs)
        .set({ attempts, lastError: null, unreachableSince: null, ...values })
        .where(eq(runs.id, run.id));
    const saveCase = (id: number, values: Partial<CaseRow>) => db.update(cases).set(values).where(eq(cases.id, id));
    const nextCase = async () =>
      (
        await db
          .select()
          .from(cases)
          .where(and(eq(cases.tenantId, run.tenantId), eq(cases.runId, run.id), inArray(cases.state, ["pending", "sent"])))
          .orderBy(asc(cases.position))
          .limit(1)
      )[0];
    let material: SigningMaterial;
    try {
      material = await tenantSigningMaterial(db, run.tenantId, settings.APP_ENCRYPTION_KEY);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== "ecf_not_configured") throw error;
      // Retrying would never help: without the certificate nothing is signed, not even DGII's seed.
      const waiting = await nextCase();
      await saveRun({
        state: "stopped",
        finishedAt: now,
        stoppedCaseId: waiting?.id ?? null,
        stopReason:
          "The e-CF signing certificate was removed during the run (DELETE /api/v1/ecf/certificate): nothing more can be signed nor sent. Upload it again (PUT /api/v1/ecf/certificate) and start a new run.",
      });
      log.warn("certification run: stopped, the signing certificate was removed", { ...context, case: waiting?.caseName });
      return { outcome: "final", state: "stopped" };
    }
    const dgii = <T>(call: (token: string) => Promise<T>) => pace.call(() => withDgiiToken(run.tenantId, environment, urls.ecf, material, call));
    // The set's e-NCF → this run's: a note refers to the invoice of its own run (issue 42).
    const references = new Map(
      (
        await db
          .select({ encf: cases.encf, runEncf: cases.runEncf })
          .from(cases)
          .where(and(eq(cases.tenantId, run.tenantId), eq(cases.runId, run.id), ne(cases.document, "acecf")))
      ).map((c) => [c.encf, c.runEncf ?? c.encf]),
    );
    const later = async (seconds: number): Promise<RunStepResult> => {
      await saveRun({ nextAttemptAt: new Date(now.getTime() + seconds * 1000) });
      return { outcome: "in_process", state: "running", retryInSeconds: seconds };
    };
    /** A case's final answer; a rejection stops the run. */
    const answer = async (row: CaseRow, final: "accepted" | "rejected" | "accepted_conditional", messages: DgiiMessage[]): Promise<RunStepResult | null> => {
      await saveCase(row.id, { state: final, dgiiState: DGII_WORDS[final], dgiiMessages: messages, answeredAt: now });
      if (final !== "rejected") return null;
      const why = messages.map((m) => m.valor).join(" ") || "DGII gave no reason.";
      await saveRun({
        state: "stopped",
        finishedAt: now,
        stoppedCaseId: row.id,
        stopReason: `Case ${row.caseName} (${row.runEncf}) was rejected by DGII: ${why}`,
      });
      log.info("certification run: stopped by a rejection", { ...context, case: row.caseName, encf: row.runEncf });
      return { outcome: "final", state: "stopped" };
    };

    /**
     * A summary's (RFCE) answer: a state DGII gives is final at once (Formato RFCE v1.0: no
     * trackId). Without one — an answer with neither codigo nor estado, or DGII's consultarfce
     * finding none yet — the case stays pending with its send recorded, so the next step asks
     * DGII (consultarfce) before it is ever sent again: a second send of the same e-NCF is refused
     * by DGII as a used sequence and would stop the run (issue 43, as jobs/ecf.ts does).
     */
    const summaryAnswer = async (row: CaseRow, result: { code: number; messages: DgiiMessage[] }): Promise<RunStepResult | null> => {
      const final = FINAL_BY_CODE[result.code];
      if (final) return answer(row, final, result.messages);
      await saveCase(row.id, { dgiiMessages: result.messages });
      log.warn("certification run: the summary's answer had no state; DGII is asked (consultarfce) before sending again", {
        ...context,
        case: row.caseName,
        code: result.code,
      });
      // Backing off as a result query does: 2 s, then as long again as it has waited, up to 10 min.
      const waited = Math.ceil((now.getTime() - (row.sentAt ?? now).getTime()) / 1000);
      return later(Math.min(600, Math.max(2, waited)));
    };
    /** The security code of the E32 a summary is about (its CodigoSeguridadeCF): the run's signed E32's, else the sheet's. */
    const e32Code = async (row: CaseRow): Promise<string> =>
      row.document === "ecf"
        ? (row.securityCode ?? "")
        : ((
            await db
              .select({ code: cases.securityCode })
              .from(cases)
              .where(and(eq(cases.runId, run.id), eq(cases.document, "ecf"), eq(cases.encf, row.encf)))
          )[0]?.code ?? fieldOf(row, "CodigoSeguridadeCF"));

    let current: CaseRow | undefined;
    try {
      for (let action = 0; action < ACTIONS_PER_STEP; action++) {
        current = await nextCase();
        if (!current) {
          await saveRun({ state: "completed", finishedAt: now });
          log.info("certification run: completed", context);
          return { outcome: "final", state: "completed" };
        }
        const row = current;
        // The run's number for the case, given to every case when the run starts (test-set-runs.ts).
        const runEncf = row.runEncf ?? row.encf;
        if (row.state === "sent") {
          const result = await dgii((token) => queryResult(urls.ecf, token, row.trackId!));
          const final = FINAL_BY_CODE[result.code];
          if (!final) {
            await saveCase(row.id, { dgiiState: DGII_WORDS.in_process, dgiiMessages: result.messages });
            // Backing off as production's result queries do: 2 s, then as long again as it has waited, up to 10 min.
            const waited = Math.ceil((now.getTime() - (row.sentAt ?? now).getTime()) / 1000);
            return later(Math.min(600, Math.max(2, waited)));
          }
          const stop = await answer(row, final, result.messages);
          if (stop) return stop;
          continue;
        }
        // Pending, but an earlier attempt may have reached DGII though its answer was lost (a
        // timeout, a cut connection): DGII's trackIds say whether it holds this e-NCF, and a copy it
        // holds is followed instead of sending again, which DGII would reject as a used sequence
        // and so stop the run (issue 33, as jobs/ecf.ts does).
        if (row.sentAs === "ecf" && row.sentAt) {
          const issuer = fieldOf(row, "RNCEmisor");
          const held = await dgii((token) => queryTrackIds(urls.ecf, token, issuer, runEncf)).catch((error) => {
            if (error instanceof DgiiRefused) return [];
            throw error;
          });
          const followed = trackIdToFollow(held.filter((h) => !/^rechazado/i.test(h.state)));
          if (followed) {
            await saveCase(row.id, { state: "sent", trackId: followed.trackId, dgiiState: followed.state, dgiiMessages: [] });
            log.info("certification run: DGII already holds the case; following its trackId", { ...context, case: row.caseName, trackId: followed.trackId });
            continue;
          }
        }
        // A summary sent before whose answer was lost or could not be judged: DGII's consultarfce
        // says what it holds (0 No encontrado: nothing, so it is sent again).
        if (row.sentAs === "rfce" && row.sentAt) {
          const issuer = fieldOf(row, "RNCEmisor");
          const code = await e32Code(row);
          const held = await dgii((token) => queryConsumerSummary(urls.fc, token, issuer, runEncf, code));
          if (held.code !== 0) {
            const stop = await summaryAnswer(row, held);
            if (stop) return stop;
            continue;
          }
        }
        // Pending: built from its row with the run's number, signed, sent. Descripción técnica,
        // "Formato de Nombre de Archivo": RNCEmisor + e-NCF (an ACECF: the approver's RNC, RNCComprador).
        const fileName = `${fieldOf(row, row.document === "acecf" ? "RNCComprador" : "RNCEmisor")}${row.runEncf}.xml`;
        const signedAt = ecfDateTime(now);
        if (row.document === "ecf" && row.sentAs === "rfce") {
          // An E32 under RD$250,000: signed whole and kept (the OFV asks for it), its summary sent
          // with the E32's security code, as production issues it (ecf/issue.ts).
          const e32 = signXml(caseXml({ document: "ecf", type: row.ecfType, fields: row.fields }, { encf: runEncf, signedAt, references }).xml, material);
          const summary = signXml(caseXml(summaryInput(row), { encf: runEncf, securityCode: e32.securityCode }).xml, material);
          await saveCase(row.id, { xml: e32.xml, summaryXml: summary.xml, securityCode: e32.securityCode, sentAt: now });
          const result = await dgii((token) => sendConsumerSummary(urls.fc, token, summary.xml, fileName));
          log.info("certification run: summary sent", { ...context, case: row.caseName, encf: row.runEncf });
          const stop = await summaryAnswer(row, result);
          if (stop) return stop;
          continue;
        }
        const securityCode = row.document === "rfce" ? await e32Code(row) : undefined;
        const built = caseXml(
          { document: row.document as "ecf" | "rfce" | "acecf", type: row.ecfType, fields: row.fields },
          { encf: runEncf, signedAt, securityCode: securityCode || undefined, references },
        );
        const signed = signXml(built.xml, material);
        await saveCase(row.id, { xml: signed.xml, securityCode: signed.securityCode, sentAt: now });
        if (row.document === "ecf") {
          const trackId = await dgii((token) => sendEcf(urls.ecf, token, signed.xml, fileName));
          await saveCase(row.id, { state: "sent", trackId, dgiiState: DGII_WORDS.in_process, dgiiMessages: [] });
          log.info("certification run: case sent", { ...context, case: row.caseName, encf: row.runEncf, trackId });
          // Asked at once: DGII validates in ~200 ms on average (Descripción técnica), so the
          // result is often there, and the run goes on without a message's round trip; still in
          // process, it is asked again 2 s later.
          const result = await dgii((token) => queryResult(urls.ecf, token, trackId));
          const final = FINAL_BY_CODE[result.code];
          if (!final) return later(2);
          const stop = await answer(row, final, result.messages);
          if (stop) return stop;
          continue;
        }
        if (row.document === "rfce") {
          const result = await dgii((token) => sendConsumerSummary(urls.fc, token, signed.xml, fileName));
          const stop = await summaryAnswer(row, result);
          if (stop) return stop;
          continue;
        }
        const approval = await dgii((token) => sendCommercialApproval(urls.ecf, token, signed.xml, fileName));
        const verdict = approval.code === 1 ? "accepted" : "rejected";
        const said =
          approval.code === UNJUDGED
            ? [
                ...approval.messages,
                { codigo: "", valor: "DGII's answer said neither aprobada nor rechazada (no estado nor codigo of DGII's): not taken as accepted." },
              ]
            : approval.messages;
        const stop = await answer(row, verdict, said);
        if (stop) return stop;
      }
      // More cases answered at once: the next message goes on with them.
      return later(0);
    } catch (error) {
      if (error instanceof DgiiRefused && current) {
        // DGII refused the document itself (a 4xx at reception, an approval refused): the case is rejected.
        return (await answer(current, "rejected", refusalMessages(error.body)))!;
      }
      if (!(error instanceof DgiiUnavailable)) throw error;
      const since = run.unreachableSince ?? now;
      const delay = outageDelaySeconds(run.unreachableSince ? attempts : 1);
      await saveRun({ lastError: error.message, unreachableSince: since, nextAttemptAt: new Date(now.getTime() + delay * 1000) });
      log.warn("certification run: DGII unreachable; will retry", { ...context, retryInSeconds: delay, error: error.message });
      return { outcome: "retry", state: "running", retryInSeconds: delay };
    }
  });
}

/** One run step message of ECF_QUEUE; a run left running enqueues its next step, delayed. */
export async function handleCertificationRunMessage(message: Message<CertificationRunRef>, env: Env): Promise<void> {
  try {
    const result = await stepCertificationRun(env, message.body);
    if ((result.outcome === "in_process" || result.outcome === "retry") && result.retryInSeconds !== undefined) {
      await enqueueCertificationRuns(env, [message.body], Math.min(result.retryInSeconds, 43_200));
    }
    message.ack();
  } catch (error) {
    log.error("certification run: step errored", { ...message.body, error: (error as Error).message });
    message.retry();
  }
}

/**
 * The minute sweep: every running run due, across tenants, fairly (drizzle/0061 sweep_due), back on
 * the queue; none of a company DGII asked to wait, within the company's pace (ECF_SENDS_PER_MINUTE,
 * shared with its other DGII steps: jobs/scheduled.ts).
 */
export async function sweepCertificationRuns(env: Env, options: SweepOptions = {}): Promise<number> {
  const refs = (await dueRows(env, "ecf_certification_runs", { ...options, perTenant: options.perTenant ?? config(env).ECF_SENDS_PER_MINUTE })).map((row) => ({
    tenant_id: row.tenantId,
    certification_run_id: row.id,
  }));
  if (refs.length) log.info("certification run sweep", { due: refs.length, enqueued: await enqueueCertificationRuns(env, refs) });
  return refs.length;
}
