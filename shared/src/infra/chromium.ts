// Where Chromium is and how it is launched. Debian's chromium-headless-shell is the
// default (about twice as fast and light as full chromium here); CHROMIUM_PATH overrides.
import fs from 'node:fs';

// The real binary first: Debian's /usr/bin/chromium-headless-shell is a wrapper script
// that does not exec, so signals sent to it never reach Chromium.
const CANDIDATES = [
  '/usr/lib/chromium/chromium-headless-shell',
  '/usr/bin/chromium-headless-shell',
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
];

export function resolveChromiumPath(configured?: string): string {
  if (configured) {
    if (!fs.existsSync(configured)) throw new Error(`CHROMIUM_PATH: no file at ${configured}`);
    return configured;
  }
  const found = CANDIDATES.find((p) => fs.existsSync(p));
  if (!found) throw new Error('Chromium not found: install chromium-headless-shell (apt-get install chromium-headless-shell) or set CHROMIUM_PATH');
  return found;
}

/** Flags for a closed network and a container: no sandbox, no GPU, nothing phoning home. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  // With the GPU off, Chromium's GPU process still loads SwiftShader (software GL) for
  // compositing; without it the GPU process is much smaller (docs/benchmarks.md "Third
  // session") and pages are composited in software all the same (screenshots included).
  '--disable-software-rasterizer',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
  '--disable-quic',
];
