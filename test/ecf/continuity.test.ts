import { describe, expect, it } from "vitest";
import { stepEcfDocument } from "../../src/jobs/ecf";
import type { EcfTimelineEntry } from "../../src/modules/ecf/schemas";
import { today } from "../support/dates";
import { env } from "../support/env";
import { createProduct, expectStockInvariant, initialStock, levelOf } from "../support/stock";
import { storedEvents } from "../webhooks/helpers";
import { afterFirstAttempt, type EcfTenant, ecfOf, ecfTenant, issueE31, received, script, waitForStatus } from "./helpers";

const later = (from: Date, seconds: number) => new Date(from.getTime() + seconds * 1000);

/** The timeline of a document's e-CF, each entry as [state, code, attempt, track_id] (its cause checked apart). */
async function timelineOf(t: EcfTenant, path: string) {
  const timeline = (await t.tenant.api.get(`${path}/ecf`)).body.data.timeline as EcfTimelineEntry[];
  return { timeline, steps: timeline.map((entry) => [entry.state, entry.code, entry.attempt, entry.track_id]) };
}

/** The tenant's admin as the timeline names them (issued by, retried by). */
async function adminOf(t: EcfTenant) {
  const me = (await t.tenant.api.get("/me")).body.data as { id: number; name: string };
  return { id: me.id, name: me.name };
}

/** The trackIds DGII (the fake) holds for an e-NCF, asked as the tenant would. */
async function trackIdsAtDgii(signer: string, encf: string) {
  return (await received(signer)).filter((r) => r.kind === "ecf" && r.encf === encf).map((r) => r.trackId);
}

/**
 * Never send twice, never lose an answer (issue 33; Descripción técnica, "Consulta de trackId
 * e-CF"): a send whose answer was lost is looked up at DGII before it is sent again, and a resend
 * DGII answers "secuencia ya utilizada" is reconciled with the accepted copy DGII holds.
 */
