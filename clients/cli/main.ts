#!/usr/bin/env node
// `trawl`: the command line of Trawl. Config from TRAWL_API_URL / TRAWL_API_KEY or `trawl
// login`; results on stdout (JSON with --json), progress and messages on stderr; exit codes
// scripts can branch on (EXIT in commands.ts, listed in --help).
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { Trawl } from '../sdk/client.js';
import { AuthenticationError, ConnectionError, InvalidRequestError, JobFailedError, QuotaExceededError, RateLimitError, TrawlError } from '../sdk/errors.js';
import * as cmd from './commands.js';
import { monitor, recrawl } from './monitors.js';
import { CLIENT_VERSION } from '../sdk/version.js';
import { configFile, loadConfig, removeConfig, saveConfig } from './config.js';
import { askSecret } from './prompt.js';

const HELP = `trawl: scrape, crawl and map websites to clean markdown with a Trawl server

Usage:
  trawl scrape <url> [--format markdown|html|rawHtml|links|screenshot|changeTracking[,…]] [-o file] [--full-page] [--wait-for ms|selector] [--timeout ms]
  trawl crawl <url> [--limit N] [--depth N] [--include glob]... [--exclude glob]... [-o dir] [--ignore-robots] [--external-links] [--webhook url]
  trawl map <url> [--search words] [--limit N] [--ignore-sitemap] [--subdomains]
  trawl batch <file-of-urls|-> [-o dir] [--skip-invalid]
  trawl jobs [--kind scrape|crawl|batch] [--limit N]
  trawl events <id> [--kind scrape|crawl|batch|map]
  trawl crawl --id <id> [-o dir]                  follow a running crawl (or download a finished one); batch --id too
  trawl recrawl <crawl-id> [--revalidate]         run a finished crawl again; one line per page: new, same, changed, removed
  trawl monitor create <url> (--every seconds | --cron expr [--tz zone]) --webhook url [--crawl] [--limit N] [--depth N] [--format …] [--notify-unchanged]
  trawl monitor list | get <id> | delete <id>
  trawl whoami                                    the key's id, plan, limits and quota left
  trawl login [--api-url URL] [--api-key KEY]     store them (mode 0600) in ${configFile()}
  trawl logout
  trawl mcp                                       an MCP server over stdio, for agents

Options:
  --json        machine-readable output on stdout (errors too: {"error": {...}})
  --interval ms how often crawl and batch progress is looked at (default: paced to the key's rate limit)
  -h, --help    this help
  -V, --version the version

--format takes one format or several, comma-separated; several give the job as JSON.

crawl and batch write one markdown file per page into the -o folder (default: the site's host),
with a live progress bar on a terminal; Ctrl-C cancels the job and keeps the pages done so far.

Config: TRAWL_API_URL (default http://localhost:3000) and TRAWL_API_KEY, else \`trawl login\`.

Exit codes: 0 done; 1 the job or page failed (a page answered with HTTP >= 400 too: its
content is still printed, with a warning), the server failed or is not running; 2 bad usage or a request
the server refused (400); 3 no or a wrong API key; 4 rate limit or quota; 130 interrupted (Ctrl-C).
`;

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
  id: { type: 'string' },
  json: { type: 'boolean' },
  output: { type: 'string', short: 'o' },
  format: { type: 'string', short: 'f' },
  'full-page': { type: 'boolean' },
  'wait-for': { type: 'string' },
  timeout: { type: 'string' },
  limit: { type: 'string' },
  depth: { type: 'string' },
  include: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  'ignore-robots': { type: 'boolean' },
  'external-links': { type: 'boolean' },
  webhook: { type: 'string' },
  search: { type: 'string' },
  'ignore-sitemap': { type: 'boolean' },
  subdomains: { type: 'boolean' },
  'skip-invalid': { type: 'boolean' },
  kind: { type: 'string' },
  interval: { type: 'string' },
  'api-url': { type: 'string' },
  'api-key': { type: 'string' },
  revalidate: { type: 'boolean' },
  every: { type: 'string' },
  cron: { type: 'string' },
  tz: { type: 'string' },
  crawl: { type: 'boolean' },
  'notify-unchanged': { type: 'boolean' },
} as const;

const io: cmd.Io = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) };

