// The browser pool's gauges, read from the capturer when Prometheus scrapes: how busy the
// pool is and whether anything leaks (contexts or pages that stay open) or crashes
// (Chromium relaunches).
import { observedGauge } from '../../../shared/src/infra/metrics.js';
import type { PageCapturer } from './engine/browser/page-capturer.js';

export function observeCapturer(capturer: Pick<PageCapturer, 'stats'>): void {
  const gauges: [string, string, (s: ReturnType<PageCapturer['stats']>) => number][] = [
    ['trawl_browser_captures_active', 'Pages being captured now', (s) => s.active],
    ['trawl_browser_captures_queued', 'Captures waiting for a free browser slot', (s) => s.queued],
    ['trawl_browser_contexts_open', 'Browser contexts open in Chromium', (s) => s.browserContexts],
    ['trawl_browser_pages_open', 'Pages open in Chromium', (s) => s.browserPages],
    ['trawl_browser_launches', 'Chromium launches since the fetcher started (more than 1: it crashed and was relaunched)', (s) => s.browserLaunches],
  ];
  for (const [name, help, read] of gauges) observedGauge(name, help, () => read(capturer.stats()));
}
