// The console's pure pieces: escaping, settings, its read models' folds, and the request a
// job's options mean.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { StoredEvent } from '../../../shared/src/domain/events/index.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { consoleConfig } from '../../../shared/src/infra/console-config.js';
import { html } from '../../../services/gateway/src/console/html.js';
import { requestBodyOf } from '../../../services/gateway/src/console/pages/code-tabs.js';
import { changeSection } from '../../../services/gateway/src/console/pages/jobs.js';
import { renderMarkdown } from '../../../services/gateway/src/console/markdown-view.js';
import { evolve as evolveAccount } from '../../../services/projector/src/read-models/accounts/index.js';
import { evolve as evolveDaily, KEEP_DAYS } from '../../../services/projector/src/read-models/key-daily-pages/index.js';
import { evolve as evolveSession } from '../../../services/projector/src/read-models/sessions/index.js';
import { evolve as evolveInvite } from '../../../services/projector/src/read-models/invites/index.js';

const ev = (event: string, data: unknown, seq: number, kind = 'account', id = 'a'.repeat(20)): StoredEvent =>
  ({ kind, id, part: kind, event, data, seq, eventId: `e${seq}`, occurredAt: '2026-11-01T00:00:00.000Z' }) as unknown as StoredEvent;

describe('console html', () => {
  test('interpolated text is escaped; nested html is not escaped twice', () => {
    const label = `<script>alert("x")</script>&'`;
    assert.equal(html`<td>${label}</td>`.value, '<td>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</td>');
    assert.equal(html`<p>${html`<b>${'<i>'}</b>`}</p>`.value, '<p><b>&lt;i&gt;</b></p>');
    assert.equal(html`<a title="${'" onmouseover="x'}">`.value, '<a title="&quot; onmouseover=&quot;x">');
    assert.equal(html`${[1, 'a<', null, undefined, false]}`.value, '1a&lt;');
  });
});

describe('console settings', () => {
  test('defaults: invite and free; bad values name their variable', () => {
    assert.deepEqual(consoleConfig({}), { signup: 'invite', defaultPlan: 'free' });
    assert.deepEqual(consoleConfig({ CONSOLE_SIGNUP: 'OPEN', CONSOLE_DEFAULT_PLAN: 'pro' }), { signup: 'open', defaultPlan: 'pro' });
    assert.throws(() => consoleConfig({ CONSOLE_SIGNUP: 'maybe' }), /CONSOLE_SIGNUP: must be one of open, invite, closed/);
    assert.throws(() => consoleConfig({ CONSOLE_DEFAULT_PLAN: 'gold' }), /CONSOLE_DEFAULT_PLAN/);
  });
});

