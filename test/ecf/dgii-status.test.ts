import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import { sweepDgiiStatus } from "../../src/jobs/dgii-status";
import { stepEcfDocument } from "../../src/jobs/ecf";
import { ALERTS_SWEEP_CRON, sweepAlertsOf } from "../../src/jobs/ecf-alerts";
import type { EcfContingency } from "../../src/modules/ecf/schemas";
import { received as sentTo } from "../integrations/helpers";
import type { Data, DataWithMessage } from "../support/api";
import { env } from "../support/env";
import { runCron, runQueue } from "../support/jobs";
import { ownerRow, sql } from "../support/seed";
import { receivedHooks, receiverEndpoint, storedEvents } from "../webhooks/helpers";
import { ecfTenant, fakeDgii, issueE31, received } from "./helpers";

/**
 * DGII's status service (Descripción técnica, "Estatus Servicios"; issue 33): the minute sweep
 * keeps each service's state and the maintenance windows, GET /api/v1/ecf/dgii-status shows them,
 * and sending waits out a window or a reported outage without spending attempts.
 *
 * Only the production environment (`ecf`) is scripted here: the other test files send to
 * testecf and certecf, which stay available.
 */
const withKey = { ...env, DGII_STATUS_API_KEY: "clave-de-prueba" } as typeof env;

const control = async (path: string, body: unknown) => {
  const res = await fetch(`${fakeDgii}/_control/${path}`, { method: "POST", body: JSON.stringify(body) });
  expect(res.status).toBe(200);
};

/** dd-MM-yyyy of the day `offset` days from now, in Santo Domingo (UTC-4). */
const santoDomingoDay = (offset: number) => {
  const d = new Date(Date.now() - 4 * 3_600_000 + offset * 86_400_000);
  return `${String(d.getUTCDate()).padStart(2, "0")}-${String(d.getUTCMonth() + 1).padStart(2, "0")}-${d.getUTCFullYear()}`;
};

/** Now to the whole second, as the API writes times. */
const wholeSecond = () => new Date(Math.floor(Date.now() / 1000) * 1000);
const apiTime = (date: Date) => date.toISOString().replace(".000Z", "Z");

const ecfRow = (invoiceId: number) =>
  ownerRow<{ id: number; status: string; attempts: number; last_error: string | null; next_attempt_at: string }>(
    sql`SELECT id, status, attempts, last_error, next_attempt_at FROM ecf_documents WHERE invoice_id = ${invoiceId}`,
  );

/** A tenant issuing in production (a certified provider, so the certification gate lets it). */
async function productionTenant() {
  const t = await ecfTenant();
  expect((await t.tenant.api.put("/ecf/certification", { uses_certified_provider: true })).status).toBe(200);
  expect((await t.tenant.api.put("/ecf/settings", { environment: "ecf" })).status).toBe(200);
  return t;
}

/** Every service available and no window, at the fake and in the database. */
async function allClear() {
  await control("dgii-status", { reset: true });
  await control("dgii-windows", { ventanaMantenimientos: [] });
  expect(await sweepDgiiStatus(withKey)).toBe("recorded");
}

beforeEach(allClear);
afterAll(allClear);

/**
 * The hourly cron through the Worker's scheduled handler, its queue driven by the test (issue 48:
 * each company's alert sweep is a message of the ecf queue): the messages are recorded, and this
 * tenant's is run through the Worker's queue handler; the other files' tenants are left alone.
 */
async function hourlyCron(tenantId: number, scheduledTime: Date) {
  const sent: { tenant_id: number }[] = [];
  const queue = { sendBatch: async (messages: { body: { tenant_id: number } }[]) => void sent.push(...messages.map((m) => m.body)) };
  await runCron(ALERTS_SWEEP_CRON, { scheduledTime, env: { ...env, ECF_QUEUE: queue as unknown as Queue } });
  const ours = sent.filter((body) => body.tenant_id === tenantId);
  expect(ours).toEqual([{ tenant_id: tenantId, alerts_at: scheduledTime.getTime() }]);
  expect((await runQueue("ecf", ours)).explicitAcks).toHaveLength(1);
}

