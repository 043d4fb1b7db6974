// Writes crawled or batch-scraped pages as markdown files, one per page, named after the
// URL's path under the output folder (`/` → index.md, `/docs/intro` → docs/intro.md,
// another host → <host>/…), with a small front matter saying where the page came from.
import fs from 'node:fs';
import path from 'node:path';

export interface PageLike {
  url: string;
  markdown?: string;
  metadata?: { title?: string; description?: string; statusCode?: unknown; [k: string]: unknown };
  error?: { code: string; message: string };
  status?: string;
}

export class PageWriter {
  readonly files: string[] = [];
  private readonly used = new Set<string>();

  constructor(private readonly dir: string, private readonly startHost: string | undefined) {}

  /** Writes the page and returns the file's path (relative to the output folder). */
  write(page: PageLike): string {
    const rel = this.unique(this.fileFor(page.url));
    const file = path.join(this.dir, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const front = ['---', `url: ${JSON.stringify(page.url)}`];
    if (page.metadata?.title) front.push(`title: ${JSON.stringify(page.metadata.title)}`);
    if (page.metadata?.statusCode !== undefined) front.push(`statusCode: ${JSON.stringify(page.metadata.statusCode)}`);
    if (page.error) front.push(`error: ${JSON.stringify(`${page.error.code}: ${page.error.message}`)}`);
    front.push('---', '');
    fs.writeFileSync(file, `${front.join('\n')}${page.markdown ?? ''}\n`);
    this.files.push(rel);
    return rel;
  }

  private fileFor(url: string): string {
    const u = new URL(url);
    const segments = decodeSafely(u.pathname).split('/').filter((s) => s && s !== '.' && s !== '..').map(safe);
    let name = segments.length ? segments.join('/') : 'index';
    if (u.search) name += `_${safe(u.search.slice(1))}`;
    name = name.replace(/\.(html?|php|aspx?)$/i, '');
    const host = u.host === this.startHost ? '' : `${safe(u.host)}/`;
    return `${host}${name}.md`.slice(-200);
  }

  private unique(rel: string): string {
    let candidate = rel;
    for (let i = 2; this.used.has(candidate); i++) candidate = rel.replace(/\.md$/, `-${i}.md`);
    this.used.add(candidate);
    return candidate;
  }
}

/** The path percent-decoded, or as it is when its encoding is broken. */
function decodeSafely(p: string): string {
  try { return decodeURIComponent(p); } catch { return p; }
}

/** A file or folder name without characters that are special on some file system. */
const safe = (s: string): string => s.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 100) || '_';
