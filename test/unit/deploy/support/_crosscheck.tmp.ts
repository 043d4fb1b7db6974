import fs from 'node:fs';
import assert from 'node:assert/strict';
import { parseAllDocuments } from 'yaml';
import { loadChart, renderChart } from './helm-lite.js';
const chart = loadChart('deploy/helm/trawl');
const cases: Array<[string, string[], string]> = [
  ['/tmp/go-values-dev.yaml.out', ['deploy/helm/trawl/values-dev.yaml'], 'trawl'],
  ['/tmp/go-prod.yaml.out', ['/tmp/vals/prod.yaml'], 'trawl'],
  ['/tmp/go-existing.yaml.out', ['/tmp/vals/existing.yaml'], 'trawl'],
  ['/tmp/go-existing-named.out', ['/tmp/vals/existing.yaml'], 'my-trawl'],
];
for (const [goFile, vf, rel] of cases) {
  const r = renderChart(chart, { valuesFiles: vf, releaseName: rel });
  const go = fs.readFileSync(goFile, 'utf8');
  // split go output by "# Source:" sections
  const goFiles = new Map<string, string>();
  for (const part of go.split(/^---\n# Source: /m).slice(1)) {
    const nl = part.indexOf('\n');
    goFiles.set(part.slice(0, nl), part.slice(nl + 1).replace(/\n$/, ''));
  }
  let textSame = 0, semSame = 0;
  for (const [name, goText] of goFiles) {
    const ts = r.files.get(name);
    assert.ok(ts !== undefined, `missing ${name}`);
    if (ts === goText) { textSame++; continue; }
    const a = parseAllDocuments(goText).map((d) => d.toJS()).filter((x) => x != null);
    const b = name.endsWith('NOTES.txt') ? null : parseAllDocuments(ts).map((d) => d.toJS()).filter((x) => x != null);
    if (b) { try { assert.deepEqual(b, a); semSame++; continue; } catch (e) { console.log('DIFF', goFile, name, (e as Error).message.slice(0, 3000)); } }
    else { console.log('NOTES DIFF', JSON.stringify(goText), JSON.stringify(ts)); }
  }
  for (const [name, out] of r.files) if (!goFiles.has(name) && out.trim() !== '') console.log('EXTRA in ts', name, JSON.stringify(out.slice(0, 200)));
  console.log(goFile, 'files', goFiles.size, 'text-identical', textSame, 'semantically-equal', semSame);
}
