// The auto engine's decider, given (host history) / when (command) / then (decision):
// the host's history is folded with evolve, so each test states what happened, not state.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { evolve, MAX_MARKER_KINDS, NEW_HOST, type EngineCommand, type HostEvent } from '../../../services/fetcher/src/engine/host-profile.js';
import { decided, hostSpec } from './engine-decider-spec.js';

const at = '2026-01-01T00:00:00.000Z';
const agreed: HostEvent = { type: 'verified', agreed: true, similarity: 1, url: 'http://h/a', at };
const disagreed: HostEvent = { type: 'verified', agreed: false, similarity: 0.4, url: 'http://h/js', at };
/** A page seen (counted before it is decided: the page being decided is the last one seen). */
const seen: HostEvent = { type: 'seen' };

const plan = (browserNeeds: string[] = [], requested: EngineCommand['requested'] = 'auto'): EngineCommand => ({ type: 'plan', requested, browserNeeds });
const probedHtml = (csrMarkers: string[] = []): EngineCommand => ({ type: 'probed', requested: 'auto', probe: { ok: true, csrMarkers } });

const { given } = hostSpec;

describe('engine decider: plan (before anything is fetched)', () => {
  test('engine browser renders, whatever the host', () => given([agreed, agreed, agreed, seen]).when(plan([], 'browser')).thenMatches(decided('browser', /engine browser/)));
  test('engine http probes (and serves the GET) even on a JavaScript host', () => given([disagreed, seen]).when(plan([], 'http')).thenMatches(decided('probe')));
  test('auto: options that need a browser always get one', () => given([agreed, agreed, agreed, seen]).when(plan(['actions', 'waitFor'])).thenMatches(decided('browser', /options need a browser: actions, waitFor/)));
  test('auto: an unknown host is probed', () => given([seen]).when(plan()).thenMatches(decided('probe', /learning/)));
  test('auto: a static host is probed', () => given([agreed, agreed, agreed, seen]).when(plan()).thenMatches(decided('probe', /static/)));
  test('auto: a JavaScript host renders without a probe', () => given([disagreed, seen]).when(plan()).thenMatches(decided('browser', /JavaScript \(1 disagreeing page\)/)));
  test('auto: a JavaScript host is probed again once in recheckEvery pages', () => given([disagreed, seen, seen, seen, seen, seen]).when(plan()).thenMatches(decided('probe')));
});

describe('engine decider: after the probe', () => {
  test('an unknown host is verified (both engines, compared)', () => given([seen]).when(probedHtml()).thenMatches(decided('verify', /0\/3 agreeing/)));
  test('two agreeing pages are not enough', () => given([agreed, agreed, seen]).when(probedHtml()).thenMatches(decided('verify', /2\/3/)));
  test('after K agreeing pages the host is served over HTTP', () => given([agreed, agreed, agreed, seen]).when(probedHtml()).thenMatches(decided('http', /verified static/)));
  test('a failed or non-HTML probe goes to the browser', () =>
    given([agreed, agreed, agreed, seen]).when({ type: 'probed', requested: 'auto', probe: { ok: false, why: 'not-html', detail: 'application/json' } }).thenMatches(decided('browser', /not-html/)));
  test('every recheckEvery-th page of a static host is verified (drift check)', () => {
    given([agreed, agreed, agreed, seen, seen, seen, seen]).when(probedHtml()).thenMatches(decided('http'));
    given([agreed, agreed, agreed, seen, seen, seen, seen, seen]).when(probedHtml()).thenMatches(decided('verify', /drift check/));
    given([agreed, agreed, agreed, ...Array<HostEvent>(6).fill(seen)]).when(probedHtml()).thenMatches(decided('http'));
  });
  test('a static host whose drift checks keep agreeing is checked half as often after each, down to 1 in 8 x recheckEvery', () => {
    const checks = (n: number): HostEvent[] => Array.from({ length: n }, () => [...Array<HostEvent>(5).fill(seen), agreed]).flat();
    // K = 3 agreeing pages: 1 page in 5.
    given([agreed, agreed, agreed, ...Array<HostEvent>(5).fill(seen)]).when(probedHtml()).thenMatches(decided('verify', /drift check \(1 page in 5\)/));
    // One agreeing drift check (4 agreeing): 1 page in 10.
    given([agreed, agreed, agreed, ...checks(1), ...Array<HostEvent>(5).fill(seen)]).when(probedHtml()).thenMatches(decided('http'));
    given([agreed, agreed, agreed, ...checks(1), ...Array<HostEvent>(10).fill(seen)]).when(probedHtml()).thenMatches(decided('verify', /drift check \(1 page in 10\)/));
    // Two: 1 page in 20.
    given([agreed, agreed, agreed, ...checks(2), ...Array<HostEvent>(10).fill(seen)]).when(probedHtml()).thenMatches(decided('http'));
    given([agreed, agreed, agreed, ...checks(2), ...Array<HostEvent>(20).fill(seen)]).when(probedHtml()).thenMatches(decided('verify', /drift check \(1 page in 20\)/));
    // Three and more: 1 page in 40, no further.
    given([agreed, agreed, agreed, ...checks(20), ...Array<HostEvent>(39).fill(seen)]).when(probedHtml()).thenMatches(decided('http'));
    given([agreed, agreed, agreed, ...checks(20), ...Array<HostEvent>(40).fill(seen)]).when(probedHtml()).thenMatches(decided('verify', /drift check \(1 page in 40\)/));
    // A disagreement starts the learning over: after K agreeing pages again, 1 in 5.
    given([agreed, agreed, agreed, ...checks(20), disagreed, agreed, agreed, agreed, ...Array<HostEvent>(5).fill(seen)]).when(probedHtml()).thenMatches(decided('verify', /drift check \(1 page in 5\)/));
  });
  test('pages decided at once: only the one that counted the recheckEvery-th page verifies', () => {
    // While the 5th page's verification runs, pages 6..9 are counted and served over HTTP; the 10th checks.
    given([agreed, agreed, agreed, ...Array<HostEvent>(9).fill(seen)]).when(probedHtml()).thenMatches(decided('http'));
    given([agreed, agreed, agreed, ...Array<HostEvent>(10).fill(seen)]).when(probedHtml()).thenMatches(decided('verify', /drift check/));
  });
});

