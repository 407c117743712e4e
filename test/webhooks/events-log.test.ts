import { describe, expect, it, vi } from "vitest";
import { withTenantTransaction } from "../../src/db/client";
import { rowsOf } from "../../src/db/rows";
import { purgeWebhookEvents } from "../../src/jobs/webhooks";
import type { WebhookEvent } from "../../src/modules/webhooks/schemas";
import type { Page } from "../support/api";
import { env } from "../support/env";
import { salesSetup } from "../support/sales";
import { ownerRows, seedUser, seedWorkspace, sql } from "../support/seed";
import { receivedHooks, receiverEndpoint } from "./helpers";

/** Moves an event back in time, as the owner (the log's window is 30 days). */
async function age(publicId: string, days: number) {
  await ownerRows(sql`UPDATE webhook_events SET created_at = now() - make_interval(days => ${days}) WHERE public_id = ${publicId} RETURNING id`);
}

async function setup() {
  const { tenant, ids, contact, service } = await salesSetup();
  const invoice = async (price: string) => {
    const res = await tenant.api.post("/invoices", {
      contact_id: contact.id,
      document_subtype_id: ids.b02,
      issue_date: "2026-11-20",
      items: [{ product_id: service.id, quantity: "1", unit_price: price, tax_ids: [] }],
    });
    expect(res.status, res.text).toBe(201);
    return res.body.data.id as number;
  };
  return { tenant, invoice };
}

const waitForHooks = (key: string, count: number) =>
  vi.waitFor(async () => expect(await receivedHooks(key)).toHaveLength(count), { timeout: 15_000, interval: 100 });

describe("GET /events: the log of the last 30 days", () => {
  it("lists every event, listened to or not, newest first, paginated; filters by type and by resource; leaves out events older than 30 days", async () => {
    const { tenant, invoice } = await setup();
    const first = await invoice("100.00");
    const second = await invoice("200.00");
    const paid = await tenant.api.post(`/invoices/${first}/payments`, { amount: "100.00", payment_date: "2026-11-21", payment_method: "cash" });
    expect(paid.status, paid.text).toBe(201);

    const all = await tenant.api.get<Page<WebhookEvent>>("/events");
    expect(all.status, all.text).toBe(200);
    expect(all.body.meta.total).toBe(4);
    expect(all.body.data.map((e) => [e.type, e.resource_type, e.resource_id])).toEqual([
      ["invoice.paid", "invoice", first],
      ["payment.received", "invoice", first],
      ["invoice.created", "invoice", second],
      ["invoice.created", "invoice", first],
    ]);
    const created = all.body.data[3]!;
    expect(created.id).toMatch(/^evt_[0-9a-f]{24}$/);
    expect(created.workspace_id).toBe(tenant.workspaceId);
    // The invoice as it was when created: pending, before the payment.
    expect(created.data).toMatchObject({ id: first, status: "pending_payment", total_amount: "100.00", amount_paid: "0.00" });
    expect(all.body.data[0]!.data).toEqual((await tenant.api.get(`/invoices/${first}`)).body.data);

    const page2 = await tenant.api.get<Page<WebhookEvent>>("/events?per_page=3&page=2");
    expect(page2.body.meta).toEqual({ current_page: 2, last_page: 2, per_page: 3, total: 4 });
    expect(page2.body.data.map((e) => e.id)).toEqual([created.id]);

    const byType = await tenant.api.get<Page<WebhookEvent>>("/events?filter[type]=invoice.created&sort=created_at");
    expect(byType.body.data.map((e) => e.resource_id)).toEqual([first, second]);
    const byResource = await tenant.api.get<Page<WebhookEvent>>(`/events?filter[resource_type]=invoice&filter[resource_id]=${first}`);
    expect(byResource.body.data.map((e) => e.type)).toEqual(["invoice.paid", "payment.received", "invoice.created"]);
    expect((await tenant.api.get("/events?filter[type]=invoice.exploded")).status).toBe(422);
    expect((await tenant.api.get("/events?filter[resource_id]=abc")).status).toBe(422);

    await age(created.id, 31);
    const after = await tenant.api.get<Page<WebhookEvent>>("/events");
    expect(after.body.meta.total).toBe(3);
    expect(after.body.data.map((e) => e.id)).not.toContain(created.id);
    await age(all.body.data[2]!.id, 29);
    expect((await tenant.api.get<Page<WebhookEvent>>("/events")).body.meta.total).toBe(3);
  });

  it("needs webhooks:manage (events carry every workspace's data); another tenant's events are invisible", async () => {
    const { tenant, invoice } = await setup();
    await invoice("100.00");
    const member = await seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] });
    const refused = await member.api.get("/events");
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("company_forbidden");
    const other = await setup();
    const theirs = await other.tenant.api.get<Page<WebhookEvent>>("/events");
    expect(theirs.body.meta.total).toBe(0);
    const [mine] = (await tenant.api.get<Page<WebhookEvent>>("/events")).body.data;
    const resend = await other.tenant.api.post(`/events/${mine!.id}/resend`);
    expect(resend.status).toBe(404);
    expect(resend.body.code).toBe("not_found");
  });
});

