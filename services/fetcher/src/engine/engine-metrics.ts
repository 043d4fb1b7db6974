// Which engine served each page, and what the auto decider did to get there.
import client from 'prom-client';

let pages: client.Counter<'engine' | 'decision'> | undefined;

/** `decision`: browser, probe (engine http), http, verify (see host-profile.ts EngineDecision). */
export function countEngineDecision(engine: 'browser' | 'http', decision: string): void {
  pages ??= (client.register.getSingleMetric('trawl_fetch_pages_total') as client.Counter<'engine' | 'decision'> | undefined)
    ?? new client.Counter({
      name: 'trawl_fetch_pages_total',
      help: 'Pages fetched, by the engine that served them (browser, http) and the decision that chose it (browser, probe, http, verify)',
      labelNames: ['engine', 'decision'] as const,
    });
  pages.inc({ engine, decision });
}