describe('engine decider: markers are hints, verification is the judge (per host and marker kind)', () => {
  const islandPage = (url: string, agreedNow: boolean, markers = ['script fills empty #comments']): HostEvent =>
    ({ type: 'verified', agreed: agreedNow, similarity: agreedNow ? 1 : 0.5, url, at, markers });
  const root = ['empty app root #root'];
  test('a marker never verified on its host is verified, not just rendered (even on a static host)', () =>
    given([agreed, agreed, agreed, seen]).when(probedHtml(root)).thenMatches(decided('verify', /markers unverified on this host: empty app root #root \(0\/3 agreeing\)/)));
  test('a marker kind that verified identical K times is served over HTTP on a static host', () =>
    given([islandPage('http://h/1', true), islandPage('http://h/2', true), islandPage('http://h/3', true), seen])
      .when(probedHtml(['script fills empty #comments'])).thenMatches(decided('http', /host verified static.*markers verified harmless on this host: script fills empty #comments/)));
  test('pages with markers teach the host too: a host whose every page carries a harmless marker becomes static', () =>
    assert.equal(given([islandPage('http://h/1', true), islandPage('http://h/2', true), islandPage('http://h/3', true)]).state.mode, 'static'));
  test('two agreeing pages are not enough for a marker kind', () =>
    given([agreed, agreed, agreed, islandPage('http://h/1', true), islandPage('http://h/2', true), seen])
      .when(probedHtml(['script fills empty #comments'])).thenMatches(decided('verify', /\(2\/3 agreeing\)/)));
  test('a trusted kind does not vouch for another kind on the same page', () =>
    given([islandPage('http://h/1', true), islandPage('http://h/2', true), islandPage('http://h/3', true), seen])
      .when(probedHtml(['script fills empty #comments', 'empty app root #root'])).thenMatches(decided('verify', /unverified on this host: empty app root #root/)));
  test('marker kinds are learnt per host profile: the measured detail is not part of the kind', () =>
    given([islandPage('http://h/1', true, ['little body text (12 chars) beside scripts']), islandPage('http://h/2', true, ['little body text (40 chars) beside scripts']), islandPage('http://h/3', true, ['little body text (7 chars) beside scripts']), seen])
      .when(probedHtml(['little body text (99 chars) beside scripts'])).thenMatches(decided('http')));
  test('a marker kind that rendered differently sends its pages to the browser...', () =>
    given([agreed, agreed, agreed, islandPage('http://h/spa', false, root), seen]).when(probedHtml(root)).thenMatches(decided('browser', /markers that changed pages of this host: empty app root #root/)));
  test('...but not the host: its pages without that marker stay on HTTP', () => {
    const history = [agreed, agreed, agreed, islandPage('http://h/spa', false, root), seen];
    assert.equal(given(history).state.mode, 'static');
    given(history).when(probedHtml()).thenMatches(decided('http'));
    given(history).when(plan()).thenMatches(decided('probe'));
  });
  test('a rendering marker kind is rechecked 1 page in recheckEvery, and an agreeing recheck learns it again', () => {
    const history = [agreed, agreed, agreed, islandPage('http://h/spa', false, root), seen, seen, seen, seen, seen];
    given(history).when(probedHtml(root)).thenMatches(decided('verify', /recheck of markers/));
    const relearning = [...history, islandPage('http://h/spa', true, root)];
    assert.equal(given(relearning).state.markers?.['empty app root #root']?.mode, 'learning');
    given([...relearning, seen]).when(probedHtml(root)).thenMatches(decided('verify', /1\/3 agreeing/));
  });
  test('drift checks go on for pages with trusted markers, and a drift that disagrees sends only that kind to the browser', () => {
    const trusted = [islandPage('http://h/1', true), islandPage('http://h/2', true), islandPage('http://h/3', true)];
    given([...trusted, seen, seen, seen, seen, seen]).when(probedHtml(['script fills empty #comments'])).thenMatches(decided('verify', /drift check/));
    const drifted = given([...trusted, seen, seen, seen, seen, seen, islandPage('http://h/8', false)]).state;
    assert.equal(drifted.mode, 'static');
    assert.equal(drifted.markers?.['script fills empty #comments']?.mode, 'browser');
  });
  test('a host keeps at most MAX_MARKER_KINDS kinds (later ones stay unverified, so verified)', () => {
    const many = Array.from({ length: MAX_MARKER_KINDS + 5 }, (_, i) => islandPage(`http://h/${i}`, true, [`script fills empty #c${i}`]));
    const { state: profile } = given(many);
    assert.equal(Object.keys(profile.markers ?? {}).length, MAX_MARKER_KINDS);
  });
});

describe('engine decider: identical verifications teach sooner (K - 1 when every one was identical)', () => {
  const same: HostEvent = { ...agreed, identical: true };
  const island = (identical: boolean, markers = ['script fills empty #comments']): HostEvent => ({ ...agreed, identical, markers });
  test('two identical pages make a fresh host static', () => given([same, same, seen]).when(probedHtml()).thenMatches(decided('http', /verified static/)));
  test('one identical page is not enough', () => given([same, seen]).when(probedHtml()).thenMatches(decided('verify', /1\/3 agreeing/)));
  test('an agreeing page that was not identical asks for K, wherever it came in the run', () => {
    given([agreed, same, seen]).when(probedHtml()).thenMatches(decided('verify', /2\/3/));
    given([same, agreed, seen]).when(probedHtml()).thenMatches(decided('verify', /2\/3/));
    given([same, agreed, same, seen]).when(probedHtml()).thenMatches(decided('http'));
  });
  test('a host that ever disagreed asks for K, even identical ones', () => {
    given([disagreed, same, same, seen]).when(probedHtml()).thenMatches(decided('verify', /2\/3/));
    given([disagreed, same, same, same, seen]).when(probedHtml()).thenMatches(decided('http'));
  });
  test('so does a host whose pages with some marker disagreed', () =>
    given([{ ...disagreed, markers: ['empty app root #root'] }, same, same, seen]).when(probedHtml()).thenMatches(decided('verify', /2\/3/)));
  test('a marker kind verified identical twice is served over HTTP', () =>
    given([island(true), island(true), seen]).when(probedHtml(['script fills empty #comments'])).thenMatches(decided('http', /markers verified harmless on this host/)));
  test('a marker kind with one near miss asks for K', () =>
    given([island(true), island(false), seen]).when(probedHtml(['script fills empty #comments'])).thenMatches(decided('verify', /\(2\/3 agreeing\)/)));
  test('a marker kind that once disagreed asks for K again', () => {
    const history: HostEvent[] = [agreed, agreed, agreed, { ...disagreed, markers: ['script fills empty #comments'] }, island(true), island(true)];
    assert.equal(given(history).state.markers?.['script fills empty #comments']?.mode, 'learning');
    assert.equal(given([...history, island(true)]).state.markers?.['script fills empty #comments']?.mode, 'static');
  });
  test('drift checks and the fall-back stay: an identically learnt host is checked, and one disagreement sends it to the browser', () => {
    given([same, same, seen, seen, seen, seen, seen]).when(probedHtml()).thenMatches(decided('verify', /drift check \(1 page in 5\)/));
    assert.equal(given([same, same, seen, disagreed]).state.mode, 'browser');
  });
  test('with K = 1 an identical page is enough, as any agreeing one', () => {
    const k1 = { agreements: 1, recheckEvery: 5 };
    assert.equal(evolve(NEW_HOST, same, k1).mode, 'static');
    assert.equal(evolve(NEW_HOST, agreed, k1).mode, 'static');
  });
});

describe('engine decider: evolve', () => {
  test('one disagreement puts a static host back on the browser', () => {
    const { state: profile } = given([agreed, agreed, agreed, seen, disagreed]);
    assert.equal(profile.mode, 'browser');
    assert.equal(profile.agreeing, 0);
    assert.equal(profile.disagreements, 1);
    assert.deepEqual(profile.last, { agreed: false, similarity: 0.4, url: 'http://h/js', at });
  });
  test('a disagreement while learning makes the host a browser host', () => assert.equal(given([agreed, disagreed]).state.mode, 'browser'));
  test('an agreeing recheck of a browser host starts learning again; K more make it static', () => {
    assert.equal(given([disagreed, agreed]).state.mode, 'learning');
    assert.equal(given([disagreed, agreed, agreed, agreed]).state.mode, 'static');
  });
  test('a verification resets the page count since the last check', () => {
    assert.equal(given([agreed, agreed, agreed, seen, seen]).state.sinceCheck, 2);
    assert.equal(given([agreed, agreed, agreed, seen, seen, agreed]).state.sinceCheck, 0);
  });
});
