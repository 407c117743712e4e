/**
 * What an isolate keeps in its memory for a while: entries that expire at a given instant, at most
 * `max` of them, the oldest written out first (anyone can make a request invent a key: an unknown
 * host, a token, a user). The tenant lookup's unknown hosts, verified tokens, predicted request
 * contexts and users the rate limiter refused all keep theirs here.
 */
export class ExpiringMap<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();

  constructor(private readonly max: number) {}

  /** The value kept for `key`, or undefined when there is none or it has expired (then dropped). */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until > Date.now()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  /** Keeps `value` for `key` until the instant `until` (epoch milliseconds), as the newest entry. */
  set(key: string, value: V, until: number): void {
    this.entries.delete(key); // re-inserted last: a Map iterates in insertion order
    if (this.entries.size >= this.max) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, until });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
