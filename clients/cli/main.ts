#!/usr/bin/env node
// `trawl`: the command line of Trawl. Config from TRAWL_API_URL / TRAWL_API_KEY or `trawl
// login`; results on stdout (JSON with --json), progress and messages on stderr; exit codes
// scripts can branch on (EXIT in commands.ts, listed in --help).
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { Trawl } from '../sdk/client.js';
import { AuthenticationError, InvalidRequestError, JobFailedError, QuotaExceededError, RateLimitError, TrawlError } from '../sdk/errors.js';
import * as cmd from './commands.js';
import { configFile, loadConfig, removeConfig, saveConfig } from './config.js';

const HELP = `trawl: scrape, crawl and map websites to clean markdown with a Trawl server

Usage:
  trawl scrape <url> [--format markdown|html|rawHtml|links|screenshot|changeTracking] [-o file] [--full-page] [--wait-for ms|selector] [--timeout ms]
  trawl crawl <url> [--limit N] [--depth N] [--include glob]... [--exclude glob]... [-o dir] [--ignore-robots] [--external-links] [--webhook url]
  trawl map <url> [--search words] [--limit N] [--ignore-sitemap] [--subdomains]
  trawl batch <file-of-urls|-> [-o dir] [--skip-invalid]
  trawl jobs [--kind scrape|crawl|batch] [--limit N]
  trawl events <id> [--kind scrape|crawl|batch|map]
  trawl login [--api-url URL] [--api-key KEY]     store them (mode 0600) in ${configFile()}
  trawl logout
  trawl mcp                                       an MCP server over stdio, for agents

Options:
  --json        machine-readable output on stdout (errors too: {"error": {...}})
  --interval ms how often crawl and batch progress is looked at (default: paced to the key's rate limit)
  -h, --help    this help

crawl and batch write one markdown file per page into the -o folder (default: the site's host),
with a live progress bar on a terminal; Ctrl-C cancels the job and keeps the pages done so far.

Config: TRAWL_API_URL (default http://localhost:3000) and TRAWL_API_KEY, else \`trawl login\`.

Exit codes: 0 done; 1 the job or page failed, or the server failed; 2 bad usage or a request
the server refused (400); 3 no or a wrong API key; 4 rate limit or quota; 130 interrupted (Ctrl-C).
`;

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
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
} as const;

const io: cmd.Io = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) };

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    io.err(`${(err as Error).message}\n\n${HELP}`);
    return cmd.EXIT.usage;
  }
  const { values: flags, positionals } = parsed;
  const [command, arg] = positionals;
  if (flags.help || command === undefined || command === 'help') { io.out(HELP); return command === undefined && !flags.help ? cmd.EXIT.usage : cmd.EXIT.ok; }
  try {
    if (command === 'login') return await login(flags);
    if (command === 'logout') { io.err(removeConfig() ? `removed ${configFile()}\n` : 'not logged in\n'); return cmd.EXIT.ok; }
    const config = loadConfig();
    if (!config.apiKey) throw new AuthenticationError('no API key: set TRAWL_API_KEY or run `trawl login`', { code: 'NO_API_KEY' });
    const trawl = new Trawl({ apiUrl: config.apiUrl, apiKey: config.apiKey, userAgent: 'trawl-cli/0.1' });
    if (command === 'mcp') {
      const { runMcpServer } = await import('../mcp/server.js');
      await runMcpServer(trawl);
      return cmd.EXIT.ok;
    }
    const need = (what: string): string => {
      if (!arg) throw new cmd.UsageError(`trawl ${command} needs ${what}`);
      return arg;
    };
    switch (command) {
      case 'scrape': return await cmd.scrape(trawl, need('a URL'), flags, io);
      case 'crawl': return await cmd.crawl(trawl, need('a URL'), flags, io);
      case 'map': return await cmd.map(trawl, need('a URL'), flags, io);
      case 'batch': return await cmd.batch(trawl, need('a file of URLs (or - for stdin)'), flags, io);
      case 'jobs': return await cmd.jobs(trawl, flags, io);
      case 'events': return await cmd.events(trawl, need('a job id'), flags, io);
      default: throw new cmd.UsageError(`unknown command "${command}"`);
    }
  } catch (err) {
    return fail(err, Boolean(flags.json));
  }
}

function fail(err: unknown, json: boolean): number {
  const code = exitCodeOf(err);
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
      apiKey ||= (await rl.question('API key: ')).trim();
    } finally { rl.close(); }
  }
  if (!apiKey) throw new cmd.UsageError('an API key is needed');
  try { new URL(apiUrl); } catch { throw new cmd.UsageError(`not a URL: ${apiUrl}`); }
  // One request proves the URL and the key before they are kept.
  await new Trawl({ apiUrl, apiKey, maxRetries: 2 }).jobs.list({ kind: 'scrape', limit: 1 });
  const file = saveConfig({ apiUrl, apiKey });
  io.err(`logged in to ${apiUrl}; saved to ${file} (mode 0600)\n`);
  return cmd.EXIT.ok;
}

main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err: unknown) => { console.error(err); process.exitCode = 1; });