describe("DGII's status and maintenance windows", () => {
  it("the sweep keeps each service per environment and the windows; GET /ecf/dgii-status shows them and since when a service is down", async () => {
    const t = await ecfTenant();
    expect(await sweepDgiiStatus(env)).toBe("off");

    await control("dgii-status", { ambiente: "Produccion", servicio: "Recepción", estatus: "No Disponible" });
    await control("dgii-windows", {
      ventanaMantenimientos: [
        { ambiente: "Produccion", horaInicio: "1:00 PM", horaFin: "4:00 PM", dias: ["10-12-2030", "31-02-2030", "no es fecha"] },
        { ambiente: "Desconocido", horaInicio: "1:00 PM", horaFin: "4:00 PM", dias: ["10-12-2030"] },
      ],
    });
    const first = wholeSecond();
    expect(await sweepDgiiStatus(withKey, { now: first })).toBe("recorded");
    const later = new Date(first.getTime() + 60_000);
    expect(await sweepDgiiStatus(withKey, { now: later })).toBe("recorded");

    const res = await t.tenant.api.get("/ecf/dgii-status");
    expect(res.status, res.text).toBe(200);
    const data = res.body.data;
    expect(data.configured).toBe(false);
    expect(data.services).toHaveLength(27);
    expect(data.services.find((s: { environment: string; service: string }) => s.environment === "ecf" && s.service === "Recepción")).toEqual({
      environment: "ecf",
      service: "Recepción",
      available: false,
      status: "No Disponible",
      // Down since the first sweep that saw it down, checked at the last.
      down_since: apiTime(first),
      checked_at: apiTime(later),
    });
    expect(data.services.filter((s: { available: boolean }) => !s.available)).toHaveLength(1);
    expect(data.services.find((s: { environment: string; service: string }) => s.environment === "testecf" && s.service === "Consulta TrackIds")).toMatchObject(
      {
        available: true,
        status: "Disponible",
        down_since: null,
      },
    );
    // 1:00 PM to 4:00 PM in Santo Domingo (UTC-4); the impossible and unreadable days, and an unknown environment, are left out.
    expect(data.maintenance_windows).toEqual([{ environment: "ecf", starts_at: "2030-12-10T17:00:00Z", ends_at: "2030-12-10T20:00:00Z", in_progress: false }]);

    // Back: down_since clears. DGII's status host unreachable: the last state is kept.
    await control("dgii-status", { reset: true });
    expect(await sweepDgiiStatus(withKey, { now: new Date(later.getTime() + 60_000) })).toBe("recorded");
    expect(await sweepDgiiStatus({ ...withKey, DGII_STATUS_BASE_URL: "http://127.0.0.1:9" } as typeof env)).toBe("unreachable");
    const back = (await t.tenant.api.get("/ecf/dgii-status")).body.data;
    expect(back.services.filter((s: { available: boolean }) => !s.available)).toEqual([]);
    expect(back.maintenance_windows).toHaveLength(1);
    // Any member who sees invoices sees it; without a token, 401.
    expect((await t.tenant.api.get("/ecf/dgii-status", { token: "" })).status).toBe(401);
  });

  it("an e-CF issued during a maintenance window waits to its end without spending an attempt, then is sent", async () => {
    const t = await productionTenant();
    // Midnight to midnight, yesterday through tomorrow in Santo Domingo: whatever the time, now is inside one.
    await control("dgii-windows", {
      ventanaMantenimientos: [{ ambiente: "Produccion", horaInicio: "12:00 AM", horaFin: "12:00 AM", dias: [-1, 0, 1].map(santoDomingoDay) }],
    });
    expect(await sweepDgiiStatus(withKey)).toBe("recorded");
    const invoice = await issueE31(t);
    // The queue's own first step finds the window.
    const paused = await vi.waitFor(
      async () => {
        const row = await ecfRow(invoice.id);
        expect(row.last_error).toMatch(/^Paused: DGII's maintenance window \(ecf\) until \d{4}-\d{2}-\d{2}T04:00:00Z\.$/);
        return row;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(paused).toMatchObject({ status: "pending", attempts: 0 });
    const end = new Date(paused.next_attempt_at);
    expect(end.getTime()).toBeGreaterThan(Date.now());
    const ref = { tenant_id: t.tenant.tenantId, ecf_id: paused.id };
    expect(await stepEcfDocument(env, ref, { now: new Date(end.getTime() - 1000) })).toMatchObject({ outcome: "not_due" });
    expect(await received(t.signer)).toEqual([]);

    // The window called off: DGII's next list no longer has it, and the e-CF goes at its due time.
    await control("dgii-windows", { ventanaMantenimientos: [] });
    expect(await sweepDgiiStatus(withKey)).toBe("recorded");
    expect(await stepEcfDocument(env, ref, { now: new Date(end.getTime() + 1000) })).toEqual({
      outcome: "in_process",
      status: "in_process",
      retryInSeconds: 2,
    });
    expect((await received(t.signer)).map((r) => r.encf)).toEqual(["E310000000001"]);
    expect((await ecfRow(invoice.id)).attempts).toBe(1);
    // The timeline says why it waited and that it was sent after the window (issue 43): one held entry, however many steps met it.
    const timeline = (await t.tenant.api.get(`/invoices/${invoice.id}/ecf`)).body.data.timeline as {
      state: string;
      code: string;
      cause: string;
      attempt: number | null;
    }[];
    expect(timeline.map((entry) => [entry.state, entry.code, entry.attempt])).toEqual([
      ["signed", "issued", null],
      ["held", "window", null],
      ["sent", "after_window", 1],
    ]);
    expect(timeline[1]!.cause).toBe(`Held through ${paused.last_error!.slice("Paused: ".length)}`);
  });

  it("reception reported down pauses sending a minute at a time while the report is fresh; a report older than 5 minutes does not", async () => {
    const t = await productionTenant();
    await control("dgii-status", { ambiente: "Produccion", servicio: "Recepción", estatus: "No Disponible" });
    const checked = wholeSecond();
    expect(await sweepDgiiStatus(withKey, { now: checked })).toBe("recorded");
    const invoice = await issueE31(t);
    const paused = await vi.waitFor(
      async () => {
        const row = await ecfRow(invoice.id);
        expect(row.last_error).toBe(`Paused: DGII reports Recepción (ecf) No Disponible since ${apiTime(checked)}.`);
        return row;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(paused.attempts).toBe(0);
    const ref = { tenant_id: t.tenant.tenantId, ecf_id: paused.id };
    const at = new Date(checked.getTime() + 120_000);
    expect(await stepEcfDocument(env, ref, { now: at })).toEqual({ outcome: "paused", status: "pending", retryInSeconds: 60 });
    expect(await received(t.signer)).toEqual([]);
    // Six minutes without a new report: the old one no longer holds sending back.
    expect(await stepEcfDocument(env, ref, { now: new Date(checked.getTime() + 6 * 60_000) })).toMatchObject({ outcome: "in_process" });
    expect((await received(t.signer)).map((r) => r.encf)).toEqual(["E310000000001"]);
  });
  it("a total contingency closes by itself when reception is reported available after being down, and its held e-CF go at once", async () => {
    const t = await productionTenant();
    const opened = await t.tenant.api.post<DataWithMessage<EcfContingency>>("/ecf/contingency", { scope: "total", reason: "DGII no recibe" });
    expect(opened.status, opened.text).toBe(201);
    expect(opened.body.data).toMatchObject({ scope: "total", workspace_ids: null });
    const invoice = await issueE31(t);
    const held = await vi.waitFor(
      async () => {
        const row = await ecfRow(invoice.id);
        expect(row.last_error).toBe(`Paused: held by contingency #${opened.body.data.id} until it closes.`);
        return row;
      },
      { timeout: 20_000, interval: 100 },
    );
    const isOpen = async () => (await t.tenant.api.get<Data<EcfContingency[]>>("/ecf/contingency")).body.data[0]!.open;

    // Reception available all along (beforeEach): nothing closes (the admin opened it for a reason DGII's status does not show).
    expect(await sweepDgiiStatus(withKey)).toBe("recorded");
    expect(await isOpen()).toBe(true);
    // Down: still open. Back: closed by DGII, the held e-CF due at once.
    await control("dgii-status", { ambiente: "Produccion", servicio: "Recepción", estatus: "No Disponible" });
    expect(await sweepDgiiStatus(withKey)).toBe("recorded");
    expect(await isOpen()).toBe(true);
    await control("dgii-status", { reset: true });
    const back = wholeSecond();
    expect(await sweepDgiiStatus(withKey, { now: back })).toBe("recorded");
    const [closed] = (await t.tenant.api.get<Data<EcfContingency[]>>("/ecf/contingency")).body.data;
    expect(closed).toMatchObject({ open: false, closed_how: "dgii", closed_by: null, closed_at: apiTime(back) });
    // The sweep put it on the queue itself (issue 43): sent without waiting for the minute's e-CF sweep.
    const sent = await vi.waitFor(
      async () => {
        const row = await ecfRow(invoice.id);
        expect(row.attempts).toBe(1);
        return row;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(sent.id).toBe(held.id);
    expect((await received(t.signer)).map((r) => r.encf)).toEqual(["E310000000001"]);
    // Its timeline says what held it, and that it was sent after the contingency.
    const timeline = (await t.tenant.api.get(`/invoices/${invoice.id}/ecf`)).body.data.timeline as { state: string; code: string; cause: string }[];
    expect(timeline.slice(0, 3).map((entry) => [entry.state, entry.code, entry.cause])).toEqual([
      ["signed", "issued", expect.stringMatching(/^Issued by .+\.$/)],
      ["held", "contingency", `Held by contingency #${opened.body.data.id} until it closes.`],
      [
        "sent",
        "after_contingency",
        expect.stringMatching(/^Sent to DGII on attempt 1, after the contingency that held it was closed; DGII gave trackId [\w-]+\.$/),
      ],
    ]);
  });

  it("reception down for 2 hours: the hourly cron raises one ecf.alert per tenant in that environment, emailed and signed, once; resolved when DGII is back", async () => {
    const t = await productionTenant();
    const hook = await receiverEndpoint(t.tenant, ["ecf.alert"]);
    await control("dgii-status", { ambiente: "Produccion", servicio: "Recepción", estatus: "No Disponible" });
    const now = wholeSecond();
    const since = new Date(now.getTime() - 130 * 60_000);
    expect(await sweepDgiiStatus(withKey, { now: since })).toBe("recorded");
    // Under 2 hours down: nothing. Swept for this tenant alone: a cron run at a time 11 minutes
    // past would sweep the other files' tenants too, with a clock their own tests do not expect
    // (test/ecf/alerts.test.ts counts a certificate's days left on the real clock).
    expect((await sweepAlertsOf(env, t.tenant.tenantId, { now: new Date(since.getTime() + 119 * 60_000) })).raised).toEqual([]);
    expect((await t.tenant.api.get("/ecf/dgii-status")).body.data.alerts).toEqual([]);

    expect(await sweepDgiiStatus(withKey, { now: new Date(now.getTime() - 60_000) })).toBe("recorded");
    await hourlyCron(t.tenant.tenantId, now);
    const alerts = (await t.tenant.api.get("/ecf/dgii-status")).body.data.alerts;
    expect(alerts).toEqual([
      {
        id: expect.any(Number),
        kind: "dgii_down",
        subject: `ecf:Recepción:${since.toISOString()}`,
        message: `DGII reports Recepción (ecf) No Disponible since ${apiTime(since)} (2 h): e-CF wait to be sent until it is back.`,
        details: { environment: "ecf", service: "Recepción", status: "No Disponible", down_since: apiTime(since) },
        due_at: null,
        raised_at: apiTime(now),
        resolved_at: null,
      },
    ]);
    const email = await vi.waitFor(
      async () => {
        const got = (await sentTo("resend", t.tenant.admin.email)).deliveries;
        expect(got).toHaveLength(1);
        return got[0]!.body as { subject: string; text: string };
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(email.subject).toBe("Alerta e-CF: el servicio Recepción de la DGII lleva 2 horas sin servicio");
    expect(email.text).toContain(
      `La DGII informa el servicio Recepción (ecf) como "No Disponible" desde el ${new Date(since.getTime() - 4 * 3_600_000).toISOString().slice(0, 16).replace("T", " ")} (hora de Santo Domingo). Los e-CF se siguen emitiendo y esperan en cola hasta que vuelva.`,
    );
    const hit = await vi.waitFor(
      async () => {
        const got = await receivedHooks(hook.key);
        expect(got).toHaveLength(1);
        return got[0]!;
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(hit.verified.current).toBe(true);
    expect(hit.body).toMatchObject({ type: "ecf.alert", data: alerts[0] });

    // The next hour: the same outage raises nothing more.
    await hourlyCron(t.tenant.tenantId, new Date(now.getTime() + 1000));
    expect((await t.tenant.api.get("/ecf/dgii-status")).body.data.alerts).toEqual(alerts);
    expect(await storedEvents(t.tenant.tenantId, "ecf.alert")).toHaveLength(1);

    // DGII back: resolved.
    await allClear();
    await hourlyCron(t.tenant.tenantId, new Date(now.getTime() + 2000));
    expect((await t.tenant.api.get("/ecf/dgii-status")).body.data.alerts).toEqual([]);
    expect((await sentTo("resend", t.tenant.admin.email)).deliveries).toHaveLength(1);
  });
});
