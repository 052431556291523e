// A small least-recently-used map for per-request work that repeats on hot keys.
export class RecentCache<V> {
  private readonly map = new Map<string, V>();
  private readonly capacity: number;
  constructor(capacity: number) { this.capacity = capacity; }

  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) { this.map.delete(key); this.map.set(key, v); }
    return v;
  }

  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as string);
  }
}
