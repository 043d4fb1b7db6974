// onlyMainContent: Mozilla Readability picks the article. It runs on the already cleaned,
// URL-resolved document (and mutates it, so it comes after metadata and links).
import { Readability } from '@mozilla/readability';

/**
 * The main content element, or null when Readability finds no text at all (the caller
 * then falls back to the body without site chrome, see transform.ts).
 */
export function extractMainContent(document: Document): Element | null {
  const article = new Readability<Element>(document, {
    // Classes carry the code language (language-x); the html output keeps them too.
    keepClasses: true,
    serializer: (node) => node as Element,
  }).parse();
  const content = article?.content;
  return content && (article?.textContent ?? '').trim().length > 0 ? content : null;
}
