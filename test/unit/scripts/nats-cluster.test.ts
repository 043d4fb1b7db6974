// `npm run cluster`'s flags and node arguments: defaults of three servers and two processes
// per service, per-service counts, errors that name the flag, and routes to every node.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clusterUrl, natsNodeArgs, parseClusterFlags, replicasFor } from '../../../scripts/nats-cluster.js';

test('defaults, flags and per-service counts', () => {
  assert.deepEqual(parseClusterFlags(['--cluster']), { natsNodes: 3, serviceReplicas: 2, scale: {} });
  assert.deepEqual(parseClusterFlags(['--cluster', '--nats-nodes', '5', '--replicas=3', '--scale', 'fetcher=4,transformer=0']),
    { natsNodes: 5, serviceReplicas: 3, scale: { fetcher: 4, transformer: 0 } });
  assert.throws(() => parseClusterFlags(['--nats-nodes', '9']), /--nats-nodes: expected a whole number from 1 to 5, got "9"/);
  assert.throws(() => parseClusterFlags(['--replicas']), /--replicas: expected/);
  assert.throws(() => parseClusterFlags(['--scale', 'fetcher']), /--scale: expected service=count/);
  assert.equal(replicasFor(1), 1);
  assert.equal(replicasFor(5), 3);
});

test('every node routes to every node, under its own name, port and store', () => {
  const nodes = [1, 2, 3].map((i) => ({ name: `n${i}`, clientPort: 4000 + i, routePort: 6000 + i, storeDir: `/tmp/s${i}` }));
  const args = natsNodeArgs(nodes[1]!, nodes);
  assert.deepEqual(args.slice(args.indexOf('-n'), args.indexOf('-n') + 2), ['-n', 'n2']);
  assert.equal(args[args.indexOf('--routes') + 1], 'nats://127.0.0.1:6001,nats://127.0.0.1:6002,nats://127.0.0.1:6003');
  assert.equal(args[args.indexOf('-c') + 1], '/tmp/s2.conf');
  assert.equal(clusterUrl(nodes), 'nats://127.0.0.1:4001,nats://127.0.0.1:4002,nats://127.0.0.1:4003');
});
