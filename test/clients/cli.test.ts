// The `trawl` CLI as a user runs it: a child process against the real system, checking
// exit codes, --json output, files written, `trawl login`'s 0600 config, and (in a tmux
// pseudo-terminal) the live progress bar of a crawl and Ctrl-C cancelling it.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { TestSite } from '../support/site.js';
import type { TrawlSystem } from '../support/system.js';
import { startClientSite, startClientSystem } from './helpers.js';
import net from 'node:net';

/** A port nothing listens on: taken, then released. */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

const CLI = path.resolve('dist/clients/cli/main.js');
const run = promisify(execFile);

describe('trawl CLI against the running system', () => {
  let site: TestSite;
  let system: TrawlSystem;
  let work: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    site = await startClientSite(2500);
    system = await startClientSystem();
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-cli-'));
    env = { PATH: process.env.PATH, HOME: work, XDG_CONFIG_HOME: path.join(work, 'config'), TRAWL_API_URL: system.baseUrl, TRAWL_API_KEY: system.apiKey };
  });
  after(async () => {
    await system?.stop();
    await site?.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  /** What a run of the CLI left: its exit code (or the signal that ended it, or why it did not start) and its output. */
  interface CliRun { code: number | string | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; error?: string }

  async function trawl(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<CliRun> {
    try {
      const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env: { ...env, ...extraEnv }, cwd: work, timeout: 120_000 });
      return { code: 0, signal: null, stdout, stderr };
    } catch (err) {
      // A non-zero exit, a signal (the timeout's), or a spawn or maxBuffer error (a string code).
      const e = err as { code: number | string | null; signal: NodeJS.Signals | null; stdout?: string; stderr?: string; message: string };
      return { code: e.code, signal: e.signal ?? null, stdout: e.stdout ?? '', stderr: e.stderr ?? '', error: e.message };
    }
  }

  /**
   * The JSON a run printed; when its stdout is not JSON, a failure that says how the run
   * ended (exit code, signal, spawn error) and what it wrote on stderr, not only the parser's
   * "Unexpected end of JSON input" (once seen in CI on `events <id> --json`).
   */
  function jsonOf(ran: CliRun, what = 'the CLI'): any {
    try {
      return JSON.parse(ran.stdout);
    } catch (err) {
      const how = { code: ran.code, signal: ran.signal, error: ran.error, stderr: ran.stderr.slice(-2000), stdout: ran.stdout.slice(0, 500) };
      throw new Error(`${what} printed no JSON (${(err as Error).message}): ${JSON.stringify(how, null, 2)}`, { cause: err });
    }
  }

  /** Runs the CLI and returns the JSON it printed (see jsonOf). */
  async function trawlJson(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<any> {
    return jsonOf(await trawl(args, extraEnv), `trawl ${args.join(' ')}`);
  }

  test('--help, bad usage and a missing key have their exit codes', async () => {
    const help = await trawl(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /trawl crawl <url>/);
    assert.equal((await trawl(['frobnicate'])).code, 2);
    assert.equal((await trawl(['scrape'])).code, 2);
    assert.equal((await trawl(['crawl', site.url('/'), '--limit', 'ten'])).code, 2);
    const noKey = await trawl(['jobs', '--json'], { TRAWL_API_KEY: '' });
    assert.equal(noKey.code, 3);
    assert.equal(jsonOf(noKey).error.code, 'NO_API_KEY');
    const badKey = await trawl(['jobs'], { TRAWL_API_KEY: 'wrong_key_0123456789' });
    assert.equal(badKey.code, 3);
    assert.match(badKey.stderr, /UNAUTHORIZED/);
  });

  test('login checks the key and stores it with mode 0600; later commands use it', async () => {
    const noEnv = { TRAWL_API_KEY: '', TRAWL_API_URL: '' };
    const wrong = await trawl(['login', '--api-url', system.baseUrl, '--api-key', 'wrong_key_0123456789'], noEnv);
    assert.equal(wrong.code, 3);
    const file = path.join(work, 'config', 'trawl', 'config.json');
    assert.equal(fs.existsSync(file), false);
    const ok = await trawl(['login', '--api-url', system.baseUrl, '--api-key', system.apiKey], noEnv);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), { apiUrl: system.baseUrl, apiKey: system.apiKey });
    const jobs = await trawl(['jobs', '--json'], noEnv);
    assert.equal(jobs.code, 0, jobs.stderr);
    assert.ok(Array.isArray(jsonOf(jobs)));
    assert.equal((await trawl(['logout'])).code, 0);
    assert.equal(fs.existsSync(file), false);
  });

  test('scrape: markdown to stdout, --json, -o file, links; a failed page exits 1', async () => {
    const md = await trawl(['scrape', site.url('/a')]);
    assert.equal(md.code, 0, md.stderr);
    assert.match(md.stdout, /This is the page called Page A/);
    const json = await trawl(['scrape', site.url('/b'), '--json']);
    const job = jsonOf(json);
    assert.equal(job.status, 'COMPLETED');
    assert.match(job.markdown, /Page B/);
    const out = await trawl(['scrape', site.url('/b'), '--format', 'html', '-o', 'b.html']);
    assert.equal(out.code, 0, out.stderr);
    assert.match(fs.readFileSync(path.join(work, 'b.html'), 'utf8'), /<h1>Page B<\/h1>/);
    const links = await trawl(['scrape', site.url('/'), '--format', 'links']);
    assert.deepEqual(links.stdout.trim().split('\n'), ['/a', '/b', '/c'].map((p) => site.url(p)));
    const shot = await trawl(['scrape', site.url('/a'), '--format', 'screenshot', '-o', 'a.png']);
    assert.equal(shot.code, 0, shot.stderr);
    assert.deepEqual([...fs.readFileSync(path.join(work, 'a.png')).subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG file');
    const first = await trawl(['scrape', site.url('/b'), '--format', 'changeTracking']);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^(new|same)\b/, 'a status line first');
    const again = await trawl(['scrape', site.url('/b'), '--format', 'changeTracking']);
    assert.match(again.stdout, /^same since \d{4}-\d\d-\d\dT/, 'compared with the scrape before');
    const failed = await trawl(['scrape', site.url('/c'), '--wait-for', '#never', '--timeout', '1000', '--json']);
    assert.equal(failed.code, 1);
    assert.equal(jsonOf(failed).error.code, 'SELECTOR_NOT_FOUND');
    const invalid = await trawl(['scrape', 'notaurl']);
    assert.equal(invalid.code, 2);
    assert.match(invalid.stderr, /INVALID_URL/);
  });

  test('crawl -o dir --json writes one markdown file per page; map, batch, jobs and events', async () => {
    const crawl = await trawl(['crawl', site.url('/'), '--depth', '1', '-o', 'site', '--json']);
    assert.equal(crawl.code, 0, crawl.stderr);
    const summary = jsonOf(crawl);
    assert.equal(summary.status, 'COMPLETED');
    assert.deepEqual([...summary.files].sort(), ['a.md', 'b.md', 'c.md', 'index.md']);
    const index = fs.readFileSync(path.join(work, 'site', 'index.md'), 'utf8');
    assert.match(index, new RegExp(`^---\\nurl: "${site.url('/')}"\\ntitle: "Home"`));
    assert.match(index, /This is the page called Home/);

    const map = await trawl(['map', site.url('/'), '--json']);
    assert.ok(jsonOf(map).links.includes(site.url('/c')));
    const plain = await trawl(['map', site.url('/'), '--search', 'b']);
    assert.equal(plain.stdout, `${site.url('/b')}\n`);

    fs.writeFileSync(path.join(work, 'urls.txt'), `# two pages\n${site.url('/a')}\n\n${site.url('/c')}\nnot a url\n`);
    const batch = await trawl(['batch', 'urls.txt', '-o', 'batch', '--skip-invalid', '--json']);
    assert.equal(batch.code, 0, batch.stderr);
    assert.deepEqual(jsonOf(batch).files, ['a.md', 'c.md']);
    assert.match(batch.stderr, /skipped invalid URL: not a url/);
    assert.match(fs.readFileSync(path.join(work, 'batch', 'c.md'), 'utf8'), /Page C/);

    const jobs = await trawlJson(['jobs', '--json', '--limit', '50']) as { id: string; kind: string }[];
    assert.ok(jobs.some((j) => j.id === summary.id && j.kind === 'crawl'));
    const events = await trawlJson(['events', summary.id, '--json']) as { event: string }[];
    assert.equal(events[0]?.event, 'crawl_requested');
    const lines = (await trawl(['events', summary.id, '--kind', 'crawl'])).stdout.trim().split('\n');
    assert.equal(lines.length, events.length);
    assert.equal((await trawl(['events', 'AAAAAAAAAAAAAAAAAAAAAA'])).code, 1);
    // One job id in 64 starts with "-": it is still an id, never an option.
    const dashed = '-AbCdEfGhIjKlMnOpQrStU';
    for (const args of [['events', dashed], ['crawl', '--id', dashed], ['batch', '--id', dashed], ['recrawl', dashed], ['monitor', 'get', dashed]]) {
      const run = await trawl([...args, '--json']);
      assert.equal(run.code, 1, `${args.join(' ')}: ${run.stderr}`);
      assert.equal(jsonOf(run).error.status, 404, args.join(' '));
    }
  });

  test('recrawl prints one line per page; monitor create, list, get, delete; their usage errors', async () => {
    const crawl = await trawlJson(['crawl', site.url('/'), '--depth', '1', '-o', 'again', '--json']);
    const re = await trawl(['recrawl', crawl.id]);
    assert.equal(re.code, 0, re.stderr);
    const lines = re.stdout.trim().split('\n').sort();
    assert.equal(lines.length, 4, re.stdout);
    for (const line of lines) assert.match(line, /^same\*?\s+http/, line);
    assert.match(re.stderr, /0 new, 4 same, 0 changed, 0 removed/);
    const report = await trawlJson(['recrawl', crawl.id, '--revalidate', '--json']);
    assert.equal(report.recrawlOf, crawl.id);
    assert.equal(report.counts.same, 4);

    const missing = await trawl(['monitor', 'create', site.url('/a'), '--webhook', site.url('/hook')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--every <seconds> or --cron/);
    const refused = await trawl(['monitor', 'create', site.url('/a'), '--cron', 'every day', '--webhook', site.url('/hook')]);
    assert.equal(refused.code, 2, 'the server\'s 400');
    assert.match(refused.stderr, /schedule\.cron/);
    const created = await trawlJson(['monitor', 'create', site.url('/a'), '--every', '3600', '--webhook', site.url('/hook'), '--json']);
    assert.equal(created.status, 'ACTIVE');
    assert.deepEqual(created.schedule, { intervalSeconds: 3600 });
    const listed = await trawlJson(['monitor', 'list', '--json']) as { id: string }[];
    assert.ok(listed.some((m) => m.id === created.id));
    const shown = await trawl(['monitor', 'get', created.id]);
    assert.match(shown.stdout, new RegExp(`^${created.id}  ACTIVE  scrape ${site.url('/a')}  every 3600 s`));
    assert.equal((await trawl(['monitor', 'delete', created.id])).code, 0);
    assert.equal((await trawl(['monitor', 'delete', created.id])).code, 1, 'already deleted: 404');
    assert.equal((await trawl(['monitor', 'frobnicate'])).code, 2);
  });

  test('--version; the command is checked before the key; whoami shows the key id, plan and quota, never the key', async () => {
    const pkg = JSON.parse(fs.readFileSync(path.resolve('package.json'), 'utf8')) as { version: string };
    const version = await trawl(['--version']);
    assert.equal(version.code, 0);
    assert.equal(version.stdout, `trawl ${pkg.version}\n`);
    assert.equal((await trawl(['-V'])).stdout, `trawl ${pkg.version}\n`);
    // A usage error is a usage error, key or no key.
    const noKey = await trawl(['scrape'], { TRAWL_API_KEY: '' });
    assert.equal(noKey.code, 2, noKey.stderr);
    assert.match(noKey.stderr, /needs a URL/);
    assert.equal((await trawl(['scrape', site.url('/a'), '--format', 'markdown,bogus'], { TRAWL_API_KEY: '' })).code, 2);

    const who = await trawl(['whoami']);
    assert.equal(who.code, 0, who.stderr);
    assert.match(who.stdout, /^server +http:\/\/127\.0\.0\.1:\d+\nkey +\S+\nplan +team\n/);
    assert.match(who.stdout, /limits +120 requests\/min, 20 jobs at once/);
    assert.match(who.stdout, /quota +[\d,]+ of 500,000 pages left in \d{4}-\d\d/);
    assert.ok(!who.stdout.includes(system.apiKey) && !who.stderr.includes(system.apiKey), 'the key itself is never printed');
    const json = await trawlJson(['whoami', '--json']) as Record<string, unknown>;
    assert.equal(json.plan, 'team');
    assert.deepEqual(json.limits, { requestsPerMinute: 120, concurrentJobs: 20, monthlyPages: 500_000 });
    assert.equal(typeof json.keyId, 'string');
    assert.equal(json.pagesLeft, 500_000 - (json.pagesUsed as number) - (json.pagesHeld as number));
  });

  test('a server that is not running is said at once, with what to do', async () => {
    const closed = `http://127.0.0.1:${await closedPort()}`;
    const started = Date.now();
    const down = await trawl(['jobs'], { TRAWL_API_URL: closed });
    const tookMs = Date.now() - started;
    assert.equal(down.code, 1);
    assert.match(down.stderr, new RegExp(`is Trawl running at ${closed.replace(/[.]/g, '\\.')}\\?.*TRAWL_API_URL.*trawl login`));
    // Before: 8 retries with backoff, 44.6 s of silence. Now one retry (0.5-0.75 s); the
    // bound is loose so a busy machine cannot fail it.
    assert.ok(tookMs < 15_000, `failed after ${tookMs} ms`);
    const json = await trawlJson(['whoami', '--json'], { TRAWL_API_URL: closed });
    assert.equal(json.error.code, 'CONNECTION_REFUSED');
    // A port fetch refuses to use is no server that may come back: said at once, never retried.
    const blocked = await trawl(['jobs'], { TRAWL_API_URL: 'http://127.0.0.1:6000' });
    assert.equal(blocked.code, 1);
    assert.match(blocked.stderr, /http:\/\/127\.0\.0\.1:6000 cannot be Trawl's address: fetch refuses that port.*TRAWL_API_URL/);
    const asJson = await trawlJson(['whoami', '--json'], { TRAWL_API_URL: 'http://127.0.0.1:6000' });
    assert.equal(asJson.error.code, 'INVALID_API_URL');
  });

  test('--format with several formats gives JSON; an HTTP error page warns and exits 1; a failed crawl says why; a crawl is followed by id', async () => {
    const multi = await trawl(['scrape', site.url('/'), '--format', 'markdown,links']);
    assert.equal(multi.code, 0, multi.stderr);
    const job = jsonOf(multi);
    assert.match(job.markdown, /This is the page called Home/);
    assert.deepEqual(job.links, ['/a', '/b', '/c'].map((p) => site.url(p)));

    const missing = await trawl(['scrape', site.url('/no-such-page')]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /warning: .*\/no-such-page answered HTTP 404/);

    const failed = await trawl(['crawl', site.url('/no-such-page'), '-o', 'failed']);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /crawl \S+ failed: start page failed: the server answered HTTP 404/);

    const first = await trawlJson(['crawl', site.url('/'), '--depth', '1', '-o', 'first', '--json']);
    assert.equal(first.status, 'COMPLETED');
    const again = await trawl(['crawl', '--id', first.id, '-o', 'again', '--json']);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual([...jsonOf(again).files].sort(), [...first.files].sort());
    assert.equal(fs.readFileSync(path.join(work, 'again', 'a.md'), 'utf8'), fs.readFileSync(path.join(work, 'first', 'a.md'), 'utf8'));
  });

  test('login in a terminal asks for the key without echoing it', async () => {
    const session = `trawl-login-${process.pid}`;
    const exitFile = path.join(work, 'login-exit');
    const loginEnv = { ...env, TRAWL_API_KEY: '', TRAWL_API_URL: '', XDG_CONFIG_HOME: path.join(work, 'login-config') };
    const envArgs = Object.entries(loginEnv).map(([k, v]) => `${k}=${JSON.stringify(v ?? '')}`).join(' ');
    const command = `cd ${work} && env ${envArgs} ${process.execPath} ${CLI} login --api-url ${system.baseUrl}; echo $? > ${exitFile}; sleep 30`;
    execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '200', '-y', '20', command]);
    try {
      const screen = (): string => execFileSync('tmux', ['capture-pane', '-p', '-t', session]).toString();
      // tmux drops a line's trailing spaces: the prompt shows as "API key:".
      for (let i = 0; i < 50 && !/API key:/.test(screen()); i++) await sleep(200);
      assert.match(screen(), /API key:/, 'the prompt');
      execFileSync('tmux', ['send-keys', '-t', session, '-l', system.apiKey]);
      execFileSync('tmux', ['send-keys', '-t', session, 'Enter']);
      for (let i = 0; i < 100 && !fs.existsSync(exitFile); i++) await sleep(200);
      const final = screen();
      assert.equal(fs.readFileSync(exitFile, 'utf8').trim(), '0', final);
      assert.match(final, /logged in to .* with key \S+ \(plan team\)/);
      assert.ok(!final.includes(system.apiKey), `the key is not on the screen:\n${final}`);
    } finally {
      try { execFileSync('tmux', ['kill-session', '-t', session]); } catch { /* gone */ }
    }
  });

  test('in a terminal: a live progress bar, and Ctrl-C cancels the crawl and keeps the pages done', async () => {
    const session = `trawl-cli-${process.pid}`;
    const exitFile = path.join(work, 'exit-code');
    const envArgs = Object.entries(env).map(([k, v]) => `${k}=${JSON.stringify(v ?? '')}`).join(' ');
    const command = `cd ${work} && env ${envArgs} ${process.execPath} ${CLI} crawl ${site.url('/slow')} --limit 13 -o slow --interval 500; echo $? > ${exitFile}; sleep 30`;
    execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '200', '-y', '40', command]);
    try {
      const screen = (): string => execFileSync('tmux', ['capture-pane', '-p', '-t', session]).toString();
      let seen = '';
      for (let i = 0; i < 100 && !/ [1-9]\d*\/\d+ pages \| \d+ failed \| [\d.]+ pages\/s \| ETA/.test(seen); i++) { await sleep(200); seen = screen(); }
      assert.match(seen, /crawl \S+ .* [1-9]\d*\/\d+ pages \| \d+ failed \| [\d.]+ pages\/s \| ETA/, `progress bar:\n${seen}`);
      execFileSync('tmux', ['send-keys', '-t', session, 'C-c']);
      for (let i = 0; i < 150 && !fs.existsSync(exitFile); i++) await sleep(200);
      const final = screen();
      assert.equal(fs.readFileSync(exitFile, 'utf8').trim(), '130', final);
      assert.match(final, /cancelling/);
      assert.match(final, /CANCELLED: \d+ pages/);
      const files = fs.readdirSync(path.join(work, 'slow'), { recursive: true }).map(String).filter((f) => f.endsWith('.md'));
      assert.ok(files.length >= 1 && files.length < 13, files.join(','));
      const id = /crawl (\S+) CANCELLED/.exec(final)?.[1];
      const job = await system.api('GET', `/api/v1/crawl/${id}`);
      assert.equal(job.body.status, 'CANCELLED');
      assert.equal(job.body.completedUrls, files.length);
    } finally {
      try { execFileSync('tmux', ['kill-session', '-t', session]); } catch { /* gone */ }
    }
  });
});