describe("POST /events/{id}/resend", () => {
  it("delivers the event again with the same id to every enabled subscribed endpoint, or to endpoint_id alone", async () => {
    const { tenant, invoice } = await setup();
    const hook = await receiverEndpoint(tenant, ["invoice.created"]);
    const other = await receiverEndpoint(tenant, ["*"]);
    const unsubscribed = await receiverEndpoint(tenant, ["payment.received"]);
    const elsewhere = await receiverEndpoint(tenant, ["*"], { workspace_ids: [await seedWorkspace(tenant)] });
    await invoice("100.00");
    await waitForHooks(hook.key, 1);
    await waitForHooks(other.key, 1);
    const [event] = (await tenant.api.get<Page<WebhookEvent>>("/events")).body.data;

    const res = await tenant.api.post(`/events/${event!.id}/resend`);
    expect(res.status, res.text).toBe(202);
    expect(res.body.data.event_id).toBe(event!.id);
    expect(res.body.data.deliveries.map((d: { endpoint_id: number }) => d.endpoint_id).sort()).toEqual([hook.id, other.id].sort());
    await waitForHooks(hook.key, 2);
    await waitForHooks(other.key, 2);
    const hits = await receivedHooks(hook.key);
    expect(hits.map((h) => h.headers["webhook-id"])).toEqual([event!.id, event!.id]);
    expect(hits[1]!.body).toEqual(hits[0]!.body);
    expect(hits[1]!.verified).toEqual({ current: true });

    const one = await tenant.api.post(`/events/${event!.id}/resend`, { endpoint_id: hook.id });
    expect(one.status, one.text).toBe(202);
    expect(one.body.data.deliveries.map((d: { endpoint_id: number }) => d.endpoint_id)).toEqual([hook.id]);
    await waitForHooks(hook.key, 3);
    expect(await receivedHooks(other.key)).toHaveLength(2);
    expect(await receivedHooks(unsubscribed.key)).toEqual([]);
    expect(await receivedHooks(elsewhere.key)).toEqual([]);

    // Each resend is a delivery of its own in the endpoint's list.
    const deliveries = await tenant.api.get(`/webhook-endpoints/${hook.id}/deliveries`);
    expect(deliveries.body.data.map((d: { event_id: string; status: string }) => [d.event_id, d.status])).toEqual([
      [event!.id, "succeeded"],
      [event!.id, "succeeded"],
      [event!.id, "succeeded"],
    ]);
  });

  it("refuses: an unknown event (404), one older than 30 days (410), no endpoint to send it to (422), an endpoint_id not subscribed (422 on endpoint_id)", async () => {
    const { tenant, invoice } = await setup();
    await invoice("100.00");
    const [event] = (await tenant.api.get<Page<WebhookEvent>>("/events")).body.data;

    const unknown = await tenant.api.post("/events/evt_000000000000000000000000/resend");
    expect(unknown.status).toBe(404);
    expect((await tenant.api.post("/events/123/resend")).status).toBe(422);

    const none = await tenant.api.post(`/events/${event!.id}/resend`);
    expect(none.status).toBe(422);
    expect(none.body.code).toBe("no_webhook_endpoint");

    const payments = await receiverEndpoint(tenant, ["payment.received"]);
    const disabled = await receiverEndpoint(tenant, ["*"], { enabled: false });
    for (const id of [payments.id, disabled.id, 99_999_999]) {
      const res = await tenant.api.post(`/events/${event!.id}/resend`, { endpoint_id: id });
      expect(res.status, res.text).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(["endpoint_id"]);
    }
    const ok = await receiverEndpoint(tenant, ["invoice.created"]);
    await age(event!.id, 31);
    const expired = await tenant.api.post(`/events/${event!.id}/resend`, { endpoint_id: ok.id });
    expect(expired.status).toBe(410);
    expect(expired.body.code).toBe("event_expired");
    const rows = await ownerRows(sql`SELECT d.id FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE e.public_id = ${event!.id}`);
    expect(rows).toEqual([]);
  });
});

