// scripts/services.ts: which services `npm start` puts in the service host, the host's
// arguments, and the V8 flags a service is started with.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig } from '../../../shared/src/infra/config.js';
import { COHOSTED_SERVICES, cohostedServices, natsGoMaxProcs, parseHostArgs, SERVICE_NODE_FLAGS, serviceNodeFlags, SERVICES } from '../../../scripts/services.js';

describe('the service host', () => {
  test('by default the light services that were chosen, in start order; off or fewer than two: none', () => {
    assert.deepEqual(cohostedServices(undefined, SERVICES), [...COHOSTED_SERVICES]);
    assert.deepEqual(cohostedServices('', SERVICES), [...COHOSTED_SERVICES]);
    assert.deepEqual(cohostedServices(' ON ', SERVICES), [...COHOSTED_SERVICES]);
    assert.deepEqual(cohostedServices('off', SERVICES), []);
    assert.deepEqual(cohostedServices(undefined, ['gateway', 'webhook-dispatcher', 'projector']), ['projector', 'webhook-dispatcher']);
    assert.deepEqual(cohostedServices(undefined, ['projector', 'fetcher', 'transformer', 'gateway']), [], 'one alone runs in its own process');
    assert.ok(!(COHOSTED_SERVICES as readonly string[]).includes('gateway'), 'a crash of a light service never takes the API down');
  });

  test('a TRAWL_COHOST that is neither on nor off is refused, named', () => {
    assert.throws(() => cohostedServices('gateway', SERVICES), /TRAWL_COHOST: expected on or off, got "gateway"/);
  });

  test('its arguments: <name>:<healthPort>, only hostable services, valid ports', () => {
    assert.deepEqual(parseHostArgs(['projector:4001', 'webhook-dispatcher:0']), [{ name: 'projector', healthPort: 4001 }, { name: 'webhook-dispatcher', healthPort: 0 }]);
    assert.throws(() => parseHostArgs([]), /usage/);
    assert.throws(() => parseHostArgs(['fetcher:4001']), /cannot host "fetcher"/);
    for (const bad of ['projector', 'projector:', 'projector:x', 'projector:70000', 'projector:-1']) assert.throws(() => parseHostArgs([bad]), /bad health port/, bad);
  });
});

describe('a service\'s V8 flags', () => {
  test('the transformer\'s are its threads\' limits from the configuration (a process flag overrides a thread\'s own); the others\' are their rows', () => {
    const config = loadConfig({ ADMIN_API_KEY: 'trawl_test', TRANSFORMER_SEMI_SPACE_MB: '2', TRANSFORMER_MAX_HEAP_MB: '300' });
    assert.deepEqual(serviceNodeFlags('transformer', config).filter((f) => /semi-space|old-space/.test(f)), ['--max-semi-space-size=2', '--max-old-space-size=300']);
    for (const name of SERVICES.filter((s) => s !== 'transformer')) assert.deepEqual(serviceNodeFlags(name, config), SERVICE_NODE_FLAGS[name]);
    assert.throws(() => loadConfig({ ADMIN_API_KEY: 'trawl_test', TRANSFORMER_SEMI_SPACE_MB: '0' }), /TRANSFORMER_SEMI_SPACE_MB/);
  });
});

describe('a local nats-server\'s Go scheduler threads', () => {
  test('given the machine\'s cores, when nats-server starts, then one thread per three cores, at least one', () => {
    assert.equal(natsGoMaxProcs(1), '1');
    assert.equal(natsGoMaxProcs(2), '1');
    assert.equal(natsGoMaxProcs(3), '1');
    assert.equal(natsGoMaxProcs(4), '2');
    assert.equal(natsGoMaxProcs(8), '3');
    assert.equal(natsGoMaxProcs(0), '1', 'a machine that reports no cores still gets one');
  });
});
