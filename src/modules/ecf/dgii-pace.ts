import { eq, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import { DgiiRefused, DgiiUnavailable } from "./dgii";

/**
 * DGII's pace, per company (issue 48). DGII answering one company 429 (too many requests) or 503
 * (unavailable) makes that company wait — its e-CF steps are not taken and the minute sweep
 * (drizzle/0060 sweep_due) passes it by — while every other company's sending goes on: one
 * taxpayer's burst (a contingency's backlog) is not everyone's outage. The wait doubles with each
 * such answer in a row, 30 s to 15 min (as an unreachable document's backoff), or is DGII's
 * Retry-After when longer (at most an hour); the next answer DGII gives the company ends it.
 * Every step that calls DGII for the company waits under it — e-CF (jobs/ecf.ts), commercial
 * approvals, buyer deliveries (DGII's directory), runs of the test set — and every such answer
 * starts or ends it (`dgiiPaceOf`).
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

/** A step's DGII calls for one company, under the company's wait (see above). */
export interface DgiiPace {
  /** When the company's wait ends, while it waits at `now`: the step makes no DGII call and leaves the row to the sweep. */
  waitingUntil: Date | undefined;
  /**
   * A DGII call: a 429 or 503 starts (or grows) the company's wait, and the step's later DGII calls
   * are not made; any answer of DGII's, a refusal included, ends a wait there was.
   */
  call<T>(call: () => Promise<T>): Promise<T>;
}

export async function dgiiPaceOf(db: AnyDb, tenantId: number, now: Date): Promise<DgiiPace> {
  const backoff = await dgiiBackoffOf(db, tenantId);
  let waited = backoff !== undefined;
  let slowedDown: DgiiUnavailable | undefined;
  const answered = async () => {
    if (!waited) return;
    waited = false;
    await clearDgiiBackoff(db, tenantId);
  };
  return {
    waitingUntil: backoff && backoff.until > now ? backoff.until : undefined,
    async call<T>(call: () => Promise<T>): Promise<T> {
      if (slowedDown) throw slowedDown;
      try {
        const result = await call();
        await answered();
        return result;
      } catch (error) {
        if (error instanceof DgiiRefused) await answered();
        else if (error instanceof DgiiUnavailable && slowDownStatus(error.status)) {
          slowedDown = error;
          await recordDgiiBackoff(db, tenantId, now, error.message, error.retryAfterSeconds);
        }
        throw error;
      }
    },
  };
}

/** Seconds until a wait ends (at least 1). */
export const secondsUntil = (until: Date, now: Date) => Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
