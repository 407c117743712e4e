/**
 * Runs the calls concurrently, at most `limit` in flight. Postgres allows ~100 connections and
 * each request holds one, so a burst of hundreds would test the connection limit (503) instead of
 * the invariant under concurrency.
 */
export async function inParallel<T>(calls: (() => Promise<T>)[], limit = 16): Promise<T[]> {
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
