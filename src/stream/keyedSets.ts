// Subscribers filed under the keys they filter on (a contract id, an account, a hash): the shape of
// every live-subscription index here. A key's set is dropped with its last member, so an index
// holds only keys someone is subscribed to.
export class KeyedSets<V> {
  private readonly sets = new Map<string, Set<V>>();

  get size(): number { return this.sets.size; }

  add(key: string, value: V): void {
    let set = this.sets.get(key);
    if (set === undefined) { set = new Set(); this.sets.set(key, set); }
    set.add(value);
  }

  delete(key: string, value: V): void {
    const set = this.sets.get(key);
    if (set === undefined) return;
    set.delete(value);
    if (set.size === 0) this.sets.delete(key);
  }

  /** The members filed under `key` (none: an empty iterable). */
  get(key: string): Iterable<V> { return this.sets.get(key) ?? NONE; }
}

const NONE: Iterable<never> = [];
