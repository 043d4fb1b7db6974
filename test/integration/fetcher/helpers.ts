// Shared bits of the fetcher integration tests: resolved options, a capturer factory, an
// image-header reader independent of the library's (so sizes are checked twice), and the
// Chromium processes this test process started.
import net from 'node:net';
import { createLogger } from '../../../shared/src/infra/logger.js';
import { normalizeScrapeOptions, type ResolvedScrapeOptions, type ScrapeOptionsInput } from '../../../shared/src/domain/scrape-options.js';
import { parseCidrList } from '../../../shared/src/net/url-safety.js';
import { PageCapturer, type PageCapturerOptions } from '../../../services/fetcher/src/engine/browser/page-capturer.js';
import type { NatsConnection } from 'nats';
import { ENGINE_DEFAULTS } from '../../../shared/src/domain/scrape-options.js';
import { EngineRouter, type EngineRouterDeps } from '../../../services/fetcher/src/engine/engine-router.js';
import { KvHostProfiles } from '../../../services/fetcher/src/engine/host-profile-store.js';
import { HttpEngine } from '../../../services/fetcher/src/engine/http-engine.js';
import { descendants, type Proc } from '../../support/processes.js';

export function opts(input: ScrapeOptionsInput = {}): ResolvedScrapeOptions {
  return normalizeScrapeOptions({ timeout: 15_000, ...input });
}

export const LOOPBACK_ALLOWED = parseCidrList('127.0.0.1/32');

export async function startCapturer(extra: Partial<PageCapturerOptions> = {}): Promise<PageCapturer> {
  const capturer = new PageCapturer({
    allowCidrs: LOOPBACK_ALLOWED,
    poolSize: 2,
    logger: createLogger('fetcher-test', process.env.LOG_LEVEL ?? 'silent'),
    ...extra,
  });
  await capturer.start();
  return capturer;
}

/**
 * The engine router as the fetcher builds it, over a real capturer (or a counted one), the
 * HTTP engine for loopback sites and host profiles in the test's NATS.
 */
export function testRouter(nc: NatsConnection, capture: EngineRouterDeps['capture'], agreements = 3, extra: Partial<EngineRouterDeps> = {}): EngineRouter {
  const policy = { agreements, recheckEvery: 25 };
  const logger = createLogger('engine-router-test', 'silent');
  return new EngineRouter({
    capture,
    http: new HttpEngine({ allowCidrs: LOOPBACK_ALLOWED, maxBytes: 5_000_000, documentMaxBytes: 5_000_000, chromeVersion: () => '140' }),
    profiles: new KvHostProfiles(nc.jetstream(), policy, logger),
    policy,
    defaults: ENGINE_DEFAULTS,
    clock: () => new Date(),
    logger,
    ...extra,
  });
}

export const ctx = (): { signal: AbortSignal } => ({ signal: new AbortController().signal });

/** Width and height from the image's own header (PNG IHDR, JPEG SOFn, WebP VP8/VP8L/VP8X). */
export function imageHeaderSize(data: Buffer): { format: string; width: number; height: number } {
  if (data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return { format: 'png', width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
  }
  if (data[0] === 0xff && data[1] === 0xd8) {
    let offset = 2;
    while (offset < data.length) {
      const marker = data[offset + 1] ?? 0;
      const length = data.readUInt16BE(offset + 2);
      if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
        return { format: 'jpeg', height: data.readUInt16BE(offset + 5), width: data.readUInt16BE(offset + 7) };
      }
      offset += 2 + length;
    }
    throw new Error('JPEG without SOF marker');
  }
  if (data.toString('ascii', 0, 4) === 'RIFF' && data.toString('ascii', 8, 12) === 'WEBP') {
    const chunk = data.toString('ascii', 12, 16);
    if (chunk === 'VP8X') return { format: 'webp', width: 1 + data.readUIntLE(24, 3), height: 1 + data.readUIntLE(27, 3) };
    if (chunk === 'VP8 ') return { format: 'webp', width: data.readUInt16LE(26) & 0x3fff, height: data.readUInt16LE(28) & 0x3fff };
    if (chunk === 'VP8L') {
      const bits = data.readUInt32LE(21);
      return { format: 'webp', width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
    }
  }
  throw new Error(`unknown image format: ${data.subarray(0, 16).toString('hex')}`);
}

/** Live Chromium processes descending from this test process (Debian's wrapper script included). */
export function chromiumProcesses(): Proc[] {
  return descendants(process.pid).filter((p) => /chrom/i.test(p.cmdline));
}

/**
 * The browser process itself: not the wrapper shell, not a renderer/GPU/utility (--type=...),
 * and not a child of another Chromium process. Chromium briefly forks children that still
 * carry the browser's own command line (before they exec a helper), so the command line
 * alone cannot tell them apart; their parent can.
 */
export function browserPids(): number[] {
  const chromium = chromiumProcesses().filter((p) => !p.cmdline.startsWith('/bin/sh'));
  const chromiumPids = new Set(chromium.map((p) => p.pid));
  return chromium
    .filter((p) => !p.cmdline.includes('--type=') && !chromiumPids.has(p.ppid))
    .map((p) => p.pid);
}

/** A port on 127.0.0.1 with nothing listening (listen, note the port, close). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