describe('console read models', () => {
  test('accounts: registered once, then plan and status follow the log', () => {
    const reg = ev('account_registered', { email: 'a@x.io', passwordHash: 'scrypt$1', role: 'admin', plan: 'free', registeredAt: '2026-11-01T00:00:00.000Z' }, 1);
    const doc = evolveAccount(null, reg)!;
    assert.equal(doc.status, 'ACTIVE');
    assert.equal(evolveAccount(doc, reg), null, 'a second registration changes nothing');
    const disabled = evolveAccount(evolveAccount(doc, ev('account_plan_changed', { plan: 'pro', changedAt: 'x', by: 'b' }, 2))!, ev('account_disabled', { disabledAt: 'x', by: 'b' }, 3))!;
    assert.deepEqual([disabled.plan, disabled.status, disabled.lastSeq], ['pro', 'DISABLED', 3]);
    assert.equal(evolveAccount(null, ev('account_disabled', { disabledAt: 'x', by: 'b' }, 4)), null);
  });

  test('sessions: started, then ended once', () => {
    const s = evolveSession(null, ev('session_started', { accountId: 'a'.repeat(20), startedAt: 'x', expiresAt: 'y' }, 1, 'session'))!;
    const ended = evolveSession(s, ev('session_ended', { endedAt: 'z', reason: 'signed_out' }, 2, 'session'))!;
    assert.equal(ended.endedAt, 'z');
    assert.equal(evolveSession(ended, ev('session_ended', { endedAt: 'w', reason: 'signed_out' }, 3, 'session')), null);
  });

  test('invites: an open one is redeemed or revoked, whichever comes first; the other changes nothing', () => {
    const made = evolveInvite(null, ev('invite_created', { tokenHash: 'f'.repeat(64), role: 'member', createdAt: 'a', expiresAt: 'b', createdBy: 'operator' }, 1, 'invite'))!;
    const revoked = evolveInvite(made, ev('invite_revoked', { revokedAt: 'r', by: 'a'.repeat(20) }, 2, 'invite'))!;
    assert.equal(revoked.revokedAt, 'r');
    assert.equal(evolveInvite(revoked, ev('invite_redeemed', { accountId: 'b'.repeat(20), redeemedAt: 'x' }, 3, 'invite')), null);
    const used = evolveInvite(made, ev('invite_redeemed', { accountId: 'b'.repeat(20), redeemedAt: 'x' }, 2, 'invite'))!;
    assert.equal(evolveInvite(used, ev('invite_revoked', { revokedAt: 'r', by: 'a'.repeat(20) }, 3, 'invite')), null);
  });

  test('pages per day count what the quota counts and keep 62 days', () => {
    const blank = { id: 'k', days: {}, lastSeq: 0 };
    const page = (at: string, kind: string, seq: number) => ev('page_requested', { requestedAt: at, apiKeyId: 'k' }, seq, kind, 'j');
    let doc = evolveDaily(blank, page('2026-08-20T10:00:00.000Z', 'scrape', 1))!;
    doc = evolveDaily(doc, page('2026-11-01T10:00:00.000Z', 'crawl', 2))!;
    doc = evolveDaily(doc, page('2026-11-01T11:00:00.000Z', 'batch', 3))!;
    assert.equal(evolveDaily(doc, page('2026-11-01T12:00:00.000Z', 'map', 4)), null, 'a map\'s pages are not counted; its request is');
    doc = evolveDaily(doc, ev('map_requested', { requestedAt: '2026-11-02T00:00:00.000Z', apiKeyId: 'k' }, 5, 'map', 'm'))!;
    assert.deepEqual(doc.days, { '2026-11-01': 2, '2026-11-02': 1 }, `days older than ${KEEP_DAYS} before the newest are dropped`);
  });
});

describe('the request a job means', () => {
  test('only what differs from the defaults; never headers', () => {
    assert.deepEqual(requestBodyOf('https://a.example/', normalizeScrapeOptions({})), { url: 'https://a.example/' });
    const o = normalizeScrapeOptions({ formats: ['markdown', 'links'], onlyMainContent: false, timeout: 5000, waitFor: 200, headers: { cookie: 'secret' } });
    assert.deepEqual(requestBodyOf('https://a.example/', o), { url: 'https://a.example/', formats: ['markdown', 'links'], onlyMainContent: false, waitFor: 200, timeout: 5000 });
  });
});

describe('rendered markdown in the console', () => {
  test('headings, lists, tables and links render; links carry rel noopener', () => {
    const out = renderMarkdown('# Title\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n[site](https://example.com/x)').value;
    assert.match(out, /<h2>Title<\/h2>/, "one level down: the console page has its own h1");
    assert.match(out, /<li>one<\/li>/);
    assert.match(out, /<td>1<\/td>/);
    assert.match(out, /<a href="https:\/\/example.com\/x" rel="nofollow noopener noreferrer">site<\/a>/);
  });

  test('markup a scraped page put into its markdown is shown as text, and script URLs are not links', () => {
    const out = renderMarkdown('<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n[click](javascript:alert(1)) [data](data:text/html,x)').value;
    assert.doesNotMatch(out, /<script|<img|onerror=alert\(1\)>/);
    assert.match(out, /&lt;script&gt;/);
    assert.doesNotMatch(out, /href="javascript:|href="data:/);
  });
});

describe('change tracking in the console', () => {
  test('the status, since when, and the diff as text (markup in a page is never run)', () => {
    const out = changeSection({
      observed: true, changeStatus: 'changed', previousScrapeAt: '2026-03-01T09:00:00.000Z', statusCode: 200, optionsChanged: false,
      diff: '--- previous\n+++ current\n@@ -1 +1 @@\n-old\n+<script>alert(1)</script>\n',
    }).toString();
    assert.match(out, /<strong>changed<\/strong> since/);
    assert.match(out, /\+&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.doesNotMatch(out, /<script>/);
  });
  test('an answer that is no observation, and a diff that expired', () => {
    assert.match(changeSection({ observed: false, previousScrapeAt: null, statusCode: 503 }).toString(), /not an observation \(HTTP 503\)/);
    assert.match(changeSection({ observed: true, changeStatus: 'changed', previousScrapeAt: null, diffUnavailable: 'previous_expired' }).toString(), /previous version has expired/);
  });
});
