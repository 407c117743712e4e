import { eq, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";

/**
 * DGII's pace, per company (issue 48). DGII answering one company 429 (too many requests) or 503
 * (unavailable) makes that company wait — its e-CF steps are not taken and the minute sweep
 * (drizzle/0060 sweep_due) passes it by — while every other company's sending goes on: one
 * taxpayer's burst (a contingency's backlog) is not everyone's outage. The wait doubles with each
 * such answer in a row, 30 s to 15 min (as an unreachable document's backoff), or is DGII's
 * Retry-After when longer (at most an hour); the next answer DGII gives the company ends it.
 */

const b = schema.ecfDgiiBackoff;

const MAX_RETRY_AFTER_SECONDS = 3600;

export function paceDelaySeconds(failures: number, retryAfterSeconds?: number): number {
  const doubling = Math.min(30 * 2 ** Math.max(0, failures - 1), 900);
  return Math.max(doubling, Math.min(retryAfterSeconds ?? 0, MAX_RETRY_AFTER_SECONDS));
}

/** DGII's statuses that ask the company, not the document, to wait. */
export const slowDownStatus = (status: number | undefined) => status === 429 || status === 503;

/** The company's wait, if it has one (past or not). */
export async function dgiiBackoffOf(db: AnyDb, tenantId: number): Promise<{ until: Date; failures: number } | undefined> {
  const [row] = await db.select({ until: b.until, failures: b.failures }).from(b).where(eq(b.tenantId, tenantId));
  return row;
}

/** DGII asked the company to slow down: its wait starts (or doubles) now. Answers the wait's end. */
export async function recordDgiiBackoff(db: AnyDb, tenantId: number, now: Date, error: string, retryAfterSeconds?: number): Promise<Date> {
  const at = sql`${now.toISOString()}::timestamptz`;
  const row = oneRow(
    await db
      .insert(b)
      .values({
        tenantId,
        until: new Date(now.getTime() + paceDelaySeconds(1, retryAfterSeconds) * 1000),
        failures: 1,
        lastError: error.slice(0, 600),
        updatedAt: now,
      })
      .onConflictDoUpdate({
        target: b.tenantId,
        // Several steps of the company may meet the same 503 at once: the wait grows once, when the last one is over.
        set: {
          failures: sql`CASE WHEN ${b.until} > ${at} THEN ${b.failures} ELSE ${b.failures} + 1 END`,
          until: sql`CASE WHEN ${b.until} > ${at} THEN ${b.until}
          ELSE ${at} + make_interval(secs => greatest(least(30 * 2 ^ ${b.failures}, 900), ${Math.min(retryAfterSeconds ?? 0, MAX_RETRY_AFTER_SECONDS)})) END`,
          lastError: error.slice(0, 600),
          updatedAt: now,
        },
      })
      .returning({ until: b.until }),
  );
  return row.until;
}

/** DGII answered the company: its wait is over. */
export async function clearDgiiBackoff(db: AnyDb, tenantId: number): Promise<void> {
  await db.delete(b).where(eq(b.tenantId, tenantId));
}
