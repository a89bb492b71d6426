/**
 * A Map for caches: it holds at most `limit` (entries, or the sum of their weights), the oldest
 * insertion leaving first.
 *
 * Evicting through the Map's own order (`keys().next()`, or a for-of that stops at once) walks
 * over the deleted slots V8 keeps in a Map until it next rehashes: at 10,000 entries that is about
 * 10 µs per insertion once the cache is full, more than most of the work the caches save. A queue
 * of insertions beside the Map finds the oldest in constant time.
 */
interface Held<V> {
  value: V;
  /** Which insertion of its key this is: a queued insertion of a key deleted and set since is stale. */
  insertion: number;
}

export class BoundedMap<K, V> {
  private readonly map = new Map<K, Held<V>>();
  /** Insertions from `head` on, oldest first: the key and which insertion it was. */
  private queuedKeys: K[] = [];
  private queuedInsertions: number[] = [];
  private head = 0;
  private insertions = 0;
  private held = 0;

  /** `weigh`: an entry's share of the limit [default: 1 each]. */
  constructor(
    private readonly limit: number,
    private readonly weigh: (value: V, key: K) => number = () => 1,
  ) {}

  get size(): number {
    return this.map.size;
  }

  /** The sum of the entries' weights (their number without `weigh`). */
  get weight(): number {
    return this.held;
  }

  get(key: K): V | undefined {
    return this.map.get(key)?.value;
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  /** Adds or replaces the entry (a replacement keeps its age), then lets the oldest go while over the limit, never this one. */
  set(key: K, value: V): this {
    const old = this.map.get(key);
    if (old) {
      this.held += this.weigh(value, key) - this.weigh(old.value, key);
      old.value = value;
    } else {
      const insertion = this.insertions++;
      this.map.set(key, { value, insertion });
      this.queuedKeys.push(key);
      this.queuedInsertions.push(insertion);
      this.held += this.weigh(value, key);
    }
    while (this.held > this.limit && this.map.size > 1) this.evictOldest(key);
    return this;
  }

  delete(key: K): boolean {
    const old = this.map.get(key);
    if (!old) return false;
    this.held -= this.weigh(old.value, key);
    this.map.delete(key);
    this.compactIfStale();
    return true;
  }

  clear(): void {
    this.map.clear();
    this.queuedKeys = [];
    this.queuedInsertions = [];
    this.head = 0;
    this.held = 0;
  }

  keys(): IterableIterator<K> {
    return this.map.keys();
  }

  private evictOldest(keep: K): void {
    while (this.head < this.queuedKeys.length) {
      const key = this.queuedKeys[this.head]!;
      const entry = this.map.get(key);
      const insertion = this.queuedInsertions[this.head]!;
      const live = entry !== undefined && entry.insertion === insertion;
      this.head++;
      if (!live) continue;
      if (key === keep) {
        // The entry just replaced is the oldest: it goes to the back of the queue, and the next leaves.
        this.queuedKeys.push(key);
        this.queuedInsertions.push(insertion);
        continue;
      }
      this.held -= this.weigh(entry.value, key);
      this.map.delete(key);
      break;
    }
    this.compactIfStale();
  }

  /** Rebuilds the queue from the Map (insertion order, deletions taken out) once its used and stale part outweighs the live one. */
  private compactIfStale(): void {
    const queued = this.queuedKeys.length - this.head;
    if (this.head < 1024 && queued <= 2 * this.map.size + 1024) return;
    if (this.head * 2 <= this.queuedKeys.length && queued <= 2 * this.map.size + 1024) return;
    this.queuedKeys = [];
    this.queuedInsertions = [];
    for (const [key, entry] of this.map) {
      this.queuedKeys.push(key);
      this.queuedInsertions.push(entry.insertion);
    }
    this.head = 0;
  }
}
