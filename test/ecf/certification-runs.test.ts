import { describe, expect, it, vi } from "vitest";
import type { TestSet } from "../../src/modules/certification/schemas";
import type { Data, DataWithMessage } from "../support/api";
import { runCron, runQueue } from "../support/jobs";
import { ownerRow, ownerRows, sql } from "../support/seed";
import { approvalRows, ecfCases, rfceCases, SMALL_E32, upload, workbook } from "../support/test-sets";
import { type EcfTenant, ecfTenant, fakeDgii, received, script } from "./helpers";

type TestSetData = import("zod").infer<typeof TestSet>;

const PATH = "/ecf/certification/test-sets";

/** A tenant in CerteCF with DGII's e-CF set imported, its rows naming the tenant's RNC as the issuer (as DGII's set for it does). */
async function certTenant(sheets?: Parameters<typeof workbook>[0], tenant?: EcfTenant) {
  const t = tenant ?? (await ecfTenant());
  const res = await t.tenant.api.post<DataWithMessage<TestSetData>>(PATH, undefined, {
    rawBody: upload(await workbook(sheets ?? { ECF: ecfCases(t.rnc), RFCE: rfceCases(t.rnc) })),
  });
  expect(res.status, res.text).toBe(201);
  return { t, set: res.body.data };
}

const certecf = async (t: EcfTenant) => expect((await t.tenant.api.put("/ecf/settings", { environment: "certecf", enabled: true })).status).toBe(200);

const startRun = (t: EcfTenant, id: number) => t.tenant.api.post<DataWithMessage<TestSetData>>(`${PATH}/${id}/run`);

/**
 * Steps the set's running run through the Worker's queue handler until it is `state`: its due time
 * brought to now (as the owner), one message a round; bounded.
 */
