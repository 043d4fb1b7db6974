// The page outcome fixture corpus (test/fixtures/page-outcome): hand-written pages with the
// status and headers their vendors serve. Read from the source tree (the compiled tests live
// in dist/, the HTML is not compiled).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PageOutcome } from '../../shared/src/domain/page-outcome/outcome.js';

export interface CorpusPage {
  file: string;
  outcome: PageOutcome;
  status: number;
  url: string;
  headers: Record<string, string | string[]>;
  html: string;
}

export function corpusDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return path.join(dir, 'test', 'fixtures', 'page-outcome');
}

export function loadCorpus(): CorpusPage[] {
  const dir = corpusDir();
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { pages: Omit<CorpusPage, 'html'>[] };
  return manifest.pages.map((p) => ({ ...p, html: fs.readFileSync(path.join(dir, p.file), 'utf8') }));
}

/** Every .html file under the corpus, relative (to check the manifest lists them all). */
export function corpusFiles(): string[] {
  const dir = corpusDir();
  return fs.readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => fs.readdirSync(path.join(dir, d.name)).filter((f) => f.endsWith('.html')).map((f) => `${d.name}/${f}`))
    .sort();
}
