// The unified diff of two markdown versions (jsdiff's Myers line diff, 3 lines of context).
// A line diff of two very different large documents is quadratic in the worst case, so
// it runs under a time cap; past it the report says `too_large` instead of blocking the
// transformer's event loop (its NATS heartbeats) for seconds.
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';

export const DIFF_TIMEOUT_MS = 1_000;

export interface DiffSide {
  markdown: string;
  /** Shown in the header line (`--- previous <label>`): when it was observed. */
  label: string;
}

export type DiffOutcome = { diff: string } | { diffUnavailable: 'too_large' };

export function buildDiff(previous: DiffSide, current: DiffSide, timeoutMs = DIFF_TIMEOUT_MS): DiffOutcome {
  const patch = createTwoFilesPatch('previous', 'current', withFinalNewline(previous.markdown), withFinalNewline(current.markdown), previous.label, current.label, {
    context: 3,
    timeout: timeoutMs,
    // `---`/`+++` and hunks only, as `diff -u` prints (no `Index:`/`====` lines).
    headerOptions: FILE_HEADERS_ONLY,
  });
  return patch === undefined ? { diffUnavailable: 'too_large' } : { diff: patch };
}

// Markdown has no trailing newline; without one each side's last line would carry
// "\ No newline at end of file" markers that say nothing about the page.
function withFinalNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}
