// What the whole fleet has learnt about a kind of page, across hosts: the `auto` engine's
// prior for a host that has learnt nothing itself yet. Pure (evolve / trust, the clock
// passed in); stored beside the host profiles (fleet-prior-store.ts) and used by the
// decider (host-profile.ts). Why and how: docs/architecture.md "Fetch engines and host
// profiles".
//
// A page is known to the fleet by its set of CSR marker kinds (none at all is a set too).
// Each verification on any host adds its host to the set's agreeing hosts, or revokes the
// set and stamps each of its kinds with the disagreement: a kind that changed a page
// anywhere recently vouches for no page, whatever other kinds come with it.

/** The set of a page without any CSR marker. */
export const NO_MARKERS = '(no markers)';

export interface FleetPrior {
  /** Distinct hosts where a page of this set verified identical since its last disagreement (the most recent FLEET_HOSTS_KEPT). */
  hosts: string[];
  agreements: number;
  disagreements: number;
  /** The last disagreement of a page with this set (or, for a single kind, any set holding it). */
  lastDisagreement?: { host: string; url: string; at: string };
}

export const NEW_FLEET_PRIOR: FleetPrior = { hosts: [], agreements: 0, disagreements: 0 };
/** Agreeing hosts kept per set: enough to count past the trust threshold, bounded however many hosts agree. */
export const FLEET_HOSTS_KEPT = 8;

export interface FleetPolicy {
  /** Distinct hosts whose verifications of a set agreed, with no disagreement since, before it vouches for a new host. */
  hosts: number;
  /** A disagreement this recent, of the set or of any of its kinds, leaves every host to learn it itself. */
  distrustMs: number;
}

export const FLEET_POLICY_DEFAULTS: FleetPolicy = { hosts: 3, distrustMs: 7 * 86_400_000 };

/** One verification's verdict, on some host, of a page with this set. */
export interface FleetVerdict {
  agreed: boolean;
  host: string;
  url: string;
  at: string;
}

/** What the fleet's store holds for a page's set: the set's prior, and each kind's alone (for their disagreements). */
export interface FleetEvidence {
  set: FleetPrior;
  kinds: Record<string, FleetPrior>;
}

export type FleetTrust = { vouches: boolean; detail: string };

/** A page's marker kinds as a set: sorted, without repeats (the key of its prior). */
export function kindSet(kinds: readonly string[]): string[] {
  return [...new Set(kinds)].sort();
}

export function setName(kinds: readonly string[]): string {
  return kinds.length === 0 ? NO_MARKERS : kinds.join(' + ');
}

/** The sets whose priors a verdict on a page with this set changes: the set, and on a disagreement each of its kinds alone. */
export function setsLearning(set: readonly string[], agreed: boolean): string[][] {
  return agreed || set.length < 2 ? [[...set]] : [[...set], ...set.map((k) => [k])];
}

/**
 * The prior after one verdict. An agreement adds its host (once); a disagreement revokes:
 * the agreeing hosts are forgotten, so trust needs `hosts` new ones once it is old enough.
 */
export function evolveFleetPrior(prior: FleetPrior, verdict: FleetVerdict): FleetPrior {
  if (!verdict.agreed) {
    return { hosts: [], agreements: prior.agreements, disagreements: prior.disagreements + 1, lastDisagreement: { host: verdict.host, url: verdict.url, at: verdict.at } };
  }
  const hosts = [verdict.host, ...prior.hosts.filter((h) => h !== verdict.host)].slice(0, FLEET_HOSTS_KEPT);
  return { ...prior, hosts, agreements: prior.agreements + 1 };
}

/**
 * Whether the fleet vouches for a page with these kinds (a `kindSet`) on a host that has
 * not learnt them: its exact set verified identical on `policy.hosts` distinct hosts, and
 * neither the set nor any of its kinds disagreed within `policy.distrustMs`. A set never
 * seen, or a kind never seen alone or with others, vouches for nothing.
 */
export function fleetTrust(kinds: readonly string[], evidence: FleetEvidence, now: Date, policy: FleetPolicy): FleetTrust {
  const name = setName(kinds);
  const recent = (p: FleetPrior | undefined): FleetPrior['lastDisagreement'] =>
    p?.lastDisagreement && now.getTime() - Date.parse(p.lastDisagreement.at) < policy.distrustMs ? p.lastDisagreement : undefined;
  const blamed = [{ what: name, when: recent(evidence.set) }, ...kinds.map((k) => ({ what: k, when: recent(evidence.kinds[k]) }))].find((b) => b.when);
  if (blamed?.when) return { vouches: false, detail: `${blamed.what} disagreed on ${blamed.when.host} at ${blamed.when.at}` };
  const agreeing = evidence.set.hosts.length;
  if (agreeing < policy.hosts) return { vouches: false, detail: `${name} verified identical on ${agreeing}/${policy.hosts} hosts of the fleet` };
  return { vouches: true, detail: `${name} verified identical on ${agreeing} hosts of the fleet` };
}
