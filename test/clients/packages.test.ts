// The SDK and the CLI as a user outside this checkout gets them (issue 24, item 4):
// `npm run pack:clients` writes the tarballs, a fresh project in the temp dir installs them
// offline, compiles a strict TypeScript file against the SDK's declarations (library
// checks on) and runs it, and runs the CLI's bin: `trawl --version` and `trawl mcp`'s
// tools/list (the MCP server inside the CLI's bundle, no gateway file at run time).
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CLIENT_VERSION } from '../../clients/sdk/version.js';

const ROOT = path.resolve('.');
const NODE = process.execPath;
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

const CONSUMER_TS = `import {
  Trawl, ConnectionError, type ScrapeJob, type CrawlJob, type CrawlPage, type BatchJob, type MapResult, type KeyStanding, type ScrapeRequest,
} from '@trawl/sdk';

const request: ScrapeRequest = { url: 'https://example.com/', formats: ['markdown', 'links'], onlyMainContent: true };
const title = (job: ScrapeJob): string => job.metadata?.title ?? job.url;
const progress = (job: CrawlJob | BatchJob): string => \`\${job.status} \${job.completedUrls}/\${job.totalUrls}\`;
const depthOf = (page: CrawlPage): number => page.depth;
const count = (map: MapResult): number => map.count;
const left = (key: KeyStanding): number => key.pagesLeft;
// @ts-expect-error the types are the API's, not any: an unknown field does not compile
const wrong: ScrapeJob['noSuchField'] = 1;

// Nothing listens on port 9: the SDK's own error class reaches the caller.
const trawl = new Trawl({ apiUrl: 'http://127.0.0.1:9', apiKey: 'trawl_not_a_real_key', maxRetries: 0 });
try {
  const job = await trawl.scrape(request.url, { formats: request.formats });
  console.log('id' in job ? job.id : title(job as ScrapeJob));
} catch (err) {
  console.log(err instanceof ConnectionError ? 'ConnectionError' : \`unexpected: \${String(err)}\`);
}
void [progress, depthOf, count, left, wrong];
`;

const TSCONFIG = {
  compilerOptions: {
    strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'],
    outDir: 'out', types: [], skipLibCheck: false,
  },
  files: ['use.ts'],
};

/** Sends JSON-RPC lines to `trawl mcp` and collects the answers to the ids given. */
async function mcpAnswers(bin: string, cwd: string, messages: object[], ids: number[]): Promise<Map<number, any>> {
  const child = spawn(bin, ['mcp'], { cwd, env: { ...process.env, TRAWL_API_URL: 'http://127.0.0.1:9', TRAWL_API_KEY: 'trawl_not_a_real_key' } });
  const answers = new Map<number, any>();
  let buffer = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer from trawl mcp; stderr: ${stderr}`)), 30_000);
      child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`trawl mcp exited ${code}: ${stderr}`)); });
      child.stdout.on('data', (d: Buffer) => {
        buffer += d.toString();
        for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
          const msg = JSON.parse(buffer.slice(0, nl));
          buffer = buffer.slice(nl + 1);
          if (typeof msg.id === 'number') answers.set(msg.id, msg);
        }
        if (ids.every((id) => answers.has(id))) { clearTimeout(timer); resolve(); }
      });
      for (const m of messages) child.stdin.write(`${JSON.stringify(m)}\n`);
    });
  } finally {
    child.removeAllListeners('exit');
    child.kill();
  }
  return answers;
}

describe('the SDK and CLI packages, installed outside the checkout', () => {
  let project: string;
  let tarballs: string[];

  before(() => {
    const printed = execFileSync(NODE, ['scripts/pack-clients.mjs'], { cwd: ROOT, encoding: 'utf8' });
    tarballs = [...printed.matchAll(/^(dist\/packages\/\S+\.tgz)/gm)].map((m) => path.join(ROOT, m[1]!));
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-consumer-'));
    assert.ok(path.relative(ROOT, project).startsWith('..'), 'the project is outside the checkout');
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    // Offline: the tarballs must carry everything they need.
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel', 'error', ...tarballs], { cwd: project, encoding: 'utf8' });
  });

  after(() => { if (project) fs.rmSync(project, { recursive: true, force: true }); });

  test('pack:clients writes both tarballs to dist/packages/', () => {
    assert.deepEqual(tarballs.map((t) => path.basename(t)).sort(), [`trawl-cli-${CLIENT_VERSION}.tgz`, `trawl-sdk-${CLIENT_VERSION}.tgz`]);
    const sdk = JSON.parse(fs.readFileSync(path.join(project, 'node_modules/@trawl/sdk/package.json'), 'utf8'));
    assert.ok(fs.existsSync(path.join(project, 'node_modules/@trawl/sdk', sdk.types)), 'the SDK ships its declarations');
  });

  test('a strict TypeScript file compiles against the SDK\'s named types and runs', () => {
    fs.writeFileSync(path.join(project, 'use.ts'), CONSUMER_TS);
    fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    try {
      execFileSync(NODE, [TSC, '-p', 'tsconfig.json'], { cwd: project, encoding: 'utf8' });
    } catch (err) {
      assert.fail(`tsc failed:\n${(err as { stdout?: string }).stdout ?? String(err)}`);
    }
    const printed = execFileSync(NODE, ['out/use.js'], { cwd: project, encoding: 'utf8' });
    assert.equal(printed.trim(), 'ConnectionError');
  });

  test('the CLI\'s bin runs from the project: trawl --version', () => {
    const bin = path.join(project, 'node_modules/.bin/trawl');
    assert.equal(execFileSync(bin, ['--version'], { cwd: project, encoding: 'utf8' }).trim(), `trawl ${CLIENT_VERSION}`);
  });

  test('trawl mcp from the package lists its tools', async () => {
    const bin = path.join(project, 'node_modules/.bin/trawl');
    const answers = await mcpAnswers(bin, project, [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'packages-test', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ], [1, 2]);
    const names = (answers.get(2).result.tools as { name: string }[]).map((t) => t.name);
    assert.ok(names.includes('scrape') && names.includes('map') && names.includes('crawl_start'), names.join());
  });
});
