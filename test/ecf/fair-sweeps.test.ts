import { describe, expect, it, vi } from "vitest";
import type { Env } from "../../src/env";
import { stepEcfDocument, sweepEcf } from "../../src/jobs/ecf";
import type { EcfRef } from "../../src/jobs/messages";
import { sweepDgiiSteps } from "../../src/jobs/scheduled";
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

describe("a row the sweep hands out is leased until its step runs", () => {
  it("is not handed out again the next minute while its message waits, is handed out again once the lease runs out (the message lost), and its step ends the lease; it is sent once", async () => {
    const t = await ecfTenant();
    await holdAll(t.tenant.api);
    const invoice = await issueE31(t);
    const row = await held(invoice.id);
    await ownerRows(sql`UPDATE ecf_contingencies SET closed_at = now(), closed_how = 'dgii' WHERE tenant_id = ${t.tenant.tenantId}`);
    await ownerRows(sql`UPDATE ecf_documents SET next_attempt_at = now() - interval '1 minute' WHERE id = ${row.id}`);
    const ref = { tenant_id: t.tenant.tenantId, ecf_id: Number(row.id) };
    const at = new Date();
    const minute = (n: number, seconds = 0) => new Date(at.getTime() + n * 60_000 + seconds * 1000);
    const handedOut = async (now: Date) => {
      const sweep = recordingEnv();
      await sweepEcf(sweep.env, { now });
      return sweep.sent.filter((sent) => sent.tenant_id === t.tenant.tenantId);
    };
    const lease = async () =>
      (await ownerRows<{ until: string }>(sql`SELECT until FROM sweep_leases WHERE sweep = 'ecf' AND row_id = ${row.id}`)).map((l) =>
        new Date(l.until).getTime(),
      );

    expect(await handedOut(at)).toEqual([ref]);
    expect(await lease()).toEqual([minute(5).getTime()]);
    // Its message waits on a busy queue: the next minutes' sweeps do not send it again.
    expect(await handedOut(minute(1))).toEqual([]);
    expect(await handedOut(minute(4, 59))).toEqual([]);
    // Five minutes on, its message is taken for lost: handed out again, leased again.
    expect(await handedOut(minute(5, 1))).toEqual([ref]);
    expect(await lease()).toEqual([minute(10, 1).getTime()]);

    // Its step runs (the Worker's queue handler): the lease is over, and the e-CF goes to DGII.
    const result = await runQueue("ecf", [ref]);
    expect(result.explicitAcks).toEqual([expect.any(String)]);
    expect(await lease()).toEqual([]);
    expect((await ecfRow(invoice.id)).status).toBe("in_process");
    // Due again (its result to ask) within the old lease's five minutes: the next sweep takes it.
    await ownerRows(sql`UPDATE ecf_documents SET next_attempt_at = now() - interval '1 minute' WHERE id = ${row.id}`);
    expect(await handedOut(minute(6))).toEqual([ref]);
    expect((await received(t.signer)).map((r) => r.encf)).toEqual([invoice.document_number]);
  });
});

describe("one pace per company across its DGII steps", () => {
  it("the minute's DGII sweeps share ECF_SENDS_PER_MINUTE: a company's due buyer delivery leaves its e-CF the rest of the minute's share", async () => {
    const t = await ecfTenant();
    await holdAll(t.tenant.api);
    const invoices = [await issueE31(t), await issueE31(t), await issueE31(t)];
    const rows = [];
    for (const invoice of invoices) rows.push(await held(invoice.id));
    await ownerRows(sql`UPDATE ecf_contingencies SET closed_at = now(), closed_how = 'dgii' WHERE tenant_id = ${t.tenant.tenantId}`);
    const ids = `{${rows.map((r) => r.id).join(",")}}`;
    await ownerRows(sql`UPDATE ecf_documents SET next_attempt_at = now() - interval '1 minute' WHERE id = ANY (${ids}::int[])`);
    // One of them also has a buyer delivery due (as if an earlier copy had been accepted): a DGII step of the company too.
    await ownerRows(
      sql`UPDATE ecf_documents SET delivery_status = 'pending', delivery_next_attempt_at = now() - interval '1 minute' WHERE id = ${rows[2]!.id}`,
    );
    const sent: { tenant_id: number; ecf_id: number; delivery?: true }[] = [];
    const queue = { sendBatch: async (messages: { body: (typeof sent)[number] }[]) => void sent.push(...messages.map((m) => m.body)) };
    const paced = { ...env, ECF_QUEUE: queue as unknown as Queue, ECF_SENDS_PER_MINUTE: "2" } as Env;
    const spent = await sweepDgiiSteps(paced);
    const ours = sent.filter((ref) => ref.tenant_id === t.tenant.tenantId);
    expect(ours).toEqual([
      { tenant_id: t.tenant.tenantId, ecf_id: rows[2]!.id, delivery: true },
      { tenant_id: t.tenant.tenantId, ecf_id: rows[0]!.id },
    ]);
    expect(spent.get(t.tenant.tenantId)).toBe(2);
  });
});
