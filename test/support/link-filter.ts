// The map's link filter over a finished list, for tests: the service feeds a LinkCollector
// URL by URL as pages are read, tests have the whole list at once.
import { LinkCollector, type LinkFilterOptions } from '../../services/crawler-frontier/src/map/filter.js';

export function filterLinks(urls: Iterable<string>, opts: LinkFilterOptions & { limit: number }): string[] {
  const collector = new LinkCollector(opts);
  for (const url of urls) collector.add(url);
  return collector.links(opts.limit);
}
