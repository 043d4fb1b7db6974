// Compares two directories of <id>.md on the trafilatura-eval set, page by page: which
// boilerplate segments one lets through that the other does not (a tuning aid).
//   npx tsx bench/score-dirs.ts DIR_A DIR_B
import fs from 'node:fs';
import path from 'node:path';
import { devSetDir, loadMarkdownToText, sharedDir } from './lib/extraction-dev.js';

const [a, b] = process.argv.slice(2);
const shared = sharedDir()!;
const truth = JSON.parse(fs.readFileSync(path.join(devSetDir(shared)!, 'ground-truth.json'), 'utf8')) as Record<string, { with: string[]; without: string[] }>;
const toText = await loadMarkdownToText(shared);
const norm = (s: string): string => s.replace(/\s+/g, ' ').trim();
const read = (dir: string, id: string): string => {
  const f = path.join(dir!, `${id}.md`);
  return fs.existsSync(f) ? norm(toText(fs.readFileSync(f, 'utf8'))) : '';
};
for (const [id, t] of Object.entries(truth)) {
  const ta = read(a!, id);
  const tb = read(b!, id);
  for (const w of t.without) {
    const inA = ta.includes(norm(w));
    const inB = tb.includes(norm(w));
    if (inA !== inB) console.log(`${id} boilerplate ${inA ? 'A' : 'B'} only: ${w.slice(0, 100)}`);
  }
  for (const w of t.with) {
    const inA = ta.includes(norm(w));
    const inB = tb.includes(norm(w));
    if (inA !== inB) console.log(`${id} content ${inA ? 'A' : 'B'} only: ${w.slice(0, 100)}`);
  }
}
