import Link from 'next/link';
import articles from '../data/articles.json';
export default function Home() {
  return <main><h1>Harbour notes</h1><ul>{articles.map((a) => <li key={a.id}><Link href={`/article/${a.id}/`}>{a.title}</Link></li>)}</ul></main>;
}