describe("retention: events past 30 days are deleted by the minute sweep", () => {
  it("deletes events past the cutoff with their deliveries and attempts, oldest first and a bounded number per run; keeps newer ones and one whose delivery is still pending", async () => {
    const { tenant, invoice } = await setup();
    const hook = await receiverEndpoint(tenant, ["invoice.created"]);
    for (const price of ["1.00", "2.00", "3.00", "4.00"]) await invoice(price);
    await waitForHooks(hook.key, 4);
    const ids = (await ownerRows<{ public_id: string }>(sql`SELECT public_id FROM webhook_events WHERE tenant_id = ${tenant.tenantId} ORDER BY id`)).map(
      (row) => row.public_id,
    );
    expect(ids).toHaveLength(4);
    // The run is dated a year back, so no other test's aged events are as old as its cutoff (31 days before it).
    const now = new Date(Date.now() - 365 * 86_400_000);
    await age(ids[0]!, 401);
    await age(ids[1]!, 390);
    await age(ids[2]!, 400);
    await age(ids[3]!, 400);
    await ownerRows(
      sql`UPDATE webhook_deliveries d SET status = 'pending' FROM webhook_events e WHERE e.id = d.event_id AND e.public_id = ${ids[2]!} RETURNING d.id`,
    );
    const attemptsBefore = await ownerRows(
      sql`SELECT a.id FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.tenant_id = ${tenant.tenantId}`,
    );
    expect(attemptsBefore).toHaveLength(4);

    expect(await purgeWebhookEvents(env, { now, limit: 1 })).toBe(1);
    const left = async () =>
      (await ownerRows<{ public_id: string }>(sql`SELECT public_id FROM webhook_events WHERE tenant_id = ${tenant.tenantId} ORDER BY id`)).map(
        (row) => row.public_id,
      );
    expect(await left()).toEqual([ids[1], ids[2], ids[3]]);
    expect(await purgeWebhookEvents(env, { now, limit: 10 })).toBe(1);
    expect(await left()).toEqual([ids[1], ids[2]]);
    expect(await purgeWebhookEvents(env, { now })).toBe(0);
    // The purged events' deliveries and attempts went with them.
    const deliveries = await ownerRows<{ public_id: string }>(
      sql`SELECT e.public_id FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE d.tenant_id = ${tenant.tenantId} ORDER BY d.id`,
    );
    expect(deliveries.map((row) => row.public_id)).toEqual([ids[1], ids[2]]);
    const attempts = await ownerRows(
      sql`SELECT a.id FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.tenant_id = ${tenant.tenantId}`,
    );
    expect(attempts).toHaveLength(2);
  });
});

describe("retention: the purge function keeps what the log still shows, whatever cutoff it is given", () => {
  it("a caller passing a cutoff in the future deletes no event younger than 31 days (30 shown, a day's margin), and still deletes older ones", async () => {
    const { tenant, invoice } = await setup();
    for (const price of ["1.00", "2.00", "3.00", "4.00"]) await invoice(price);
    const ids = (await ownerRows<{ public_id: string }>(sql`SELECT public_id FROM webhook_events WHERE tenant_id = ${tenant.tenantId} ORDER BY id`)).map(
      (row) => row.public_id,
    );
    expect(ids).toHaveLength(4);
    await age(ids[1]!, 29);
    await age(ids[2]!, 30);
    await age(ids[3]!, 32);
    // The application role calls the SECURITY DEFINER function itself, as any code of the Worker could.
    const [row] = await withTenantTransaction(env, null, async (db) =>
      rowsOf<{ purged: number }>(await db.execute(sql`SELECT webhook_purge_events(now() + interval '1 day', 5000) AS purged`)),
    );
    expect(row!.purged).toBeGreaterThanOrEqual(1);
    const left = await ownerRows<{ public_id: string }>(sql`SELECT public_id FROM webhook_events WHERE tenant_id = ${tenant.tenantId} ORDER BY id`);
    expect(left.map((r) => r.public_id)).toEqual([ids[0], ids[1], ids[2]]);
  });
});
