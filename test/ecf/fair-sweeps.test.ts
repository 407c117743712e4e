import { describe, expect, it, vi } from "vitest";
import type { Env } from "../../src/env";
import { stepEcfDocument, sweepEcf } from "../../src/jobs/ecf";
import type { EcfRef } from "../../src/jobs/messages";
import { env } from "../support/env";
import { runQueue } from "../support/jobs";
import { ownerRow, ownerRows, sql } from "../support/seed";
import { afterFirstAttempt, ecfRow, ecfTenant, issueE31, received, script } from "./helpers";

/**
 * Issue 48: the minute e-CF sweep is fair between companies — one company's backlog does not push
 * another's due e-CF out of a sweep — and DGII asking one company to slow down (429, 503) holds that
 * company back, not everyone. The sweep is called with a queue that only records what it is given,
 * so that what a sweep hands out is what the test runs (through the Worker's queue handler).
 */

/** An env whose ECF_QUEUE records the references the sweep sends instead of delivering them. */
function recordingEnv(): { env: Env; sent: EcfRef[] } {
  const sent: EcfRef[] = [];
  const queue = { sendBatch: async (messages: { body: EcfRef }[]) => void sent.push(...messages.map((m) => m.body)) };
  return { env: { ...env, ECF_QUEUE: queue as unknown as Queue }, sent };
}

/** Holds the tenant's e-CF: a total contingency, open until the test makes its e-CF due. */
async function holdAll(api: Awaited<ReturnType<typeof ecfTenant>>["tenant"]["api"]) {
  const opened = await api.post("/ecf/contingency", { scope: "total", reason: "Sin enlace" });
  expect(opened.status, opened.text).toBe(201);
}

/** Waits for the queue's first step to find the e-CF held (no attempt spent). */
async function held(invoiceId: number) {
  return vi.waitFor(
    async () => {
      const row = await ecfRow(invoiceId);
      expect(row.last_error).toMatch(/^Paused: held by contingency/);
      return row;
    },
    { timeout: 20_000, interval: 50 },
  );
}