/**
 * A job or monitor id: 22 base64url characters, so one in 64 starts with "-". parseArgs would
 * read `--id -Xq…` as a missing value and `events -Xq…` as unknown short options. Such a token
 * is an id when it also holds an upper-case letter, a digit or "_", which no option name does
 * (the odds that a random id holds none are about 1 in 10^8).
 */
const DASHED_ID = /^-[A-Za-z0-9_-]{21}$/;
const isDashedId = (arg: string): boolean => DASHED_ID.test(arg) && /[A-Z0-9_]/.test(arg);

/** argv with every dashed id replaced by a stand-in parseArgs takes as a value, and the way back. */
function shieldDashedIds(argv: string[]): { args: string[]; restore: (value: string) => string } {
  const ids = new Map<string, string>();
  const args = argv.map((arg, i) => {
    if (!isDashedId(arg)) return arg;
    const standIn = `\u0000id${i}`;
    ids.set(standIn, arg);
    return standIn;
  });
  return { args, restore: (value) => ids.get(value) ?? value };
}

function parseArgv(argv: string[]) {
  const { args, restore } = shieldDashedIds(argv);
  const { values, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === 'string') Object.assign(values, { [name]: restore(value) });
    else if (Array.isArray(value)) Object.assign(values, { [name]: value.map(restore) });
  }
  return { values, positionals: positionals.map(restore) };
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgv(argv);
  } catch (err) {
    io.err(`${(err as Error).message}\n\n${HELP}`);
    return cmd.EXIT.usage;
  }
  const { values: flags, positionals } = parsed;
  const [command, arg, arg2] = positionals;
  if (flags.version) { io.out(`trawl ${CLIENT_VERSION}\n`); return cmd.EXIT.ok; }
  if (flags.help || command === undefined || command === 'help') { io.out(HELP); return command === undefined && !flags.help ? cmd.EXIT.usage : cmd.EXIT.ok; }
  let apiUrl: string | undefined;
  try {
    if (command === 'login') return await login(flags);
    if (command === 'logout') { io.err(removeConfig() ? `removed ${configFile()}\n` : 'not logged in\n'); return cmd.EXIT.ok; }
    // The command's own words are checked before the key: a typo is told as a typo.
    const run = commandFor(command, arg, flags, arg2);
    const config = loadConfig();
    apiUrl = config.apiUrl;
    if (!config.apiKey) throw new AuthenticationError('no API key: set TRAWL_API_KEY or run `trawl login`', { code: 'NO_API_KEY' });
    // One retry of a refused connection: a server that is not running is said at once.
    const trawl = new Trawl({ apiUrl: config.apiUrl, apiKey: config.apiKey, userAgent: `trawl-cli/${CLIENT_VERSION}`, maxConnectRetries: 1 });
    return await run(trawl);
  } catch (err) {
    return fail(err, Boolean(flags.json), apiUrl);
  }
}

type Run = (trawl: Trawl) => Promise<number>;

/** The command to run, once its arguments are known to be complete. */
function commandFor(command: string, arg: string | undefined, flags: cmd.Flags, arg2?: string): Run {
  const need = (what: string): string => {
    if (!arg) throw new cmd.UsageError(`trawl ${command} needs ${what}`);
    return arg;
  };
  const jobId = typeof flags.id === 'string' ? flags.id : undefined;
  switch (command) {
    case 'mcp': return async (trawl) => {
      const { runMcpServer } = await import('../mcp/server.js');
      await runMcpServer(trawl);
      return cmd.EXIT.ok;
    };
    case 'scrape': { const url = need('a URL'); cmd.parseFormats(flags); return (t) => cmd.scrape(t, url, flags, io); }
    case 'crawl': {
      if (jobId) return (t) => cmd.followCrawl(t, jobId, flags, io);
      const url = need('a URL (or --id of a crawl to follow)');
      return (t) => cmd.crawl(t, url, flags, io);
    }
    case 'batch': {
      if (jobId) return (t) => cmd.followBatch(t, jobId, flags, io);
      const file = need('a file of URLs (or - for stdin, or --id of a batch to follow)');
      return (t) => cmd.batch(t, file, flags, io);
    }
    case 'map': { const url = need('a URL'); return (t) => cmd.map(t, url, flags, io); }
    case 'jobs': return (t) => cmd.jobs(t, flags, io);
    case 'events': { const id = need('a job id'); return (t) => cmd.events(t, id, flags, io); }
    case 'whoami': return (t) => cmd.whoami(t, flags, io);
    case 'recrawl': { const id = need('the id of a finished crawl'); return (t) => recrawl(t, id, flags, io); }
    case 'monitor': return (t) => monitor(t, arg, arg2, flags, io);
    default: throw new cmd.UsageError(`unknown command "${command}"`);
  }
}

