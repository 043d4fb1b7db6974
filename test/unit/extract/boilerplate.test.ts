// One small hand-made page per boilerplate rule of the extractor (boilerplate.ts by name,
// prune.ts final pass, lead.ts), each checked through extractPage with onlyMainContent, as
// the service runs it: the boilerplate goes, the article around it stays.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { judgeName, nameTokens } from '../../../packages/extract/src/boilerplate.js';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { extractPage } from '../../../packages/extract/src/index.js';
import { pruneBoilerplate } from '../../../packages/extract/src/prune.js';

const PROSE = [
  'The council approved the new river crossing after a long debate about costs, traffic and the protection of the old harbour walls.',
  'Engineers expect the first pillars to be set next spring, once the water level is low enough for the barges to reach the site.',
  'Residents of both banks will be invited to comment on the lighting plan, which has to balance safety against the bats nesting nearby.',
  'The project is funded jointly by the region and the city, and a quarter of the budget is set aside for unexpected ground conditions.',
];

/**
 * An article of four paragraphs with `extra` inserted after the second one (and `tail`
 * after the last, `start` before the first, inside the body container).
 */
function page(extra: string, tail = '', head = '', start = ''): string {
  return `<!DOCTYPE html><html lang="en"><head><title>River crossing approved</title></head><body>
    <main><article><h1>River crossing approved</h1>${head}
      <div class="article-body">${start}<p>${PROSE[0]}</p><p>${PROSE[1]}</p>${extra}<p>${PROSE[2]}</p><p>${PROSE[3]}</p>${tail}</div>
    </article></main></body></html>`;
}

function markdown(html: string): string {
  return extractPage({ html, url: 'https://news.example.com/river', options: normalizeScrapeOptions({ formats: ['markdown'] }) }).markdown!;
}

function assertClean(html: string, gone: string[], kept: string[] = []): void {
  const md = markdown(html);
  for (const text of PROSE) assert.ok(md.includes(text.slice(0, 60)), `article text lost:\n${md}`);
  for (const text of gone) assert.ok(!md.includes(text), `"${text}" should be gone:\n${md}`);
  for (const text of kept) assert.ok(md.includes(text), `"${text}" should stay:\n${md}`);
}

describe('boilerplate by microdata property (itemprop)', () => {
  const box = `<div class="saboxplugin-wrap" itemscope itemtype="http://schema.org/Person" itemprop="author">
      <div class="saboxplugin-gravatar"><img src="https://news.example.com/avatar.png" alt="" itemprop="image"></div>
      <div class="saboxplugin-authorname"><a href="/author/paddy" itemprop="url"><span itemprop="name">Paddy</span></a></div>
      <div class="saboxplugin-desc"><div itemprop="description"><p>Photographer from Hamburg and founder of this blog. I like every kind of photography, as long as a person is in the picture.</p></div></div>
    </div>`;

  test('given an author box marked itemprop="author" after the article, when extracted, then it goes and the article stays', () => {
    assertClean(page('', box), ['founder of this blog', 'Paddy']);
  });

  test('given an article about authors, when extracted, then its paragraphs stay (the property, not the words, marks the box)', () => {
    const about = '<p>Every author of the guild writes a short description of their work, and the best author boxes name a founder and a favourite kind of photography.</p>';
    assertClean(page(about), [], ['the best author boxes name a founder']);
  });

  test('given itemprop="articleBody" on the body, when names are judged, then it reads as content', () => {
    const el = parseDocument('<div itemprop="articleBody" class="sidebar-wide"></div>').body.firstElementChild!;
    assert.equal(judgeName(nameTokens(el)), 'content');
  });
});