describe("the minute e-CF sweep between companies", () => {
  it("hands out another company's single e-CF in the same sweep as a backlogged company's, which drains at its per-minute share; each e-CF is sent once", async () => {
    const backlogged = await ecfTenant();
    const single = await ecfTenant();
    await holdAll(backlogged.tenant.api);
    await holdAll(single.tenant.api);
    const backlog = [];
    for (let i = 0; i < 5; i++) backlog.push(await issueE31(backlogged));
    const lone = await issueE31(single);
    const rows = await Promise.all([...backlog.map((invoice) => held(invoice.id)), held(lone.id)]);
    // The contingencies end together (as DGII's reception coming back closes every total one): every
    // held e-CF is due at the same moment, the backlog's issued first.
    await ownerRows(
      sql`UPDATE ecf_contingencies SET closed_at = now(), closed_how = 'dgii' WHERE tenant_id IN (${backlogged.tenant.tenantId}, ${single.tenant.tenantId})`,
    );
    await ownerRows(
      sql`UPDATE ecf_documents SET next_attempt_at = now() - interval '1 minute' WHERE id = ANY (${`{${rows.map((r) => r.id).join(",")}}`}::int[])`,
    );

    const ours = (sent: EcfRef[], tenantId: number) => sent.filter((ref) => ref.tenant_id === tenantId).map((ref) => ref.ecf_id);
    const backlogIds = rows.slice(0, 5).map((r) => r.id);
    const first = recordingEnv();
    await sweepEcf(first.env, { perTenant: 2 });
    // The single e-CF is in the first sweep; the backlog gives its share, its oldest first.
    expect(ours(first.sent, single.tenant.tenantId)).toEqual([rows[5]!.id]);
    expect(ours(first.sent, backlogged.tenant.tenantId)).toEqual(backlogIds.slice(0, 2));
    await runQueue(
      "ecf",
      first.sent.filter((ref) => ref.tenant_id === single.tenant.tenantId || ref.tenant_id === backlogged.tenant.tenantId),
    );
    expect((await ecfRow(lone.id)).status).toBe("in_process");
    expect((await received(single.signer)).map((r) => r.encf)).toEqual([lone.document_number]);

    // The next minutes take the rest of the backlog, two a minute; nothing twice.
    const second = recordingEnv();
    await sweepEcf(second.env, { perTenant: 2 });
    expect(ours(second.sent, backlogged.tenant.tenantId)).toEqual(backlogIds.slice(2, 4));
    await runQueue(
      "ecf",
      second.sent.filter((ref) => ref.tenant_id === backlogged.tenant.tenantId),
    );
    const third = recordingEnv();
    await sweepEcf(third.env, { perTenant: 2 });
    expect(ours(third.sent, backlogged.tenant.tenantId)).toEqual(backlogIds.slice(4));
    await runQueue(
      "ecf",
      third.sent.filter((ref) => ref.tenant_id === backlogged.tenant.tenantId),
    );
    const sentEncf = (await received(backlogged.signer)).map((r) => r.encf);
    expect(sentEncf.sort()).toEqual(backlog.map((invoice) => invoice.document_number).sort());
  });

  it("a company DGII answers 503 waits, its later e-CF not sent nor swept until the wait is over, while another company's e-CF is sent", async () => {
    const slowed = await ecfTenant();
    const other = await ecfTenant();
    // DGII answers the company's next call 503 (its token's seed).
    await script(slowed.signer, { down: 1 });
    const refused = await issueE31(slowed);
    const attempted = await afterFirstAttempt(refused.id);
    expect(attempted.last_error).toContain("503");
    const wait = await ownerRow<{ until: string; failures: number }>(
      sql`SELECT until, failures FROM ecf_dgii_backoff WHERE tenant_id = ${slowed.tenant.tenantId}`,
    );
    expect(wait.failures).toBe(1);
    const until = new Date(wait.until);
    expect(until.getTime() - new Date(attempted.next_attempt_at).getTime()).toBeLessThanOrEqual(1000);

    // Its next e-CF is not sent during the wait (no call to DGII, no attempt spent)…
    const later = await issueE31(slowed);
    const laterRow = await ownerRow<{ id: number }>(sql`SELECT id FROM ecf_documents WHERE invoice_id = ${later.id}`);
    const ref = { tenant_id: slowed.tenant.tenantId, ecf_id: Number(laterRow.id) };
    const during = new Date(until.getTime() - 5_000);
    // (The queue's own step of it may hold the row a moment: unavailable, then asked again.)
    const step = await vi.waitFor(
      async () => {
        const result = await stepEcfDocument(env, ref, { now: during });
        expect(result.outcome).not.toBe("unavailable");
        return result;
      },
      { timeout: 5_000, interval: 20 },
    );
    expect(step).toEqual({ outcome: "backoff", status: "pending", retryInSeconds: 5 });
    expect((await ecfRow(later.id)).attempts).toBe(0);
    // …while the other company's e-CF goes to DGII.
    const meanwhile = await issueE31(other);
    const sentOther = await afterFirstAttempt(meanwhile.id);
    expect(sentOther.status).not.toBe("pending");
    expect((await received(other.signer)).map((r) => r.encf)).toEqual([meanwhile.document_number]);

    // The sweep passes the company by during its wait, and takes its e-CF once the wait is over.
    await ownerRows(
      sql`UPDATE ecf_documents SET next_attempt_at = ${new Date(until.getTime() - 60_000).toISOString()}::timestamptz WHERE tenant_id = ${slowed.tenant.tenantId}`,
    );
    const whileWaiting = recordingEnv();
    await sweepEcf(whileWaiting.env, { now: new Date(until.getTime() - 1_000) });
    expect(whileWaiting.sent.filter((r) => r.tenant_id === slowed.tenant.tenantId)).toEqual([]);
    const after = recordingEnv();
    await sweepEcf(after.env, { now: new Date(until.getTime() + 16_000) });
    expect(
      after.sent
        .filter((r) => r.tenant_id === slowed.tenant.tenantId)
        .map((r) => r.ecf_id)
        .sort(),
    ).toEqual([attempted.id, ref.ecf_id].sort());
    // DGII answers it again: the wait is over (the row gone) and both are sent, once each.
    expect(await stepEcfDocument(env, ref, { now: new Date(until.getTime() + 16_000) })).toMatchObject({ outcome: "in_process" });
    expect(await ownerRows(sql`SELECT 1 FROM ecf_dgii_backoff WHERE tenant_id = ${slowed.tenant.tenantId}`)).toEqual([]);
    await stepEcfDocument(env, { tenant_id: slowed.tenant.tenantId, ecf_id: attempted.id }, { now: new Date(until.getTime() + 16_000) });
    expect((await received(slowed.signer)).map((r) => r.encf).sort()).toEqual([refused.document_number, later.document_number].sort());
  });
});
