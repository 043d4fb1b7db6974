// One markdown page per article (the docs generator's input), written from articles.json.
import fs from 'node:fs';
const articles = JSON.parse(fs.readFileSync('../articles.json', 'utf8'));
fs.mkdirSync('docs/article', { recursive: true });
for (const a of articles) {
  const links = a.links.map((m) => `- [Harbour notes ${m}](/article/${m})`).join('\n');
  fs.writeFileSync(`docs/article/${a.id}.md`, `# ${a.title}\n\n${a.paragraphs.join('\n\n')}\n\n## More notes\n\n${links}\n`);
}
fs.writeFileSync('docs/index.md', `# Harbour notes\n\n${articles.map((a) => `- [${a.title}](/article/${a.id})`).join('\n')}\n`);
