import Link from 'next/link';
import articles from '../../../data/articles.json';
import Reactions from './reactions';

export function generateStaticParams() {
  return articles.map((a) => ({ id: String(a.id) }));
}
export async function generateMetadata({ params }) {
  const { id } = await params;
  return { title: articles.find((a) => String(a.id) === id).title };
}
export default async function Article({ params }) {
  const { id } = await params;
  const article = articles.find((a) => String(a.id) === id);
  return (
    <main>
      <article><h1>{article.title}</h1>{article.paragraphs.map((p, i) => <p key={i}>{p}</p>)}</article>
      <Reactions title={article.title} />
      <nav>{article.links.map((m) => <Link key={m} href={`/article/${m}/`}>{`Harbour notes ${m}`}</Link>)}</nav>
    </main>
  );
}
