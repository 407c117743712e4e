import { describe, expect, it, vi } from "vitest";
import type { TestSet } from "../../src/modules/certification/schemas";
import type { Data, DataWithMessage } from "../support/api";
import { runCron, runQueue } from "../support/jobs";
import { ownerRow, ownerRows, sql } from "../support/seed";
import { approvalRows, ecfCases, type Row, rfceCases, SMALL_E32, upload, workbook } from "../support/test-sets";
import { type EcfTenant, ecfTenant, fakeDgii, issueE31, type Received, received, script, waitForStatus } from "./helpers";

type TestSetData = import("zod").infer<typeof TestSet>;
type CaseData = TestSetData["cases"][number];

const PATH = "/ecf/certification/test-sets";

async function importSet(t: EcfTenant, sheets: Record<string, Row[]>) {
  const res = await t.tenant.api.post<DataWithMessage<TestSetData>>(PATH, undefined, { rawBody: upload(await workbook(sheets)) });
  expect(res.status, res.text).toBe(201);
  return res.body;
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
  return getSet(t, setId);
}

async function getSet(t: EcfTenant, setId: number) {
  const res = await t.tenant.api.get<Data<TestSetData>>(`${PATH}/${setId}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

const step = async (t: EcfTenant, number: number) => (await t.tenant.api.get("/ecf/certification")).body.data.steps[number - 1];

const first6 = (xml: string) => /<SignatureValue>([^<]{6})/.exec(xml)![1];
const element = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
const SMALL = SMALL_E32.map((n) => `E32${String(n).padStart(10, "0")}`);

/** The fake DGII's verdict on a document: its signature (xmldsigjs), its signer, and libxml2 against DGII's `xsd` of xsd-strict. */
async function verify(xml: string, xsd: string) {
  const res = await fetch(`${fakeDgii}/_control/verify`, { method: "POST", body: JSON.stringify({ xml, xsd }) });
  expect(res.status).toBe(200);
  return (await res.json()) as { signature: boolean; signer: string | null; schemaErrors: string[] };
}

/**
 * Each note DGII received in a run names, as NCFModificado, the run's own number of the invoice the
 * set's row names: the set's e-NCF → the run's, from the run's cases.
 */
function expectNotesOfTheirRun(got: Received[], cases: CaseData[]) {
  const runNumber = new Map(cases.map((c) => [c.encf, c.run_encf]));
  const set = ecfCases();
  const notes = got.filter((r) => /^E3[34]/.test(r.encf));
  expect(notes.length).toBe(5);
  for (const note of notes) {
    const row = cases.find((c) => c.run_encf === note.encf)!;
    const referenced = String(set.find((r) => r.some(([h, v]) => h === "ENCF" && v === row.encf))!.find(([h]) => h === "NCFModificado")![1]);
    expect([note.encf, element(note.xml, "NCFModificado")]).toEqual([note.encf, runNumber.get(referenced)]);
  }
}

/** A tenant for the smaller cases of this file (each on its own set), made on first use. */
let sharedTenant: Promise<EcfTenant> | null = null;
const shared = () => {
  sharedTenant ??= ecfTenant().then(async (t) => {
    await certecf(t);
    return t;
  });
  return sharedTenant;
};

/** Rows of the DGII-layout set picked by their e-NCF, for the smaller cases. */
const pick = (rows: Row[], encfs: string[]) => rows.filter((row) => encfs.includes(String(row.find(([h]) => h === "ENCF")![1])));

/**
 * Running DGII's test sets in CerteCF (issues 32 and 42, steps 2 and 3): each case signed and sent
 * in order through ECF_QUEUE to the fake DGII (its checks: DGII's XSDs, the signature, the signer,
 * the file name, an e-NCF not received before, no E32 under RD$250,000 at reception, no credit
 * beyond its invoice), every answer judged by its body, a rejection stopping the run, a rerun
 * starting over with new numbers whose notes refer to their own run's invoices; the books untouched.
 */
describe("running DGII's test sets", () => {
  it("runs a set of DGII's layout (sheet ECF only, 29 rows): 25 e-CF to recepcion, the 4 E32 under RD$250,000 as RFCE to recepcionfc, their whole XML kept and downloadable", async () => {
    const t = await ecfTenant();
    const imported = await importSet(t, { ECF: ecfCases(t.rnc) });
    const set = imported.data;
    // The import says how each case goes to DGII, before anything is run.
    expect(imported.message).toBe("Test set imported: 29 cases: 25 sent whole to recepcion, 4 E32 under RD$250,000 as their summary (RFCE) to recepcionfc.");
    expect(set.cases.filter((c) => c.sent_as === "rfce").map((c) => [c.sheet, c.document, c.encf, c.sent_to, c.summary_row])).toEqual(
      SMALL.map((encf) => ["ECF", "ecf", encf, "recepcionfc", null]),
    );
    expect(set.cases.filter((c) => c.sent_to === "recepcion").length).toBe(25);
    const e3211 = set.cases.find((c) => c.encf === "E320000000011")!;
    const notYet = await t.tenant.api.get(`${PATH}/${set.id}/cases/${e3211.position}/xml`);
    expect(notYet.status, notYet.text).toBe(409);
    expect(notYet.body).toMatchObject({
      code: "conflict",
      message: `Case ${e3211.position} (${e3211.name}) has not been signed in the set's latest run yet: its XML is kept once the run reaches it.`,
    });

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
    // The first run of a fresh tenant sends the set's own e-NCFs.
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
    expect(done.cases.map((c) => [c.state, c.dgii_state])).toEqual(done.cases.map(() => ["accepted", "Aceptado"]));
    expect(done.cases.filter((c) => c.sent_as === "ecf").every((c) => /^[0-9a-f-]{36}$/.test(c.track_id ?? ""))).toBe(true);
    expect(done.cases.filter((c) => c.sent_as === "rfce").map((c) => c.track_id)).toEqual([null, null, null, null]);

    // What DGII received: each case once (the first e-CF too, its lost answer notwithstanding), in
    // the set's order, the 25 whole to reception and the 4 summaries to the fc host, none at reception.
    const got = await received(t.signer);
    expect(got.map((r) => [r.kind, r.encf, r.errors])).toEqual(done.cases.map((c) => [c.sent_as, c.run_encf, []]));
    expect(got.filter((r) => r.kind === "ecf" && SMALL.includes(r.encf))).toEqual([]);
    expect(got.map((r) => r.fileName)).toEqual(done.cases.map((c) => `${t.rnc}${c.run_encf}.xml`));
    const e311 = got[0]!.xml;
    expect(e311).toContain("<MontoTotal>926.30</MontoTotal>");
    expect(e311).toContain(
      "<TablaSubDescuento><SubDescuento><TipoSubDescuento>%</TipoSubDescuento><SubDescuentoPorcentaje>1.00</SubDescuentoPorcentaje><MontoSubDescuento>35.00</MontoSubDescuento></SubDescuento><SubDescuento><TipoSubDescuento>$</TipoSubDescuento><MontoSubDescuento>17.50</MontoSubDescuento></SubDescuento></TablaSubDescuento>",
    );
    expect(e311).toContain(
      "<SubRecargo><TipoSubRecargo>%</TipoSubRecargo><SubRecargoPorcentaje>10.00</SubRecargoPorcentaje><MontoSubRecargo>43.50</MontoSubRecargo></SubRecargo>",
    );
    expectNotesOfTheirRun(got, done.cases);

    // Each small E32's whole XML, as signed, whose security code its summary carries; the summary
    // as DGII received it. The first's bytes are a valid signed E32 and RFCE (DGII's xsd-strict, xmldsigjs).
    for (const [i, encf] of SMALL.entries()) {
      const c = done.cases.find((x) => x.encf === encf)!;
      const whole = await t.tenant.api.get(`${PATH}/${set.id}/cases/${c.position}/xml`);
      expect(whole.status, whole.text).toBe(200);
      expect(whole.headers.get("content-type")).toBe("application/xml; charset=utf-8");
      expect(whole.headers.get("content-disposition")).toBe(`attachment; filename="${t.rnc}${encf}.xml"`);
      expect(element(whole.text, "eNCF")).toBe(encf);
      const row = ecfCases(t.rnc).find((r) => r.some(([h, v]) => h === "ENCF" && v === encf))!;
      expect(element(whole.text, "MontoTotal")).toBe(row.find(([h]) => h === "MontoTotal")![1]);
      const summary = await t.tenant.api.get(`${PATH}/${set.id}/cases/${c.position}/xml?part=summary`);
      expect(summary.status, summary.text).toBe(200);
      expect(summary.text).toBe(got.find((r) => r.kind === "rfce" && r.encf === encf)!.xml);
      expect(element(summary.text, "CodigoSeguridadeCF")).toBe(first6(whole.text));
      if (i > 0) continue;
      expect(await verify(whole.text, "e-CF-32.xsd")).toEqual({ signature: true, signer: t.signer, schemaErrors: [] });
      expect(await verify(summary.text, "RFCE-32.xsd")).toEqual({ signature: true, signer: t.signer, schemaErrors: [] });
    }
    // A case sent whole: the bytes DGII received; it has no summary.
    const e31 = await t.tenant.api.get(`${PATH}/${set.id}/cases/1/xml`);
    expect(e31.text).toBe(e311);
    expect(await verify(e31.text, "e-CF-31.xsd")).toEqual({ signature: true, signer: t.signer, schemaErrors: [] });
    const noSummary = await t.tenant.api.get(`${PATH}/${set.id}/cases/1/xml?part=summary`);
    expect(noSummary.status).toBe(409);
    expect(noSummary.body).toMatchObject({ message: `Case 1 (${done.cases[0]!.name}) is sent whole to recepcion: it has no summary.` });
    expect((await t.tenant.api.get(`${PATH}/${set.id}/cases/30/xml`)).status).toBe(404);

    expect(await step(t, 2)).toMatchObject({ number: 2, state: "done", evidence: { runs: 1, last_run_state: "completed", cases_accepted: 29 } });
    expect(await step(t, 3)).toMatchObject({ number: 3, state: "pending", evidence: { runs: 0 } });
    const books = await ownerRow<{ invoices: number; ecf: number; movements: number; purchases: number }>(sql`
      SELECT (SELECT count(*)::int FROM invoices WHERE tenant_id = ${t.tenant.tenantId}) AS invoices,
             (SELECT count(*)::int FROM ecf_documents WHERE tenant_id = ${t.tenant.tenantId}) AS ecf,
             (SELECT count(*)::int FROM stock_movements WHERE tenant_id = ${t.tenant.tenantId}) AS movements,
             (SELECT count(*)::int FROM purchases WHERE tenant_id = ${t.tenant.tenantId}) AS purchases`);
    expect(books).toEqual({ invoices: 0, ecf: 0, movements: 0, purchases: 0 });
  }, 60_000);

  it("reruns the set with sheet RFCE after a rejection: runs 2 and 3 complete, each run's notes modify its own invoices, and no number goes to DGII twice, the simulation's invoices included", async () => {
    const t = await ecfTenant();
    const { data: set } = await importSet(t, { ECF: ecfCases(t.rnc), RFCE: rfceCases(t.rnc) });
    expect(set.cases.filter((c) => c.sent_as === "rfce").map((c) => [c.encf, c.summary_row])).toEqual(SMALL.map((encf, i) => [encf, i + 2]));
    await certecf(t);
    // An invoice of the simulation (step 4) takes E31 1 from the tenant's range first.
    const before = await issueE31(t);
    expect(before.document_number).toBe("E310000000001");
    await waitForStatus(t, `/invoices/${before.id}`, "accepted");
    // DGII rejects the first E41 of run 1, after its notes were accepted.
    await script(t.signer, { reject: ["E410000000001"] });

    const runs: CaseData[][] = [];
    const counts: number[] = [(await received(t.signer)).length];
    for (const [number, state] of [
      [1, "stopped"],
      [2, "completed"],
      [3, "completed"],
    ] as const) {
      const started = await startRun(t, set.id);
      expect(started.status, started.text).toBe(202);
      expect(started.body.message).toBe(`Run ${number} started: 29 cases to send.`);
      const done = await driveRun(t, set.id, state);
      expect(done.run).toMatchObject({ number, state });
      runs.push(done.cases);
      counts.push((await received(t.signer)).length);
    }
    const [run1, run2, run3] = runs as [CaseData[], CaseData[], CaseData[]];
    const numbers = (cases: CaseData[], type: string) => cases.filter((c) => c.type === type).map((c) => c.run_encf);
    // E31: past the simulation's invoice, then past each run; the other types past each run, the set's order and gaps kept.
    expect(numbers(run1, "31")).toEqual(["E310000000002", "E310000000003", "E310000000004", "E310000000005", "E310000000006", "E310000000007"]);
    expect(numbers(run2, "31")).toEqual(["E310000000008", "E310000000009", "E310000000010", "E310000000011", "E310000000012", "E310000000013"]);
    expect(numbers(run3, "32")).toEqual(["E320000000027", "E320000000028", "E320000000033", "E320000000034", "E320000000035", "E320000000037"]);
    expect(numbers(run3, "34")).toEqual(["E340000000007", "E340000000008", "E340000000009"]);

    const got = await received(t.signer);
    const [ofRun1, ofRun2, ofRun3] = [got.slice(counts[0], counts[1]), got.slice(counts[1], counts[2]), got.slice(counts[2], counts[3])];
    // Run 1 stopped at the rejected E41, saying which and why; nothing after it was sent.
    const e41 = run1.find((c) => c.encf === "E410000000001")!;
    expect(e41).toMatchObject({
      state: "rejected",
      dgii_state: "Rechazado",
      dgii_messages: [{ codigo: "2", valor: "El RNC Comprador no se encuentra activo." }],
    });
    expect(ofRun1.map((r) => r.encf)).toEqual(run1.slice(0, e41.position).map((c) => c.run_encf));
    expect((await getSet(t, set.id)).run).toMatchObject({ number: 3, state: "completed", progress: { accepted: 29, rejected: 0 } });
    // Every run's notes modify that run's invoices (run 1 credited its E31 3 in full: a note of a
    // later run on it would be refused as credit beyond the invoice), and every document passed DGII's checks.
    for (const [cases, of] of [
      [run1, ofRun1],
      [run2, ofRun2],
      [run3, ofRun3],
    ] as const) {
      expectNotesOfTheirRun(of, cases);
      expect(of.filter((r) => r.errors.length)).toEqual([]);
      expect(of.filter((r) => r.kind === "rfce").map((r) => r.encf)).toEqual(cases.filter((c) => c.sent_as === "rfce").map((c) => c.run_encf));
    }
    expect(element(ofRun3.find((r) => r.encf === "E340000000009")!.xml, "NCFModificado")).toBe("E320000000033");
    // One owner per number: DGII never received an e-NCF twice, and the simulation's next invoice numbers after the runs.
    const all = got.map((r) => r.encf);
    expect(new Set(all).size).toBe(all.length);
    const after = await issueE31(t);
    expect(after.document_number).toBe("E310000000020");
    await waitForStatus(t, `/invoices/${after.id}`, "accepted");
  }, 120_000);

  it("judges DGII's answers by their body: an ACECF and a reception answered HTTP 200 with a refusal code are recorded refused", async () => {
    const t = await shared();
    // Step 3: DGII answers the second approval 200 with codigo 2 (rechazada).
    const { data: approvals } = await importSet(t, {
      ACEECF_Generadas: approvalRows(
        [
          { encf: "E310000000002", total: "4674.35", state: "1" },
          { encf: "E310000000004", total: "18283.00", state: "1" },
        ],
        t.rnc,
      ),
    });
    const refusal = { mensaje: ["No se encuentra un e-CF válido para esta aprobación comercial"], estado: "Aprobación comercial rechazada", codigo: "2" };
    await script(t.signer, { answers: [{ service: "aprobacioncomercial", status: 200, body: refusal }] });
    expect((await startRun(t, approvals.id)).status).toBe(202);
    const stopped = await driveRun(t, approvals.id, "stopped");
    expect(stopped.cases.map((c) => [c.state, c.dgii_state, c.dgii_messages])).toEqual([
      ["rejected", "Rechazado", [{ codigo: "", valor: "No se encuentra un e-CF válido para esta aprobación comercial" }]],
      ["pending", null, []],
    ]);
    expect(stopped.run).toMatchObject({
      stopped_at_case: { position: 1, encf: "E310000000002" },
      stop_reason: `Case E310000000002 (E310000000002) was rejected by DGII: No se encuentra un e-CF válido para esta aprobación comercial`,
    });

    // Step 2: the reception answers 200 with a trackId and codigo 2 (Rechazado): not followed to a result, refused.
    const { data: set } = await importSet(t, { ECF: pick(ecfCases(t.rnc), ["E310000000001", "E310000000002"]) });
    const rejection = {
      trackId: "9b1f6c1e-5a3b-4f7e-9d2a-0c4e8f1a2b3c",
      codigo: 2,
      estado: "Rechazado",
      mensajes: [{ codigo: 9, valor: "El e-NCF no corresponde a una secuencia autorizada." }],
    };
    await script(t.signer, { answers: [{ service: "recepcion", status: 200, body: rejection }] });
    expect((await startRun(t, set.id)).status).toBe(202);
    const refused = await driveRun(t, set.id, "stopped");
    expect(refused.cases.map((c) => [c.state, c.dgii_state, c.track_id, c.dgii_messages])).toEqual([
      ["rejected", "Rechazado", null, [{ codigo: "9", valor: "El e-NCF no corresponde a una secuencia autorizada." }]],
      ["pending", null, null, []],
    ]);
  });

  it("a summary (RFCE) whose answer is lost, or says no state, is asked of DGII (consultarfce) and never sent twice", async () => {
    // A tenant of its own: its completed runs would mark step 2 done for the shared tenant's other cases.
    const t = await ecfTenant();
    await certecf(t);
    // The answer to the summary is lost after DGII took it: sent again, DGII would refuse the used sequence and stop the run.
    const { data: lost } = await importSet(t, { ECF: pick(ecfCases(t.rnc), [SMALL[0]!]) });
    await script(t.signer, { drop: 1 });
    expect((await startRun(t, lost.id)).status).toBe(202);
    const first = await driveRun(t, lost.id, "completed");
    expect(first.cases.map((c) => [c.sent_to, c.state, c.dgii_state])).toEqual([["recepcionfc", "accepted", "Aceptado"]]);
    // An answer with neither codigo nor estado is no verdict (it stopped the run as a rejection before).
    const { data: unjudged } = await importSet(t, { ECF: pick(ecfCases(t.rnc), [SMALL[1]!]) });
    await script(t.signer, { answers: [{ service: "recepcionfc", status: 200, body: { mensaje: "Procesando." } }] });
    expect((await startRun(t, unjudged.id)).status).toBe(202);
    const second = await driveRun(t, unjudged.id, "completed");
    expect(second.cases.map((c) => [c.sent_to, c.state, c.dgii_state])).toEqual([["recepcionfc", "accepted", "Aceptado"]]);
    const numbers = [first.cases[0]!.run_encf, second.cases[0]!.run_encf];
    const got = (await received(t.signer)).filter((r) => numbers.includes(r.encf));
    expect(got.map((r) => [r.kind, r.encf, r.final])).toEqual(numbers.map((encf) => ["rfce", encf, "accepted"]));
  });

  it("refuses to run a set naming another RNC than the company's, naming each case and column; nothing is sent", async () => {
    const t = await shared();
    const sent = (await received(t.signer)).length;
    // The fixture's own issuer (101010101), not the tenant's: another company's set.
    const { data: set } = await importSet(t, { ECF: pick(ecfCases(), ["E310000000001", "E320000000011"]), RFCE: pick(rfceCases(), ["E320000000011"]) });
    const res = await startRun(t, set.id);
    expect(res.status, res.text).toBe(422);
    const why = (row: number) =>
      `Row ${row}: RNCEmisor is "101010101", not the company's RNC ${t.rnc}: DGII's set for this company names it as the issuer. Upload the set DGII gave this company, or correct the company's RNC (PATCH /api/v1/company).`;
    expect(res.body).toMatchObject({
      code: "validation_failed",
      message: "The test set names an RNC other than the company's (errors: each case and column); nothing was sent.",
      errors: {
        "ECF[101010101E310000000001].RNCEmisor": [why(2)],
        "ECF[101010101E320000000011].RNCEmisor": [why(3)],
        "RFCE[101010101E320000000011].RNCEmisor": [why(2)],
      },
    });
    expect((await getSet(t, set.id)).run).toBeNull();
    expect((await received(t.signer)).length).toBe(sent);
  });

  it("stops a run whose signing certificate is removed meanwhile, saying so, instead of retrying for ever", async () => {
    const t = await shared();
    const { data: set } = await importSet(t, { ECF: pick(ecfCases(t.rnc), ["E310000000001", "E310000000002"]) });
    // DGII still has the first case in process when asked: the run waits for it.
    await script(t.signer, { results: ["in_process"] });
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
    expect((await t.tenant.api.delete("/ecf/certificate")).status).toBe(200);
    const stopped = await driveRun(t, set.id, "stopped");
    expect(stopped.run).toMatchObject({
      state: "stopped",
      stopped_at_case: { position: 1, encf: stopped.cases[0]!.run_encf },
      stop_reason:
        "The e-CF signing certificate was removed during the run (DELETE /api/v1/ecf/certificate): nothing more can be signed nor sent. Upload it again (PUT /api/v1/ecf/certificate) and start a new run.",
      last_error: null,
    });
    expect(stopped.cases.map((c) => c.state)).toEqual(["sent", "pending"]);
    expect(await step(t, 2)).toMatchObject({ state: "failed" });
    // Uploaded again, a new run goes through.
    expect((await t.tenant.api.put("/ecf/certificate", { p12_base64: t.cert.p12Base64, password: t.cert.password })).status).toBe(200);
    await certecf(t);
    expect((await startRun(t, set.id)).status).toBe(202);
    expect((await driveRun(t, set.id, "completed")).run).toMatchObject({ number: 2, progress: { accepted: 2 } });
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
    expect(res.body.message).toBe("Test set imported: 3 cases: 3 ACECF to aprobacioncomercial.");
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
    // DGII's 503 also made the company wait (issue 48: every DGII step of it, runs included): that
    // wait is moved past as well, or the sweep passes the company by.
    expect(
      await ownerRows(sql`UPDATE ecf_dgii_backoff SET until = now() - interval '1 second' WHERE tenant_id = ${t0.tenant.tenantId} RETURNING 1`),
    ).toHaveLength(1);
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
