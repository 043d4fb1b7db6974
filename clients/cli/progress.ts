// The live progress of a crawl or batch on stderr: pages done of total, failed, pages per
// second and ETA (cli-progress). Only on a terminal; scripts get a final line instead.
import { SingleBar } from 'cli-progress';

export interface Counters { status: string; totalUrls: number; completedUrls: number; failedUrls: number }

export class JobProgress {
  private readonly bar: SingleBar | undefined;
  private readonly startedAt = Date.now();
  private started = false;
  private note = '';

  constructor(private readonly label: string, private readonly stream: NodeJS.WriteStream = process.stderr, enabled = stream.isTTY === true) {
    this.bar = enabled
      ? new SingleBar({
        stream,
        format: `${label} {bar} {done}/{total} pages | {failed} failed | {rate} pages/s | ETA {eta_formatted} {note}`,
        barsize: 30,
        hideCursor: true,
        clearOnComplete: false,
        etaBuffer: 20,
        fps: 5,
      })
      : undefined;
  }

  update(c: Counters): void {
    const finished = c.completedUrls + c.failedUrls;
    const total = Math.max(c.totalUrls, finished, 1);
    const seconds = (Date.now() - this.startedAt) / 1000;
    const payload = { done: c.completedUrls, failed: c.failedUrls, rate: seconds > 0 ? (finished / seconds).toFixed(1) : '0.0', note: this.note ? `| ${this.note}` : '' };
    if (!this.bar) return;
    if (!this.started) { this.bar.start(total, finished, payload); this.started = true; return; }
    this.bar.setTotal(total);
    this.bar.update(finished, payload);
  }

  /** A word shown after the bar (e.g. "cancelling…"). */
  say(note: string): void {
    this.note = note;
    if (this.bar && this.started) this.bar.update({ note: `| ${note}` });
  }

  stop(final: Counters): void {
    if (this.bar && this.started) { this.update(final); this.bar.stop(); }
    this.stream.write(`${this.label} ${final.status}: ${final.completedUrls} pages, ${final.failedUrls} failed, in ${((Date.now() - this.startedAt) / 1000).toFixed(1)} s\n`);
  }
}
