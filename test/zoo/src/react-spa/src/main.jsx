// A client-rendered SPA: every route is index.html; the article is built from the bundle.
import { createRoot } from 'react-dom/client';
import articles from '../../articles.json';

function Page() {
  const n = Number(/\/article\/(\d+)/.exec(location.pathname)?.[1] ?? 0);
  const article = articles.find((a) => a.id === n);
  if (!article) {
    return <main><h1>Harbour notes</h1><ul>{articles.map((a) => <li key={a.id}><a href={`/article/${a.id}`}>{a.title}</a></li>)}</ul></main>;
  }
  return (
    <main>
      <article><h1>{article.title}</h1>{article.paragraphs.map((p, i) => <p key={i}>{p}</p>)}</article>
      <nav>{article.links.map((m) => <a key={m} href={`/article/${m}`}>Harbour notes {m}</a>)}</nav>
    </main>
  );
}
createRoot(document.getElementById('root')).render(<Page />);