describe("an e-CF whose answer DGII never gave back", () => {
  it("the connection cut after DGII received it: the next attempt finds it through DGII's trackIds service and follows it, without sending again", async () => {
    const t = await ecfTenant();
    await script(t.signer, { drop: 1 });
    const invoice = await issueE31(t);
    const first = await afterFirstAttempt(invoice.id);
    expect(first).toMatchObject({ status: "pending", attempts: 1 });
    expect(first.last_error).toMatch(/^DGII could not be reached \(.*\/testecf\/recepcion\/api\/facturaselectronicas\)/);
    const held = await trackIdsAtDgii(t.signer, "E310000000001");
    expect(held).toHaveLength(1);

    const ref = { tenant_id: t.tenant.tenantId, ecf_id: first.id };
    expect(await stepEcfDocument(env, ref, { now: later(first.unreachable_since!, 31) })).toEqual({
      outcome: "final",
      status: "accepted",
      deliver: true,
      webhooks: [],
    });
    // DGII received it once, and the e-CF follows that reception.
    expect(await trackIdsAtDgii(t.signer, "E310000000001")).toEqual(held);
    expect(await ecfOf(t, `/invoices/${invoice.id}`)).toMatchObject({
      status: "accepted",
      track_id: held[0],
      attempts: 2,
      last_error: null,
      dgii_messages: [],
    });
    // Its timeline says why (issue 43): issued by whom, the attempt DGII did not answer, then the
    // reception DGII already held, found through consultatrackids and followed.
    const admin = await adminOf(t);
    const { timeline, steps } = await timelineOf(t, `/invoices/${invoice.id}`);
    expect(steps).toEqual([
      ["signed", "issued", null, null],
      ["unanswered", "unreachable", 1, null],
      ["accepted", "reconciled", 2, held[0]],
    ]);
    expect(timeline[0]).toMatchObject({ cause: `Issued by ${admin.name}.`, by: admin });
    expect(timeline[1]!.cause).toBe(
      `Attempt 1 got no answer from DGII (${first.last_error}). Before sending again, DGII is asked whether it received it (consultatrackids), backing off from 30 s.`,
    );
    expect(timeline[2]!.cause).toBe(
      `Not sent again on attempt 2: DGII's consultatrackids shows it already received this e-NCF as trackId ${held[0]} (Aceptado); followed; DGII answered Aceptado for it.`,
    );
    expect(timeline.slice(1).map((entry) => entry.by)).toEqual([null, null]);
  });

  it("a resend DGII rejects as 'secuencia ya utilizada' while it holds an accepted copy: the e-CF is accepted under the copy's trackId, never rejected", async () => {
    const t = await ecfTenant();
    // The first send's answer is lost, and DGII has not indexed it yet when asked: the e-CF is sent again.
    await script(t.signer, { drop: 1, unindexed: 1 });
    const invoice = await issueE31(t);
    const first = await afterFirstAttempt(invoice.id);
    const ref = { tenant_id: t.tenant.tenantId, ecf_id: first.id };
    const start = first.unreachable_since!;
    expect(await stepEcfDocument(env, ref, { now: later(start, 31) })).toEqual({ outcome: "in_process", status: "in_process", retryInSeconds: 2 });
    const [original, resend] = await trackIdsAtDgii(t.signer, "E310000000001");
    expect(resend).toBeDefined();
    expect((await ecfOf(t, `/invoices/${invoice.id}`)).track_id).toBe(resend);

    // DGII answers the resend "rejected, number used"; the copy it holds was accepted.
    expect(await stepEcfDocument(env, ref, { now: later(start, 40) })).toEqual({ outcome: "final", status: "accepted", deliver: true, webhooks: [] });
    const ecf = await ecfOf(t, `/invoices/${invoice.id}`);
    expect(ecf).toMatchObject({ status: "accepted", track_id: original, sequence_used: null, dgii_messages: [] });
    // The timeline shows the resend DGII refused as a used number, then the switch to the copy it held.
    const { timeline, steps } = await timelineOf(t, `/invoices/${invoice.id}`);
    expect(steps).toEqual([
      ["signed", "issued", null, null],
      ["unanswered", "unreachable", 1, null],
      ["sent", "after_outage", 2, resend],
      ["used_number", "dgii_answer", 3, resend],
      ["accepted", "reconciled", 3, original],
    ]);
    expect(timeline[2]!.cause).toBe(`Sent to DGII on attempt 2, after DGII did not answer an earlier attempt; DGII gave trackId ${resend}.`);
    expect(timeline[3]!.cause).toMatch(new RegExp(`^DGII rejected trackId ${resend}: .*[Ss]ecuencia.*utilizada.* \\(its e-NCF was already used\\)\\.$`));
    expect(timeline[4]!.cause).toBe(
      `Reconciled through DGII's consultatrackids: it already held this e-NCF as trackId ${original} (Aceptado); followed; DGII answered Aceptado for it.`,
    );
  });

  it("a retry of a rejection whose number DGII did not use is sent again, not matched to the rejected copy", async () => {
    const t = await ecfTenant();
    await script(t.signer, { results: ["rejected_unused"] });
    const invoice = await issueE31(t);
    expect(await waitForStatus(t, `/invoices/${invoice.id}`, "rejected")).toMatchObject({ sequence_used: false });
    const [rejected] = await trackIdsAtDgii(t.signer, "E310000000001");

    const retry = await t.tenant.api.post(`/invoices/${invoice.id}/ecf/retry`);
    expect(retry.status, retry.text).toBe(200);
    const accepted = await waitForStatus(t, `/invoices/${invoice.id}`, "accepted");
    const sent = await trackIdsAtDgii(t.signer, "E310000000001");
    expect(sent).toEqual([rejected, accepted.track_id]);
  });
});