describe('boilerplate by class and id name', () => {
  const cases: Array<[string, string, string]> = [
    ['share bar', '<div class="post-share-bar"><a href="/s">Share on Facebook</a> <a href="/t">Tweet this</a></div>', 'Share on Facebook'],
    ['related posts (camelCase)', '<div class="relatedPosts"><h3>Read these too</h3><p>Another story about bridges and rivers everywhere.</p></div>', 'Another story about bridges'],
    ['newsletter box', '<section id="newsletter-signup"><p>Get our weekly digest in your inbox every Monday morning.</p></section>', 'weekly digest'],
    ['comments', '<div id="comments"><p>Great article, thanks for writing it, I learned a lot today about bridges.</p></div>', 'Great article, thanks'],
    ['author box', '<div class="author-box"><p>Jane Doe writes about cities and transport for the paper.</p></div>', 'Jane Doe writes'],
    ['German share widget (teilen)', '<div class="artikel-teilen"><a href="/x">Artikel teilen</a></div>', 'Artikel teilen'],
    ['Spanish related list (relacionadas)', '<div class="noticias-relacionadas"><p>Otra noticia sobre el puente nuevo de la ciudad.</p></div>', 'Otra noticia'],
    ['figure caption', '<figure><img src="/a.jpg" alt=""><figcaption>Photo of the harbour at dawn by the staff photographer</figcaption></figure>', 'Photo of the harbour'],
    ['screen-reader-only text', '<span class="screen-reader-text">Skip to the next section of the page</span>', 'Skip to the next section'],
  ];
  for (const [what, html, gone] of cases) {
    test(`removes a ${what}`, () => assertClean(page(html), [gone]));
  }

  test('keeps blocks whose classes are taxonomy or state ("tag-bridges", "has-ads") or page-builder widgets', () => {
    const html = page(
      '<div class="tag-bridges category-transport has-ads"><p>A paragraph that belongs to the article, named after its tags.</p></div>' +
        '<div class="elementor-widget elementor-widget-text-editor"><p>A paragraph laid out by a page builder inside a widget.</p></div>',
    );
    assertClean(html, [], ['named after its tags', 'laid out by a page builder']);
  });

  test('an opinion piece is a "commentary", not a comment thread', () => {
    assertClean(page('<div class="commentary-body"><p>In my view the crossing is overdue and the city should have built it years ago.</p></div>'), [], ['crossing is overdue']);
  });

  test('a name that says both content and boilerplate keeps long prose ("content-behind-paywall") and drops short widgets ("article-tags")', () => {
    const long = 'This paragraph is the rest of the story behind the paywall, long enough to be prose and not a widget, with details. '.repeat(3);
    assertClean(page(`<div class="content-behind-paywall"><p>${long}</p></div><div class="article-tags"><a href="/t/a">Bridges</a> <a href="/t/b">Rivers</a></div>`), ['Rivers'], ['rest of the story behind']);
  });

  test('names are read per class and word', () => {
    assert.equal(judgeName(nameTokens(parseDocument('<div class="socialShare top">x</div>').body.firstElementChild!)), 'boilerplate');
    assert.equal(judgeName(nameTokens(parseDocument('<div class="article-content sticky-sidebar">x</div>').body.firstElementChild!)), 'content');
    assert.equal(judgeName(nameTokens(parseDocument('<div class="tagesschau-box">x</div>').body.firstElementChild!)), 'none');
    assert.equal(judgeName(nameTokens(parseDocument('<div class="text-center">x</div>').body.firstElementChild!)), 'none');
  });
});

