// robots.txt rules and the per-origin cache, against a local site.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCidrList } from '../../../shared/src/net/url-safety.js';
import { RobotsCache, robotsRule, ruleAllows, ruleCrawlDelay } from '../../../services/crawler-frontier/src/crawl/robots.js';
import { startSite, type TestSite } from '../../support/site.js';

const LOCAL = parseCidrList('127.0.0.0/8');

describe('robots.txt rules', () => {
  test('TrawlBot groups apply, else *', () => {
    const txt = 'User-agent: *\nDisallow: /private\n\nUser-agent: TrawlBot\nDisallow: /no-bots\n';
    const rule = robotsRule('https://s.test/robots.txt', 200, txt);
    assert.equal(ruleAllows(rule, 'https://s.test/no-bots/x'), false);
    assert.equal(ruleAllows(rule, 'https://s.test/private'), true, 'the TrawlBot group replaces *');
    const star = robotsRule('https://s.test/robots.txt', 200, 'User-agent: *\nDisallow: /private\n');
    assert.equal(ruleAllows(star, 'https://s.test/private/a'), false);
    assert.equal(ruleAllows(star, 'https://s.test/public'), true);
  });

  test('Crawl-delay of the group that applies, in seconds; none without a file', () => {
    const txt = 'User-agent: *\nCrawl-delay: 10\n\nUser-agent: TrawlBot\nCrawl-delay: 1.5\n';
    assert.equal(ruleCrawlDelay(robotsRule('https://s.test/robots.txt', 200, txt)), 1.5);
    assert.equal(ruleCrawlDelay(robotsRule('https://s.test/robots.txt', 200, 'User-agent: *\nCrawl-delay: 2\n')), 2);
    assert.equal(ruleCrawlDelay(robotsRule('https://s.test/robots.txt', 200, 'User-agent: *\nDisallow:\n')), undefined);
    assert.equal(ruleCrawlDelay(robotsRule('https://s.test/robots.txt', 404, '')), undefined);
  });

  test('4xx allows everything; 5xx disallows everything (RFC 9309)', () => {
    assert.equal(ruleAllows(robotsRule('https://s.test/robots.txt', 404, ''), 'https://s.test/x'), true);
    assert.equal(ruleAllows(robotsRule('https://s.test/robots.txt', 503, ''), 'https://s.test/x'), false);
  });
});

describe('RobotsCache', () => {
  let site: TestSite;
  before(async () => {
    site = await startSite({ '/robots.txt': { body: 'User-agent: *\nDisallow: /secret\n', contentType: 'text/plain' } });
  });
  after(() => site.close());

  test('loads each origin once and answers synchronously', async () => {
    const cache = new RobotsCache({ allow: LOCAL });
    assert.equal(cache.allows(site.url('/secret')), true, 'not loaded yet: allowed');
    await cache.prepare([site.url('/secret'), site.url('/open'), site.url('/other')]);
    await cache.prepare([site.url('/more')]);
    assert.equal(cache.allows(site.url('/secret/x')), false);
    assert.equal(cache.allows(site.url('/open')), true);
    assert.equal(site.hits.get('/robots.txt'), 1);
  });

  test('an unreachable robots.txt disallows the origin', async () => {
    const dead = await startSite();
    const url = dead.url('/page');
    await dead.close();
    const cache = new RobotsCache({ allow: LOCAL, timeoutMs: 1000 });
    await cache.prepare([url]);
    assert.equal(cache.allows(url), false);
  });
});