function fail(err: unknown, json: boolean, apiUrl?: string): number {
  const code = exitCodeOf(err);
  if (err instanceof ConnectionError && err.code === 'CONNECTION_REFUSED' && apiUrl) {
    err = new ConnectionError(`is Trawl running at ${apiUrl}? (nothing answered there) Set TRAWL_API_URL or run \`trawl login\`.`, { code: err.code });
  } else if (err instanceof ConnectionError && err.code === 'INVALID_API_URL' && apiUrl) {
    err = new ConnectionError(`${apiUrl} cannot be Trawl's address: ${err.message.replace(/^.*: /, '')}. Set TRAWL_API_URL or run \`trawl login\`.`, { code: err.code });
  }
  if (json) {
    const e = err instanceof TrawlError
      ? { code: err.code, status: err.status, message: err.message, requestId: err.requestId, retryAfter: err.retryAfter }
      : { code: err instanceof cmd.UsageError ? 'USAGE' : 'ERROR', message: (err as Error).message };
    io.out(`${JSON.stringify({ error: e })}\n`);
  } else {
    io.err(`trawl: ${(err as Error).message}\n${err instanceof cmd.UsageError ? 'see trawl --help\n' : ''}`);
  }
  return code;
}

function exitCodeOf(err: unknown): number {
  if (err instanceof cmd.UsageError || err instanceof InvalidRequestError) return cmd.EXIT.usage;
  if (err instanceof AuthenticationError) return cmd.EXIT.auth;
  if (err instanceof RateLimitError || err instanceof QuotaExceededError) return cmd.EXIT.limited;
  if (err instanceof JobFailedError || err instanceof TrawlError) return cmd.EXIT.failed;
  if ((err as { code?: string }).code === 'ENOENT') return cmd.EXIT.usage;
  return cmd.EXIT.failed;
}

/** Asks for what was not given, checks the key against the server, then saves both. */
async function login(flags: cmd.Flags): Promise<number> {
  const current = loadConfig();
  let apiUrl = typeof flags['api-url'] === 'string' ? flags['api-url'] : undefined;
  let apiKey = typeof flags['api-key'] === 'string' ? flags['api-key'] : undefined;
  if (!apiUrl || !apiKey) {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      apiUrl ||= (await rl.question(`API URL [${current.apiUrl}]: `)).trim() || current.apiUrl;
    } finally { rl.close(); }
    // Typed without echo: the key never shows on the screen or in a terminal's scrollback.
    apiKey ||= (await askSecret('API key: ')).trim();
  }
  if (!apiKey) throw new cmd.UsageError('an API key is needed');
  try { new URL(apiUrl); } catch { throw new cmd.UsageError(`not a URL: ${apiUrl}`); }
  // One request proves the URL and the key before they are kept.
  const key = await new Trawl({ apiUrl, apiKey, maxRetries: 2, maxConnectRetries: 1 }).key();
  const file = saveConfig({ apiUrl, apiKey });
  io.err(`logged in to ${apiUrl} with key ${key.keyId} (plan ${key.plan}); saved to ${file} (mode 0600)\n`);
  return cmd.EXIT.ok;
}

// Node ends a process whose event loop has nothing left to wait on even while a promise is
// still pending, with process.exitCode as it stands (0 if never set): a command whose last
// request never settled would end "successfully" having printed nothing (the CLI test once read
// an empty stdout from `events <id> --json`). Until main settles, an ending is a failure, and
// says so. (Output itself is not lost: nothing here calls process.exit, so stdout is flushed.)
let settled = false;
process.exitCode = cmd.EXIT.failed;
process.once('beforeExit', () => {
  if (!settled) io.err('trawl: ended before the command did (its request was left unanswered with nothing more to wait on)\n');
});
main(process.argv.slice(2)).then(
  (code) => { settled = true; process.exitCode = code; },
  (err: unknown) => { settled = true; console.error(err); process.exitCode = cmd.EXIT.failed; },
);
