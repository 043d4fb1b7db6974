// The auto engine's learning across hosts, given (verdicts) / when (a page) / then (decision):
// the fleet's prior of a set of marker kinds (fleet-prior.ts, folded as the store folds it),
// and a host that takes the fleet's word for its pages (host-profile.ts decide with `fleet`).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { evolveFleetPrior, fleetTrust, kindSet, NEW_FLEET_PRIOR, setName, setsLearning, type FleetPolicy, type FleetPrior, type FleetTrust } from '../../../services/fetcher/src/engine/fleet-prior.js';
import { decide, evolve, FLEET_FIRST_CHECK_PAGES, markerKinds, type EngineCommand, type HostEvent } from '../../../services/fetcher/src/engine/host-profile.js';
import { csrMarkers, SERVED_STRUCTURE } from '../../../services/fetcher/src/engine/csr-markers.js';
import { deciderSpec } from '../../support/decider.js';
import { decided, hostSpec } from './engine-decider-spec.js';

const FLEET: FleetPolicy = { hosts: 3, distrustMs: 86_400_000 };
const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (hours: number): string => new Date(T0 + hours * 3_600_000).toISOString();

interface Verdict { kinds: string[]; agreed: boolean; host: string; hours?: number }
interface Page { kinds: string[]; hours?: number }
type Priors = Record<string, FleetPrior>;

const fleet = deciderSpec<Page, Verdict, Priors, FleetTrust>({
  initialState: () => ({}),
  evolve: (priors, v) => {
    const next = { ...priors };
    for (const s of setsLearning(kindSet(v.kinds), v.agreed)) {
      next[setName(s)] = evolveFleetPrior(next[setName(s)] ?? NEW_FLEET_PRIOR, { agreed: v.agreed, host: v.host, url: `http://${v.host}/p`, at: at(v.hours ?? 0) });
    }
    return next;
  },
  decide: (page, priors) => {
    const set = kindSet(page.kinds);
    const prior = (s: string[]): FleetPrior => priors[setName(s)] ?? NEW_FLEET_PRIOR;
    return fleetTrust(set, { set: prior(set), kinds: Object.fromEntries(set.map((k) => [k, prior([k])])) }, new Date(T0 + (page.hours ?? 1) * 3_600_000), FLEET);
  },
});

const LBT = 'little body text beside scripts';
const ROOT = 'empty app root #root';
const plain = (host: string, agreed = true, hours = 0): Verdict => ({ kinds: [], agreed, host, hours });
const lbt = (host: string, agreed = true, hours = 0): Verdict => ({ kinds: [LBT], agreed, host, hours });
const vouches = (expected: boolean, detail?: RegExp) => (trust: FleetTrust): void => {
  assert.equal(trust.vouches, expected, trust.detail);
  if (detail) assert.match(trust.detail, detail);
};

