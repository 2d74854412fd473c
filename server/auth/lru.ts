/**
 * A map bounded in entries that forgets the least recently used one first. A `Map` keeps insertion order, so
 * a hit is moved to the end (delete + set) and the first key is the oldest.
 */
export class Lru<K, V> {
  private readonly map = new Map<K, V>();

  constructor(readonly max: number) {
    if (!(max >= 1)) throw new RangeError('Lru needs room for at least one entry');
  }

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, v);
    return v;
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  set(key: K, value: V): this {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as K);
    return this;
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }
}

/**
 * An approximate LRU for hot paths, where an exact one's move-on-every-hit costs too much (about 90 ns a hit
 * against 11 for a plain `Map.get`): entries live in a young and an old generation of at most `max / 2` each.
 * A hit in the young one is a plain lookup; a hit in the old one moves the entry to the young one; when the
 * young one is full it becomes the old one and the former old one (everything unused for a whole generation)
 * is dropped. So at most `max` entries are held, and an entry used at least once per `max / 2` insertions is
 * never dropped.
 */
export class GenerationalCache<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();
  private readonly half: number;

  constructor(readonly max: number) {
    if (!(max >= 2)) throw new RangeError('GenerationalCache needs room for at least two entries');
    this.half = Math.floor(max / 2);
  }

  get size(): number {
    return this.young.size + this.old.size;
  }

  get(key: K): V | undefined {
    const v = this.young.get(key);
    if (v !== undefined) return v;
    const o = this.old.get(key);
    if (o === undefined) return undefined;
    this.old.delete(key);
    this.put(key, o);
    return o;
  }

  set(key: K, value: V): this {
    this.old.delete(key);
    if (this.young.has(key)) this.young.set(key, value);
    else this.put(key, value);
    return this;
  }

  private put(key: K, value: V): void {
    if (this.young.size >= this.half) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
  }
}
