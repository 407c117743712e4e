import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import * as schema from "../../src/db/schema";
import worker from "../../src/index";
import { backoffSeconds, deliverOutboxMessage, OUTBOX_MAX_ATTEMPTS, sweepOutbox } from "../../src/jobs/outbox";
import { env } from "../support/env";
import { catalogIds, createContact } from "../support/sales";
import { asOwner, seedTenant, uniqueName } from "../support/seed";
import { createProduct } from "../support/stock";
import { failNext, outboxRow, outboxRows, received } from "./helpers";

/** A tenant with a customer (unique email) and an issued invoice; returns the invoice and its outbox row. */
async function invoiceWithEmail() {
  const tenant = await seedTenant();
  const ids = await catalogIds(tenant.api);
  const contact = await createContact(tenant.api, { email: `${uniqueName("cliente")}@example.do` });
  const service = await createProduct(tenant.api, { product_type: "service", default_tax_ids: [ids.itbis18] });
  const res = await tenant.api.post("/invoices", {
    contact_id: contact.id,
    document_subtype_id: ids.b01,
    issue_date: "2026-11-20",
    items: [{ product_id: service.id, quantity: "2", unit_price: "100" }],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const [row] = await outboxRows(tenant.tenantId);
  expect(row).toBeDefined();
  return { tenant, contact, invoice: res.body.data, ref: { tenant_id: tenant.tenantId, outbox_id: row!.id } };
}

const seconds = (date: Date, s: number) => new Date(date.getTime() + s * 1000);

describe("outbox: email delivery through Resend", () => {
  it("delivers the invoice email with the NCF, the total and the link, once, with an idempotency key", async () => {
    const { tenant, contact, invoice, ref } = await invoiceWithEmail();
    expect(invoice.document_number).toBe("B0100000001");
    expect(invoice.total_amount).toBe("236.00");

    expect(await deliverOutboxMessage(env, ref)).toEqual({ outcome: "sent" });

    const got = await received("resend", contact.email!);
    expect(got.requests).toHaveLength(1);
    expect(got.deliveries).toHaveLength(1);
    const email = got.deliveries[0]!;
    expect(email.idempotency_key).toBe(`sucursal-outbox-${tenant.tenantId}-${ref.outbox_id}`);
    expect(email.body.from).toBe("Sucursal <no-reply@sucursal.do>");
    expect(email.body.to).toBe(contact.email);
    expect(email.body.subject).toBe("Factura B0100000001 por RD$ 236.00");
    expect(email.body.text).toBe(
      `Hola ${contact.name},\n\nSe ha emitido la factura con NCF B0100000001 por un total de 236.00.\nPuede verla en https://app.sucursal.test/invoices/${invoice.id}\n`,
    );
    expect(got.requests[0]!.headers.authorization).toBe("Bearer re_test_key");

    const row = await outboxRow(tenant.tenantId, ref.outbox_id);
    expect(row).toMatchObject({ status: "sent", attempts: 1, lastError: null });
    expect(row.sentAt).toBeInstanceOf(Date);

    // Never sent again.
    expect(await deliverOutboxMessage(env, ref, { now: seconds(new Date(), 3600) })).toEqual({ outcome: "done" });
    expect((await received("resend", contact.email!)).requests).toHaveLength(1);
  });

  it("delivers the invitation email with the acceptance link, through the queue, right after the request commits", async () => {
    const tenant = await seedTenant();
    const invitee = `${uniqueName("invitado")}@example.do`;
    const res = await tenant.api.post("/workspace/invitations", { email: invitee, role: "member" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const token = res.body.data.token as string;

    // The request pushed the row onto the outbox Queue; miniflare's consumer delivers it.
    await vi.waitFor(
      async () => {
        const [row] = await outboxRows(tenant.tenantId);
        expect(row!.status).toBe("sent");
      },
      { timeout: 15_000, interval: 100 },
    );
    const got = await received("resend", invitee);
    expect(got.deliveries).toHaveLength(1);
    const email = got.deliveries[0]!.body;
    expect(email.to).toBe(invitee);
    expect(email.subject).toBe(`Invitación a Principal (Tenant ${tenant.subdomain})`);
    expect(email.text).toContain(`Acepta la invitación aquí: https://app.sucursal.test/invitations/${token}/accept?tenant=${tenant.subdomain}`);
  });

  it("provider 500 then 200: retried after the backoff and delivered exactly once", async () => {
    const { tenant, contact, ref } = await invoiceWithEmail();
    await failNext("resend", contact.email!, { times: 1, status: 500, description: "Internal server error" });
    const now = new Date();

    expect(await deliverOutboxMessage(env, ref, { now })).toEqual({ outcome: "retry", retryInSeconds: 30 });
    let row = await outboxRow(tenant.tenantId, ref.outbox_id);
    expect(row).toMatchObject({ status: "pending", attempts: 1, sentAt: null });
    expect(row.lastError).toContain("500");
    expect(row.nextAttemptAt.getTime()).toBe(seconds(now, 30).getTime());

    // Not before the backoff has passed.
    expect(await deliverOutboxMessage(env, ref, { now: seconds(now, 10) })).toEqual({ outcome: "not_due", retryInSeconds: 20 });
    expect((await received("resend", contact.email!)).requests).toHaveLength(1);

    expect(await deliverOutboxMessage(env, ref, { now: seconds(now, 31) })).toEqual({ outcome: "sent" });
    expect(await deliverOutboxMessage(env, ref, { now: seconds(now, 600) })).toEqual({ outcome: "done" });

    const got = await received("resend", contact.email!);
    expect(got.requests).toHaveLength(2);
    expect(got.deliveries).toHaveLength(1);
    expect(got.requests.map((r) => r.headers["idempotency-key"])).toEqual([
      `sucursal-outbox-${tenant.tenantId}-${ref.outbox_id}`,
      `sucursal-outbox-${tenant.tenantId}-${ref.outbox_id}`,
    ]);
    row = await outboxRow(tenant.tenantId, ref.outbox_id);
    expect(row).toMatchObject({ status: "sent", attempts: 2, lastError: null });
  });

  it("provider down: the invoice is created all the same, and the email ends failed after the last attempt", async () => {
    const tenant = await seedTenant();
    const email = `${uniqueName("caido")}@example.do`;
    await failNext("resend", email, { times: -1, mode: "drop" });
    const ids = await catalogIds(tenant.api);
    const contact = await createContact(tenant.api, { email });
    const service = await createProduct(tenant.api, { product_type: "service" });
    const res = await tenant.api.post("/invoices", {
      contact_id: contact.id,
      document_subtype_id: ids.b01,
      issue_date: "2026-11-20",
      items: [{ product_id: service.id, quantity: "1", unit_price: "50" }],
    });
    expect(res.status).toBe(201);
    expect((await tenant.api.get(`/invoices/${res.body.data.id}`)).status).toBe(200);
    const ref = { tenant_id: tenant.tenantId, outbox_id: (await outboxRows(tenant.tenantId))[0]!.id };

    let now = new Date();
    const outcomes: string[] = [];
    for (let attempt = 1; attempt <= OUTBOX_MAX_ATTEMPTS; attempt++) {
      const result = await deliverOutboxMessage(env, ref, { now });
      outcomes.push(result.outcome);
      if (result.outcome === "retry") expect(result.retryInSeconds).toBe(backoffSeconds(attempt));
      now = seconds(now, backoffSeconds(attempt) + 1);
    }
    expect(outcomes).toEqual(["retry", "retry", "retry", "retry", "failed"]);
    expect([1, 2, 3, 4].map(backoffSeconds)).toEqual([30, 60, 120, 240]);
    const row = await outboxRow(tenant.tenantId, ref.outbox_id);
    expect(row).toMatchObject({ status: "failed", attempts: OUTBOX_MAX_ATTEMPTS, sentAt: null });
    expect(row.lastError).toMatch(/^network: /);

    expect(await deliverOutboxMessage(env, ref, { now: seconds(now, 86_400) })).toEqual({ outcome: "done" });
    const got = await received("resend", email);
    expect(got.requests).toHaveLength(OUTBOX_MAX_ATTEMPTS);
    expect(got.deliveries).toHaveLength(0);
  });

  it("a permanent refusal (422) fails at once; without RESEND_API_KEY the email is logged and skipped", async () => {
    const first = await invoiceWithEmail();
    await failNext("resend", first.contact.email!, { times: 1, status: 422, description: "Invalid `to` field" });
    expect(await deliverOutboxMessage(env, first.ref)).toEqual({ outcome: "failed" });
    expect(await outboxRow(first.tenant.tenantId, first.ref.outbox_id)).toMatchObject({ status: "failed", attempts: 1 });

    const second = await invoiceWithEmail();
    expect(await deliverOutboxMessage({ ...env, RESEND_API_KEY: undefined }, second.ref)).toEqual({ outcome: "skipped" });
    expect(await outboxRow(second.tenant.tenantId, second.ref.outbox_id)).toMatchObject({
      status: "skipped",
      attempts: 0,
      lastError: "RESEND_API_KEY is not configured",
    });
    expect((await received("resend", second.contact.email!)).requests).toHaveLength(0);
  });

  it("the Worker's queue handler acks delivered messages and retries failed ones", async () => {
    const ok = await invoiceWithEmail();
    const failing = await invoiceWithEmail();
    await failNext("resend", failing.contact.email!, { times: 1, status: 503 });
    const batch = createMessageBatch("outbox", [
      { id: "ok-1", timestamp: new Date(), attempts: 1, body: ok.ref },
      { id: "fail-1", timestamp: new Date(), attempts: 1, body: failing.ref },
      { id: "junk-1", timestamp: new Date(), attempts: 1, body: { hello: "world" } },
    ]);
    const ctx = createExecutionContext();
    await (worker as ExportedHandler<typeof env>).queue!(batch as MessageBatch<unknown>, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(["junk-1", "ok-1"]);
    // (getQueueResult reports which message was retried, not its delay: the delay is the backoff above.)
    expect(result.retryMessages.map((m: { msgId: string }) => m.msgId)).toEqual(["fail-1"]);
    expect(await outboxRow(ok.tenant.tenantId, ok.ref.outbox_id)).toMatchObject({ status: "sent" });
    expect(await outboxRow(failing.tenant.tenantId, failing.ref.outbox_id)).toMatchObject({ status: "pending", attempts: 1 });
  });

  it("the cron sweep re-enqueues a due pending message whose queue message was lost, and not one already sent", async () => {
    const lost = await invoiceWithEmail();
    const sent = await invoiceWithEmail();
    await deliverOutboxMessage(env, sent.ref);
    // Make the lost one the oldest due row, so the sweep's limit always reaches it.
    await asOwner((db) =>
      db
        .update(schema.outboxMessages)
        .set({ nextAttemptAt: new Date("2000-01-01T00:00:00Z") })
        .where(eq(schema.outboxMessages.id, lost.ref.outbox_id)),
    );
    const captured: unknown[] = [];
    const queue = { sendBatch: async (messages: { body: unknown }[]) => void captured.push(...messages.map((m) => m.body)) };
    const count = await sweepOutbox({ ...env, OUTBOX_QUEUE: queue as unknown as Queue });
    expect(count).toBeGreaterThanOrEqual(1);
    expect(captured).toContainEqual(lost.ref);
    expect(captured).not.toContainEqual(sent.ref);
  });
});