describe('fleet prior: a set of marker kinds learnt across hosts', () => {
  test('a set no host has verified vouches for nothing', () => fleet.given([]).when({ kinds: [] }).thenMatches(vouches(false, /\(no markers\) verified identical on 0\/3 hosts/)));
  test('identical on two hosts is not enough; on three distinct hosts the set vouches', () => {
    fleet.given([plain('a'), plain('b')]).when({ kinds: [] }).thenMatches(vouches(false, /2\/3/));
    fleet.given([plain('a'), plain('b'), plain('c')]).when({ kinds: [] }).thenMatches(vouches(true, /verified identical on 3 hosts of the fleet/));
  });
  test('many agreeing pages of one host count as one host', () =>
    fleet.given([plain('a'), plain('a'), plain('a'), plain('b'), plain('b')]).when({ kinds: [] }).thenMatches(vouches(false, /2\/3/)));
  test('the set is the exact set: a page with a kind more is one the fleet has not seen', () =>
    fleet.given([lbt('a'), lbt('b'), lbt('c')]).when({ kinds: [LBT, ROOT] }).thenMatches(vouches(false, /0\/3/)));
  test('one disagreement on any host revokes the set, and for the distrust time no number of agreeing hosts restores it', () => {
    const revoked = [plain('a'), plain('b'), plain('c'), plain('d', false, 1)];
    fleet.given(revoked).when({ kinds: [], hours: 2 }).thenMatches(vouches(false, /\(no markers\) disagreed on d/));
    fleet.given([...revoked, plain('e', true, 2), plain('f', true, 2), plain('g', true, 2)]).when({ kinds: [], hours: 3 }).thenMatches(vouches(false, /disagreed on d/));
  });
  test('after the distrust time, the set vouches again only once new hosts agreed (the revoked ones are forgotten)', () => {
    const revoked = [plain('a'), plain('b'), plain('c'), plain('d', false, 1)];
    fleet.given(revoked).when({ kinds: [], hours: 26 }).thenMatches(vouches(false, /0\/3/));
    fleet.given([...revoked, plain('e', true, 2), plain('f', true, 2), plain('g', true, 2)]).when({ kinds: [], hours: 26 }).thenMatches(vouches(true));
  });
  test('a disagreement of a page with several kinds distrusts each kind, in every set that holds it', () => {
    const spa: Verdict = { kinds: [ROOT, LBT], agreed: false, host: 'spa' };
    fleet.given([lbt('a'), lbt('b'), lbt('c'), spa]).when({ kinds: [LBT] }).thenMatches(vouches(false, /little body text beside scripts disagreed on spa/));
    // A set that verified on three hosts, one of whose kinds then changed a page alone.
    const both = (host: string): Verdict => ({ kinds: [LBT, 'script fills empty #year'], agreed: true, host });
    fleet.given([both('a'), both('b'), both('c'), lbt('x', false)]).when({ kinds: ['script fills empty #year', LBT] }).thenMatches(vouches(false, /little body text beside scripts disagreed on x/));
    fleet.given([both('a'), both('b'), both('c')]).when({ kinds: ['script fills empty #year', LBT] }).thenMatches(vouches(true));
  });
});

describe('fleet prior: a little-text app shell and a short page its server rendered are kinds of their own', () => {
  // The kinds as the fetcher finds them in served HTML (csr-markers.ts), as the zoo's index pages and the mixed site's shells show them.
  const kindsOf = (body: string): string[] => markerKinds(csrMarkers(`<!doctype html><html><head><title>t</title></head><body>${body}<script src="/app.js"></script></body></html>`));
  const SHELL = kindsOf('<div id="root"></div>');
  const INDEX = kindsOf(`<div id="__next"><main><h1>Harbour notes</h1><ul>${[1, 2, 3, 4, 5, 6].map((n) => `<li><a href="/article/${n}/">Harbour notes ${n}</a></li>`).join('')}</ul></main></div>`);
  const index = (host: string, agreed = true): Verdict => ({ kinds: INDEX, agreed, host });
  const shellChanged: Verdict = { kinds: SHELL, agreed: false, host: 'spa' };
  test('the two pages show different kinds', () => {
    assert.deepEqual(SHELL, [ROOT, LBT]);
    assert.deepEqual(INDEX, [`${LBT}, ${SERVED_STRUCTURE}`]);
  });
  test('a shell that changed when rendered does not distrust short served pages verified identical on three hosts', () =>
    fleet.given([shellChanged, index('a'), index('b'), index('c')]).when({ kinds: INDEX }).thenMatches(vouches(true)));
  test('while its little-text kind stays distrusted for every other page that shows it', () =>
    fleet.given([shellChanged, lbt('a'), lbt('b'), lbt('c')]).when({ kinds: [LBT] }).thenMatches(vouches(false, /little body text beside scripts disagreed on spa/)));
  test('a short served page that changed when rendered distrusts its kind fleet-wide, as any kind', () =>
    fleet.given([index('a'), index('b'), index('c'), index('d', false)]).when({ kinds: INDEX }).thenMatches(vouches(false, /with a served heading and links disagreed on d/)));
});

const seen: HostEvent = { type: 'seen' };
const when = '2026-01-01T00:00:00.000Z';
const verdict = (agreed: boolean, extra: Partial<Extract<HostEvent, { type: 'verified' }>> = {}): HostEvent => ({ type: 'verified', agreed, similarity: agreed ? 1 : 0.4, url: 'http://h/p', at: when, ...extra });
const TRUSTED: FleetTrust = { vouches: true, detail: '(no markers) verified identical on 3 hosts of the fleet' };
const UNTRUSTED: FleetTrust = { vouches: false, detail: '(no markers) verified identical on 1/3 hosts of the fleet' };
const probed = (fleetTrust?: FleetTrust, csrMarkers: string[] = []): EngineCommand => ({ type: 'probed', requested: 'auto', probe: { ok: true, csrMarkers }, ...(fleetTrust ? { fleet: fleetTrust } : {}) });
const pages = (n: number): HostEvent[] => Array<HostEvent>(n).fill(seen);

