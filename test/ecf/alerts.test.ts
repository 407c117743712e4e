import { describe, expect, it, vi } from "vitest";
import { sweepAlertsOf } from "../../src/jobs/ecf-alerts";
import { dominicanToday } from "../../src/lib/dates";
import { received as sentTo } from "../integrations/helpers";
import { makeCertificate } from "../support/certificates";
import { env } from "../support/env";
import { ownerRow, ownerRows, seedUser, sql } from "../support/seed";
import { receivedHooks, receiverEndpoint } from "../webhooks/helpers";
import { afterFirstAttempt, type EcfTenant, ecfTenant, script, waitForStatus } from "./helpers";

/**
 * Deadlines watched (issue 33): the alert sweep (jobs/ecf-alerts.ts; hourly cron, driven here per
 * tenant with its clock) raises each cause once — an email to each admin, a signed `ecf.alert`
 * event — lists it open on GET /ecf/dgii-status, and resolves it when the cause is gone. Every
 * clock used here is the real one or close to it, so the hourly cron (test/ecf/dgii-status.test.ts)
 * running at the same time finds the same causes and raises nothing more.
 */

const HOUR = 3_600_000;
const apiTime = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, "Z");

interface Alert {
  id: number;
  kind: string;
  subject: string;
  message: string;
  details: Record<string, unknown>;
  due_at: string | null;
  raised_at: string;
  resolved_at: string | null;
}

async function openAlerts(t: EcfTenant): Promise<Alert[]> {
  const res = await t.tenant.api.get("/ecf/dgii-status");
  expect(res.status, res.text).toBe(200);
  return res.body.data.alerts;
}

const adminName = (t: EcfTenant) => ownerRow<{ name: string }>(sql`SELECT name FROM users WHERE id = ${t.tenant.admin.id}`).then((row) => row.name);

/** The emails the fake Resend delivered to `to`, once `count` of them arrived (the outbox queue delivers after the sweep's commit). */
async function emailsTo(to: string, count: number) {
  return vi.waitFor(
    async () => {
      const got = (await sentTo("resend", to)).deliveries;
      expect(got).toHaveLength(count);
      return got.map((delivery) => delivery.body as { to: string; subject: string; text: string });
    },
    { timeout: 10_000, interval: 50 },
  );
}

async function hooksOf(key: string, count: number) {
  return vi.waitFor(
    async () => {
      const got = await receivedHooks(key);
      expect(got).toHaveLength(count);
      return got;
    },
    { timeout: 10_000, interval: 50 },
  );
}

