// Docs, service and streamed pages (issue 22): class names that only look like boilerplate
// (a grid utility joined into "autor", a docs heading "hide-from-toc", a CMS's repeated
// "meta-block" bands), a service page's stack of sections, code lines in per-line spans,
// and the content a streamed React page sends hidden at the end of its body.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { isBoilerplateToken, judgeName, nameTokens, removeBoilerplateByName } from '../../../packages/extract/src/boilerplate.js';
import { betterCandidate } from '../../../packages/extract/src/candidate.js';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { extractPage } from '../../../packages/extract/src/index.js';
import { sectionStacks } from '../../../packages/extract/src/section-stack.js';
import { placeStreamedSegments } from '../../../packages/extract/src/streamed.js';

function markdown(body: string, url = 'https://www.example.com/page', title = 'Page | Acme'): string {
  const html = `<!DOCTYPE html><html><head><title>${title}</title></head><body>${body}</body></html>`;
  return extractPage({ html, url, options: normalizeScrapeOptions({ formats: ['markdown'], onlyMainContent: true }) }).markdown ?? '';
}

function body(html: string): Element {
  return parseDocument(`<!DOCTYPE html><html><body>${html}</body></html>`).body;
}

const SENTENCES = [
  'Our engineers plan the migration with your team and move each service without downtime for your customers.',
  'Every deployment is watched by the same people who built it, day and night, with a report at the end of each week.',
  'Backups run every hour and are kept for ninety days in a second region, so a lost file is back in minutes.',
  'Prices follow what you use: no seats, no minimums, and a bill that lists every hour of every machine you ran.',
  'Security reviews are part of every project, and the findings are fixed before the work is called done by us.',
  'Training for your staff comes with the handover, in small groups, so that nobody depends on us afterwards.',
];

