import { describe, expect, it } from "vitest";
import { stepEcfDocument } from "../../src/jobs/ecf";
import { env } from "../support/env";
import { storedEvents } from "../webhooks/helpers";
import { afterFirstAttempt, ecfOf, ecfTenant, issueE31, received, script, waitForStatus } from "./helpers";

const later = (from: Date, seconds: number) => new Date(from.getTime() + seconds * 1000);

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
    expect(rejected.timeline[0]).toEqual({ state: "signed", at: rejected.signed_at, cause: null });
    expect(rejected.timeline[2].cause).toBe("El e-NCF no está autorizado para el RNC Emisor del comprobante fiscal electrónico.");
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
    expect(accepted.next_action).toBeNull();
    const times = accepted.timeline.map((entry: { at: string }) => entry.at);
    expect([...times].sort()).toEqual(times);
  });

  it("a rejection that used the number says to issue the sale again; 24 hours unreachable is failed, with its cause, the retry offered and an ecf.failed event", async () => {
    const t = await ecfTenant();
    await script(t.signer, { results: ["rejected"] });
    const used = await issueE31(t);
    await waitForStatus(t, `/invoices/${used.id}`, "rejected");
    const rejected = (await t.tenant.api.get(`/invoices/${used.id}/ecf`)).body.data;
    expect(rejected.next_action).toMatchObject({ code: "issue_again", method: "POST", path: "/api/v1/invoices" });
    expect(rejected.timeline.at(-1)).toMatchObject({ state: "rejected", cause: "El RNC Comprador no se encuentra activo." });

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
    expect(failed.timeline.at(-1)).toEqual({ state: "failed", at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/), cause: failed.last_error });
    expect(Date.parse(failed.timeline.at(-1).at)).toBeGreaterThanOrEqual(Date.parse(failed.timeline[0].at) - 1000);
    expect(failed.last_error).toContain("Servicio no disponible temporalmente");
    expect(failed.next_action).toMatchObject({ code: "retry", path: `/api/v1/invoices/${invoice.id}/ecf/retry` });
    const events = await storedEvents(t.tenant.tenantId, "ecf.failed");
    expect(events.map((event) => [event.type, event.resource_type, event.resource_id, (event.data as { status: string }).status])).toEqual([
      ["ecf.failed", "invoice", invoice.id, "failed"],
    ]);
  });
});