describe("e-CF alerts", () => {
  it("a deferred e-CF not accepted 4 hours before its limit: one email to each admin and one signed ecf.alert, once; resolved when DGII accepts it", async () => {
    const t = await ecfTenant();
    expect((await t.tenant.api.put("/ecf/settings", { deferred_sending_authorization: "DGII-ED-2026-000200" })).status).toBe(200);
    const hook = await receiverEndpoint(t.tenant, ["ecf.alert", "ecf.alert_resolved"]);
    // A branch member (no ecf:manage) gets no email; a second admin does.
    const workspaceId = Number((await ownerRow<{ id: number }>(sql`SELECT id FROM workspaces WHERE tenant_id = ${t.tenant.tenantId}`)).id);
    const member = await seedUser(t.tenant, { role: "member", workspaceIds: [workspaceId] });
    const second = await seedUser(t.tenant, { role: "admin", workspaceIds: [workspaceId] });

    // DGII unreachable for the first send: the e-CF stays pending.
    await script(t.signer, { down: 1 });
    const sale = new Date(Math.floor((Date.now() - 21 * HOUR) / 1000) * 1000);
    const res = await t.tenant.api.post("/invoices", {
      contact_id: t.contact.id,
      document_subtype_id: await t.subtype("E31"),
      issue_date: dominicanToday(sale),
      offline_issued_at: sale.toISOString(),
      items: [{ product_id: t.service.id, quantity: "1", unit_price: "100", tax_ids: [t.ids.itbis18] }],
    });
    expect(res.status, res.text).toBe(201);
    const invoice = res.body.data;
    const row = await afterFirstAttempt(invoice.id);
    expect(row.status).toBe("pending");
    const deadline = new Date(sale.getTime() + 24 * HOUR);

    // Five hours before the limit: nothing yet.
    const early = await sweepAlertsOf(env, t.tenant.tenantId, { now: new Date(deadline.getTime() - 5 * HOUR) });
    expect(early.raised).toEqual([]);
    expect(await openAlerts(t)).toEqual([]);

    // Three hours before: raised.
    const now = new Date(deadline.getTime() - 3 * HOUR);
    await sweepAlertsOf(env, t.tenant.tenantId, { now });
    const alerts = await openAlerts(t);
    expect(alerts).toEqual([
      {
        id: expect.any(Number),
        kind: "deferred_deadline",
        subject: `ecf_document:${row.id}`,
        message: `The deferred e-CF E310000000001 must reach DGII within 24 hours of the sale and is still pending: 3 h left, until ${apiTime(deadline)}.`,
        details: { ecf_id: row.id, encf: "E310000000001", status: "pending", invoice_id: invoice.id, deadline: apiTime(deadline) },
        due_at: apiTime(deadline),
        raised_at: expect.any(String),
        resolved_at: null,
      },
    ]);
    const alert = alerts[0]!;

    const name = await adminName(t);
    const [email] = await emailsTo(t.tenant.admin.email, 1);
    const local = new Date(deadline.getTime() - 4 * HOUR).toISOString().slice(0, 16).replace("T", " ");
    expect(email).toMatchObject({
      to: t.tenant.admin.email,
      subject: "Alerta e-CF: E310000000001 debe llegar a la DGII antes de 24 horas",
      text: `Hola ${name},\n\nEl e-CF E310000000001, emitido sin conexión (envío diferido), debe llegar a la DGII dentro de las 24 horas de la venta; el plazo vence el ${local} (hora de Santo Domingo) y la DGII aún no lo ha aceptado (estado: pending).\n\nVea las alertas abiertas en https://app.sucursal.test/ecf/dgii-status\n`,
    });
    expect((await emailsTo(second.email, 1))[0]!.subject).toBe("Alerta e-CF: E310000000001 debe llegar a la DGII antes de 24 horas");
    expect((await sentTo("resend", member.email)).deliveries).toEqual([]);

    // The event: signed with the endpoint's secret (Standard Webhooks), its data the alert as listed.
    const [hit] = await hooksOf(hook.key, 1);
    expect(hit!.verified.current).toBe(true);
    expect(hit!.body.type).toBe("ecf.alert");
    expect(hit!.body.data).toEqual(alert);
    expect(hit!.headers["webhook-id"]).toBe(hit!.body.id);

    // Once: the next sweeps raise nothing more.
    await sweepAlertsOf(env, t.tenant.tenantId, { now: new Date(now.getTime() + HOUR) });
    await sweepAlertsOf(env, t.tenant.tenantId, { now: new Date(deadline.getTime() + HOUR) });
    expect(await openAlerts(t)).toEqual([alert]);
    expect(await ownerRows(sql`SELECT id FROM webhook_events WHERE tenant_id = ${t.tenant.tenantId} AND type = 'ecf.alert'`)).toHaveLength(1);
    expect(await ownerRows(sql`SELECT id FROM outbox_messages WHERE tenant_id = ${t.tenant.tenantId} AND payload->>'template' = 'ecf_alert'`)).toHaveLength(2);

    // DGII takes it: the cause is gone, the alert resolved; it is never raised again.
    await waitForStatus(t, `/invoices/${invoice.id}`, "accepted");
    const after = new Date(now.getTime() + 2 * HOUR);
    expect((await sweepAlertsOf(env, t.tenant.tenantId, { now: after })).resolved).toBe(1);
    expect(await openAlerts(t)).toEqual([]);
    const resolved = await ownerRow<{ ms: number }>(sql`SELECT (extract(epoch FROM resolved_at) * 1000)::float8 AS ms FROM ecf_alerts WHERE id = ${alert.id}`);
    expect(Number(resolved.ms)).toBe(after.getTime());
    expect((await sweepAlertsOf(env, t.tenant.tenantId, { now: after })).raised).toEqual([]);
    // Its resolution is its own signed event, once (issue 43): the dashboard clears without polling.
    const [, cleared] = await hooksOf(hook.key, 2);
    expect(cleared!.verified.current).toBe(true);
    expect(cleared!.body.type).toBe("ecf.alert_resolved");
    expect(cleared!.body.data).toEqual({ ...alert, resolved_at: apiTime(after) });
    const events = await ownerRows<{ type: string; workspace_id: number | null }>(
      sql`SELECT type, workspace_id FROM webhook_events WHERE tenant_id = ${t.tenant.tenantId} AND type LIKE 'ecf.alert%' ORDER BY id`,
    );
    expect(events.map((event) => [event.type, Number(event.workspace_id)])).toEqual([
      ["ecf.alert", workspaceId],
      ["ecf.alert_resolved", workspaceId],
    ]);
    expect(await receivedHooks(hook.key)).toHaveLength(2);
    // Its own bound: two sweeps' deliveries and DGII's acceptance on a busy machine (30 s was its whole budget before ecf.alert_resolved).
  }, 60_000);

  it("a certificate within 30 days of its end, a range under 10 % left and one expiring within 30 days: raised once each, resolved by a new certificate and a longer range", async () => {
    const t = await ecfTenant();
    const now = new Date();
    // 19 days and a half: 19 whole days left for any sweep within 12 hours of now (the hourly cron
    // of test/ecf/dgii-status.test.ts may sweep this tenant too, a few seconds off this clock).
    const notAfter = new Date(Math.floor((now.getTime() + 19.5 * 24 * HOUR) / 1000) * 1000);
    const short = await makeCertificate({ commonName: t.signer, holderId: t.rnc, notAfter });
    expect((await t.tenant.api.put("/ecf/certificate", { p12_base64: short.p12Base64, password: short.password })).status).toBe(200);
    const certificate = (await t.tenant.api.get("/ecf/certificate")).body.data;
    const low = await t.subtype("E31", { start_number: 1, end_number: 100, next_number: 95 });
    const validUntil = new Date(Date.parse(`${dominicanToday(now)}T00:00:00Z`) + 20 * 24 * HOUR).toISOString().slice(0, 10);
    const expiring = await t.subtype("E32", { valid_until: validUntil });

    await sweepAlertsOf(env, t.tenant.tenantId, { now });
    const alerts = await openAlerts(t);
    expect(alerts.map(({ kind, subject, message, details, due_at, resolved_at }) => ({ kind, subject, message, details, due_at, resolved_at }))).toEqual([
      {
        kind: "certificate_expiring",
        subject: certificate.fingerprint_sha256,
        message: `The e-CF signing certificate expires in 19 day(s), on ${apiTime(notAfter)}: upload its renewal (PUT /api/v1/ecf/certificate).`,
        details: { fingerprint_sha256: certificate.fingerprint_sha256, subject: certificate.subject, not_after: apiTime(notAfter) },
        due_at: apiTime(notAfter),
        resolved_at: null,
      },
      {
        kind: "sequence_low",
        subject: `document_subtype:${low}:100`,
        message: expect.stringMatching(/^The E31 range ".+" has 6 of its 100 numbers left: request the next range from DGII\.$/),
        details: { document_subtype_id: low, name: expect.any(String), prefix: "E31", numbers_left: 6, numbers_total: 100, valid_until: "2027-12-31" },
        due_at: null,
        resolved_at: null,
      },
      {
        kind: "sequence_expiring",
        subject: `document_subtype:${expiring}:${validUntil}`,
        message: expect.stringMatching(new RegExp(`^The E32 range ".+" expires on ${validUntil} with 1000 numbers left: request the next range from DGII\\.$`)),
        details: { document_subtype_id: expiring, name: expect.any(String), prefix: "E32", numbers_left: 1000, numbers_total: 1000, valid_until: validUntil },
        due_at: new Date(`${validUntil}T23:59:59-04:00`).toISOString().replace(".000Z", "Z"),
        resolved_at: null,
      },
    ]);
    const subjects = (await emailsTo(t.tenant.admin.email, 3)).map((email) => email.subject).sort();
    expect(subjects).toEqual([
      "Alerta e-CF: a la secuencia E31 le quedan 6 números",
      "Alerta e-CF: el certificado de firma vence en 19 días",
      `Alerta e-CF: la secuencia E32 vence el ${validUntil}`,
    ]);

    // Once.
    expect((await sweepAlertsOf(env, t.tenant.tenantId, { now })).raised).toEqual([]);

    // The renewed certificate and the range extended: those two causes are gone.
    const renewed = await makeCertificate({ commonName: t.signer, holderId: t.rnc });
    expect((await t.tenant.api.put("/ecf/certificate", { p12_base64: renewed.p12Base64, password: renewed.password })).status).toBe(200);
    const patched = await t.tenant.api.patch(`/document-subtypes/${low}`, { end_number: 1000 });
    expect(patched.status, patched.text).toBe(200);
    // Resolved by this sweep, or by the hourly cron if it ran in between: the same code either way.
    const result = await sweepAlertsOf(env, t.tenant.tenantId, { now });
    expect(result.raised).toEqual([]);
    expect((await openAlerts(t)).map((alert) => alert.kind)).toEqual(["sequence_expiring"]);
    const closed = await ownerRows<{ kind: string }>(
      sql`SELECT kind FROM ecf_alerts WHERE tenant_id = ${t.tenant.tenantId} AND resolved_at IS NOT NULL ORDER BY kind`,
    );
    expect(closed.map((row) => row.kind)).toEqual(["certificate_expiring", "sequence_low"]);
    await emailsTo(t.tenant.admin.email, 3);
  });

  it("a contingency still open 12 hours before its 72: one email and one signed ecf.alert, once; resolved when it is closed", async () => {
    const t = await ecfTenant();
    const hook = await receiverEndpoint(t.tenant, ["ecf.alert"]);
    const workspaceId = Number((await ownerRow<{ id: number }>(sql`SELECT id FROM workspaces WHERE tenant_id = ${t.tenant.tenantId}`)).id);
    const opened = await t.tenant.api.post("/ecf/contingency", { scope: "branches", workspace_ids: [workspaceId], reason: "Sin internet" });
    expect(opened.status, opened.text).toBe(201);
    const contingency = opened.body.data;

    // Just opened: 72 hours ahead, nothing to say.
    expect((await sweepAlertsOf(env, t.tenant.tenantId)).raised).toEqual([]);

    // Opened 61 hours ago (the clock stays the real one, as the hourly cron's): 11 hours left.
    const openedAt = new Date(Math.floor((Date.now() - 61 * HOUR) / 1000) * 1000);
    await ownerRows(sql`UPDATE ecf_contingencies SET opened_at = ${openedAt.toISOString()}::timestamptz WHERE id = ${contingency.id}`);
    const deadline = new Date(openedAt.getTime() + 72 * HOUR);
    const now = new Date();
    await sweepAlertsOf(env, t.tenant.tenantId, { now });
    const alerts = await openAlerts(t);
    expect(alerts).toEqual([
      {
        id: expect.any(Number),
        kind: "contingency_limit",
        subject: `ecf_contingency:${contingency.id}`,
        message: `The contingency opened at ${apiTime(openedAt)} for branches ${workspaceId} is still open: 10 h left of its 72 h, until ${apiTime(deadline)}. Close it (DELETE /api/v1/ecf/contingency/${contingency.id}) once the branches are back, so their e-CF reach DGII.`,
        details: { contingency_id: contingency.id, workspace_ids: String(workspaceId), opened_at: apiTime(openedAt), deadline: apiTime(deadline) },
        due_at: apiTime(deadline),
        raised_at: expect.any(String),
        resolved_at: null,
      },
    ]);
    const local = (date: Date) => new Date(date.getTime() - 4 * HOUR).toISOString().slice(0, 16).replace("T", " ");
    const [email] = await emailsTo(t.tenant.admin.email, 1);
    expect(email!.subject).toBe(`Alerta e-CF: la contingencia abierta el ${local(openedAt)} (hora de Santo Domingo) se acerca a su límite`);
    expect(email!.text).toContain(
      `La contingencia de las sucursales ${workspaceId}, abierta el ${local(openedAt)} (hora de Santo Domingo) (motivo: Sin internet), sigue abierta; su plazo de 72 horas vence el ${local(deadline)} (hora de Santo Domingo).`,
    );
    const [hit] = await hooksOf(hook.key, 1);
    expect(hit!.verified.current).toBe(true);
    expect(hit!.body.type).toBe("ecf.alert");
    expect(hit!.body.data).toEqual(alerts[0]);

    // Once, also past the limit.
    expect((await sweepAlertsOf(env, t.tenant.tenantId, { now: new Date(deadline.getTime() + HOUR) })).raised).toEqual([]);

    // Closed: resolved.
    expect((await t.tenant.api.delete(`/ecf/contingency/${contingency.id}`)).status).toBe(200);
    expect((await sweepAlertsOf(env, t.tenant.tenantId)).resolved).toBe(1);
    expect(await openAlerts(t)).toEqual([]);
    expect(await receivedHooks(hook.key)).toHaveLength(1);
  });
});
