import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import * as schema from "../../src/db/schema";
import type { WebhookRef } from "../../src/jobs/messages";
import { deliverWebhook, RETRY_SCHEDULE, retryDelaySeconds, sweepWebhooks } from "../../src/jobs/webhooks";
import type { WebhookDelivery, WebhookEndpointWithSecret } from "../../src/modules/webhooks/schemas";
import { ecfTenant, issueE31, waitForStatus } from "../ecf/helpers";
import { failNext } from "../integrations/helpers";
import type { DataWithMessage, Page } from "../support/api";
import { env } from "../support/env";
import { salesSetup, serviceInvoice } from "../support/sales";
import { asOwner, ownerRow, ownerRows, type SeededTenant, seedWorkspace } from "../support/seed";
import { later, receivedHooks, receiverKey, receiverSecrets, scriptDns, storedEvents, uniqueHost } from "./helpers";

async function endpoint(tenant: SeededTenant, events: string[] = ["*"], extra: Record<string, unknown> = {}) {
  const { key, url } = receiverKey();
  const res = await tenant.api.post<DataWithMessage<WebhookEndpointWithSecret>>("/webhook-endpoints", { url, events, ...extra });
  expect(res.status, res.text).toBe(201);
  await receiverSecrets(key, { current: res.body.data.secret });
  return { key, url, id: res.body.data.id, secret: res.body.data.secret };
}

async function deliveries(tenantId: number, endpointId: number) {
  const d = schema.webhookDeliveries;
  return asOwner((db) =>
    db
      .select()
      .from(d)
      .where(and(eq(d.tenantId, tenantId), eq(d.endpointId, endpointId)))
      .orderBy(d.id),
  );
}

/**
 * Waits until the delivery the request queued has made its first attempt (miniflare's consumer
 * runs it), then, unless `keep`, parks it: its next attempt an hour away, so the queue's own retry
 * finds it not due and only the test's clock (deliverWebhook's `now`) moves it on.
 */
async function firstAttempt(tenantId: number, endpointId: number, keep = false) {
  await vi.waitFor(
    async () => {
      const [row] = await deliveries(tenantId, endpointId);
      expect(row?.attempts).toBeGreaterThanOrEqual(1);
    },
    { timeout: 15_000, interval: 100 },
  );
  const d = schema.webhookDeliveries;
  if (!keep)
    await asOwner((db) =>
      db
        .update(d)
        .set({ nextAttemptAt: later(new Date(), 3600) })
        .where(and(eq(d.tenantId, tenantId), eq(d.endpointId, endpointId))),
    );
  return (await deliveries(tenantId, endpointId))[0]!;
}

const INVOICE_LINE = (serviceId: number, price: string) => [{ product_id: serviceId, quantity: "1", unit_price: price, tax_ids: [] }];

