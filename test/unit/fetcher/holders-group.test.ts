// When a missing slot-holder key may count as its fetcher's death: only while the holders'
// bucket's raft group, as its leader reports it, has every server in the cluster (a fetcher
// cut off with a frozen server cannot renew its key, and lives).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ClusterInfo, PeerInfo } from 'nats';
import { groupWhole } from '../../../services/fetcher/src/fleet/slot-holders.js';

const peer = (name: string, activeMs: number, offline = false): PeerInfo => ({ name, current: true, offline, active: activeMs * 1e6, lag: 0 });
const group = (replicas: PeerInfo[], leader = 'n1'): ClusterInfo => ({ name: 'c', leader, replicas });

test('a leader and both peers heard from within a few heartbeats: whole', () => {
  assert.equal(groupWhole(group([peer('n2', 400), peer('n3', 1_200)])), true);
});

test('a peer silent for 3 s (frozen, cut off) or marked offline: not whole', () => {
  assert.equal(groupWhole(group([peer('n2', 400), peer('n3', 3_000)])), false);
  assert.equal(groupWhole(group([peer('n2', 400), peer('n3', 100, true)])), false);
});

test('no leader (an election under way): not whole', () => {
  assert.equal(groupWhole(group([peer('n2', 400), peer('n3', 400)], '')), false);
  assert.equal(groupWhole({ name: 'c', replicas: [peer('n2', 400)] }), false);
});

test('a single server\'s bucket (no group, or no peers): whole', () => {
  assert.equal(groupWhole(undefined), true);
  assert.equal(groupWhole({ leader: 'solo' }), true);
});
