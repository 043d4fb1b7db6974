// The code the console shows for a request (the playground, a job's page): curl, the
// Trawl SDK, JavaScript and Python, each made by a serializer of its language from the
// request body, never by rewriting JSON text (a URL like …/a-true-story stays as it is).
// Every snippet returns content on the first run: a scrape asks with `waitMs`, a crawl or
// batch polls with `waitMs` until the job is final (docs/api.md "Waiting for a job").
import { FINAL_JOB_STATUSES as FINAL, MAX_WAIT_MS } from '../../../../shared/src/api/lifecycle.js';

/** The playground's request kinds and the endpoint each posts to. */
export const REQUEST_KINDS = ['scrape', 'crawl', 'map', 'batch', 'extract'] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];
export const ENDPOINT: Record<RequestKind, string> = { scrape: 'scrape', extract: 'scrape', crawl: 'crawl', map: 'map', batch: 'batch/scrape' };

/** How long a snippet asks one request to wait (the API's maximum). */
export const SNIPPET_WAIT_MS = MAX_WAIT_MS;

/** A POSIX shell word: single-quoted, a single quote inside as '\''. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * A JSON value as a Python literal: dicts, lists, str, int/float, True/False/None.
 * JSON's string escapes (\" \\ \n \uXXXX) mean the same in a Python string literal.
 */
export function toPython(value: unknown, indent = 0): string {
  const pad = ' '.repeat(indent + 4);
  const end = ' '.repeat(indent);
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'None';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => `${pad}${toPython(v, indent + 4)}`).join(',\n')},\n${end}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([k, v]) => `${pad}${JSON.stringify(k)}: ${toPython(v, indent + 4)}`).join(',\n')},\n${end}}`;
}

/** A JSON value as a JavaScript expression, indented to sit at `indent`. */
export function toJs(value: unknown, indent = 0): string {
  return JSON.stringify(value, null, 2).replace(/\n/g, `\n${' '.repeat(indent)}`);
}

export interface Snippet {
  id: 'curl' | 'sdk' | 'js' | 'py';
  name: string;
  code: string;
}

const pollsJob = (kind: RequestKind): boolean => kind === 'crawl' || kind === 'batch';

function curl(baseUrl: string, kind: RequestKind, body: Record<string, unknown>): string {
  const auth = `-H "Authorization: Bearer $TRAWL_API_KEY" -H 'content-type: application/json'`;
  const url = `${baseUrl}/api/v1/${ENDPOINT[kind]}`;
  if (!pollsJob(kind)) {
    const sent = kind === 'map' ? body : { ...body, waitMs: SNIPPET_WAIT_MS };
    return `curl -s -X POST ${url} \\\n  ${auth} \\\n  -d ${shellQuote(JSON.stringify(sent))}`;
  }
  return `id=$(curl -s -X POST ${url} \\\n  ${auth} \\\n  -d ${shellQuote(JSON.stringify(body))} | jq -r .id)\n`
    + `# each GET waits up to a minute for the job to finish; repeat until the status is final\n`
    + `until curl -s "${url}/$id?waitMs=${SNIPPET_WAIT_MS}" -H "Authorization: Bearer $TRAWL_API_KEY" > result.json \\\n`
    + `  && jq -e '.status | IN(${FINAL.map((f) => JSON.stringify(f)).join(',')})' result.json > /dev/null; do :; done\njq -r '.data[].url' result.json`;
}

