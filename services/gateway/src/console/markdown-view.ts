// A job's markdown as people read it, in the console. markdown-it with raw HTML off: any
// markup the scraped page put into the markdown is shown as text, never run, and its link
// check refuses javascript:, vbscript:, file: and data: (but images) URLs. The console's
// Content-Security-Policy still blocks remote images, so an image shows its alt text.
import { createRequire } from 'node:module';
import type MarkdownItModule from 'markdown-it';
import { SafeHtml } from './html.js';

// Loaded on the first rendered job page (synchronously, the CommonJS build): a gateway that
// serves only the API never holds markdown-it (its memory: docs/benchmarks.md "Third session").
const require = createRequire(import.meta.url);
type MarkdownIt = ReturnType<typeof MarkdownItModule>;
let renderer: MarkdownIt | undefined;

function makeRenderer(): MarkdownIt {
  const markdownIt = require('markdown-it') as typeof MarkdownItModule;
  const made = markdownIt({ html: false, linkify: false, typographer: false });
  // Links leave the console: no referrer, no window.opener.
  const defaultLink = made.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  made.renderer.rules.link_open = (tokens, idx, options, env, self) => {
    tokens[idx]!.attrSet('rel', 'nofollow noopener noreferrer');
    return defaultLink(tokens, idx, options, env, self);
  };
  // The page around it has its own <h1>: the markdown's headings move one level down, so the
  // console page keeps one top heading and a heading outline screen readers can follow.
  made.core.ruler.push('demote_headings', (state) => {
    for (const token of state.tokens) {
      if (token.type === 'heading_open' || token.type === 'heading_close') token.tag = `h${Math.min(6, Number(token.tag.slice(1)) + 1)}`;
    }
  });
  return made;
}

/** Rendered markdown, safe to place in a console page. */
export function renderMarkdown(markdown: string): SafeHtml {
  renderer ??= makeRenderer();
  return new SafeHtml(renderer.render(markdown));
}
