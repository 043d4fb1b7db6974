// Declarative shadow roots are opened before the parse (services/transformer/src/shadow-roots.ts),
// as a browser's parser attaches them: a server-rendered web component's content is read.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openDeclarativeShadowRoots } from '../../../services/transformer/src/shadow-roots.js';
import { transformPage } from '../../../services/transformer/src/index.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { loadCorpus } from '../../support/outcome-corpus.js';

const markdownOf = (html: string, url = 'https://engineering.example.com/blog/post') =>
  transformPage({ html, url, options: normalizeScrapeOptions({ formats: ['markdown'] }), statusCode: 200 });

describe('declarative shadow roots', () => {
  test('the template tags of open and closed shadow roots go, their content stays in place', () => {
    const html = '<x-a><template shadowrootmode="open"><p>A</p></template><span slot="s">light</span></x-a><x-b><template shadowrootmode="closed"><p>B</p></template></x-b>';
    assert.equal(openDeclarativeShadowRoots(html), '<x-a><p>A</p><span slot="s">light</span></x-a><x-b><p>B</p></x-b>');
  });

  test('nested shadow roots and Chromium\'s older shadowroot attribute are opened; an ordinary template inside one stays', () => {
    const html = '<x-o><TEMPLATE shadowroot="open"><x-i><template shadowrootmode="open"><b>in</b><template id="row"><i>inert</i></template></template></x-i></TEMPLATE></x-o>';
    assert.equal(openDeclarativeShadowRoots(html), '<x-o><x-i><b>in</b><template id="row"><i>inert</i></template></x-i></x-o>');
  });

  test('an ordinary template, an invalid mode and the words in a script are left as they are', () => {
    for (const html of [
      '<template id="row"><p>inert</p></template>',
      '<template shadowrootmode="sideways"><p>not a shadow root</p></template>',
      '<script>const t = "<template shadowrootmode=\\"open\\">"; </script><p>text</p>',
    ]) assert.equal(openDeclarativeShadowRoots(html), html);
  });

  test('a document ending inside a shadow root keeps what came', () => {
    assert.equal(openDeclarativeShadowRoots('<x-a><template shadowrootmode="open"><p>cut'), '<x-a><p>cut');
  });

  test('through the transform: a server-rendered web component page is ok and its article is the markdown', () => {
    const page = loadCorpus().find((p) => p.file === 'ok/web-components-ssr.html')!;
    const out = markdownOf(page.html, page.url);
    assert.equal(out.metadata.pageOutcome, 'ok');
    assert.match(out.markdown ?? '', /^# Building a design system with web components$/m);
    assert.match(out.markdown ?? '', /the browser attaches it while parsing/);
    assert.match(out.markdown ?? '', /one set of components replaced four libraries/, 'the slotted light-DOM paragraph stays');
  });

  test('through the transform: a page whose only text is in shadow roots is not empty', () => {
    const body = 'A component rendered on the server keeps its text in its shadow root. '.repeat(10);
    const out = markdownOf(`<!doctype html><html><head><title>Post</title></head><body><x-post><template shadowrootmode="open"><article><h1>Post</h1><p>${body}</p></article></template></x-post></body></html>`);
    assert.equal(out.metadata.pageOutcome, 'ok', out.metadata.pageOutcomeEvidence?.join(' · '));
    assert.match(out.markdown ?? '', /keeps its text in its shadow root/);
  });
});