describe('names that only look like boilerplate', () => {
  test('two words of a name are joined only when the boilerplate word reaches well into the second', () => {
    // Given a grid utility class whose words join into "autorepeat" (starts like "autor", author)
    // When it is judged
    // Then it is no author box; "read-more" and "screen-reader" still are boilerplate
    assert.equal(isBoilerplateToken(['grid', 'cols', 'auto', 'repeat', '5', 'minmax', '0', '1fr']), false);
    assert.equal(isBoilerplateToken(['read', 'more']), true);
    assert.equal(isBoilerplateToken(['screen', 'reader', 'text']), true);
    assert.equal(isBoilerplateToken(['post', 'meta']), true);
  });

  test('a docs heading marked hide-from-toc is a heading, not a table of contents', () => {
    const el = body('<h3 class="hide-from-toc no-link">Hello</h3>').firstElementChild!;
    assert.equal(judgeName(nameTokens(el)), 'none');
    // ...while a block hidden when printed is still chrome
    assert.equal(judgeName(nameTokens(body('<div class="hidden-print">Ad</div>').firstElementChild!)), 'boilerplate');
    const md = markdown(
      `<main><h1>Get started</h1><p>${SENTENCES[0]}</p><h3 class="hide-from-toc">Hello, world!</h3><p>${SENTENCES[1]}</p><h3 class="hide-from-toc">Build for every screen</h3><p>${SENTENCES[2]}</p></main>`,
      'https://developer.example.com/get-started/overview',
    );
    assert.match(md, /^### Hello, world!$/m, md);
    assert.match(md, /^### Build for every screen$/m, md);
  });

  test('a boilerplate-looking name repeated down the page over most of its text is the page, and stays', () => {
    // Given a service page whose CMS calls every band a "meta-block-section", and one real meta line
    const bands = SENTENCES.map((s, i) => `<div><section class="jss-meta-block-section w-${i}"><h2>Band ${i}</h2><p>${s}</p></section></div>`).join('');
    const root = body(`<h1>Services</h1>${bands}<div class="post-meta">Posted by Acme</div>`);
    const article = root.cloneNode(true) as Element;
    // When boilerplate is removed by name on a page built of sections, and on an article
    removeBoilerplateByName(root, { keepBuildingBlocks: true });
    removeBoilerplateByName(article);
    // Then every band stays and the lone meta line goes; the article keeps no band
    assert.equal(root.querySelectorAll('section').length, SENTENCES.length);
    assert.ok(!root.textContent!.includes('Posted by Acme'));
    assert.equal(article.querySelectorAll('section').length, 0);
  });

  test('a repeated name counts once where it nests in itself', () => {
    // Given two widgets that each nest a widget of the same name: two of them, not four
    const widget = (s: string) => `<div class="widget-slot"><div class="widget-slot"><p>${s}</p></div></div>`;
    const root = body(`<h1>Services</h1>${SENTENCES.slice(0, 4).map((s) => `<p>${s}</p>`).join('')}${widget(SENTENCES[4]!)}${widget(SENTENCES[5]!)}`);
    removeBoilerplateByName(root, { keepBuildingBlocks: true });
    assert.equal(root.querySelectorAll('.widget-slot').length, 0);
  });

  test('repeated names over little of the text, or made of links, still go', () => {
    const prose = SENTENCES.map((s) => `<p>${s} ${s}</p>`).join('');
    const shareBars = '<div class="share-bar">Share</div>'.repeat(3);
    const related = Array.from({ length: 4 }, (_, i) => `<div class="related-item"><a href="/r${i}">${SENTENCES[i]}</a></div>`).join('');
    const root = body(`<h1>Story</h1>${prose}${shareBars}${related}`);
    removeBoilerplateByName(root, { keepBuildingBlocks: true });
    assert.equal(root.querySelectorAll('.share-bar, .related-item').length, 0);
  });

  test('comment threads go however often their name repeats', () => {
    const comments = SENTENCES.map((s) => `<div class="comment-body"><p>${s}</p></div>`).join('');
    const root = body(`<h1>Story</h1><p>${SENTENCES[0]}</p>${comments}`);
    removeBoilerplateByName(root, { keepBuildingBlocks: true });
    assert.equal(root.querySelectorAll('.comment-body').length, 0);
  });
});

describe('a service page keeps its several sections', () => {
  test('a section stack with a fifth more text than the one section kept replaces it; an article container needs half more', () => {
    // Given the one section Readability kept, and the stack of sections it came from (1.3 times its text)
    const section = `<section><h2>Hosting</h2><p>${SENTENCES[0]} ${SENTENCES[1]} ${SENTENCES[2]}</p></section>`;
    const stack = () => body(`<div class="stack">${section}<section><h2>Support</h2><p>${SENTENCES[3]}</p></section></div>`).firstElementChild!;
    const article = () => body(section).firstElementChild!;
    // When the stack is offered with the section stack's gain, and with the default gain
    const taken = betterCandidate(article(), [stack()], { linkDensity: true }, 1.2);
    const kept = betterCandidate(article(), [stack()], { linkDensity: true });
    // Then the stack is taken only with the lower gain
    assert.ok(taken.textContent!.includes('Support'), taken.outerHTML);
    assert.ok(!kept.textContent!.includes('Support'), kept.outerHTML);
  });
});

describe('a page that declares nothing and reads as prose keeps its bands', () => {
  // A company's page of prose bands, each a container of its own (a page builder's panels):
  // it declares no kind, so it is typed article by its prose, and Readability keeps the band
  // with the most prose, without the feature list and the short paragraphs beside it.
  const panel = (columns: string): string => `<div class="panel"><div class="container"><div class="row">${columns}</div></div></div>`;
  const features = ['Risk reviews of every system you run', 'Penetration tests twice a year, by two teams', 'Audits against the common frameworks', 'Cloud posture checks every month', 'Reviews of your incident playbooks', 'Tabletop drills with your managers'];
  const courses = ['Training comes with the handover, in small groups.', 'Workshops last one day and end with a written plan.', 'Each course is held on site or online, as you prefer.', 'Certificates are issued to every person who attends.'];
  const page =
    `<header><nav><a href="/">Home</a> <a href="/contact">Contact</a></nav></header><div id="area">` +
    panel(`<div class="col-8"><h2>How we work</h2><p>${SENTENCES.slice(0, 3).join(' ')}</p><p>${SENTENCES.slice(3).join(' ')}</p></div>`) +
    panel(`<div class="col-6"><h3>Assessments</h3><ul>${features.map((f) => `<li>${f}</li>`).join('')}</ul></div><div class="col-6"><h3>Training</h3>${courses.map((c) => `<p>${c}</p>`).join('')}</div>`) +
    `</div><footer><a href="/privacy">Privacy</a></footer>`;

  test('its prose container is offered beside Readability’s article; not on a page that declares a kind', () => {
    // Given the page's body
    // When the candidates are asked for an undeclared article, a declared article and a listing
    const undeclared = sectionStacks(body(page), 'article', undefined);
    const declared = sectionStacks(body(page), 'article', 'article');
    const listing = sectionStacks(body(page), 'listing', undefined);
    // Then only the undeclared article gets the stack, the container of both panels
    assert.equal(undeclared.length, 1);
    assert.equal(undeclared[0]!.id, 'area');
    assert.deepEqual([declared.length, listing.length], [0, 0]);
  });

  test('the extraction keeps every band', () => {
    // Given the page, with no JSON-LD, og:type or telling URL
    // When its main content is extracted
    const md = markdown(page, 'https://www.example.com/consulting-offer');
    // Then both panels are in it, and the site's menus are not
    for (const text of [SENTENCES[0]!, features[5]!, courses[3]!]) assert.ok(md.includes(text), md);
    assert.ok(!md.includes('Privacy'), md);
  });
});

describe('code lines in per-line spans', () => {
  test('line spans side by side (minified) are one line each', () => {
    const md = markdown(
      `<main><h1>Install</h1><p>${SENTENCES[0]}</p><pre class="shiki"><code><span class="line"><span>npm</span><span> create vite@latest my-project</span></span><span class="line"><span>cd</span><span> my-project</span></span></code></pre><p>${SENTENCES[1]}</p></main>`,
      'https://docs.example.com/installation',
    );
    assert.ok(md.includes('```\nnpm create vite@latest my-project\ncd my-project\n```'), md);
  });

  test('line spans separated by newlines get no blank lines between them', () => {
    const md = markdown(
      `<main><h1>Install</h1><p>${SENTENCES[0]}</p><pre><code><span class="line">a = 1</span>\n<span class="line">b = 2</span></code></pre><p>${SENTENCES[1]}</p></main>`,
      'https://docs.example.com/installation',
    );
    assert.ok(md.includes('```\na = 1\nb = 2\n```'), md);
  });
});

describe('streamed server rendering', () => {
  test('a hidden segment takes its placeholder’s place, and the fallback goes', () => {
    const root = body(
      '<main><h1>Title</h1><div class="slot"><!--$?--><template id="B:0"></template><p>Loading...</p><!--/$--></div><p>After</p></main>' +
        '<div hidden id="S:0"><section><h2>Features</h2><p>The streamed part.</p></section></div>',
    );
    assert.equal(placeStreamedSegments(root), 1);
    const slot = root.querySelector('.slot')!;
    assert.ok(slot.textContent!.includes('The streamed part.'));
    assert.ok(!root.textContent!.includes('Loading...'));
    assert.equal(root.querySelector('[hidden]'), null);
  });

  test('a part streamed later into a segment (React $RS: S:n over P:n, n in hex) is placed too, in the segment already placed', () => {
    const root = body(
      '<main><div class="slot"><!--$?--><template id="B:0"></template><p>Loading...</p><!--/$--></div></main>' +
        '<div hidden id="S:0"><h2>Index funds</h2><template id="P:1a"></template><p>The end.</p></div>' +
        '<div hidden id="S:1a"><p>Returns can differ among funds.</p></div>',
    );
    assert.equal(placeStreamedSegments(root), 2);
    assert.deepEqual([...root.querySelector('.slot')!.children].map((el) => el.textContent), ['Index funds', 'Returns can differ among funds.', 'The end.']);
    assert.equal(root.querySelector('[hidden], template'), null);
  });

  test('a segment without its placeholder stays hidden (and is removed with the hidden content)', () => {
    const root = body('<main><p>Only</p></main><div hidden id="S:3"><p>Orphan</p></div>');
    assert.equal(placeStreamedSegments(root), 0);
    assert.ok(root.querySelector('[hidden]'));
    const md = markdown(`<main><h1>Title</h1><p>${SENTENCES[0]}</p><p>${SENTENCES[1]}</p></main><div hidden id="S:3"><p>Orphan text of no boundary</p></div>`);
    assert.ok(!md.includes('Orphan'), md);
  });

  test('the streamed sections of a page are in its markdown', () => {
    const md = markdown(
      `<main><section><h1>Your fastest path to production</h1><p>${SENTENCES[0]}</p></section><section><!--$?--><template id="B:1"></template><!--/$--></section></main>` +
        `<div hidden id="S:1"><h2>Click, click, done.</h2><p>${SENTENCES[1]}</p><p>${SENTENCES[2]}</p></div>`,
    );
    assert.ok(md.includes(SENTENCES[1]!), md);
    assert.ok(md.includes('Click, click, done.'), md);
  });
});
