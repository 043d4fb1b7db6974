// Accordions (clean.ts accordionPanels): the WAI-ARIA accordion puts each section's label in
// a button inside a heading, and the button's aria-controls names the panel it opens. A
// closed panel is hidden (hidden, aria-hidden or display:none) until a click, but it is the
// section's text: FAQs on a service page, a shop's buying guide. Buttons are controls and go,
// except this one, whose text is the heading. A menu's toggle is no heading: what it opens
// stays hidden, and so does a hidden element no heading controls. A "Read more" button
// (a disclosure: aria-expanded="false", controlling the element right after it) opens the rest
// of a text: its panel is revealed when it is prose, never when it is a list of links.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../../packages/extract/src/index.js';

const INTRO =
  'We repair and service bicycles of every make in our workshop by the canal, from a quick brake adjustment to a full ' +
  'rebuild of a vintage frame. Book a slot online or drop in: most repairs are done the same day, and we call before any ' +
  'work that costs more than the quote.';

function faqPage(panelHiding: string): string {
  return `<html><head><title>Bicycle repairs | Canal Cycles</title></head><body>
    <header><button aria-controls="site-menu" aria-expanded="false">Menu</button>
      <div id="site-menu" hidden><a href="/shop">Shop the spring range</a> <a href="/hire">Hire a cargo bike</a></div></header>
    <main><h1>Bicycle repairs</h1><p>${INTRO}</p>
      <section><h2>Questions we are asked</h2>
        <h3><button aria-expanded="false" aria-controls="faq-1">How long does a full service take?</button></h3>
        <div id="faq-1" ${panelHiding}><p>A full service takes about three hours; leave the bike in the morning and collect it after lunch.</p></div>
        <h3><button aria-expanded="false" aria-controls="faq-2">Do you fit parts that I bring?</button></h3>
        <div id="faq-2" ${panelHiding}><p>Yes, we fit parts you bring for the labour price alone, and we tell you first if a part does not suit the frame.</p></div>
        <h3><button aria-expanded="false" aria-controls="faq-3">Can you collect a bike from home?</button></h3>
        <div id="faq-3" ${panelHiding}><p>Within five kilometres of the canal we collect and return bikes on weekdays for a small flat fee.</p></div>
      </section>
      <div class="newsletter-popup" style="display:none"><p>Sign up and save ten per cent on your next service.</p></div>
    </main></body></html>`;
}

function markdown(html: string, url = 'https://canalcycles.example/repairs'): string {
  return extractPage({ html, url, options: normalizeScrapeOptions({ formats: ['markdown'], onlyMainContent: true }) }).markdown ?? '';
}

describe('accordions', () => {
  for (const [how, hiding] of [
    ['the hidden attribute', 'hidden'],
    ['aria-hidden', 'aria-hidden="true"'],
    ['an inline display:none', 'style="display: none"'],
  ] as const) {
    test(`given a FAQ whose answers are closed by ${how}, then every question and answer is kept`, () => {
      const md = markdown(faqPage(hiding));
      for (const question of ['How long does a full service take?', 'Do you fit parts that I bring?', 'Can you collect a bike from home?']) {
        assert.ok(md.includes(`### ${question}`), `${question}\n${md}`);
      }
      assert.match(md, /collect it after lunch/);
      assert.match(md, /for the labour price alone/);
      assert.match(md, /small flat fee/);
      // A menu's toggle is no heading, and a hidden element that nothing in a heading controls is no panel.
      assert.ok(!md.includes('spring range'), md);
      assert.ok(!md.includes('ten per cent'), md);
    });
  }

  test('given an accordion heading whose button holds a heading of its own, then the markdown has one heading', () => {
    const html = `<html><head><title>How it works</title></head><body><main><h1>How it works</h1><p>${INTRO}</p>
      <h2><button aria-controls="step-1" aria-expanded="true"><h3>Tell us about your bike</h3></button></h2>
      <div id="step-1"><p>Fill in a short form with the make, the model and what feels wrong when you ride.</p></div></main></body></html>`;
    const md = markdown(html);
    assert.match(md, /^## Tell us about your bike$/m);
    assert.ok(!md.includes('## ###'), md);
  });

  test('given tabs whose buttons sit in headings, then the hidden tab panels stay hidden', () => {
    const html = `<html><head><title>Installation</title></head><body><main><h1>Installation</h1><p>${INTRO}</p>
      <h2><button role="tab" aria-controls="npm">npm</button><button role="tab" aria-controls="yarn">yarn</button></h2>
      <div id="npm"><pre><code>npm install canal-cycles</code></pre></div>
      <div id="yarn" hidden><pre><code>yarn add canal-cycles</code></pre></div></main></body></html>`;
    const md = markdown(html);
    assert.match(md, /npm install canal-cycles/);
    assert.ok(!md.includes('yarn add'), md);
  });

  const readMorePage = (panel: string, between = ''): string => `<html><head><title>Iris linen dress | Bloom</title></head><body>
    <main><h1>Iris linen dress</h1><p>${INTRO}</p>
      <button type="button" class="read-link" aria-expanded="false" aria-controls="more-1">Read More</button>${between}
      <div id="more-1" aria-hidden="true" style="display: none">${panel}</div>
    </main></body></html>`;

  test('given a description whose rest is behind a Read more button, then the rest is kept', () => {
    const md = markdown(readMorePage('<h4>What we love about it</h4><ul><li>Three layers of flowy linen with a side zip</li><li>A pocket on the right side</li><li>Made to order in about ten days</li></ul>'));
    assert.match(md, /#### What we love about it/);
    assert.match(md, /- Three layers of flowy linen with a side zip/);
    assert.ok(!md.includes('Read More'), md);
  });

  test('given a Read more button that opens a list of links, then the list stays hidden', () => {
    const md = markdown(readMorePage('<ul><li><a href="/dresses">Dresses on sale this week</a></li><li><a href="/shoes">Shoes for the summer</a></li></ul>'));
    assert.ok(!md.includes('Dresses on sale'), md);
  });

  test('given a closed button whose panel is elsewhere on the page, then the panel stays hidden', () => {
    const md = markdown(readMorePage('<p>Sign up for our letters and get ten per cent off your first order today.</p>', '<p>Free returns within thirty days.</p>'));
    assert.ok(!md.includes('ten per cent'), md);
  });
});