const host = hostSpec;

describe('engine decider: a new host on the fleet\'s word', () => {
  test('a new host whose page the fleet vouches for is served from its GET, without learning renders', () =>
    host.given(pages(1)).when(probed(TRUSTED)).thenMatches(decided('http', /fleet prior: \(no markers\) verified identical on 3 hosts/)));
  test('without the fleet\'s word the host learns alone, as before', () => {
    host.given(pages(1)).when(probed(UNTRUSTED)).thenMatches(decided('verify', /host unverified \(0\/3/));
    host.given(pages(1)).when(probed()).thenMatches(decided('verify', /host unverified/));
  });
  test(`its first check comes at page ${FLEET_FIRST_CHECK_PAGES} (a 7-page site renders none)`, () => {
    host.given(pages(FLEET_FIRST_CHECK_PAGES - 1)).when(probed(TRUSTED)).thenMatches(decided('http'));
    const check = host.given(pages(FLEET_FIRST_CHECK_PAGES)).when(probed(TRUSTED)).result();
    assert.deepEqual([check.action, check.action === 'verify' && check.fleetCheck], ['verify', true]);
    assert.match(check.reason, /first check of a host the fleet vouches for/);
  });
  test('an agreeing first check makes the host static, with the drift checks of a host that learnt itself (1 in 5, then 10)', () => {
    const checked = [...pages(FLEET_FIRST_CHECK_PAGES), verdict(true, { fleetCheck: true })];
    assert.equal(host.given(checked).state.mode, 'static');
    host.given([...checked, ...pages(4)]).when(probed()).thenMatches(decided('http', /host verified static/));
    host.given([...checked, ...pages(5)]).when(probed()).thenMatches(decided('verify', /drift check \(1 page in 5\)/));
    host.given([...checked, ...pages(5), verdict(true), ...pages(10)]).when(probed()).thenMatches(decided('verify', /drift check \(1 page in 10\)/));
  });
  test('a disagreeing check sends the host to the browser, and the fleet\'s word no longer counts for it', () => {
    const wrong = [...pages(FLEET_FIRST_CHECK_PAGES), verdict(false, { fleetCheck: true })];
    assert.equal(host.given(wrong).state.mode, 'browser');
    host.given([...wrong, seen]).when({ type: 'plan', requested: 'auto', browserNeeds: [] }).thenMatches(decided('browser', /host renders with JavaScript/));
    // Relearning after an agreeing recheck is the host's own (K agreeing pages), whatever the fleet says.
    host.given([...wrong, verdict(true), seen]).when(probed(TRUSTED)).thenMatches(decided('verify', /host unverified \(1\/3/));
  });
  test('a host with a disagreement of its own learns alone, even for pages the fleet vouches for', () =>
    host.given([verdict(false, { markers: ['script fills empty #c'] }), seen]).when(probed(TRUSTED)).thenMatches(decided('verify', /host unverified/)));
  test('a marker kind this host saw change a page stays in the browser, whatever the fleet says', () =>
    host.given([verdict(true), verdict(true), verdict(true), verdict(false, { markers: [ROOT] }), seen]).when(probed(TRUSTED, [ROOT])).thenMatches(decided('browser', /changed pages of this host: empty app root #root/)));
  test('on a static host, a kind it has not learnt that the fleet vouches for follows the host (its drift checks)', () => {
    const staticHost = [verdict(true), verdict(true), verdict(true), seen];
    host.given(staticHost).when(probed(undefined, [LBT])).thenMatches(decided('verify', /unverified on this host: little body text beside scripts/));
    host.given(staticHost).when(probed(TRUSTED, [LBT])).thenMatches(decided('http', /host verified static.*markers the fleet vouches for: little body text beside scripts/));
  });
  test('a learning host\'s page with an unverified kind the fleet vouches for is served from its GET too', () =>
    host.given(pages(1)).when(probed(TRUSTED, ['little body text (40 chars) beside scripts'])).thenMatches(decided('http', /fleet prior/)));
});