function sdk(baseUrl: string, kind: RequestKind, body: Record<string, unknown>): string {
  const head = `import { Trawl } from './dist/clients/sdk/index.js'; // docs/clients.md\nconst trawl = new Trawl({ apiUrl: ${JSON.stringify(baseUrl)}, apiKey: process.env.TRAWL_API_KEY });\n`;
  if (kind === 'batch') {
    const { urls, ...rest } = body;
    const opts = Object.keys(rest).length ? `, ${toJs(rest)}` : '';
    return `${head}const job = await trawl.batchScrape(${toJs(urls)}${opts});\nfor await (const page of job.pages()) console.log(page.url, page.markdown?.length);`;
  }
  const { url, ...rest } = body;
  const opts = Object.keys(rest).length ? `, ${toJs(rest)}` : '';
  switch (kind) {
    case 'crawl':
      return `${head}const job = await trawl.crawl(${JSON.stringify(url)}${opts});\nfor await (const page of job.pages()) console.log(page.url, page.markdown?.length);`;
    case 'map':
      return `${head}const { links } = await trawl.map(${JSON.stringify(url)}${opts});\nconsole.log(links);`;
    default:
      return `${head}const page = await trawl.scrape(${JSON.stringify(url)}${opts}); // waits for the result\nconsole.log(${kind === 'extract' ? 'page.json' : 'page.markdown'});`;
  }
}

function js(baseUrl: string, kind: RequestKind, body: Record<string, unknown>): string {
  const url = `${baseUrl}/api/v1/${ENDPOINT[kind]}`;
  const headers = `const headers = { authorization: \`Bearer \${process.env.TRAWL_API_KEY}\`, 'content-type': 'application/json' };\n`;
  const sent = kind === 'scrape' || kind === 'extract' ? { ...body, waitMs: SNIPPET_WAIT_MS } : body;
  const post = `const res = await fetch(${JSON.stringify(url)}, {\n  method: 'POST',\n  headers,\n  body: JSON.stringify(${toJs(sent, 2)}),\n});\n`;
  if (!pollsJob(kind)) return `${headers}${post}const result = await res.json(); // ${kind === 'map' ? '{ links, count }' : 'the finished job (200), or { id, status } (202) if it took over a minute'}\nconsole.log(result);`;
  return `${headers}${post}let job = await res.json();\n// each GET waits up to a minute for the job to finish\nwhile (![${FINAL.map((f) => `'${f}'`).join(', ')}].includes(job.status)) {\n  job = await (await fetch(\`${url}/\${job.id}?waitMs=${SNIPPET_WAIT_MS}\`, { headers })).json();\n}\nconsole.log(job.data.length, 'pages');`;
}

function py(baseUrl: string, kind: RequestKind, body: Record<string, unknown>): string {
  const url = `${baseUrl}/api/v1/${ENDPOINT[kind]}`;
  const sent = kind === 'scrape' || kind === 'extract' ? { ...body, waitMs: SNIPPET_WAIT_MS } : body;
  const head = `import os, requests\nheaders = {"Authorization": f"Bearer {os.environ['TRAWL_API_KEY']}"}\nres = requests.post(${JSON.stringify(url)}, headers=headers, timeout=90, json=${toPython(sent)})\n`;
  if (!pollsJob(kind)) return `${head}result = res.json()  # ${kind === 'map' ? '{"links": [...], "count": n}' : 'the finished job, or {"id", "status"} if it took over a minute'}\nprint(result)`;
  return `${head}job = res.json()\n# each GET waits up to a minute for the job to finish\nwhile job["status"] not in (${FINAL.map((f) => JSON.stringify(f)).join(', ')}):\n    job = requests.get(f"${url}/{job['id']}", params={"waitMs": ${SNIPPET_WAIT_MS}}, headers=headers, timeout=90).json()\nprint(len(job["data"]), "pages")`;
}

/** The four snippets of one request (the key as the TRAWL_API_KEY variable, never the key). */
export function snippetsOf(baseUrl: string, kind: RequestKind, body: Record<string, unknown>): Snippet[] {
  return [
    { id: 'curl', name: 'curl', code: curl(baseUrl, kind, body) },
    { id: 'sdk', name: 'Trawl SDK', code: sdk(baseUrl, kind, body) },
    { id: 'js', name: 'JavaScript', code: js(baseUrl, kind, body) },
    { id: 'py', name: 'Python', code: py(baseUrl, kind, body) },
  ];
}
