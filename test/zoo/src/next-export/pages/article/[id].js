import Head from 'next/head';
import Link from 'next/link';
import articles from '../../data/articles.json';

export async function getStaticPaths() {
  return { paths: articles.map((a) => ({ params: { id: String(a.id) } })), fallback: false };
}
export async function getStaticProps({ params }) {
  return { props: { article: articles.find((a) => String(a.id) === params.id) } };
}
export default function Article({ article }) {
  return (
    <main>
      <Head><title>{article.title}</title></Head>
      <article><h1>{article.title}</h1>{article.paragraphs.map((p, i) => <p key={i}>{p}</p>)}</article>
      <nav>{article.links.map((m) => <Link key={m} href={`/article/${m}/`}>{`Harbour notes ${m}`}</Link>)}</nav>
    </main>
  );
}
