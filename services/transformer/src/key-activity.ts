// Which keys gave the transform pool work lately: the pool keeps a warm spare thread for
// another key's page only while more than one key is about (transform-pool.ts). Pure: the
// caller passes the clock.
export class KeyActivity {
  /** Last time each key gave work, in ms of the caller's clock; Map order is oldest first. */
  private readonly lastSeenMs = new Map<string, number>();

  constructor(private readonly windowMs: number) {}

  seen(key: string, nowMs: number): void {
    this.lastSeenMs.delete(key);
    this.lastSeenMs.set(key, nowMs);
  }

  /** Whether at least two keys gave work within the window ending at `nowMs`. */
  shared(nowMs: number): boolean {
    for (const [key, at] of this.lastSeenMs) {
      if (nowMs - at <= this.windowMs) break;
      this.lastSeenMs.delete(key);
    }
    return this.lastSeenMs.size >= 2;
  }
}
