// The transform pool's waiting room: one FIFO per key (an API key), served round-robin, so
// a key with a hundred queued pages waits behind a key with one no longer than one turn.
// Within a key, work keeps its order. Pure data structure (no timers, no threads).
export class FairQueue<T> {
  /** Keys with waiting items; Map order is the round-robin order (a served key moves to the back). */
  private readonly byKey = new Map<string, T[]>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(key: string, item: T): void {
    const items = this.byKey.get(key);
    if (items) items.push(item);
    else this.byKey.set(key, [item]);
    this.count += 1;
  }

  /**
   * The oldest item `eligible` accepts of the first key (in turn order) that has one; that
   * key then goes to the back of the turn order. An item passed over (a document while the
   * documents' threads are full) keeps its place. Undefined when nothing is eligible (every
   * key waiting is at its share of the threads, say).
   */
  take(eligible: (item: T, key: string) => boolean = () => true): T | undefined {
    for (const [key, items] of this.byKey) {
      const index = items.findIndex((item) => eligible(item, key));
      if (index === -1) continue;
      const [item] = items.splice(index, 1);
      this.byKey.delete(key);
      if (items.length > 0) this.byKey.set(key, items);
      this.count -= 1;
      return item;
    }
    return undefined;
  }

  /** Whether some waiting item is `eligible` (nothing is taken). */
  some(eligible: (item: T, key: string) => boolean): boolean {
    for (const [key, items] of this.byKey) if (items.some((item) => eligible(item, key))) return true;
    return false;
  }

  /** Puts an item back at the head of its key's FIFO (a preempted task runs first next time). */
  unshift(key: string, item: T): void {
    const items = this.byKey.get(key);
    if (items) items.unshift(item);
    else this.byKey.set(key, [item]);
    this.count += 1;
  }

  /** Removes one item (a cancelled task); false when it is not waiting. */
  remove(item: T): boolean {
    for (const [key, items] of this.byKey) {
      const index = items.indexOf(item);
      if (index === -1) continue;
      items.splice(index, 1);
      if (items.length === 0) this.byKey.delete(key);
      this.count -= 1;
      return true;
    }
    return false;
  }

  /** Every waiting item (close); the queue is empty afterwards. */
  drain(): T[] {
    const all = [...this.byKey.values()].flat();
    this.byKey.clear();
    this.count = 0;
    return all;
  }
}
