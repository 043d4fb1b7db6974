// A stand-in fetcher for the process-lifetime test: starts a PageCapturer (Chromium
// included), loads the URL given as argv[2], prints "ready" and waits to be killed.
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { startCapturer } from './helpers.js';

const capturer = await startCapturer({ poolSize: 1, spareContexts: 0 });
await capturer.capture(process.argv[2]!, normalizeScrapeOptions({}), { signal: new AbortController().signal });
process.stdout.write('ready\n');
setInterval(() => undefined, 60_000);
