import { describe, expect, it, vi } from "vitest";
import { type ReceivedHook, receivedHooks, receiverEndpoint, storedEvents } from "../webhooks/helpers";
import { type EcfTenant, ecfTenant, issueE31, script, waitForStatus } from "./helpers";

type Transition = { state: string; at: string; cause: string | null; code: string | null };

/** The e-CF's timeline as GET …/ecf shows it: what the events must repeat, one for one, in order. */
async function timeline(t: EcfTenant, invoiceId: number): Promise<Transition[]> {
  const res = await t.tenant.api.get(`/invoices/${invoiceId}/ecf`);
  expect(res.status, res.text).toBe(200);
  return res.body.data.timeline;
}

/** The hooks the receiver verified, in the order the events happened (their created_at, to the millisecond). */
async function hooksOf(key: string, count: number): Promise<ReceivedHook[]> {
  await vi.waitFor(async () => expect(await receivedHooks(key)).toHaveLength(count), { timeout: 15_000, interval: 50 });
  const hits = await receivedHooks(key);
  return hits.sort((a, b) => Date.parse(a.body.created_at) - Date.parse(b.body.created_at));
}

describe("e-CF webhook events: every transition of an e-CF, signed, in order (issue 33)", () => {
  it("accepted after in process, rejected, accepted conditionally, retried: an endpoint on ecf.* receives each transition's event, verified, in the order of the timeline", async () => {
    const t = await ecfTenant();
    const hook = await receiverEndpoint(t.tenant, ["ecf.*"]);
    // A subscription to other types hears none of it.
    const other = await receiverEndpoint(t.tenant, ["invoice.paid"]);

    await script(t.signer, { results: ["in_process", "accepted"] });
    const accepted = await issueE31(t);
    await waitForStatus(t, `/invoices/${accepted.id}`, "accepted");
    await script(t.signer, { results: ["rejected"] });
    const rejected = await issueE31(t);
    await waitForStatus(t, `/invoices/${rejected.id}`, "rejected");
    await script(t.signer, { results: ["accepted_conditional"] });
    const conditional = await issueE31(t);
    await waitForStatus(t, `/invoices/${conditional.id}`, "accepted_conditional");
    await script(t.signer, { results: ["rejected_unused", "accepted"] });
    const retried = await issueE31(t);
    await waitForStatus(t, `/invoices/${retried.id}`, "rejected");
    const retry = await t.tenant.api.post(`/invoices/${retried.id}/ecf/retry`);
    expect(retry.status, retry.text).toBe(200);
    await waitForStatus(t, `/invoices/${retried.id}`, "accepted");

    const stored = await storedEvents(t.tenant.tenantId);
    const ecfEvents = stored.filter((event) => event.type.startsWith("ecf."));
    const of = (id: number) => ecfEvents.filter((event) => event.resource_id === id);
    // One event per transition, in the timeline's order, each carrying that transition.
    for (const invoice of [accepted, rejected, conditional, retried]) {
      const expected = await timeline(t, invoice.id);
      expect(of(invoice.id).map((event) => event.data.transition)).toEqual(expected.map(({ state, at, cause, code }) => ({ state, at, cause, code })));
    }
    expect(of(accepted.id).map((event) => [event.type, event.data.status])).toEqual([
      ["ecf.signed", "pending"],
      ["ecf.sent", "in_process"],
      ["ecf.accepted", "accepted"],
    ]);
    expect(of(rejected.id).map((event) => [event.type, event.data.status, event.data.sequence_used])).toEqual([
      ["ecf.signed", "pending", null],
      ["ecf.sent", "in_process", null],
      ["ecf.rejected", "rejected", true],
    ]);
    expect(of(conditional.id).map((event) => [event.type, event.data.status])).toEqual([
      ["ecf.signed", "pending"],
      ["ecf.sent", "in_process"],
      ["ecf.accepted", "accepted_conditional"],
    ]);
    expect(of(retried.id).map((event) => [event.type, event.data.status, event.data.transition.state])).toEqual([
      ["ecf.signed", "pending", "signed"],
      ["ecf.sent", "in_process", "sent"],
      ["ecf.rejected", "rejected", "rejected"],
      ["ecf.retried", "pending", "retried"],
      ["ecf.sent", "in_process", "sent"],
      ["ecf.accepted", "accepted", "accepted"],
    ]);

    // What each event says: the e-CF's id, e-NCF, the invoice, status, trackId, DGII's messages and when.
    const [signed, sent, final] = of(accepted.id);
    const ecfId = signed!.data.id as number;
    expect(signed!.data).toMatchObject({
      id: ecfId,
      encf: accepted.document_number,
      document_kind: "invoice",
      document_id: accepted.id,
      status: "pending",
      track_id: null,
      dgii_messages: [],
    });
    expect(signed!.resource_type).toBe("invoice");
    expect(signed!.workspace_id).toBe(t.tenant.workspaceId);
    expect(sent!.data.track_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(final!.data).toMatchObject({ id: ecfId, status: "accepted", track_id: sent!.data.track_id });
    const rejection = of(rejected.id).at(-1)!;
    expect(rejection.data.dgii_messages).toEqual([{ codigo: expect.anything(), valor: "El RNC Comprador no se encuentra activo." }]);
    expect(rejection.data.transition).toMatchObject({
      state: "rejected",
      code: "dgii_answer",
      cause: `DGII answered Rechazado (2 El RNC Comprador no se encuentra activo.) for trackId ${rejection.data.track_id}; its e-NCF counts as used.`,
    });
    expect(of(conditional.id).at(-1)!.data.dgii_messages.length).toBeGreaterThan(0);

    // Delivered to the endpoint, signed: the receiver verified each with the Standard Webhooks library.
    const hits = await hooksOf(hook.key, ecfEvents.length);
    expect(hits.every((hit) => hit.verified.current)).toBe(true);
    expect(hits.map((hit) => hit.body.id)).toEqual(ecfEvents.map((event) => event.public_id));
    expect(hits.map((hit) => hit.headers["webhook-id"])).toEqual(ecfEvents.map((event) => event.public_id));
    expect(hits.map((hit) => [hit.body.type, hit.body.data.document_id, hit.body.data.transition.state])).toEqual(
      ecfEvents.map((event) => [event.type, event.resource_id, event.data.transition.state]),
    );
    expect(await receivedHooks(other.key)).toEqual([]);
  });
});
