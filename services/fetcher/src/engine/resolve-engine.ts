// Which engine a page asks for: the one place where the request's `engine`, the server's
// default for the job kind and the options that only a browser can honour meet. The
// router (engine-router.ts) then follows the host-profile decider from here.
import { browserOnlyOptions, type Engine, type EngineDefaults, type ResolvedScrapeOptions } from '../../../../shared/src/domain/scrape-options.js';

export type JobKind = keyof EngineDefaults;

export interface ResolvedEngine {
  /** What the page asked for (or its job kind's default): recorded as `engine.requested`. */
  requested: Engine;
  /** The options only a browser can honour, as the request names them ([] when HTTP can serve them). */
  browserNeeds: string[];
}

export function resolveEngine(kind: JobKind, options: ResolvedScrapeOptions, defaults: EngineDefaults): ResolvedEngine {
  const browserNeeds = browserOnlyOptions(options);
  const requested = options.engine ?? defaults[kind];
  // A server default of http never refuses a page: options that need a browser get one
  // (a request that names http with them was refused at validation, by the same rule).
  if (requested === 'http' && !options.engine && browserNeeds.length > 0) return { requested: 'auto', browserNeeds };
  return { requested, browserNeeds };
}
