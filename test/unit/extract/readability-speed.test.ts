// The cheaper Readability methods (readability-speed.ts) must answer as the library's own do,
// element by element, on markup that exercises each branch: styles that hide and styles that
// do not, hidden and aria-hidden (with Wikimedia's fallback-image exception), author marks
// by rel, itemprop and name, hash links, whitespace runs across nodes, template contents.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isProbablyReaderable, Readability } from '@mozilla/readability';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { probablyReaderable, speedUpReadability } from '../../../packages/extract/src/readability-speed.js';

const PAGE = `<!DOCTYPE html><html><head><title>A page</title></head><body>
  <div class="byline">By <a rel="author" href="/ann">Ann</a></div>
  <span itemprop="author name"> Bob   Builder </span><span itemprop="author">${'x'.repeat(120)}</span>
  <p style="display: none">hidden by style</p><p style="visibility:hidden">invisible</p><p style="color: red">red</p>
  <p hidden>hidden</p><div aria-hidden="true">aria</div><img aria-hidden="true" class="mwe-math-fallback-image-inline" src="/m.png">
  <div aria-hidden="false"><p>shown</p></div>
  <article><h1>Title</h1><h2>Sub</h2><p>Text \n <b> bold </b>\u00a0 with <a href="#note">a note</a> and <a href="/x">a  link</a>.</p>
  <ul><li><a href="/1">one</a></li><li>two <a>no href</a></li></ul><table><tr><td>cell</td></tr></table>
  <template><p>in a <a href="/t">template</a></p></template><svg><text>svg</text></svg><p></p><div>   </div></article>
</body></html>`;

interface Methods {
  _isProbablyVisible(node: Element): boolean;
  _isValidByline(node: Element, matchString: string): boolean;
  _getAllNodesWithTag(node: ParentNode, tags: string[]): ArrayLike<Element>;
  _getLinkDensity(element: Element): number;
  _getTextDensity(element: Element, tags: string[]): number;
  _isElementWithoutContent(node: Element): boolean;
}

describe('Readability with the cheaper methods', () => {
  test('given a page, when each element is asked about, then the cheaper methods answer as the library does', () => {
    const document = parseDocument(PAGE);
    const plain = new Readability(document) as unknown as Methods;
    const fast = speedUpReadability(new Readability(document)) as unknown as Methods;
    // A link in a link (the parser closes the first <a> at the second: only scripts nest them), for the link density.
    const outer = document.querySelector('ul a')!;
    const inner = document.createElement('a');
    inner.setAttribute('href', '#inner');
    inner.textContent = ' nested  link ';
    outer.append(inner, ' after');
    const roots = [document as unknown as ParentNode, ...document.querySelectorAll('*')];
    for (const el of document.querySelectorAll('*')) {
      const what = el.outerHTML.slice(0, 60);
      assert.equal(!!fast._isProbablyVisible(el), !!plain._isProbablyVisible(el), what);
      const matchString = `${el.className} ${el.id}`;
      assert.equal(fast._isValidByline(el, matchString), plain._isValidByline(el, matchString), what);
      assert.equal(fast._getLinkDensity(el), plain._getLinkDensity(el), what);
      for (const tags of [['p'], ['a', 'b'], ['li', 'td']]) assert.equal(fast._getTextDensity(el, tags), plain._getTextDensity(el, tags), `${tags.join()} ${what}`);
      assert.equal(fast._isElementWithoutContent(el), plain._isElementWithoutContent(el), what);
    }
    for (const root of roots) {
      for (const tags of [['p'], ['a'], ['h1', 'h2'], ['ul', 'ol', 'table'], ['*'], ['text'], ['SPAN', 'LI', 'TD', 'DIV', 'P'], ['TD']]) {
        assert.deepEqual([...Array.from(fast._getAllNodesWithTag(root, tags))], [...Array.from(plain._getAllNodesWithTag(root, tags))], tags.join());
      }
    }
  });

  test('given pages whose long paragraph is shown or hidden in each way, when asked whether they are readerable, then the answer is the library\'s', () => {
    const long = 'A sentence of the article that goes on for a while. '.repeat(8);
    const answers: boolean[] = [];
    for (const attrs of ['', 'style="color: red"', 'style="display:none"', 'style="visibility: hidden"', 'hidden', 'aria-hidden="true"', 'aria-hidden="true" class="fallback-image"']) {
      const html = `<html><body><p ${attrs}>${long}</p><p>${long}</p></body></html>`;
      // The same text as lines of a <div> (isProbablyReaderable's "div > br"), and a <br> in a <section> that does not count.
      const lines = `<html><body><div ${attrs}>${long}<br>${long}<br></div><section>${long}<br></section><template><div>${long}<br></div></template></body></html>`;
      assert.equal(probablyReaderable(parseDocument(lines)), isProbablyReaderable(parseDocument(lines)), `lines ${attrs}`);
      const answer = probablyReaderable(parseDocument(html));
      assert.equal(answer, isProbablyReaderable(parseDocument(html)), attrs);
      answers.push(answer);
    }
    assert.ok(answers.includes(true) && answers.includes(false), 'both answers are exercised');
  });

  test('given a page, when Readability parses it with the cheaper methods, then the article is the same', () => {
    const article = (speed: boolean): string => {
      const reader = new Readability(parseDocument(PAGE), { keepClasses: true, charThreshold: 10 });
      return (speed ? speedUpReadability(reader) : reader).parse()?.content ?? '';
    };
    assert.equal(article(true), article(false));
    assert.ok(article(true).includes('a note'));
  });

  test('given a page too short for a first attempt, when Readability tries again with fewer flags, then the article is the same and the body reads as HTML again', () => {
    // Under the 500 characters of text an attempt must find: every attempt runs, each from the body as it was.
    const page = `<html><head><title>Short</title></head><body><div class="sidebar"><p>A side note, kept only once the unlikely candidates stay.</p></div>
      <div class="comment"><p>A comment that reads like a paragraph, with a comma, or two.</p></div><article><p>The short article, with its one paragraph of text.</p></article></body></html>`;
    const parsed = (speed: boolean): { content: string; body: Document['body'] } => {
      const document = parseDocument(page);
      const reader = new Readability(document, { keepClasses: true });
      return { content: (speed ? speedUpReadability(reader) : reader).parse()?.content ?? '', body: document.body };
    };
    const fast = parsed(true);
    assert.equal(fast.content, parsed(false).content);
    assert.ok(fast.content.includes('A side note'), 'a later attempt found the text the first one stripped');
    assert.equal(Object.getOwnPropertyDescriptor(fast.body, 'innerHTML'), undefined);
    assert.ok(fast.body.innerHTML.includes('<'), fast.body.innerHTML.slice(0, 40));
  });
});
