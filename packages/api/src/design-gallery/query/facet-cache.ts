/**
 * What a process keeps of the gallery's facets: for each filter set, the total and facets counted under one gallery
 * generation (gallery_generation, which every replay raises in its transaction). An entry answers only requests that
 * read the same generation, so no instance serves what an older gallery said, and after a replay each filter is
 * counted once more per instance. Counting a filter that keeps a third of 100,000 screens costs PostgreSQL a third of
 * a second; designers open the same few filters again and again.
 *
 * Bounded by bytes (least recently used out first); requests for an entry being counted wait for that count rather
 * than starting their own. A size of 0 turns it off.
 */
export class FacetCache<T> {
  private readonly entries = new Map<string, { generation: number; value: T; bytes: number }>();
  private readonly counting = new Map<string, Promise<T>>();
  private bytes = 0;

  constructor(private readonly maxBytes: () => number) {}

  /** The value for `key` under `generation`: kept, being counted, or counted now by `count`. */
  async get(generation: number, key: string, count: () => Promise<{ value: T; bytes: number }>): Promise<T> {
    const kept = this.entries.get(key);
    if (kept && kept.generation === generation) {
      // Most recently used last.
      this.entries.delete(key);
      this.entries.set(key, kept);
      return kept.value;
    }
    const flight = `${generation}\u0000${key}`;
    const running = this.counting.get(flight);
    if (running) return running;
    const limit = this.maxBytes();
    const promise = count().then(({ value, bytes }) => {
      if (limit > 0 && bytes <= limit / 4) this.keep(key, generation, value, bytes, limit);
      return value;
    });
    this.counting.set(flight, promise);
    try {
      return await promise;
    } finally {
      this.counting.delete(flight);
    }
  }

  /** The value kept for `key` under `generation`, if any (no counting). */
  peek(generation: number, key: string): T | undefined {
    const kept = this.entries.get(key);
    return kept && kept.generation === generation ? kept.value : undefined;
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private keep(key: string, generation: number, value: T, bytes: number, limit: number) {
    const old = this.entries.get(key);
    // A slower count of an older generation must not replace a newer one.
    if (old && old.generation > generation) return;
    if (old) {
      this.bytes -= old.bytes;
      this.entries.delete(key);
    }
    this.entries.set(key, { generation, value, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= limit) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }
}
