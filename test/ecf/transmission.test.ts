import { describe, expect, it } from "vitest";
import { stepEcfDocument } from "../../src/jobs/ecf";
import { env } from "../support/env";
import { inParallel } from "../support/parallel";
import { ownerRow, ownerRows, seedUser, sql } from "../support/seed";
import { afterFirstAttempt, ecfOf, ecfTenant, fakeDgii, issueE31, received, script, stepOpen, waitForStatus } from "./helpers";

/**
 * The transmission of signed e-CF to DGII (issue 18, "Issuing" 1-2): every state DGII can answer,
 * DGII unreachable for a while (nothing lost, sent once) and for 24 hours (failed, then retried),
 * a token that expires mid-run, and 50 concurrent issues. The fake DGII answers what each test
 * scripts for its tenant's certificate.
 */
const later = (from: Date, seconds: number) => new Date(from.getTime() + seconds * 1000);

describe("e-CF transmission and DGII's states", () => {
  it("in process, then accepted: the result is queried again until final", async () => {
    const t = await ecfTenant();
    await script(t.signer, { results: ["in_process", "in_process", "accepted"] });
    const invoice = await issueE31(t);
    const accepted = await waitForStatus(t, `/invoices/${invoice.id}`, "accepted", 30_000);
    // One send and three result queries.
    expect(accepted.attempts).toBe(4);
    expect((await received(t.signer)).map((r) => r.encf)).toEqual(["E310000000001"]);
  });

  it("conditionally accepted keeps DGII's messages; rejected with the number used cannot be retried", async () => {
    const t = await ecfTenant();
    await script(t.signer, { results: ["accepted_conditional"] });
    const conditional = await issueE31(t);
    const view = await waitForStatus(t, `/invoices/${conditional.id}`, "accepted_conditional");
    expect(view.dgii_messages).toEqual([{ codigo: "613", valor: "El nombre comercial no coincide con el registrado." }]);

    await script(t.signer, { results: ["rejected"] });
    const rejected = await issueE31(t);
    const refused = await waitForStatus(t, `/invoices/${rejected.id}`, "rejected");
    expect(refused).toMatchObject({ sequence_used: true, dgii_messages: [{ codigo: "2", valor: "El RNC Comprador no se encuentra activo." }] });
    const retry = await t.tenant.api.post(`/invoices/${rejected.id}/ecf/retry`);
    expect(retry.status).toBe(409);
    expect(retry.body).toMatchObject({
      code: "ecf_not_retryable",
      message: expect.stringMatching(
        /^DGII rejected it and counts its e-NCF as used: .* Cancel this invoice \(POST \/api\/v1\/invoices\/\d+\/cancel: its stock returns, no credit note is issued\), then issue the sale again as a new invoice, .*\(POST \/api\/v1\/invoices\)$/,
      ),
    });
    expect((await t.tenant.api.post(`/invoices/${conditional.id}/ecf/retry`)).body.code).toBe("ecf_not_retryable");
  });

  it("rejected with the number not used: retry sends the same signed XML again", async () => {
    const t = await ecfTenant();
    await script(t.signer, { results: ["rejected_unused"] });
    const invoice = await issueE31(t);
    const refused = await waitForStatus(t, `/invoices/${invoice.id}`, "rejected");
    expect(refused.sequence_used).toBe(false);
    const retry = await t.tenant.api.post(`/invoices/${invoice.id}/ecf/retry`);
    expect(retry.status, retry.text).toBe(200);
    expect(retry.body.data).toMatchObject({ status: "pending", track_id: null, sequence_used: null });
    const accepted = await waitForStatus(t, `/invoices/${invoice.id}`, "accepted");
    expect(accepted.track_id).not.toBe(refused.track_id);
    const got = await received(t.signer);
    expect(got).toHaveLength(2);
    expect(got[1]!.xml).toBe(got[0]!.xml);
  });

  it("DGII down for a while, then back: the e-CF stays pending, is retried with backoff, and is received once", async () => {
    const t = await ecfTenant();
    await script(t.signer, { down: 2 });
    const invoice = await issueE31(t);
    const first = await afterFirstAttempt(invoice.id);
    expect(first).toMatchObject({ status: "pending", attempts: 1 });
    expect(first.last_error).toContain("503");
    const start = first.unreachable_since!;
    expect(first.next_attempt_at.getTime() - start.getTime()).toBeGreaterThanOrEqual(29_000);
    const ref = { tenant_id: t.tenant.tenantId, ecf_id: first.id };

    // Not due yet: nothing is sent.
    expect(await stepEcfDocument(env, ref, { now: later(start, 5) })).toMatchObject({ outcome: "not_due" });
    expect(await stepEcfDocument(env, ref, { now: later(start, 31) })).toEqual({ outcome: "retry", status: "pending", retryInSeconds: 60 });
    expect(await received(t.signer)).toEqual([]);
    // The printed representation can be handed over meanwhile: the invoice and its PDF exist.
    expect((await t.tenant.api.get(`/invoices/${invoice.id}/pdf`)).status).toBe(200);

    expect(await stepEcfDocument(env, ref, { now: later(start, 95) })).toEqual({ outcome: "in_process", status: "in_process", retryInSeconds: 2 });
    expect(await stepEcfDocument(env, ref, { now: later(start, 98) })).toEqual({ outcome: "final", status: "accepted", deliver: true, webhooks: [] });
    expect(await stepEcfDocument(env, ref, { now: later(start, 200) })).toEqual({ outcome: "done", status: "accepted" });
    const got = await received(t.signer);
    expect(got.map((r) => [r.encf, r.errors])).toEqual([["E310000000001", []]]);
    expect(await ecfOf(t, `/invoices/${invoice.id}`)).toMatchObject({ status: "accepted", attempts: 4, last_error: null });
  });

  it("DGII unreachable for 24 hours: failed; retry sends it once DGII is back", async () => {
    const t = await ecfTenant();
    await script(t.signer, { down: 3 });
    const invoice = await issueE31(t);
    const first = await afterFirstAttempt(invoice.id);
    const ref = { tenant_id: t.tenant.tenantId, ecf_id: first.id };
    const start = first.unreachable_since!;
    expect(await stepEcfDocument(env, ref, { now: later(start, 12 * 3600) })).toMatchObject({ outcome: "retry", status: "pending" });
    expect(await stepEcfDocument(env, ref, { now: later(start, 24 * 3600 + 1) })).toEqual({ outcome: "failed", status: "failed", webhooks: [] });
    const failed = await ecfOf(t, `/invoices/${invoice.id}`);
    expect(failed).toMatchObject({ status: "failed", attempts: 3, next_attempt_at: null });
    expect(failed.last_error).toContain("Servicio no disponible temporalmente");
    expect(await received(t.signer)).toEqual([]);

    const retry = await t.tenant.api.post(`/invoices/${invoice.id}/ecf/retry`);
    expect(retry.status, retry.text).toBe(200);
    await waitForStatus(t, `/invoices/${invoice.id}`, "accepted");
    expect((await received(t.signer)).map((r) => r.encf)).toEqual(["E310000000001"]);
  });

  it("a token that expires mid-run is refreshed once (401 → new token) and the send goes through", async () => {
    const t = await ecfTenant();
    const tokens = async () =>
      ((await (await fetch(`${fakeDgii}/_control/tokens`)).json()) as { signer: string }[]).filter((token) => token.signer === t.signer).length;
    const first = await issueE31(t);
    await waitForStatus(t, `/invoices/${first.id}`, "accepted");
    expect(await tokens()).toBe(1);
    const expired = await fetch(`${fakeDgii}/_control/expire-tokens?signer=${encodeURIComponent(t.signer)}`, { method: "POST" });
    expect(await expired.json()).toEqual({ expired: 1 });
    const second = await issueE31(t);
    await waitForStatus(t, `/invoices/${second.id}`, "accepted");
    expect(await tokens()).toBe(2);
    expect((await received(t.signer)).map((r) => [r.encf, r.errors])).toEqual([
      ["E310000000001", []],
      ["E310000000002", []],
    ]);
  });

  it("50 concurrent E31 issues: consecutive e-NCFs, 50 signed documents, 50 sends, no duplicates", async () => {
    const t = await ecfTenant();
    // Three admins: the per-user rate limit (60 a minute) is not what this test is about.
    const apis = [
      t.tenant.api,
      ...(await Promise.all([1, 2].map(async () => (await seedUser(t.tenant, { role: "admin", workspaceIds: [t.tenant.workspaceId] })).api))),
    ];
    await t.subtype("E31");
    const issued = await inParallel(
      Array.from({ length: 50 }, (_, i) => () => issueE31(t, apis[i % 3], String(100 + i))),
      16,
    );
    const numbers = issued.map((invoice) => invoice.document_number).sort();
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => `E31${String(i + 1).padStart(10, "0")}`));
    const rows = await ownerRows<{ encf: string; security_code: string }>(
      sql`SELECT encf, security_code FROM ecf_documents WHERE tenant_id = ${t.tenant.tenantId} ORDER BY encf`,
    );
    expect(rows.map((row) => row.encf)).toEqual(numbers);
    await expect
      .poll(
        async () => {
          await stepOpen(t.tenant.tenantId);
          return (
            await ownerRow<{ n: number }>(sql`SELECT count(*)::int AS n FROM ecf_documents WHERE tenant_id = ${t.tenant.tenantId} AND status = 'accepted'`)
          ).n;
        },
        {
          timeout: 60_000,
          interval: 50,
        },
      )
      .toBe(50);
    const got = await received(t.signer);
    expect(got).toHaveLength(50);
    expect(new Set(got.map((r) => r.encf)).size).toBe(50);
    expect(got.every((r) => r.errors.length === 0)).toBe(true);
    // Each e-CF carries its own invoice's total.
    const totals = await ownerRows<{ ok: boolean }>(
      sql`SELECT e.total_amount = i.total_amount AND e.xml LIKE '%<MontoTotal>' || i.total_amount::text || '</MontoTotal>%' AS ok
          FROM ecf_documents e JOIN invoices i ON i.id = e.invoice_id WHERE e.tenant_id = ${t.tenant.tenantId}`,
    );
    expect(totals.every((row) => row.ok)).toBe(true);
  }, 120_000);
});