describe("webhook events and delivery", () => {
  it("invoice.created: signed with the endpoint's secret, delivered through the queue after commit, data as GET /invoices/{id} returns it", async () => {
    const { tenant, ids, contact, service } = await salesSetup();
    const hook = await endpoint(tenant, ["invoice.created"]);
    const res = await tenant.api.post("/invoices", {
      contact_id: contact.id,
      document_subtype_id: ids.b02,
      issue_date: "2026-11-20",
      items: INVOICE_LINE(service.id, "1500.00"),
    });
    expect(res.status, res.text).toBe(201);
    await firstAttempt(tenant.tenantId, hook.id, true);

    const [hit] = await receivedHooks(hook.key);
    expect(hit!.verified).toEqual({ current: true });
    expect(hit!.body.type).toBe("invoice.created");
    expect(hit!.body.id).toMatch(/^evt_[0-9a-f]{24}$/);
    expect(hit!.headers["webhook-id"]).toBe(hit!.body.id);
    expect(Math.abs(Number(hit!.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
    expect(hit!.headers["webhook-signature"]).toMatch(/^v1,\S+$/);
    const got = await tenant.api.get(`/invoices/${res.body.data.id}`);
    expect(hit!.body.data).toEqual(got.body.data);
    expect(hit!.body.data.total_amount).toBe("1500.00");
    expect(Date.parse(hit!.body.created_at)).not.toBeNaN();

    const list = await tenant.api.get<Page<WebhookDelivery>>(`/webhook-endpoints/${hook.id}/deliveries`);
    expect(list.status).toBe(200);
    expect(list.body.meta.total).toBe(1);
    expect(list.body.data[0]).toMatchObject({
      event_id: hit!.body.id,
      event_type: "invoice.created",
      status: "succeeded",
      attempt_count: 1,
      next_attempt_at: null,
      attempts: [{ attempt: 1, status_code: 200, response_body: '{"received":true}', error: null }],
    });
    // The attempts come gathered as JSON in the page's statement: the time as every timestamp of the API, to the second, from the row.
    const attempt = await ownerRow<{ attempted_at: string; duration_ms: number }>(
      sql`SELECT to_char(attempted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS attempted_at, duration_ms FROM webhook_attempts WHERE delivery_id = ${list.body.data[0]!.id}`,
    );
    expect(list.body.data[0]!.attempts[0]!.attempted_at).toBe(attempt.attempted_at);
    expect(list.body.data[0]!.attempts[0]!.duration_ms).toBe(attempt.duration_ms);
  });

  it("payment.received carries the payment and its invoice, once even when replayed; endpoints not subscribed, disabled or filtered to another workspace get nothing", async () => {
    const { tenant, id } = await serviceInvoice("1000.00");
    const payments = await endpoint(tenant, ["payment.received"]);
    const invoicesOnly = await endpoint(tenant, ["invoice.created"]);
    const disabled = await endpoint(tenant, ["*"], { enabled: false });
    const otherWorkspace = await seedWorkspace(tenant);
    const filtered = await endpoint(tenant, ["*"], { workspace_ids: [otherWorkspace] });
    const headers = { "idempotency-key": "pago-webhook-1" };
    const paid = await tenant.api.post(`/invoices/${id}/payments`, { amount: "400.50", payment_date: "2026-11-21", payment_method: "cash" }, { headers });
    expect(paid.status).toBe(201);
    // A replay answers from the stored response: no second payment, no second event.
    const replay = await tenant.api.post(`/invoices/${id}/payments`, { amount: "400.50", payment_date: "2026-11-21", payment_method: "cash" }, { headers });
    expect(replay.body.data.payment.id).toBe(paid.body.data.payment.id);
    await firstAttempt(tenant.tenantId, payments.id, true);
    const [hit] = await receivedHooks(payments.key);
    expect(hit!.body.type).toBe("payment.received");
    const invoice = (await tenant.api.get(`/invoices/${id}`)).body.data;
    expect(hit!.body.data).toEqual({
      id: paid.body.data.payment.id,
      amount: "400.50",
      payment_date: "2026-11-21",
      payment_method: "cash",
      bank_account: null,
      invoice_id: id,
      invoice,
    });
    expect(invoice.status).toBe("partially_paid");
    expect(await deliveries(tenant.tenantId, payments.id)).toHaveLength(1);
    for (const quiet of [invoicesOnly, disabled, filtered]) expect(await deliveries(tenant.tenantId, quiet.id)).toEqual([]);
  });

  it("invoice.paid, invoice.cancelled, credit_note.created and its invoice's invoice.updated, each with the resource as its GET returns it; a refused cancel emits nothing", async () => {
    const { tenant, ids, contact, service } = await salesSetup();
    const hook = await endpoint(tenant, ["*"]);
    const invoice = async (price: string) => {
      const res = await tenant.api.post("/invoices", {
        contact_id: contact.id,
        document_subtype_id: ids.b02,
        issue_date: "2026-11-20",
        items: INVOICE_LINE(service.id, price),
      });
      expect(res.status, res.text).toBe(201);
      return res.body.data.id as number;
    };
    const [paid, cancelled, credited] = [await invoice("100.00"), await invoice("50.00"), await invoice("80.00")];
    expect((await tenant.api.post(`/invoices/${paid}/payments`, { amount: "100.00", payment_date: "2026-11-21", payment_method: "cash" })).status).toBe(201);
    expect((await tenant.api.post(`/invoices/${cancelled}/cancel`, { annulment_reason: "04" })).status).toBe(200);
    const again = await tenant.api.post(`/invoices/${cancelled}/cancel`, { annulment_reason: "04" });
    expect(again.status).toBe(409);
    const note = await tenant.api.post(`/invoices/${credited}/credit-notes`, {
      modification_code: 3,
      reason: "Descuento",
      items: [{ description: "Descuento", amount: "10.00" }],
    });
    expect(note.status, note.text).toBe(201);

    const events = await storedEvents(tenant.tenantId);
    expect(events.map((e) => [e.type, e.data.id])).toEqual([
      ["invoice.created", paid],
      ["invoice.created", cancelled],
      ["invoice.created", credited],
      ["payment.received", events[3]!.data.id],
      ["invoice.paid", paid],
      ["invoice.cancelled", cancelled],
      ["credit_note.created", note.body.data.id],
      ["invoice.updated", credited],
    ]);
    expect(events[4]!.data).toEqual((await tenant.api.get(`/invoices/${paid}`)).body.data);
    expect(events[4]!.data.status).toBe("paid");
    expect(events[5]!.data).toEqual((await tenant.api.get(`/invoices/${cancelled}`)).body.data);
    expect(events[5]!.data.status).toBe("cancelled");
    expect(events[6]!.data).toEqual((await tenant.api.get(`/credit-notes/${note.body.data.id}`)).body.data);
    expect(events[7]!.data).toEqual((await tenant.api.get(`/invoices/${credited}`)).body.data);
    expect(events[7]!.data).toMatchObject({ credited_amount: "10.00", amount_due: "70.00", status: "pending_payment" });
    expect(events[7]!.data.credit_notes.map((n: { id: number }) => n.id)).toEqual([note.body.data.id]);
    expect(await deliveries(tenant.tenantId, hook.id)).toHaveLength(8);
  });

  it("cancelling an e-CF emits credit_note.created for the E34 it issues, then invoice.cancelled", async () => {
    const t = await ecfTenant();
    const invoice = await issueE31(t);
    await waitForStatus(t, `/invoices/${invoice.id}`, "accepted");
    await t.subtype("E34");
    await endpoint(t.tenant, ["credit_note.created", "invoice.cancelled"]);
    const cancelled = await t.tenant.api.post(`/invoices/${invoice.id}/cancel`, { annulment_reason: "05" });
    expect(cancelled.status, cancelled.text).toBe(200);
    const [note] = (await t.tenant.api.get(`/credit-notes?filter[invoice_id]=${invoice.id}`)).body.data;
    const events = await storedEvents(t.tenant.tenantId, "credit_note.created", "invoice.cancelled");
    expect(events.map((e) => [e.type, e.data.id, e.data.document_number])).toEqual([
      ["credit_note.created", note.id, "E340000000001"],
      ["invoice.cancelled", invoice.id, invoice.document_number],
    ]);
  });

  it("a failed operation emits nothing: no event, no delivery", async () => {
    const { tenant, id } = await serviceInvoice("100.00");
    const hook = await endpoint(tenant);
    const over = await tenant.api.post(`/invoices/${id}/payments`, { amount: "100.01", payment_date: "2026-11-21", payment_method: "cash" });
    expect(over.status).toBe(422);
    const badInvoice = await tenant.api.post("/invoices", { contact_id: 999999, document_subtype_id: 1, issue_date: "2026-11-20", items: [] });
    expect(badInvoice.status).toBe(422);
    expect(await deliveries(tenant.tenantId, hook.id)).toEqual([]);
    // Only the invoice the test started from (events are stored whether or not an endpoint listens).
    expect(await ownerRows(sql`SELECT type FROM webhook_events WHERE tenant_id = ${tenant.tenantId}`)).toEqual([{ type: "invoice.created" }]);
  });

  it("each attempt resolves the endpoint's host again: a name now pointing at a private address, or a resolver down, sends nothing and retries", async () => {
    const { tenant, id } = await serviceInvoice("100.00");
    const [rebound, unresolved] = [uniqueHost(), uniqueHost()];
    const hooks = [];
    for (const host of [rebound, unresolved]) {
      const res = await tenant.api.post<DataWithMessage<WebhookEndpointWithSecret>>("/webhook-endpoints", {
        url: `https://${host}/hook`,
        events: ["payment.received"],
      });
      expect(res.status, res.text).toBe(201);
      hooks.push(res.body.data.id);
    }
    // After the endpoints were saved with a public address, the names change their answers.
    await scriptDns(rebound, { A: ["169.254.169.254"] });
    await scriptDns(unresolved, { status: 503 });
    expect((await tenant.api.post(`/invoices/${id}/payments`, { amount: "10.00", payment_date: "2026-11-21", payment_method: "cash" })).status).toBe(201);
    for (const [hook, error] of [
      [hooks[0]!, `url refused: The host ${rebound} resolves to 169.254.169.254, a private, loopback, link-local or reserved address.`],
      [hooks[1]!, "url refused: host not resolved: the resolver answered 503"],
    ] as const) {
      const delivery = await firstAttempt(tenant.tenantId, hook);
      expect(delivery.status).toBe("pending");
      const list = await tenant.api.get<Page<WebhookDelivery>>(`/webhook-endpoints/${hook}/deliveries`);
      expect(list.body.data[0]!.attempts.map((a) => [a.status_code, a.error])).toEqual([[null, error]]);
    }
  });

  it("ordering is not promised: a retried event arrives after a later one, and each body's created_at lets the receiver put them back in order", async () => {
    const { tenant, ids, contact, service } = await salesSetup();
    const hook = await endpoint(tenant, ["invoice.created", "payment.received"]);
    await failNext("receiver", hook.key, { times: 1, status: 503 });
    const created = await tenant.api.post("/invoices", {
      contact_id: contact.id,
      document_subtype_id: ids.b02,
      issue_date: "2026-11-20",
      items: INVOICE_LINE(service.id, "100.00"),
    });
    expect(created.status, created.text).toBe(201);
    const first = await firstAttempt(tenant.tenantId, hook.id);
    expect(first.status).toBe("pending");
    const paid = await tenant.api.post(`/invoices/${created.body.data.id}/payments`, { amount: "100.00", payment_date: "2026-11-21", payment_method: "cash" });
    expect(paid.status).toBe(201);
    await vi.waitFor(async () => expect((await receivedHooks(hook.key)).map((h) => h.body.type)).toEqual(["invoice.created", "payment.received"]), {
      timeout: 15_000,
      interval: 100,
    });
    const retried = await deliverWebhook(env, { tenant_id: tenant.tenantId, webhook_delivery_id: first.id }, { now: later(first.nextAttemptAt, 1) });
    expect(retried.outcome).toBe("succeeded");

    // What the receiver accepted, in the order it arrived: the later event first.
    const hits = await receivedHooks(hook.key);
    const accepted = hits.slice(1);
    expect(accepted.map((h) => h.body.type)).toEqual(["payment.received", "invoice.created"]);
    expect(accepted.every((h) => h.verified.current && h.headers["webhook-id"] === h.body.id)).toBe(true);
    // The failed attempt and its retry are one event (one id): the receiver deduplicates on it.
    expect(hits[0]!.body.id).toBe(accepted[1]!.body.id);
    // Sorted by created_at, the events are in the order they happened.
    const byTime = [...accepted].sort((a, b) => Date.parse(a.body.created_at) - Date.parse(b.body.created_at));
    expect(byTime.map((h) => h.body.type)).toEqual(["invoice.created", "payment.received"]);
    expect(Date.parse(byTime[0]!.body.created_at)).toBeLessThan(Date.parse(byTime[1]!.body.created_at));
  });

  it("a receiver failing 3 times then succeeding is delivered the event once, on the 4th attempt, always with the same id; every attempt is recorded", async () => {
    const { tenant, id } = await serviceInvoice("100.00");
    const hook = await endpoint(tenant, ["payment.received"]);
    await failNext("receiver", hook.key, { times: 3, status: 503, description: "x".repeat(3000) });
    expect((await tenant.api.post(`/invoices/${id}/payments`, { amount: "10.00", payment_date: "2026-11-21", payment_method: "cash" })).status).toBe(201);
    const first = await firstAttempt(tenant.tenantId, hook.id);
    const ref: WebhookRef = { tenant_id: tenant.tenantId, webhook_delivery_id: first.id };

    // Not before its time.
    expect(await deliverWebhook(env, ref, { now: later(first.nextAttemptAt, -1) })).toMatchObject({ outcome: "not_due" });
    let due = first.nextAttemptAt;
    const outcomes = [];
    for (let i = 0; i < 3; i++) {
      const result = await deliverWebhook(env, ref, { now: later(due, 1) });
      outcomes.push(result.outcome);
      due = (await deliveries(tenant.tenantId, hook.id))[0]!.nextAttemptAt;
    }
    expect(outcomes).toEqual(["retry", "retry", "succeeded"]);
    // A success ends the endpoint's failing streak.
    expect((await ownerRows(sql`SELECT failing_since FROM webhook_endpoints WHERE id = ${hook.id}`))[0]).toEqual({ failing_since: null });
    expect(await deliverWebhook(env, ref, { now: later(due, 86_400) })).toEqual({ outcome: "done" });

    const hits = await receivedHooks(hook.key);
    expect(hits).toHaveLength(4);
    expect(new Set(hits.map((h) => h.body.id)).size).toBe(1);
    expect(new Set(hits.map((h) => h.headers["webhook-id"]))).toEqual(new Set([hits[0]!.body.id]));
    expect(hits.every((h) => h.verified.current)).toBe(true);

    const list = await tenant.api.get<Page<WebhookDelivery>>(`/webhook-endpoints/${hook.id}/deliveries`);
    const delivery = list.body.data[0]!;
    expect(delivery).toMatchObject({ status: "succeeded", attempt_count: 4, next_attempt_at: null });
    expect(delivery.attempts.map((a) => [a.attempt, a.status_code])).toEqual([
      [1, 503],
      [2, 503],
      [3, 503],
      [4, 200],
    ]);
    // The response body's first KB only.
    expect(delivery.attempts[0]!.response_body).toHaveLength(1024);
    expect(delivery.attempts[0]!.response_body!.startsWith('{"error":"xxx')).toBe(true);
    const failedOnly = await tenant.api.get<Page<WebhookDelivery>>(`/webhook-endpoints/${hook.id}/deliveries?filter[status]=failed`);
    expect(failedOnly.body.data).toEqual([]);
  });

  it("retries follow 5 s, 5 min, 30 min, 2 h, 5 h, 10 h… with ±10 % jitter, and give up after 3 days", async () => {
    expect([1, 2, 3, 4, 5, 6, 7, 12].map((n) => retryDelaySeconds(n, 0.5))).toEqual([5, 300, 1800, 7200, 18_000, 36_000, 36_000, 36_000]);
    expect(retryDelaySeconds(2, 0)).toBe(270);
    expect(retryDelaySeconds(2, 1)).toBe(330);
    expect(RETRY_SCHEDULE).toHaveLength(6);

    const { tenant, id } = await serviceInvoice("100.00");
    const hook = await endpoint(tenant, ["payment.received"]);
    await failNext("receiver", hook.key, { times: -1, status: 500 });
    expect((await tenant.api.post(`/invoices/${id}/payments`, { amount: "10.00", payment_date: "2026-11-21", payment_method: "cash" })).status).toBe(201);
    const first = await firstAttempt(tenant.tenantId, hook.id);
    const ref: WebhookRef = { tenant_id: tenant.tenantId, webhook_delivery_id: first.id };
    const start = first.createdAt;
    let due = first.nextAttemptAt;
    const gaps: number[] = [];
    let result = await deliverWebhook(env, ref, { now: due });
    while (result.outcome === "retry") {
      const next = (await deliveries(tenant.tenantId, hook.id))[0]!.nextAttemptAt;
      gaps.push(Math.round((next.getTime() - due.getTime()) / 1000));
      due = next;
      result = await deliverWebhook(env, ref, { now: due });
    }
    expect(result.outcome).toBe("failed");
    const last = (await deliveries(tenant.tenantId, hook.id))[0]!;
    expect(last.status).toBe("failed");
    expect(due.getTime() - start.getTime()).toBeGreaterThanOrEqual(3 * 86_400_000);
    // Each gap within ±10 % of its step of the schedule.
    gaps.forEach((gap, i) => {
      const base = RETRY_SCHEDULE[Math.min(i + 1, RETRY_SCHEDULE.length - 1)]!;
      expect(gap).toBeGreaterThanOrEqual(Math.floor(base * 0.9));
      expect(gap).toBeLessThanOrEqual(Math.ceil(base * 1.1));
    });
    expect(await deliverWebhook(env, ref, { now: later(due, 86_400) })).toEqual({ outcome: "done" });
  });

  it("an endpoint failing 5 days in a row is disabled, never deleted, and the tenant's admins are emailed; enabling it again starts afresh", async () => {
    const { tenant, id } = await serviceInvoice("100.00");
    const hook = await endpoint(tenant, ["payment.received"]);
    await failNext("receiver", hook.key, { times: -1, status: 500 });
    const pay = async () =>
      expect((await tenant.api.post(`/invoices/${id}/payments`, { amount: "1.00", payment_date: "2026-11-21", payment_method: "cash" })).status).toBe(201);
    await pay();
    const first = await firstAttempt(tenant.tenantId, hook.id);
    const endpointRow = async () => (await asOwner((db) => db.select().from(schema.webhookEndpoints).where(eq(schema.webhookEndpoints.id, hook.id))))[0]!;
    const failingSince = (await endpointRow()).failingSince!;
    expect(Math.abs(failingSince.getTime() - Date.now())).toBeLessThan(60_000);
    // The first event gives up after 3 days; the endpoint is still enabled.
    const ref = (deliveryId: number): WebhookRef => ({ tenant_id: tenant.tenantId, webhook_delivery_id: deliveryId });
    expect(await deliverWebhook(env, ref(first.id), { now: later(failingSince, 3 * 86_400 + 60) })).toMatchObject({ outcome: "failed" });
    expect(await endpointRow()).toMatchObject({ enabled: true, disabledForFailuresAt: null, failingSince });

    // A later event, still failing 5 days after the first failure: disabled, admins emailed.
    await pay();
    await vi.waitFor(async () => expect((await deliveries(tenant.tenantId, hook.id))[1]?.attempts).toBe(1), { timeout: 15_000, interval: 100 });
    const second = (await deliveries(tenant.tenantId, hook.id))[1]!;
    const fiveDays = later(failingSince, 5 * 86_400);
    expect(await deliverWebhook(env, ref(second.id), { now: fiveDays })).toMatchObject({ outcome: "failed", statusCode: 500 });
    const got = await tenant.api.get(`/webhook-endpoints/${hook.id}`);
    expect(got.body.data).toMatchObject({ enabled: false, disabled_for_failures_at: fiveDays.toISOString().replace(/\.\d{3}Z$/, "Z") });
    expect((await deliveries(tenant.tenantId, hook.id)).map((d) => d.status)).toEqual(["failed", "failed"]);
    const emails = await ownerRows<{ payload: { to: string; subject: string; text: string; template: string } }>(
      sql`SELECT payload FROM outbox_messages WHERE tenant_id = ${tenant.tenantId} AND payload->>'template' = 'webhook_endpoint_disabled'`,
    );
    expect(emails.map((m) => [m.payload.to, m.payload.subject])).toEqual([[tenant.admin.email, `Webhook desactivado: ${hook.url}`]]);
    expect(emails[0]!.payload.text).toContain(`PATCH /api/v1/webhook-endpoints/${hook.id} {"enabled": true}`);
    // No new deliveries while disabled.
    await pay();
    expect(await deliveries(tenant.tenantId, hook.id)).toHaveLength(2);

    const enabled = await tenant.api.patch(`/webhook-endpoints/${hook.id}`, { enabled: true });
    expect(enabled.body.data).toMatchObject({ enabled: true, disabled_for_failures_at: null });
    expect((await endpointRow()).failingSince).toBeNull();
  });

  it("rotation: both secrets sign for 24 h (space-separated signatures), then only the new one", async () => {
    const { tenant, id } = await serviceInvoice("100.00");
    const hook = await endpoint(tenant, ["payment.received"]);
    const rotated = await tenant.api.post<DataWithMessage<WebhookEndpointWithSecret>>(`/webhook-endpoints/${hook.id}/rotate-secret`);
    await receiverSecrets(hook.key, { old: hook.secret, new: rotated.body.data.secret, unrelated: `whsec_${btoa("not-the-secret-of-this-endpoint!")}` });
    // The receiver fails the first attempt so the test drives the next ones with its own clock.
    await failNext("receiver", hook.key, { times: 2, status: 500 });
    expect((await tenant.api.post(`/invoices/${id}/payments`, { amount: "10.00", payment_date: "2026-11-21", payment_method: "cash" })).status).toBe(201);
    const first = await firstAttempt(tenant.tenantId, hook.id);
    const ref: WebhookRef = { tenant_id: tenant.tenantId, webhook_delivery_id: first.id };
    expect(await deliverWebhook(env, ref, { now: later(first.nextAttemptAt, 1) })).toMatchObject({ outcome: "retry" });
    // The rotation was made at about first.createdAt: 24 h later only the new secret signs.
    expect(await deliverWebhook(env, ref, { now: later(first.createdAt, 24 * 3600 + 60) })).toMatchObject({ outcome: "succeeded" });

    const hits = await receivedHooks(hook.key);
    expect(hits.map((h) => h.headers["webhook-signature"]!.split(" ").length)).toEqual([2, 2, 1]);
    expect(hits.map((h) => h.verified)).toEqual([
      { old: true, new: true, unrelated: false },
      { old: true, new: true, unrelated: false },
      { old: false, new: true, unrelated: false },
    ]);
  });

  it("redirects are not followed (a 3xx is a failure) and a receiver slower than 5 s times out", async () => {
    const { tenant, id } = await serviceInvoice("100.00");
    const hook = await endpoint(tenant, ["payment.received"]);
    await failNext("receiver", hook.key, { times: 1, status: 302 });
    expect((await tenant.api.post(`/invoices/${id}/payments`, { amount: "10.00", payment_date: "2026-11-21", payment_method: "cash" })).status).toBe(201);
    const first = await firstAttempt(tenant.tenantId, hook.id);
    const ref: WebhookRef = { tenant_id: tenant.tenantId, webhook_delivery_id: first.id };
    await failNext("receiver", hook.key, { times: 1, mode: "slow" });
    expect(await deliverWebhook(env, ref, { now: later(first.nextAttemptAt, 1) })).toMatchObject({ outcome: "retry", statusCode: null });
    const [delivery] = (await tenant.api.get<Page<WebhookDelivery>>(`/webhook-endpoints/${hook.id}/deliveries`)).body.data;
    expect(delivery!.attempts.map((a) => [a.status_code, a.error])).toEqual([
      [302, "redirects are not followed"],
      [null, "timeout after 5000 ms"],
    ]);
    expect(delivery!.attempts[1]!.duration_ms).toBeGreaterThanOrEqual(4900);
    expect(delivery!.status).toBe("pending");
  });

  it("the minute sweep re-queues a due delivery whose queue message was lost", async () => {
    const { tenant, id } = await serviceInvoice("100.00");
    const hook = await endpoint(tenant, ["payment.received"]);
    await failNext("receiver", hook.key, { times: 1, status: 500 });
    expect((await tenant.api.post(`/invoices/${id}/payments`, { amount: "10.00", payment_date: "2026-11-21", payment_method: "cash" })).status).toBe(201);
    const first = await firstAttempt(tenant.tenantId, hook.id, true);
    // As if the retry message were lost: due a minute ago.
    await asOwner((db) =>
      db
        .update(schema.webhookDeliveries)
        .set({ nextAttemptAt: later(new Date(), -60) })
        .where(and(eq(schema.webhookDeliveries.tenantId, tenant.tenantId), eq(schema.webhookDeliveries.id, first.id))),
    );
    expect(await sweepWebhooks(env)).toBeGreaterThanOrEqual(1);
    await vi.waitFor(async () => expect((await deliveries(tenant.tenantId, hook.id))[0]!.status).toBe("succeeded"), { timeout: 15_000, interval: 100 });
    expect(await receivedHooks(hook.key)).toHaveLength(2);
  });
});
