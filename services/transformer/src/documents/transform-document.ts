// A document response -> the same TransformOutput as a web page (docs/api.md "Documents"):
//   pdf      -> pdf.ts (text layer + layout heuristics); html = the markdown rendered;
//   docx     -> docx.ts (mammoth's HTML), then transformPage on that HTML, whole document;
//   text     -> as is; html = a <pre>;
//   markdown -> as is; html = the markdown rendered;
//   json     -> fenced as ```json; html = a <pre><code>.
// A type the request's `parsers` leaves out is not converted: its metadata only (PDF title,
// author and page count when they can be read), the bytes' link is the result.
// Documents carry no links: a crawl does not follow anything out of them.
import { decodeBuffer } from 'encoding-sniffer';
import MarkdownIt from 'markdown-it';
import { parsersOf, type Parser } from '../../../../shared/src/domain/scrape-options.js';
import { transformPage } from '../transform.js';
import type { TransformInput, TransformMetadata, TransformOutput } from '../types.js';
import { parseDocx } from './docx.js';
import { parsePdf } from './pdf.js';
import type { ParsedDocument } from './types.js';

const renderer = new MarkdownIt({ html: false, linkify: false, typographer: false });

export async function transformDocument(input: TransformInput): Promise<TransformOutput> {
  const document = input.document!;
  const parsed = await parse(input);
  const formats = new Set(input.options.formats);
  const metadata: TransformMetadata = {
    title: parsed.title ?? fileName(input.url),
    description: '',
    sourceUrl: input.url,
    ...(input.statusCode !== undefined ? { statusCode: input.statusCode } : {}),
    contentType: document.contentType,
    ...(parsed.author ? { author: parsed.author } : {}),
    ...(parsed.pageCount !== undefined ? { pageCount: parsed.pageCount } : {}),
    ...(parsed.pagesParsed !== undefined && parsed.pagesParsed < (parsed.pageCount ?? 0) ? { pagesParsed: parsed.pagesParsed } : {}),
    ...(parsed.needsOcr !== undefined ? { needsOcr: parsed.needsOcr } : {}),
    ...(parsed.pagesWithoutText ? { pagesWithoutText: parsed.pagesWithoutText } : {}),
    ...(parsed.parsed === false ? { parsed: false } : {}),
  };
  return {
    ...(formats.has('markdown') && parsed.parsed !== false ? { markdown: parsed.markdown } : {}),
    ...(formats.has('html') && parsed.parsed !== false ? { html: parsed.html ?? renderer.render(parsed.markdown).trim() } : {}),
    links: [],
    metadata,
  };
}

async function parse(input: TransformInput): Promise<ParsedDocument & { parsed?: boolean }> {
  const { kind, bytes, contentType, maxPages } = input.document!;
  const wanted = (parser: Parser): boolean => parsersOf(input.options).includes(parser);
  switch (kind) {
    case 'pdf':
      if (wanted('pdf')) return parsePdf(bytes, maxPages);
      // The link only: what the document is, when that can be read at all.
      return { ...(await parsePdf(bytes, 0).catch(() => ({}))), markdown: '', parsed: false, needsOcr: undefined, pagesParsed: undefined, pagesWithoutText: undefined };
    case 'docx': {
      if (!wanted('docx')) return { markdown: '', parsed: false };
      const docx = await parseDocx(bytes);
      const page = transformPage({
        html: `<!doctype html><html><head><meta charset="utf-8"></head><body>${docx.html}</body></html>`,
        url: input.url,
        // The whole document is the content: no main-content extraction, no selectors.
        options: { ...input.options, formats: ['markdown', 'html'], onlyMainContent: false, includeTags: [], excludeTags: [] },
      });
      return { ...docx, markdown: page.markdown ?? '', html: page.html ?? '' };
    }
    case 'text': {
      const text = decodeText(bytes, contentType);
      return { markdown: text, html: `<pre>${escapeHtml(text)}</pre>` };
    }
    case 'markdown':
      return { markdown: decodeText(bytes, contentType) };
    case 'json': {
      const text = decodeText(bytes, contentType).trim();
      const fence = '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
      return { markdown: `${fence}json\n${text}\n${fence}`, html: `<pre><code class="language-json">${escapeHtml(text)}</code></pre>` };
    }
  }
}

/** Text by its declared charset, else its BOM, else UTF-8 (encoding-sniffer, as for pages). */
function decodeText(bytes: Uint8Array, contentType: string): string {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1];
  return decodeBuffer(Buffer.from(bytes), { defaultEncoding: 'utf-8', ...(charset ? { transportLayerEncodingLabel: charset } : {}) }).replace(/^\uFEFF/, '');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A document without a title is named by its URL's last path segment ("report.pdf"). */
function fileName(url: string): string {
  try {
    const segment = new URL(url).pathname.split('/').filter(Boolean).pop();
    return segment ? decodeURIComponent(segment) : '';
  } catch {
    return '';
  }
}
