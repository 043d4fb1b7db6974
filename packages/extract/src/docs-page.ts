// A documentation page that its JSON-LD, og:type and URL path do not call one (on WCXB's dev
// split about half the docs pages: docs.python.org/3/library/json.html, a Sphinx or mdBook
// site, docs.rs). page-type.ts reads it after the path hints: the docs layouts (sidebar and
// table of contents dropped, code kept) then run on them instead of the one-article layout.
// By what the site says of itself (the generator of a docs tool, a docs host, a link to
// edit the page's own source file: docs sites are built from files in a repository,
// articles from a CMS's database) and by structure: a chapter of a manual has code blocks
// and a previous/next pager through its siblings, and no publication date.

/** Generators of documentation sites, named in <meta name="generator">. */
const DOCS_GENERATOR = /\b(docusaurus|mkdocs|sphinx|gitbook|vitepress|vuepress|docfx|antora|nextra|mintlify|starlight|docsify|mdbook|hugo-book|jsdoc|typedoc|doxygen|readthedocs|rustdoc|docutils|bookdown)\b/i;

/**
 * A documentation host: a docs or doc subdomain (docs.python.org, doc.rust-lang.org) or a
 * docs hosting service. Not learn., developers., wiki.: on the dev sets those hold
 * course pages, news stories and articles as well.
 */
const DOCS_HOST = /^(docs?|devdocs)\.|\.(readthedocs\.io|readthedocs-hosted\.com|gitbook\.io)$|^docs\.rs$/i;

/**
 * A link to the page's source file in a repository or to Sphinx's copy of it: "Edit this
 * page" (Docusaurus, MkDocs, VitePress point at .../edit/<branch>/...md), "View page source"
 * (Sphinx's _sources/...rst.txt).
 */
const SOURCE_FILE_LINK = /\/(edit|blob)\/[^?#]+\.(md|mdx|rst|adoc|asciidoc)([?#]|$)|\/_sources\/[^?#]+\.(rst|md|txt)([?#]|$)/i;

export function isDocsGenerator(generator: string | undefined): boolean {
  return DOCS_GENERATOR.test(generator ?? '');
}

export function isDocsHost(host: string): boolean {
  return DOCS_HOST.test(host.replace(/^www\./i, ''));
}

/** The page links to its own source file (an "Edit this page" or "View page source" link). */
export function linksToSourceFile(document: Document): boolean {
  for (const a of document.querySelectorAll('a[href]')) if (SOURCE_FILE_LINK.test(a.getAttribute('href') ?? '')) return true;
  return false;
}

/** A wiki engine: its pages are a manual when they hold code (a software wiki); an encyclopedia's hold none. */
const WIKI_GENERATOR = /\b(mediawiki|dokuwiki)\b/i;
const MIN_WIKI_CODE = 4;
/** A manual's chapter shows at least this many code blocks (<pre>) and code spans (<code>, those in the blocks too). */
const MIN_CODE_BLOCKS = 3;
const MIN_CODE_ELEMENTS = 20;
/** The pager between a manual's chapters: rel=prev/next, a docs theme's pager classes, or links that say so. */
const PAGER = 'link[rel=next], link[rel=prev], a[rel=next], a[rel=prev], [class*="pagination-nav" i], [class*="prev-next" i], [class*="pager" i], [class*="nav-next" i]';
const PAGER_TEXT = /^\s*(previous|next)\s*(page|chapter|section)?\b/i;
/** An article's date: docs pages are revised, not published on a day. */
const PUBLISHED = 'time, [itemprop="datePublished"], meta[property="article:published_time"]';

/**
 * A page that reads as a manual's chapter by its structure: a wiki page with code, or a
 * page with code blocks and a pager through its siblings and no publication date (a blog
 * post with code has its date).
 */
export function looksLikeDocs(document: Document, generator: string | undefined): boolean {
  const body = document.body;
  if (!body) return false;
  const code = body.querySelectorAll('code').length;
  if (WIKI_GENERATOR.test(generator ?? '')) return code >= MIN_WIKI_CODE;
  if (body.querySelectorAll('pre').length < MIN_CODE_BLOCKS || code < MIN_CODE_ELEMENTS || document.querySelector(PUBLISHED)) return false;
  return !!document.querySelector(PAGER) || [...body.querySelectorAll('a[href]')].some((a) => PAGER_TEXT.test(a.textContent ?? ''));
}
