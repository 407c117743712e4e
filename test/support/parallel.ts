import { env } from "./env";

/**
 * The embedded database (PGlite, on a machine without Postgres) runs every connection on one
 * backend, one statement at a time: more than a few transactions in flight only queue until the
 * 10 s connect timeout (503). The invariants are the same at 4 in flight.
 */
const EMBEDDED_IN_FLIGHT = 4;

/**
 * Runs the calls concurrently, at most `limit` in flight. Postgres allows ~100 connections and
 * each request holds one, so a burst of hundreds would test the connection limit (503) instead of
 * the invariant under concurrency.
 */
export async function inParallel<T>(calls: (() => Promise<T>)[], requested = 16): Promise<T[]> {
  const limit = env.TEST_DATABASE_KIND === "embedded" ? Math.min(requested, EMBEDDED_IN_FLIGHT) : requested;
  const results: T[] = new Array(calls.length);
  let next = 0;
  const worker = async () => {
    while (next < calls.length) {
      const index = next++;
      results[index] = await calls[index]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, calls.length) }, worker));
  return results;
}
