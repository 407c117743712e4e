import { and, eq, sql } from "drizzle-orm";
import { type AnyDb, type Database, withTenantTransaction } from "../db/client";
import { rowsOf } from "../db/rows";
import * as schema from "../db/schema";
import type { Env } from "../env";
import { log } from "../lib/log";

/**
 * What the e-CF steps share (jobs/ecf.ts, approvals.ts, ecf-delivery.ts): each row is its own
 * outbox entry, a queue message is one step, and the minute sweep finds, across tenants, the rows
 * due for a while (a message still on its way is not sent twice) through the SECURITY DEFINER
 * function sweep_due (drizzle/0061), fairly between tenants, each row it hands out leased until its
 * step runs. A party that cannot be reached (DGII, a receiver) is retried with
 * one backoff, 30 s doubling to 15 min, for 24 hours from the first failure of the outage.
 */

export const ECF_MAX_OUTAGE_MS = 24 * 3_600_000;

export function outageDelaySeconds(failures: number): number {
  return Math.min(30 * 2 ** Math.max(0, failures - 1), 900);
}

const e = schema.ecfDocuments;

/** The e-CF row a step works on (its transmission, its delivery), locked for the step; undefined while another step holds it (SKIP LOCKED). */
export async function lockedEcfRow(db: Database, ref: { tenant_id: number; ecf_id: number }): Promise<typeof e.$inferSelect | undefined> {
  const [row] = await db
    .select()
    .from(e)
    .where(and(eq(e.tenantId, ref.tenant_id), eq(e.id, ref.ecf_id)))
    .for("update", { skipLocked: true });
  return row;
}

/** A row due this long ago, and still not stepped, had its message lost. */
export const SWEEP_GRACE_SECONDS = 15;
/** Rows one sweep hands out at most (sweep_due caps it at 1,000): ten sendBatch calls. */
export const SWEEP_LIMIT = 1000;
/** A tenant's share of one sweep, for the sweeps without a pace of their own (the e-CF sweep has ECF_SENDS_PER_MINUTE). */
export const SWEEP_PER_TENANT = 50;

/**
 * How long a row a sweep handed out is not handed out again while its message waits on the queue
 * (drizzle/0061 sweep_leases): its step ends the lease; past it, the message is taken for lost.
 * Five minutes: a queue batch's wall time is at most 15 minutes, but a step takes seconds, and a
 * consumer five minutes behind is a backlog the next sweeps should not add to.
 */
export const SWEEP_LEASE_SECONDS = 300;

/** The minute sweeps of drizzle/0061 sweep_due: which table and state each finds due. */
export type Sweep = "ecf" | "ecf_deliveries" | "ecf_approvals" | "ecf_certification_runs" | "outbox" | "webhooks";

export interface SweepOptions {
  now?: Date;
  /** Rows at most, across tenants. */
  limit?: number;
  /** Rows at most of one tenant. */
  perTenant?: number;
  /**
   * Rows each tenant already had handed out this minute by the other sweeps sharing its pace
   * (tenant → rows): its share here is `perTenant` less that; what this sweep hands out is added.
   */
  spent?: Map<number, number>;
}

/**
 * The rows due, across tenants, dealt round-robin with at most `perTenant` of each tenant
 * (drizzle/0061 sweep_due): one tenant's backlog never pushes another tenant's due row out of the
 * sweep, and the sweep's cost grows with the tenants that have work open, not with the tenants.
 */
export async function dueRows(env: Env, sweep: Sweep, options: SweepOptions = {}): Promise<{ tenantId: number; id: number }[]> {
  const now = options.now ?? new Date();
  const dueBefore = new Date(now.getTime() - SWEEP_GRACE_SECONDS * 1000).toISOString();
  const leaseUntil = new Date(now.getTime() + SWEEP_LEASE_SECONDS * 1000).toISOString();
  const spent = [...(options.spent ?? new Map<number, number>())];
  const list = (values: number[]) => `{${values.join(",")}}`;
  const rows = await withTenantTransaction(env, null, async (db) =>
    rowsOf<{ tenant_id: number; id: number }>(
      await db.execute(
        sql`SELECT tenant_id, id FROM sweep_due(${sweep}, ${options.limit ?? SWEEP_LIMIT}, ${options.perTenant ?? SWEEP_PER_TENANT}, ${dueBefore}::timestamptz,
          ${now.toISOString()}::timestamptz, ${leaseUntil}::timestamptz, ${list(spent.map(([t]) => t))}::integer[], ${list(spent.map(([, n]) => n))}::integer[])`,
      ),
    ),
  );
  const due = rows.map((row) => ({ tenantId: Number(row.tenant_id), id: Number(row.id) }));
  for (const row of due) options.spent?.set(row.tenantId, (options.spent.get(row.tenantId) ?? 0) + 1);
  return due;
}

/**
 * The step of a row runs: the lease its sweep gave it is over (drizzle/0061 sweep_leases), so a
 * later sweep may hand it out again when it is due again. In the step's transaction: a step that
 * fails leaves the lease to run out, and the queue retries its message meanwhile.
 */
export async function endLease(db: AnyDb, sweep: Sweep, rowId: number): Promise<void> {
  await db.delete(schema.sweepLeases).where(and(eq(schema.sweepLeases.sweep, sweep), eq(schema.sweepLeases.rowId, rowId)));
}

/**
 * One queue message of a step: the step, its next message when it asks to be tried again (a delay
 * past the queue's 12-hour limit is left to the sweep), the ack; a step that threw (the database
 * unreachable, say) leaves its row untouched and the message is retried.
 */
export async function handleStepMessage<Ref extends object>(
  message: Message<Ref>,
  label: string,
  step: (ref: Ref) => Promise<{ outcome: string; retryInSeconds?: number }>,
  enqueue: (refs: Ref[], delaySeconds: number) => Promise<unknown>,
): Promise<void> {
  try {
    const result = await step(message.body);
    if (result.outcome === "retry" && result.retryInSeconds) await enqueue([message.body], Math.min(result.retryInSeconds, 43_200));
    message.ack();
  } catch (error) {
    log.error(`${label}: step errored`, { ...message.body, error: (error as Error).message });
    message.retry();
  }
}
