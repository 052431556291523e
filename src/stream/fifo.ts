// A first-in first-out queue whose shift does not move the items behind (Array.prototype.shift copies
// them all: a connection's outbox or the scheduler's ready list may hold hundreds of thousands): the
// front advances, and the array is cut once the taken part is most of it.
export class Fifo<T> {
  private items: Array<T | undefined> = [];
  private head = 0;

  get length(): number { return this.items.length - this.head; }

  /** The first item, left in place (undefined when empty). */
  peek(): T | undefined { return this.items[this.head]; }

  push(item: T): void { this.items.push(item); }

  /** Takes the first item (undefined when empty). */
  shift(): T | undefined {
    if (this.head === this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head === this.items.length) this.clear();
    else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}
