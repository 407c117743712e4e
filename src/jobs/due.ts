import { and, eq, sql } from "drizzle-orm";
import { type Database, withTenantTransaction } from "../db/client";
import { rowsOf } from "../db/rows";
import * as schema from "../db/schema";
import type { Env } from "../env";
import { log } from "../lib/log";

/**
 * What the e-CF steps share (jobs/ecf.ts, approvals.ts, ecf-delivery.ts): each row is its own
 * outbox entry, a queue message is one step, and the minute sweep finds, across tenants, the rows
 * due for a while (a message still on its way is not sent twice) through a SECURITY DEFINER
 * function of the row's table. A party that cannot be reached (DGII, a receiver) is retried with
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
const SWEEP_GRACE_SECONDS = 15;
const SWEEP_LIMIT = 500;

/** The SQL functions returning due rows: (max_rows, due_before) → (tenant_id, id). */
type DueFunction = "ecf_due_documents" | "ecf_due_approvals" | "ecf_due_deliveries" | "ecf_due_certification_runs";

/** The rows the function finds due, across tenants. */
export async function dueRows(env: Env, dueFunction: DueFunction, options: { now?: Date; limit?: number } = {}): Promise<{ tenantId: number; id: number }[]> {
  const now = options.now ?? new Date();
  const dueBefore = new Date(now.getTime() - SWEEP_GRACE_SECONDS * 1000).toISOString();
  const rows = await withTenantTransaction(env, null, async (db) =>
    rowsOf<{ tenant_id: number; id: number }>(
      await db.execute(sql`SELECT tenant_id, id FROM ${sql.identifier(dueFunction)}(${options.limit ?? SWEEP_LIMIT}, ${dueBefore}::timestamptz)`),
    ),
  );
  return rows.map((row) => ({ tenantId: Number(row.tenant_id), id: Number(row.id) }));
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