describe("an e-CF's timeline and what to do next", () => {
  const states = (timeline: { state: string }[]) => timeline.map((entry) => entry.state);

  it("each change of state with its time and cause; a rejection whose number DGII did not use offers the retry, and the retry is on the timeline", async () => {
    const t = await ecfTenant();
    await script(t.signer, { results: ["rejected_unused"] });
    const invoice = await issueE31(t);
    await waitForStatus(t, `/invoices/${invoice.id}`, "rejected");
    const rejected = (await t.tenant.api.get(`/invoices/${invoice.id}/ecf`)).body.data;
    expect(states(rejected.timeline)).toEqual(["signed", "sent", "rejected"]);
    const admin = await adminOf(t);
    expect(rejected.timeline[0]).toEqual({
      state: "signed",
      at: rejected.signed_at,
      code: "issued",
      cause: `Issued by ${admin.name}.`,
      attempt: null,
      track_id: null,
      by: admin,
    });
    expect(rejected.timeline[1]).toMatchObject({
      code: "first_attempt",
      attempt: 1,
      cause: `Sent to DGII on the first attempt; DGII gave trackId ${rejected.timeline[1].track_id}.`,
    });
    expect(rejected.timeline[2]).toMatchObject({
      code: "dgii_answer",
      cause: `DGII answered Rechazado (5 El e-NCF no está autorizado para el RNC Emisor del comprobante fiscal electrónico.) for trackId ${rejected.track_id}; its e-NCF was not used.`,
    });
    expect(rejected.next_action).toEqual({
      code: "retry",
      method: "POST",
      path: `/api/v1/invoices/${invoice.id}/ecf/retry`,
      description:
        "DGII rejected it without using its e-NCF: fix the cause DGII gives (certificate, delegation, structure) and send the same signed e-CF again.",
    });

    const retried = await t.tenant.api.post(`/invoices/${invoice.id}/ecf/retry`);
    expect(retried.status, retried.text).toBe(200);
    expect(states(retried.body.data.timeline)).toEqual(["signed", "sent", "rejected", "retried"]);
    await waitForStatus(t, `/invoices/${invoice.id}`, "accepted");
    const accepted = (await t.tenant.api.get(`/invoices/${invoice.id}/ecf`)).body.data;
    expect(states(accepted.timeline)).toEqual(["signed", "sent", "rejected", "retried", "sent", "accepted"]);
    expect(accepted.timeline[3]).toMatchObject({
      code: "retry",
      by: admin,
      cause: `Sent again by ${admin.name} (POST …/ecf/retry), after it was rejected without its e-NCF being used.`,
    });
    expect(accepted.timeline[4]).toMatchObject({
      code: "after_retry",
      cause: expect.stringMatching(/^Sent to DGII on attempt \d+, after it was sent again on request; DGII gave trackId /),
    });
    expect(accepted.next_action).toBeNull();
    const times = accepted.timeline.map((entry: { at: string }) => entry.at);
    expect([...times].sort()).toEqual(times);
  });

  it("an invoice whose e-CF DGII rejected as void is cancelled without a credit note and its stock returns; one DGII holds no copy of is not", async () => {
    const t = await ecfTenant();
    const goods = await createProduct(t.tenant.api, { track_inventory: true });
    await initialStock(t.tenant.api, [{ product_id: goods.id, quantity: "10" }]);
    const e34 = await t.subtype("E34");
    const sell = async () => {
      const res = await t.tenant.api.post("/invoices", {
        contact_id: t.contact.id,
        document_subtype_id: await t.subtype("E31"),
        issue_date: today(),
        items: [{ product_id: goods.id, quantity: "3", unit_price: "250", tax_ids: [t.ids.itbis18] }],
      });
      expect(res.status, res.text).toBe(201);
      return res.body.data as { id: number; document_number: string };
    };
    await script(t.signer, { results: ["rejected"] });
    const voided = await sell();
    await waitForStatus(t, `/invoices/${voided.id}`, "rejected");
    expect(await levelOf(goods.id, t.tenant.workspaceId)).toBe("7.00");

    // Before: an E34 crediting an e-CF DGII counts as void was issued (and DGII refuses such a note).
    const cancelled = await t.tenant.api.post(`/invoices/${voided.id}/cancel`, { annulment_reason: "05" });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toMatchObject({
      data: { id: voided.id, status: "cancelled", document_number: voided.document_number },
      message: "Invoice cancelled.",
    });
    expect(await levelOf(goods.id, t.tenant.workspaceId)).toBe("10.00");
    const notes = await t.tenant.api.get("/credit-notes");
    expect(notes.body.data.filter((note: { document_number: string }) => note.document_number.startsWith("E34"))).toEqual([]);
    expect(e34).toBeGreaterThan(0);
    await expectStockInvariant(t.tenant.tenantId);

    // A rejection DGII says did not use the number: no valid copy at DGII, so no note may modify it.
    await script(t.signer, { results: ["rejected_unused"] });
    const unsent = await sell();
    expect((await waitForStatus(t, `/invoices/${unsent.id}`, "rejected")).sequence_used).toBe(false);
    const refused = await t.tenant.api.post(`/invoices/${unsent.id}/cancel`, {});
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      code: "ecf_not_cancellable",
      message: `DGII holds no valid copy of this invoice's e-CF, so no credit note can modify it: send it again (POST /api/v1/invoices/${unsent.id}/ecf/retry) once its cause is fixed, or annul its e-NCF with DGII (POST /api/v1/ecf/annulments), which cancels the invoice.`,
    });
    expect(await levelOf(goods.id, t.tenant.workspaceId)).toBe("7.00");
  });

  it("a credit note whose e-CF DGII rejected as void is cancelled: its amounts leave the invoice, its restock goes back out, and it can be issued again; any other note stands", async () => {
    const t = await ecfTenant();
    const goods = await createProduct(t.tenant.api, { track_inventory: true });
    await initialStock(t.tenant.api, [{ product_id: goods.id, quantity: "10" }]);
    const sale = await t.tenant.api.post("/invoices", {
      contact_id: t.contact.id,
      document_subtype_id: await t.subtype("E31"),
      issue_date: today(),
      items: [{ product_id: goods.id, quantity: "4", unit_price: "250", tax_ids: [t.ids.itbis18] }],
    });
    expect(sale.status, sale.text).toBe(201);
    const invoice = sale.body.data as { id: number; total_amount: string };
    expect(invoice.total_amount).toBe("1180.00");
    await script(t.signer, { results: ["accepted", "rejected"] });
    await waitForStatus(t, `/invoices/${invoice.id}`, "accepted");
    const fullCredit = async () => {
      const res = await t.tenant.api.post(`/invoices/${invoice.id}/credit-notes`, {
        document_subtype_id: await t.subtype("E34"),
        issue_date: today(),
        modification_code: 3,
        reason: "Devolución",
        full: true,
      });
      return res;
    };
    const first = await fullCredit();
    expect(first.status, first.text).toBe(201);
    const note = first.body.data as { id: number; document_number: string };
    const rejected = await waitForStatus(t, `/credit-notes/${note.id}`, "rejected");
    expect(rejected.sequence_used).toBe(true);
    expect(await levelOf(goods.id, t.tenant.workspaceId)).toBe("10.00");
    const next = (await t.tenant.api.get(`/credit-notes/${note.id}/ecf`)).body.data.next_action;
    expect(next).toMatchObject({ code: "issue_again", path: `/api/v1/invoices/${invoice.id}/credit-notes` });
    expect(next.description).toContain(
      `Cancel this credit note (POST /api/v1/credit-notes/${note.id}/cancel: its amounts leave the invoice and what it restocked goes back out), then issue the credit note again on its invoice`,
    );
    // Before: the void note still credited the whole invoice, so it could not be issued again.
    const blocked = await fullCredit();
    expect(blocked.status).toBe(422);

    const cancelled = await t.tenant.api.post(`/credit-notes/${note.id}/cancel`);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toMatchObject({ data: { id: note.id, status: "cancelled" }, message: `Credit note ${note.document_number} cancelled.` });
    expect(await levelOf(goods.id, t.tenant.workspaceId)).toBe("6.00");
    const after = (await t.tenant.api.get(`/invoices/${invoice.id}`)).body.data;
    expect(after).toMatchObject({ status: "pending_payment", credited_amount: "0.00", amount_due: "1180.00" });
    expect(after.credit_notes).toEqual([expect.objectContaining({ id: note.id, status: "cancelled", total_amount: "1180.00" })]);
    expect((await t.tenant.api.post(`/credit-notes/${note.id}/cancel`)).body).toEqual({
      code: "note_not_cancellable",
      message: `${note.document_number} is cancelled already.`,
    });
    await expectStockInvariant(t.tenant.tenantId);

    // Issued again, in full, and accepted: it stands, and cannot be cancelled.
    const again = await fullCredit();
    expect(again.status, again.text).toBe(201);
    const reissued = again.body.data as { id: number; document_number: string; total_amount: string };
    expect(reissued.total_amount).toBe("1180.00");
    await waitForStatus(t, `/credit-notes/${reissued.id}`, "accepted");
    expect(await levelOf(goods.id, t.tenant.workspaceId)).toBe("10.00");
    const stands = await t.tenant.api.post(`/credit-notes/${reissued.id}/cancel`);
    expect(stands.status).toBe(409);
    expect(stands.body).toEqual({
      code: "note_not_cancellable",
      message: `A credit note stands once issued; only one whose e-CF DGII rejected as void can be cancelled. Correct ${reissued.document_number} with another note.`,
    });
    expect((await t.tenant.api.get(`/invoices/${invoice.id}`)).body.data).toMatchObject({ status: "paid", credited_amount: "1180.00", amount_due: "0.00" });
  });

  it("a rejection that used the number says to issue the sale again; 24 hours unreachable is failed, with its cause, the retry offered and an ecf.failed event", async () => {
    const t = await ecfTenant();
    await script(t.signer, { results: ["rejected"] });
    const used = await issueE31(t);
    await waitForStatus(t, `/invoices/${used.id}`, "rejected");
    const rejected = (await t.tenant.api.get(`/invoices/${used.id}/ecf`)).body.data;
    expect(rejected.next_action).toMatchObject({ code: "issue_again", method: "POST", path: "/api/v1/invoices" });
    expect(rejected.timeline.at(-1)).toMatchObject({
      state: "rejected",
      code: "dgii_answer",
      cause: `DGII answered Rechazado (2 El RNC Comprador no se encuentra activo.) for trackId ${rejected.track_id}; its e-NCF counts as used.`,
    });
    // One story (issue 43): its retry's 409 says what next_action says, with the same action.
    const refused = await t.tenant.api.post(`/invoices/${used.id}/ecf/retry`);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      code: "ecf_not_retryable",
      message: `${rejected.next_action.description} (POST /api/v1/invoices)`,
    });
    expect(rejected.next_action.description).toBe(
      `DGII rejected it and counts its e-NCF as used: this e-CF is void for tax purposes, so it cannot be sent again nor corrected by a credit or debit note. Cancel this invoice (POST /api/v1/invoices/${used.id}/cancel: its stock returns, no credit note is issued), then issue the sale again as a new invoice, with the next e-NCF, correcting what DGII's messages say.`,
    );

    await script(t.signer, { down: 3 });
    const invoice = await issueE31(t);
    const first = await afterFirstAttempt(invoice.id);
    const ref = { tenant_id: t.tenant.tenantId, ecf_id: first.id };
    const start = first.unreachable_since!;
    expect(await stepEcfDocument(env, ref, { now: later(start, 12 * 3600) })).toMatchObject({ outcome: "retry" });
    const failedStep = await stepEcfDocument(env, ref, { now: later(start, 24 * 3600 + 1) });
    expect(failedStep).toMatchObject({ outcome: "failed", status: "failed" });
    const failed = (await t.tenant.api.get(`/invoices/${invoice.id}/ecf`)).body.data;
    // A transition's time is the database's clock at the change (updated_at, drizzle/0036): this test moves only the job's clock.
    expect(failed.timeline.at(-1)).toEqual({
      state: "failed",
      at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
      code: "outage_24h",
      cause: `DGII could not be reached for 24 hours, since ${start.toISOString()}: ${failed.last_error}`,
      attempt: 3,
      track_id: null,
      by: null,
    });
    expect(failed.timeline.map((entry: EcfTimelineEntry) => entry.state)).toEqual(["signed", "unanswered", "failed"]);
    expect(Date.parse(failed.timeline.at(-1).at)).toBeGreaterThanOrEqual(Date.parse(failed.timeline[0].at) - 1000);
    expect(failed.last_error).toContain("Servicio no disponible temporalmente");
    expect(failed.next_action).toMatchObject({ code: "retry", path: `/api/v1/invoices/${invoice.id}/ecf/retry` });
    const events = await storedEvents(t.tenant.tenantId, "ecf.failed");
    expect(events.map((event) => [event.type, event.resource_type, event.resource_id, (event.data as { status: string }).status])).toEqual([
      ["ecf.failed", "invoice", invoice.id, "failed"],
    ]);
  });
});