describe('final boilerplate pass', () => {
  const lines: Array<[string, string, string]> = [
    ['teaser line (en)', '<p><strong>Read more: <a href="/x">Why old bridges crumble</a></strong></p>', 'Why old bridges crumble'],
    ['teaser line (es)', '<p>Lea también: <a href="/y">El puente más largo del país</a></p>', 'El puente más largo'],
    ['teaser line (de)', '<p>Mehr zum Thema: <a href="/z">Brücken in Gefahr</a></p>', 'Brücken in Gefahr'],
    ['call to subscribe', '<p>Subscribe now to get the full story in your inbox.</p>', 'Subscribe now'],
    ['photo credit', '<p>Foto: dpa / Max Mustermann</p>', 'Max Mustermann'],
    ['figure caption as text', '<p><em>Abbildung 4: Querschnitt der Brücke</em></p>', 'Querschnitt der Brücke'],
    ['date line', '<p>Veröffentlicht: 2. Februar 2022, 10:15 Uhr</p>', 'Februar 2022'],
    ['cookie notice', '<p>By using this site you agree to our use of cookies. <a href="/p">Learn more</a></p>', 'use of cookies'],
    ['link list', '<ul><li><a href="/a">First other story</a></li><li><a href="/b">Second other story</a></li><li><a href="/c">Third other story</a></li></ul>', 'Second other story'],
    ['boilerplate heading and its section', '<h2>Related articles</h2><ul><li><a href="/a">A bridge too far</a></li><li><a href="/b">Rivers of the north</a></li></ul>', 'Rivers of the north'],
    ['table of contents title', '<p>Inhaltsverzeichnis</p>', 'Inhaltsverzeichnis'],
    ['paywall prompt', '<p>To view the full story, please subscribe to the Daily Example.</p>', 'please subscribe'],
    ['app promotion', '<p>For the latest stories download the Example News apps for iOS and Android.</p>', 'Example News apps'],
    ['feedback widget', '<p><strong>War der Artikel nützlich?</strong></p>', 'War der Artikel'],
    ['server warning', '<p><b>Warning</b>: Creating default object from empty value in /www/wp-includes/x.php on line 12</p>', 'Creating default object'],
    ['section title as a plain line', '<div>Über den Autor</div>', 'Über den Autor'],
    ['"discover more" teaser line', '<p>Entdecke weitere Homestorys aus unserer Community</p>', 'Entdecke weitere'],
    ['call to support the site', '<p><strong>Unterstütze unser Magazin bereits mit 2,50 Euro!</strong></p>', 'Unterstütze unser'],
    ['call to become a member', '<p>HAZTE MIEMBRO Y DISFRUTA DE BENEFICIOS EXCLUSIVOS</p>', 'HAZTE MIEMBRO'],
    ['"load more" button label', '<div>Lade weitere Inhalte ...</div>', 'Lade weitere Inhalte'],
    ['"hide sources" toggle', '<div><span>Quellen ausblenden</span></div>', 'Quellen ausblenden'],
    ['"back to the list" link', '<p><a href="/presse">zurück zur Listenansicht</a></p>', 'Listenansicht'],
    ['opinion disclaimer', '<p><em>Dieser Beitrag gibt die Meinung des Autors wieder, nicht notwendigerweise die der Redaktion.</em></p>', 'Meinung des Autors'],
    ['advertising line', '<p><strong>ANZEIGE - Heute mal ausgehen? Wie wäre es mit:</strong></p>', 'Heute mal ausgehen'],
    ['paywall heading', '<h2>Pour lire la suite et accéder gratuitement à 3 articles par mois, créez votre compte</h2>', 'Pour lire la suite'],
    ['messenger channel promotion', '<p>¿Ya sabías que tenemos canal de Telegram? Únete desde tu celular en este <a href="https://t.me/x">enlace</a>.</p>', 'canal de Telegram'],
    ['embed consent placeholder', '<p>Wir respektieren deine Privatsphäre und stellen ohne dein Einverständnis keine Verbindung zu Twitter her.</p><p><a href="/privacy">Einstellungen verwalten</a></p>', 'Privatsphäre'],
    ['review prompt', '<p>Bitte teilen Sie uns Ihre Erfahrungen mit, wenn Sie das Produkt probiert haben.</p>', 'Erfahrungen mit'],
    ['"hier geht es zur" link line', '<p><a href="/doc.pdf">Hier geht es zur neuen Vorstandsstruktur</a></p>', 'Vorstandsstruktur'],
    ['permalink with its URL', '<ul><li><strong>Permalink</strong> https://p.example.com/p/RPYx</li></ul>', 'p.example.com/p/RPYx'],
    ['lone byline label', '<p><strong>Von:</strong></p>', 'Von:'],
    ['"most discussed" heading and its links', '<h3>meist-diskutiert</h3><ul><li><a href="/a">Streit um die Brücke</a></li><li><a href="/b">Neue Fähre</a></li></ul>', 'Neue Fähre'],
  ];
  // Where templates put them: at the edge of the article, before its first paragraph
  // (position marks them; their words confirm it).
  for (const [what, html, gone] of lines) {
    test(`removes a ${what} at the edge of the article`, () => assertClean(page('', '', '', html), [gone]));
  }

  // Inside the prose, a line needs a structural mark besides its words: mostly link text,
  // a call-out all in bold or italic, a credit under an image, a button after a notice.
  const marked: Array<[string, string, string]> = [
    ['teaser line that is mostly its link', '<p>Read more: <a href="/x">Why old bridges crumble under heavy trucks</a></p>', 'Why old bridges crumble'],
    ['bold call to subscribe', '<p><strong>Subscribe now to get the full story in your inbox.</strong></p>', 'Subscribe now'],
    ['photo credit under an image', '<p><img src="/b.jpg" alt=""></p><p>Foto: dpa / Max Mustermann</p>', 'Max Mustermann'],
    ['italic opinion disclaimer', '<p><em>Dieser Beitrag gibt die Meinung des Autors wieder, nicht notwendigerweise die der Redaktion.</em></p>', 'Meinung des Autors'],
    ['consent placeholder with its settings button', '<p>Wir respektieren deine Privatsphäre und stellen ohne dein Einverständnis keine Verbindung zu Twitter her.</p><p><a href="/privacy">Einstellungen verwalten</a></p>', 'Privatsphäre'],
  ];
  for (const [what, html, gone] of marked) {
    test(`removes a ${what} inside the prose`, () => assertClean(page(html), [gone]));
  }

  test('a short closing section titled as boilerplate goes with its prose ("About the author" and a bio)', () => {
    const tail = '<h3>About the author</h3><p>Jane Doe has written about cities, bridges and public transport for the paper since 2009.</p>';
    assertClean(page('', tail), ['About the author', 'Jane Doe has written']);
  });

  test('removes the furniture at the end of the article: orphan heading, bold call-out, introducer', () => {
    const tail = '<h3>You might also like</h3><p><strong>Follow us on all channels and never miss a story again!</strong></p><p>Our partners:</p>';
    assertClean(page('', tail), ['You might also like', 'Follow us on all channels', 'Our partners']);
  });

  test('a closing paragraph set in a heading tag is prose: sentences stay at the end', () => {
    const tail = '<h4>The mayor signed the order on Friday. The first barges arrive in March.</h4>';
    assertClean(page('', tail), [], ['The first barges arrive in March.']);
  });

  test('a closing paragraph set in bold is prose when it holds two sentences and no link', () => {
    const tail = '<p><strong>Divers searched the riverbed for two days. Investigators are checking whether a faulty crane caused the collapse.</strong></p>';
    assertClean(page('', tail), [], ['Divers searched the riverbed', 'faulty crane caused the collapse']);
  });

  test('a login prompt closing a comment section goes, with the orphan heading above it', () => {
    const tail = '<h2>Kommentieren</h2><h3>Sie müssen sich <a href="/login">einloggen</a>, um sich an einer Diskussion beteiligen zu können.</h3>';
    assertClean(page('', tail), ['Kommentieren', 'einloggen']);
  });

  test('an affiliate disclosure above the first paragraph goes; one inside the prose stays', () => {
    const disclosure = '<p>DISCLOSURE: If you buy through affiliate links, I may earn a small commission. <a href="/disclosures">(disclosures)</a></p>';
    assertClean(page('', '', '', disclosure), ['I may earn a small commission']);
    const inside = '<p>We may earn a commission when you buy through the links in this guide, and that never decides which bridge designs we cover.</p>';
    assertClean(page(inside), [], ['We may earn a commission']);
  });

  test('a closing "Audios et vidéos sur le sujet" section of links goes; the same words over prose stay', () => {
    // The final pass alone (Readability keeps such a section when the page's link box follows it).
    const pruned = (html: string): string => {
      const root = parseDocument(`<html><body><div class="body"><h1>River crossing approved</h1>${html}</div></body></html>`).body.firstElementChild!;
      pruneBoilerplate(root);
      return (root.textContent ?? '').replace(/\s+/g, ' ');
    };
    const prose = PROSE.map((p) => `<p>${p}</p>`).join('');
    const media = '<h4>Audios et vidéos sur le sujet</h4><div class="group"><div class="linkList"><a href="/media/1"><h2>La perte des terres fertiles</h2></a></div></div><ul><li><strong>Auteur</strong> Kossivi Tiassou</li></ul>';
    const after = pruned(prose + media);
    assert.ok(!after.includes('Audios et vidéos') && !after.includes('La perte des terres'), after);
    assert.ok(after.includes(PROSE[3]!), after);
    const section = '<h3>Videos on the topic of bridges</h3><p>Films of the old ferry crossing were shown at the meeting, and several residents asked for copies.</p>';
    const kept = pruned(PROSE.slice(0, 2).map((p) => `<p>${p}</p>`).join('') + section + PROSE.slice(2).map((p) => `<p>${p}</p>`).join(''));
    assert.ok(kept.includes('Videos on the topic of bridges') && kept.includes('Films of the old ferry crossing'), kept);
  });

  test('a byline line at the end of the article goes ("Written by", "Posted by ... at")', () => {
    assertClean(page('', '<p>Written by <a href="/authors/jane">Jane Doe</a></p>'), ['Written by', 'Jane Doe']);
    assertClean(page('', '<p>Posted by David at December 16, 2025</p>'), ['Posted by David']);
  });

  test('a data table whose rows are links (test results) is data, not a link block', () => {
    const rows = ['Alpha Seat', 'Beta Seat', 'Gamma Seat'].map((m, i) => `<tr><td><a href="/m/${i}">${m} i-Size Flex</a></td><td>gut</td></tr>`).join('');
    const table = `<div class="results"><table><tr><th>Modell</th><th>Note</th></tr>${rows}</table></div>`;
    assertClean(page(table), [], ['Beta Seat i-Size Flex']);
  });

  test('the end of the article stays when it is prose or data', () => {
    const tail = '<ul><li>Length: 420 m</li><li>Opens: 2027</li></ul>';
    assertClean(page('', tail), [], ['Length: 420 m', 'Opens: 2027']);
  });

  test('a sentence that starts like a control, a disclaimer or a call is prose when it goes on', () => {
    const prose = '<p>Back to the harbour walls: the engineers found them sound, and the council will not need the reserve for repairs this year.</p>';
    assertClean(page(prose), [], ['Back to the harbour walls', ...PROSE]);
  });

  test('a teaser phrase inside a paragraph is prose, not a teaser', () => {
    const prose = '<p>The mayor said people should read more about the history of the harbour before judging the design of the bridge.</p>';
    assertClean(page(prose), [], ['read more about the history']);
  });

  test('a listing whose content is its links keeps them', () => {
    const items = Array.from({ length: 12 }, (_, i) => `<li><a href="/p/${i}">Product ${i}</a> <span>$${i}.99</span></li>`).join('');
    const md = markdown(`<html><head><title>Shop</title></head><body><main><h1>All products</h1><ul>${items}</ul></main></body></html>`);
    assert.match(md, /Product 0/);
    assert.match(md, /Product 11/);
  });
});

describe('the article lead', () => {
  test('the lead beside the title, outside the body container, is kept above the body', () => {
    const lead = '<header><p class="standfirst">The long-awaited crossing will link the old town with the new harbour district by 2027.</p><p>By Jane Doe</p></header>';
    const html = `<!DOCTYPE html><html><head><title>River crossing approved | City News</title></head><body><main><article>
      <header><h1>River crossing approved</h1>${lead}</header>
      <div class="article-body">${PROSE.map((p) => `<p>${p}</p>`).join('')}</div></article></main></body></html>`;
    const md = markdown(html);
    const at = md.indexOf('The long-awaited crossing');
    assert.ok(at > 0 && at < md.indexOf(PROSE[0]!.slice(0, 40)), `lead missing or misplaced:\n${md}`);
    assert.ok(!md.includes('By Jane Doe'), md);
  });
});