async function driveRun(t: EcfTenant, setId: number, state: "completed" | "stopped") {
  const tenantId = t.tenant.tenantId;
  await vi.waitFor(
    async () => {
      const due = await ownerRows<{ id: number }>(
        sql`UPDATE ecf_certification_runs SET next_attempt_at = LEAST(next_attempt_at, now()) WHERE tenant_id = ${tenantId} AND test_set_id = ${setId} AND state = 'running' RETURNING id`,
      );
      if (due.length) await runQueue("ecf", [{ tenant_id: tenantId, certification_run_id: Number(due[0]!.id) }]);
      const run = await ownerRow<{ state: string }>(
        sql`SELECT state FROM ecf_certification_runs WHERE tenant_id = ${tenantId} AND test_set_id = ${setId} ORDER BY number DESC LIMIT 1`,
      );
      expect(run.state).toBe(state);
    },
    { timeout: 60_000, interval: 5 },
  );
  const res = await t.tenant.api.get<Data<TestSetData>>(`${PATH}/${setId}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

const step = async (t: EcfTenant, number: number) => (await t.tenant.api.get("/ecf/certification")).body.data.steps[number - 1];

const first6 = (xml: string) => /<SignatureValue>([^<]{6})/.exec(xml)![1];

/**
 * Running DGII's test sets in CerteCF (issue 32, steps 2 and 3): each case signed and sent in
 * order through ECF_QUEUE to the fake DGII (its checks: DGII's XSDs, the signature, the signer, the
 * file name, an e-NCF not received before), a rejection stopping the run, a rerun starting over
 * with new numbers; the books untouched.
 */
describe("running DGII's test sets", () => {
  it("runs the e-CF set in CerteCF: every case accepted, RFCE to the fc host with its E32's code, step 2 done, the books untouched", async () => {
    const { t, set } = await certTenant();
    expect(set.run).toBeNull();

    const outside = await startRun(t, set.id);
    expect(outside.status, outside.text).toBe(409);
    expect(outside.body).toMatchObject({
      code: "certification_not_certecf",
      message:
        "DGII's test sets run in its certification environment (certecf); the tenant's e-CF environment is testecf. Set it with PUT /api/v1/ecf/settings first.",
    });
    await certecf(t);
    // The answer to the first e-CF's reception is lost (the connection cut after DGII took it):
    // the run asks DGII's trackIds and follows the copy DGII holds instead of sending it again.
    await script(t.signer, { drop: 1 });

    const started = await startRun(t, set.id);
    expect(started.status, started.text).toBe(202);
    expect(started.body.message).toBe("Run 1 started: 29 cases to send.");
    expect(started.body.data.run).toMatchObject({ number: 1, state: "running", environment: "certecf", started_by: t.tenant.admin.id, stop_reason: null });
    // The first run sends the set's own e-NCFs.
    expect(started.body.data.cases.map((c) => c.run_encf)).toEqual(started.body.data.cases.map((c) => c.encf));
    const again = await startRun(t, set.id);
    expect(again.status, again.text).toBe(409);
    expect(again.body).toMatchObject({ code: "certification_run_in_progress" });

    const done = await driveRun(t, set.id, "completed");
    expect(done.run).toMatchObject({
      number: 1,
      state: "completed",
      stopped_at_case: null,
      progress: { cases: 29, pending: 0, sent: 0, accepted: 29, rejected: 0 },
    });
    expect(done.run!.finished_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(done.cases.map((c) => [c.state, c.dgii_state])).toEqual(done.cases.map(() => ["accepted", "Aceptado"]));
    expect(done.cases.filter((c) => c.document === "ecf").every((c) => /^[0-9a-f-]{36}$/.test(c.track_id ?? ""))).toBe(true);
    expect(done.cases.filter((c) => c.document === "rfce").map((c) => c.track_id)).toEqual([null, null, null, null]);

    // What DGII received: each case once (the first e-CF too, its lost answer notwithstanding), in
    // the set's order, as the row has it, the e-CF to reception and the summaries to the fc host,
    // none refused by its checks.
    const got = await received(t.signer);
    expect(got.map((r) => [r.kind, r.encf, r.errors])).toEqual(done.cases.map((c) => [c.document, c.run_encf, []]));
    expect(got.map((r) => r.fileName)).toEqual(done.cases.map((c) => `${t.rnc}${c.run_encf}.xml`));
    const e311 = got[0]!.xml;
    expect(e311).toContain("<MontoTotal>926.30</MontoTotal>");
    expect(e311).toContain(
      "<TablaSubDescuento><SubDescuento><TipoSubDescuento>%</TipoSubDescuento><SubDescuentoPorcentaje>1.00</SubDescuentoPorcentaje><MontoSubDescuento>35.00</MontoSubDescuento></SubDescuento><SubDescuento><TipoSubDescuento>$</TipoSubDescuento><MontoSubDescuento>17.50</MontoSubDescuento></SubDescuento></TablaSubDescuento>",
    );
    expect(e311).toContain(
      "<SubRecargo><TipoSubRecargo>%</TipoSubRecargo><SubRecargoPorcentaje>10.00</SubRecargoPorcentaje><MontoSubRecargo>43.50</MontoSubRecargo></SubRecargo>",
    );
    // A summary carries the security code of its E32, signed in the same run.
    for (const n of SMALL_E32) {
      const encf = `E32${String(n).padStart(10, "0")}`;
      const e32 = got.find((r) => r.kind === "ecf" && r.encf === encf)!;
      const rfce = got.find((r) => r.kind === "rfce" && r.encf === encf)!;
      expect(rfce.xml).toContain(`<CodigoSeguridadeCF>${first6(e32.xml)}</CodigoSeguridadeCF>`);
    }

    expect(await step(t, 2)).toMatchObject({ number: 2, state: "done", evidence: { runs: 1, last_run_state: "completed", cases_accepted: 29 } });
    expect(await step(t, 3)).toMatchObject({ number: 3, state: "pending", evidence: { runs: 0 } });
    const books = await ownerRow<{ invoices: number; ecf: number; movements: number; purchases: number }>(sql`
      SELECT (SELECT count(*)::int FROM invoices WHERE tenant_id = ${t.tenant.tenantId}) AS invoices,
             (SELECT count(*)::int FROM ecf_documents WHERE tenant_id = ${t.tenant.tenantId}) AS ecf,
             (SELECT count(*)::int FROM stock_movements WHERE tenant_id = ${t.tenant.tenantId}) AS movements,
             (SELECT count(*)::int FROM purchases WHERE tenant_id = ${t.tenant.tenantId}) AS purchases`);
    expect(books).toEqual({ invoices: 0, ecf: 0, movements: 0, purchases: 0 });
  });

  it("stops the run at a rejected case, saying which and why; a rerun starts the whole set over with the next e-NCF numbers and completes", async () => {
    // A smaller set than DGII's (the whole set runs in the test above): two E31, a small E32 and its summary, an E33.
    const t = await ecfTenant();
    const keep = (encf: string) => ["E310000000001", "E310000000002", "E320000000011", "E330000000001"].includes(encf);
    const pick = (rows: ReturnType<typeof ecfCases>) => rows.filter((row) => keep(String(row.find(([h]) => h === "ENCF")![1])));
    const { set } = await certTenant({ ECF: pick(ecfCases(t.rnc)), RFCE: pick(rfceCases(t.rnc)) }, t);
    await certecf(t);
    // DGII still has the first e-CF in process when first asked; it rejects the E33.
    await script(t.signer, { results: ["in_process"], reject: ["E330000000001"] });
    expect((await startRun(t, set.id)).status).toBe(202);
    await vi.waitFor(
      async () => {
        const [run] = await ownerRows<{ id: number }>(
          sql`SELECT id FROM ecf_certification_runs WHERE tenant_id = ${t.tenant.tenantId} AND test_set_id = ${set.id}`,
        );
        await runQueue("ecf", [{ tenant_id: t.tenant.tenantId, certification_run_id: Number(run!.id) }]);
        const first = await ownerRow<{ state: string }>(sql`SELECT state FROM ecf_certification_test_cases WHERE test_set_id = ${set.id} AND position = 1`);
        expect(first.state).toBe("sent");
      },
      { timeout: 20_000, interval: 20 },
    );
    const waiting = (await t.tenant.api.get<Data<TestSetData>>(`${PATH}/${set.id}`)).body.data;
    expect(waiting.run).toMatchObject({ number: 1, state: "running", progress: { cases: 5, pending: 4, sent: 1, accepted: 0, rejected: 0 } });
    expect(waiting.cases[0]).toMatchObject({ state: "sent", dgii_state: "En Proceso", dgii_messages: [], answered_at: null });
    expect(waiting.cases[0]!.track_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await step(t, 2)).toMatchObject({ state: "in_progress", evidence: { runs: 1, last_run_state: "running" } });
    const stopped = await driveRun(t, set.id, "stopped");
    expect(stopped.cases[0]).toMatchObject({ state: "accepted", dgii_state: "Aceptado", track_id: waiting.cases[0]!.track_id });
    expect(stopped.cases.map((c) => [c.document, c.encf])).toEqual([
      ["ecf", "E310000000001"],
      ["ecf", "E310000000002"],
      ["ecf", "E320000000011"],
      ["ecf", "E330000000001"],
      ["rfce", "E320000000011"],
    ]);
    const e33 = stopped.cases[3]!;
    expect(stopped.run).toMatchObject({
      number: 1,
      state: "stopped",
      stopped_at_case: { position: 4, name: e33.name, encf: "E330000000001" },
      stop_reason: `Case ${e33.name} (E330000000001) was rejected by DGII: El RNC Comprador no se encuentra activo.`,
      progress: { cases: 5, accepted: 3, rejected: 1, sent: 0, pending: 1 },
    });
    expect(e33).toMatchObject({
      state: "rejected",
      dgii_state: "Rechazado",
      dgii_messages: [{ codigo: "2", valor: "El RNC Comprador no se encuentra activo." }],
    });
    // Nothing after the rejected case was sent: the summary waits for a run that gets that far.
    expect((await received(t.signer)).map((r) => [r.kind, r.encf])).toEqual(stopped.cases.slice(0, 4).map((c) => [c.document, c.encf]));
    expect(stopped.cases[4]).toMatchObject({ state: "pending", track_id: null, sent_at: null });
    expect(await step(t, 2)).toMatchObject({ state: "failed", evidence: { runs: 1, last_run_state: "stopped" } });

    const rerun = await startRun(t, set.id);
    expect(rerun.status, rerun.text).toBe(202);
    expect(rerun.body.message).toBe("Run 2 started: 5 cases to send.");
    const cases = rerun.body.data.cases;
    expect(cases.every((c) => c.state === "pending" && c.track_id === null && c.dgii_state === null && c.dgii_messages.length === 0)).toBe(true);
    // Each type's sequences move past the last number run 1 took, keeping the set's order and gaps; a summary takes its E32's number.
    expect(cases.map((c) => c.run_encf)).toEqual(["E310000000003", "E310000000004", "E320000000012", "E330000000002", "E320000000012"]);

    const done = await driveRun(t, set.id, "completed");
    expect(done.run).toMatchObject({ number: 2, state: "completed", stopped_at_case: null, stop_reason: null, progress: { accepted: 5, rejected: 0 } });
    const got = await received(t.signer);
    expect(got.slice(4).map((r) => [r.kind, r.encf, r.errors])).toEqual(done.cases.map((c) => [c.document, c.run_encf, []]));
    // The XML's e-NCF is the run's; all else is the row's.
    expect(got[4]!.xml).toContain("<eNCF>E310000000003</eNCF>");
    expect(got[4]!.xml).toContain("<MontoTotal>926.30</MontoTotal>");
    expect(got[7]!.xml).toContain("<NCFModificado>E310000000002</NCFModificado>");
    expect(await step(t, 2)).toMatchObject({ state: "done", evidence: { runs: 2, last_run_state: "completed", cases_accepted: 5 } });
  });

  it("runs the commercial approval set (step 3): each row a signed ACECF sent to DGII's aprobacioncomercial, each answer recorded", async () => {
    const t0 = await ecfTenant();
    const rows = approvalRows(
      [
        { encf: "E310000000002", total: "4674.35", state: "1" },
        { encf: "E310000000004", total: "18283.00", state: "2", reason: "Mercancía no recibida" },
        { encf: "E450000000001", total: "0.30", state: "1" },
      ],
      t0.rnc,
    );
    const res = await t0.tenant.api.post<DataWithMessage<TestSetData>>(PATH, undefined, { rawBody: upload(await workbook({ ACEECF_Generadas: rows })) });
    expect(res.status, res.text).toBe(201);
    const set = res.body.data;
    await certecf(t0);
    // DGII unreachable at first: the run keeps its place, says why, and tries again.
    await script(t0.signer, { down: 1 });
    const started = await startRun(t0, set.id);
    expect(started.status, started.text).toBe(202);
    await vi.waitFor(
      async () => {
        const run = await ownerRow<{ last_error: string | null }>(sql`SELECT last_error FROM ecf_certification_runs WHERE test_set_id = ${set.id}`);
        expect(run.last_error).toMatch(/503/);
      },
      { timeout: 20_000, interval: 20 },
    );
    const waiting = (await t0.tenant.api.get<Data<TestSetData>>(`${PATH}/${set.id}`)).body.data;
    expect(waiting.run).toMatchObject({ state: "running", progress: { pending: 3, accepted: 0 } });
    expect(waiting.run!.last_error).toMatch(/503/);
    // An approval is about an e-CF someone else issued: its eNCF is never renumbered.
    expect(started.body.data.cases.map((c) => c.run_encf)).toEqual(["E310000000002", "E310000000004", "E450000000001"]);
    // The minute sweep finds the run due (its retry's message lost, say) and puts it back on the queue.
    await ownerRows(sql`UPDATE ecf_certification_runs SET next_attempt_at = now() - interval '1 minute' WHERE test_set_id = ${set.id} RETURNING id`);
    await runCron();
    await vi.waitFor(
      async () => {
        const run = await ownerRow<{ state: string }>(sql`SELECT state FROM ecf_certification_runs WHERE test_set_id = ${set.id}`);
        expect(run.state).toBe("completed");
      },
      { timeout: 20_000, interval: 20 },
    );
    const done = (await t0.tenant.api.get<Data<TestSetData>>(`${PATH}/${set.id}`)).body.data;
    expect(done.run).toMatchObject({ state: "completed", last_error: null });
    expect(done.cases.map((c) => [c.state, c.dgii_state, c.track_id])).toEqual([
      ["accepted", "Aceptado", null],
      ["accepted", "Aceptado", null],
      ["accepted", "Aceptado", null],
    ]);
    const approvals = (await (await fetch(`${fakeDgii}/_control/approvals?signer=${encodeURIComponent(t0.signer)}`)).json()) as {
      encf: string;
      xml: string;
      errors: string[];
    }[];
    expect(approvals.map((a) => [a.encf, a.errors])).toEqual([
      ["E310000000002", []],
      ["E310000000004", []],
      ["E450000000001", []],
    ]);
    expect(approvals[1]!.xml).toContain(
      `<DetalleAprobacionComercial><Version>1.0</Version><RNCEmisor>131880681</RNCEmisor><eNCF>E310000000004</eNCF><FechaEmision>01-04-2020</FechaEmision><MontoTotal>18283.00</MontoTotal><RNCComprador>${t0.rnc}</RNCComprador><Estado>2</Estado><DetalleMotivoRechazo>Mercancía no recibida</DetalleMotivoRechazo><FechaHoraAprobacionComercial>23-06-2026 17:45:47</FechaHoraAprobacionComercial></DetalleAprobacionComercial>`,
    );
    expect(await step(t0, 3)).toMatchObject({ number: 3, state: "done", evidence: { runs: 1, cases_accepted: 3 } });
    expect(await step(t0, 2)).toMatchObject({ number: 2, state: "pending" });
  });
});
