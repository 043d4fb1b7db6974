// The `auto` engine's host decider as a given/when/then spec, and the check of its answer:
// shared by the decider's own tests and the fleet prior's (a host on the fleet's word).
import assert from 'node:assert/strict';
import { decide, evolve, NEW_HOST, type AutoPolicy, type EngineCommand, type EngineDecision, type HostEvent, type HostProfile } from '../../../services/fetcher/src/engine/host-profile.js';
import { deciderSpec } from '../../support/decider.js';

/** Small numbers, so that a test reaches a recheck in a few pages. */
export const POLICY: AutoPolicy = { agreements: 3, recheckEvery: 5 };

export const hostSpec = deciderSpec<EngineCommand, HostEvent, HostProfile, EngineDecision>({
  decide: (command, profile) => decide(profile, command, POLICY),
  evolve: (profile, event) => evolve(profile, event, POLICY),
  initialState: () => NEW_HOST,
});

/** The decision's action, and its reason when a pattern is given. */
export const decided = (action: EngineDecision['action'], reason?: RegExp) => (decision: EngineDecision): void => {
  assert.equal(decision.action, action, decision.reason);
  if (reason) assert.match(decision.reason, reason);
};
