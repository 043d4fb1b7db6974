import articles from '../../../../../articles.json';
export function entries() {
  return articles.map((a) => ({ id: String(a.id) }));
}
export function load({ params }) {
  return { article: articles.find((a) => String(a.id) === params.id) };
}
