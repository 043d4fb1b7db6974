// The Vue SPA fetches each article at load: one JSON file per article in public/data.
import fs from 'node:fs';
const articles = JSON.parse(fs.readFileSync('../articles.json', 'utf8'));
fs.mkdirSync('public/data', { recursive: true });
for (const a of articles) fs.writeFileSync(`public/data/${a.id}.json`, JSON.stringify(a));
fs.writeFileSync('public/data/index.json', JSON.stringify(articles.map(({ id, title }) => ({ id, title }))));
