// The Helm chart (deploy/helm/trawl), checked statically and by rendering it with
// helm-lite (no helm binary can be installed here) under development, production-shaped
// and existing-Secret values; every rendered object is validated against the Kubernetes
// schemas, and the rendered nats.conf is checked by a real nats-server.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { loadConfig, TRANSFORMER_DEFAULTS } from '../../../shared/src/infra/config.js';
import { loadChart, renderChart, type RenderOptions } from './support/helm-lite.js';
import { validateManifest } from './support/k8s-schema.js';
import { CHART_DIR, DEV_VALUES, SERVICES } from './support/repo.js';
import { SERVICE_NODE_FLAGS } from '../../../scripts/services.js';

type Manifest = Record<string, any>;
const chart = loadChart(CHART_DIR);

const PROD_VALUES = {
  apiKeys: { bootstrap: 'prod-key-aaaaaaaaaaaaaaaa:pro' },
  mongodb: { url: 'mongodb://user:pw@mongo.internal:27017/trawl' },
  nats: { enabled: false, url: 'nats://nats.messaging:4222' },
  ingress: { enabled: true, hosts: [{ host: 'trawl.example.com', paths: [{ path: '/', pathType: 'Prefix' }] }] },
  networkPolicy: { enabled: true, allowedPrivateCidrs: ['10.40.0.0/16'] },
  webhooks: { signingSecret: 'a-signing-secret-of-more-than-32-characters' },
  services: {
    gateway: { autoscaling: { enabled: true } },
    fetcher: { autoscaling: { enabled: true }, nodeSelector: { pool: 'browsers' } },
    transformer: { autoscaling: { enabled: true } },
  },
};
const EXISTING_SECRETS = {
  apiKeys: { existingSecret: 'trawl-keys', existingSecretKey: 'keys' },
  mongodb: { existingSecret: 'trawl-mongo' },
  webhooks: { existingSecret: 'trawl-webhooks' },
  services: { gateway: { replicas: 1 } },
};

/** The chart's own defaults with the two values it requires. */
const CLUSTER_VALUES = { apiKeys: { bootstrap: 'prod-key-aaaaaaaaaaaaaaaa:pro' }, mongodb: { url: 'mongodb://mongo.internal:27017/trawl' } };

const SCENARIOS: Record<string, RenderOptions> = {
  dev: { valuesFiles: [DEV_VALUES] },
  production: { values: PROD_VALUES, releaseName: 'web-extract' },
  existingSecrets: { values: EXISTING_SECRETS },
};
const rendered = Object.fromEntries(Object.entries(SCENARIOS).map(([name, opts]) => [name, renderChart(chart, opts)]));

function find(manifests: Manifest[], kind: string, name: string): Manifest {
  const found = manifests.find((m) => m.kind === kind && m.metadata?.name === name);
  assert.ok(found, `${kind} ${name} not rendered; have ${manifests.map((m) => `${m.kind}/${m.metadata?.name}`).join(', ')}`);
  return found;
}
const ofKind = (manifests: Manifest[], kind: string): Manifest[] => manifests.filter((m) => m.kind === kind);
const container = (d: Manifest): Manifest => d.spec.template.spec.containers[0];

/** Every `.Values.a.b` path the templates read, for the "declared in values.yaml" check. */
function valuesPaths(): Array<{ file: string; path: string[] }> {
  const out: Array<{ file: string; path: string[] }> = [];
  for (const [file, source] of chart.templates) {
    for (const m of source.matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)) out.push({ file, path: m[1]!.split('.').slice(1) });
  }
  return out;
}

describe('Helm chart: static checks', () => {
  test('Chart.yaml is a v2 application chart with semver versions', () => {
    const meta = parse(fs.readFileSync(path.join(CHART_DIR, 'Chart.yaml'), 'utf8')) as Manifest;
    assert.equal(meta.apiVersion, 'v2');
    assert.equal(meta.name, 'trawl');
    assert.equal(meta.type, 'application');
    assert.match(String(meta.version), /^\d+\.\d+\.\d+$/);
    assert.equal(typeof meta.appVersion, 'string');
    assert.equal(meta.dependencies, undefined, 'no chart dependencies: nothing may need downloading');
  });

  test('values.yaml and values-dev.yaml parse, and name exactly the six services', () => {
    for (const file of ['values.yaml', 'values-dev.yaml']) {
      const values = parse(fs.readFileSync(path.join(CHART_DIR, file), 'utf8')) as Manifest;
      assert.deepEqual(Object.keys(values.services).sort(), [...SERVICES].sort(), file);
    }
  });

  test('every service has its own Deployment template', () => {
    for (const service of SERVICES) {
      const source = chart.templates.get(`trawl/templates/${service}.yaml`);
      assert.ok(source, `templates/${service}.yaml is missing`);
      assert.match(source, new RegExp(`include "trawl\\.deployment" \\(dict "root" \\$ "name" "${service}"\\)`));
    }
  });

  test('every .Values path the templates read is declared in values.yaml', () => {
    const missing = valuesPaths().filter(({ path: p }) => {
      let node: unknown = chart.values;
      for (const key of p) {
        if (typeof node !== 'object' || node === null || !(key in node)) return true;
        node = (node as Record<string, unknown>)[key];
      }
      return false;
    });
    assert.deepEqual(missing.map((m) => `${m.file}: .Values.${m.path.join('.')}`), []);
    assert.ok(valuesPaths().length > 50, 'the scan found the references');
  });

  test('default values refuse to render without an API key and a shared MongoDB', () => {
    assert.throws(() => renderChart(chart), /apiKeys\.bootstrap/);
    assert.throws(() => renderChart(chart, { values: { apiKeys: { bootstrap: 'k-aaaaaaaaaaaaaaaaaaaa:free' } } }), /mongodb\.url/);
    assert.throws(() => renderChart(chart, { valuesFiles: [DEV_VALUES], values: { nats: { enabled: false } } }), /nats\.url/);
    assert.throws(() => renderChart(chart, { valuesFiles: [DEV_VALUES], values: { services: { scraper: { enabled: true } } } }), /services\.scraper: unknown service/);
    assert.throws(() => renderChart(chart, { valuesFiles: [DEV_VALUES], values: { webhooks: { signingSecret: 'too-short' } } }), /at least 32 characters/);
  });
});

describe('Helm chart: rendered manifests', () => {
  for (const [scenario, result] of Object.entries(rendered)) {
    test(`${scenario}: every object is valid against the Kubernetes schemas, names are DNS-safe and unique`, () => {
      const seen = new Set<string>();
      for (const m of result.manifests) {
        validateManifest(m);
        const name = String(m.metadata.name);
        assert.match(name, /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, `${m.kind} ${name}`);
        assert.ok(name.length <= 63, `${m.kind} ${name} is longer than 63`);
        const key = `${m.kind}/${name}`;
        assert.ok(!seen.has(key), `${key} rendered twice`);
        seen.add(key);
      }
      assert.ok(result.notes.includes('Trawl'), 'NOTES.txt renders');
    });

    test(`${scenario}: one Deployment per enabled service, each wired and hardened`, () => {
      // Helm's usual full name: the release name, suffixed with the chart's unless it has it.
      const release = SCENARIOS[scenario]!.releaseName ?? 'trawl';
      const prefix = release.includes('trawl') ? release : `${release}-trawl`;
      const configMap = find(result.manifests, 'ConfigMap', `${prefix}-config`);
      assert.equal(configMap.data.HOST, '0.0.0.0');
    assert.equal(configMap.data.MALLOC_ARENA_MAX, '2', 'every service gets two malloc arenas, as under npm start');
      const secrets = new Map(ofKind(result.manifests, 'Secret').map((s) => [s.metadata.name, s.stringData]));
      for (const service of SERVICES) {
        const d = find(result.manifests, 'Deployment', `${prefix}-${service}`);
        const pod = d.spec.template.spec;
        const c = container(d);
        // The Node/V8 flags npm start gives the service (scripts/services.ts), before its entry point.
        assert.deepEqual(c.args, [...SERVICE_NODE_FLAGS[service], `dist/services/${service}/src/main.js`]);
        assert.deepEqual(d.spec.selector.matchLabels, Object.fromEntries(Object.entries(d.spec.template.metadata.labels).filter(([k]) => k in d.spec.selector.matchLabels)));
        assert.equal(d.spec.selector.matchLabels['app.kubernetes.io/component'], service);
        // Probes on a port the container declares.
        const ports = new Set(c.ports.map((p: Manifest) => p.name));
        assert.equal(c.livenessProbe.httpGet.path, '/healthz');
        assert.equal(c.readinessProbe.httpGet.path, '/readyz');
        assert.ok(ports.has(c.livenessProbe.httpGet.port) && ports.has(c.readinessProbe.httpGet.port), `${service} probes a declared port`);
        if (service !== 'gateway') assert.ok(c.env.some((e: Manifest) => e.name === 'HEALTH_PORT' && e.value === String(c.ports[0].containerPort)));
        // Resources, security, draining.
        for (const kind of ['requests', 'limits']) for (const r of ['cpu', 'memory']) assert.ok(c.resources[kind]?.[r], `${service} ${kind}.${r}`);
        assert.equal(pod.securityContext.runAsNonRoot, true);
        assert.equal(pod.automountServiceAccountToken, false);
        assert.equal(c.securityContext.readOnlyRootFilesystem, true);
        assert.equal(c.securityContext.allowPrivilegeEscalation, false);
        assert.deepEqual(c.securityContext.capabilities.drop, ['ALL']);
        assert.ok(pod.terminationGracePeriodSeconds >= 35, `${service}: services drain within 30 s of SIGTERM`);
        const volumes = new Set(pod.volumes.map((v: Manifest) => v.name));
        for (const mount of c.volumeMounts) assert.ok(volumes.has(mount.name), `${service} mounts undeclared volume ${mount.name}`);
        assert.ok(c.volumeMounts.some((v: Manifest) => v.mountPath === '/tmp'), `${service}: writable /tmp on a read-only root`);
        // Configuration: shared ConfigMap, MongoDB URL from a Secret for every service.
        assert.equal(c.envFrom[0].configMapRef.name, configMap.metadata.name);
        const mongo = c.env.find((e: Manifest) => e.name === 'MONGODB_URL').valueFrom.secretKeyRef;
        if (scenario === 'existingSecrets') assert.equal(mongo.name, 'trawl-mongo');
        else assert.ok(secrets.get(mongo.name)?.[mongo.key]?.startsWith('mongodb://'), `${service}: MONGODB_URL resolves`);
        assert.ok(!c.env.some((e: Manifest) => e.name === 'BOOTSTRAP_API_KEYS'), 'only the init container sees the keys');
        // Only the fetcher carries Chromium.
        assert.equal(c.image.split(':')[0] === 'trawl-fetcher', service === 'fetcher', `${service} image ${c.image}`);
      }
    });
  }

  test('dev: the fetcher gets a memory-backed /dev/shm and the most memory', () => {
    const { manifests } = rendered.dev!;
    const fetcher = find(manifests, 'Deployment', 'trawl-fetcher');
    const shm = fetcher.spec.template.spec.volumes.find((v: Manifest) => v.name === 'dshm');
    assert.equal(shm.emptyDir.medium, 'Memory');
    assert.ok(container(fetcher).volumeMounts.some((m: Manifest) => m.name === 'dshm' && m.mountPath === '/dev/shm'));
    assert.ok(container(fetcher).env.some((e: Manifest) => e.name === 'FETCHER_CONCURRENCY'));
    const mem = (d: Manifest): number => Number(String(container(d).resources.limits.memory).replace(/Gi$/, '000').replace(/Mi$/, ''));
    for (const service of SERVICES.filter((s) => s !== 'fetcher')) {
      assert.ok(mem(fetcher) > mem(find(manifests, 'Deployment', `trawl-${service}`)), `fetcher memory limit above ${service}`);
      assert.ok(!find(manifests, 'Deployment', `trawl-${service}`).spec.template.spec.volumes.some((v: Manifest) => v.name === 'dshm'));
    }
  });

  test('dev: the gateway creates the API keys in an init container, then serves on 3000 behind a Service', () => {
    const { manifests } = rendered.dev!;
    const gateway = find(manifests, 'Deployment', 'trawl-gateway');
    const [init] = gateway.spec.template.spec.initContainers;
    assert.deepEqual(init.args, ['dist/deploy/bootstrap-keys.js']);
    const ref = init.env.find((e: Manifest) => e.name === 'BOOTSTRAP_API_KEYS').valueFrom.secretKeyRef;
    assert.match(find(manifests, 'Secret', ref.name).stringData[ref.key], /^trawl-dev-key-\d+:team$/);
    assert.equal(container(gateway).ports[0].containerPort, 3000);
    assert.ok(container(gateway).lifecycle.preStop, 'keeps serving while endpoints are removed');
    const svc = find(manifests, 'Service', 'trawl-gateway');
    assert.equal(svc.spec.ports[0].targetPort, 'http');
    assert.deepEqual(svc.spec.selector, gateway.spec.selector.matchLabels);
    assert.ok(ofKind(manifests, 'Deployment').every((d) => d.spec.replicas === 1), 'dev runs one pod per service');
    assert.equal(ofKind(manifests, 'PodDisruptionBudget').length, 0, 'no PDB for a single pod: it would block node drains');
  });

  test('dev: single-node NATS (JetStream on a PVC) and MongoDB, and the services point at them', () => {
    const { manifests } = rendered.dev!;
    const nats = find(manifests, 'StatefulSet', 'trawl-nats');
    assert.equal(nats.spec.replicas, 1);
    assert.equal(find(manifests, 'ConfigMap', 'trawl-config').data.NATS_REPLICAS, '1');
    assert.doesNotMatch(String(find(manifests, 'ConfigMap', 'trawl-nats').data['nats.conf']), /cluster/);
    assert.equal(nats.spec.volumeClaimTemplates[0].metadata.name, 'data');
    assert.equal(find(manifests, 'Service', 'trawl-nats').spec.ports[0].port, 4222);
    assert.equal(find(manifests, 'ConfigMap', 'trawl-config').data.NATS_URL, 'nats://trawl-nats:4222');
    find(manifests, 'StatefulSet', 'trawl-mongodb');
    assert.equal(find(manifests, 'Secret', 'trawl').stringData.MONGODB_URL, 'mongodb://trawl-mongodb:27017/trawl');
  });

  for (const [scenario, values] of [['dev', undefined], ['cluster', CLUSTER_VALUES]] as const) {
    test(`${scenario}: the rendered nats.conf is accepted by nats-server`, (t) => {
      const probe = spawnSync('nats-server', ['--version'], { encoding: 'utf8' });
      if (probe.error) { t.skip('nats-server is not installed'); return; }
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-natsconf-'));
      try {
        const manifests = values ? renderChart(chart, { values }).manifests : rendered.dev!.manifests;
        const conf = String(find(manifests, 'ConfigMap', 'trawl-nats').data['nats.conf']).replace('store_dir: /data', `store_dir: ${dir}`);
        fs.writeFileSync(path.join(dir, 'nats.conf'), conf);
        const check = spawnSync('nats-server', ['-c', path.join(dir, 'nats.conf'), '-t'], { encoding: 'utf8' });
        assert.equal(check.status, 0, `${check.stdout}${check.stderr}`);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  test('defaults: a 3-node JetStream cluster at R3, two pods of every service, each with a PodDisruptionBudget', () => {
    const { manifests } = renderChart(chart, { values: CLUSTER_VALUES });
    const nats = find(manifests, 'StatefulSet', 'trawl-nats');
    assert.equal(nats.spec.replicas, 3);
    assert.equal(nats.spec.podManagementPolicy, 'Parallel');
    assert.ok(container(nats).ports.some((p: Manifest) => p.name === 'cluster' && p.containerPort === 6222));
    assert.ok(find(manifests, 'Service', 'trawl-nats-headless').spec.ports.some((p: Manifest) => p.name === 'cluster'));
    const conf = String(find(manifests, 'ConfigMap', 'trawl-nats').data['nats.conf']);
    for (let i = 0; i < 3; i++) assert.match(conf, new RegExp(`nats://trawl-nats-${i}\\.trawl-nats-headless:6222`));
    assert.equal(find(manifests, 'ConfigMap', 'trawl-config').data.NATS_REPLICAS, '3');
    assert.equal(find(manifests, 'PodDisruptionBudget', 'trawl-nats').spec.maxUnavailable, 1);
    for (const service of SERVICES) {
      assert.equal(find(manifests, 'Deployment', `trawl-${service}`).spec.replicas, 2, service);
      assert.equal(find(manifests, 'PodDisruptionBudget', `trawl-${service}`).spec.minAvailable, 1, service);
    }
    assert.throws(() => renderChart(chart, { values: { ...CLUSTER_VALUES, nats: { replicas: 1 } } }), /nats.streamReplicas \(3\) cannot exceed nats.replicas \(1\)/);
  });

  test('production: external NATS and MongoDB, HPAs, Ingress and egress policies', () => {
    const { manifests } = rendered.production!;
    assert.equal(ofKind(manifests, 'StatefulSet').length, 0, 'no in-chart NATS or MongoDB');
    assert.equal(find(manifests, 'ConfigMap', 'web-extract-trawl-config').data.NATS_URL, 'nats://nats.messaging:4222');
    assert.equal(find(manifests, 'ConfigMap', 'web-extract-trawl-config').data.PUBLIC_BASE_URL, 'https://trawl.example.com');
    for (const service of ['gateway', 'fetcher', 'transformer']) {
      const hpa = find(manifests, 'HorizontalPodAutoscaler', `web-extract-trawl-${service}`);
      assert.equal(hpa.spec.scaleTargetRef.name, `web-extract-trawl-${service}`);
      assert.equal(find(manifests, 'Deployment', `web-extract-trawl-${service}`).spec.replicas, undefined, 'the HPA owns replicas');
    }
    assert.equal(find(manifests, 'Deployment', 'web-extract-trawl-projector').spec.replicas, 2);
    assert.ok(!manifests.some((m) => m.kind === 'HorizontalPodAutoscaler' && m.metadata.name.endsWith('-projector')));
    const pdb = find(manifests, 'PodDisruptionBudget', 'web-extract-trawl-gateway');
    assert.deepEqual(pdb.spec.selector.matchLabels, find(manifests, 'Deployment', 'web-extract-trawl-gateway').spec.selector.matchLabels);
    const ingress = find(manifests, 'Ingress', 'web-extract-trawl-gateway');
    assert.equal(ingress.spec.rules[0].http.paths[0].backend.service.name, 'web-extract-trawl-gateway');
    assert.deepEqual(find(manifests, 'Deployment', 'web-extract-trawl-fetcher').spec.template.spec.nodeSelector, { pool: 'browsers' });
    const egress = find(manifests, 'NetworkPolicy', 'web-extract-trawl-fetcher-egress');
    const internet = egress.spec.egress.flatMap((rule: Manifest) => rule.to).find((to: Manifest) => to.ipBlock?.cidr === '0.0.0.0/0');
    assert.ok(internet.ipBlock.except.includes('169.254.0.0/16'), 'cloud metadata is unreachable');
    assert.ok(internet.ipBlock.except.includes('10.0.0.0/8'));
    assert.ok(egress.spec.egress.some((rule: Manifest) => rule.to.some((to: Manifest) => to.ipBlock?.cidr === '10.40.0.0/16')));
    assert.ok(!manifests.some((m) => m.kind === 'NetworkPolicy' && m.metadata.name.includes('gateway')), 'the gateway is not egress-restricted');
    // The webhook signing secret reaches the two services that sign, and no other.
    for (const service of SERVICES) {
      const ref = container(find(manifests, 'Deployment', `web-extract-trawl-${service}`)).env.find((e: Manifest) => e.name === 'WEBHOOK_SIGNING_SECRET')?.valueFrom.secretKeyRef;
      assert.equal(Boolean(ref), service === 'gateway' || service === 'webhook-dispatcher', service);
      if (ref) assert.equal(find(manifests, 'Secret', ref.name).stringData[ref.key], PROD_VALUES.webhooks.signingSecret);
    }
  });

  test('existing Secrets: the chart creates none and references the named ones', () => {
    const { manifests } = rendered.existingSecrets!;
    assert.equal(ofKind(manifests, 'Secret').length, 0);
    const init = find(manifests, 'Deployment', 'trawl-gateway').spec.template.spec.initContainers[0];
    assert.deepEqual(init.env.find((e: Manifest) => e.name === 'BOOTSTRAP_API_KEYS').valueFrom.secretKeyRef, { name: 'trawl-keys', key: 'keys' });
    const dispatcher = container(find(manifests, 'Deployment', 'trawl-webhook-dispatcher'));
    assert.deepEqual(dispatcher.env.find((e: Manifest) => e.name === 'WEBHOOK_SIGNING_SECRET').valueFrom.secretKeyRef, { name: 'trawl-webhooks', key: 'WEBHOOK_SIGNING_SECRET' });
  });

  test('a config change rolls the pods (checksum annotation follows the ConfigMap)', () => {
    const before = find(rendered.dev!.manifests, 'Deployment', 'trawl-fetcher').spec.template.metadata.annotations['checksum/config'];
    const after = renderChart(chart, { valuesFiles: [DEV_VALUES], values: { config: { logLevel: 'warn' } } });
    assert.notEqual(find(after.manifests, 'Deployment', 'trawl-fetcher').spec.template.metadata.annotations['checksum/config'], before);
    assert.equal(find(after.manifests, 'ConfigMap', 'trawl-config').data.LOG_LEVEL, 'warn');
    assert.equal(find(after.manifests, 'ConfigMap', 'trawl-config').data.PAYLOAD_TTL_MS, '604800000', 'large numbers stay integers');
  });

  test('the ConfigMap is a valid service configuration with the chart\'s defaults', () => {
    const data = find(rendered.dev!.manifests, 'ConfigMap', 'trawl-config').data as Record<string, string>;
    const config = loadConfig({ ...data, ADMIN_API_KEY: 'trawl_test' });
    assert.equal(config.documentMaxBytes, 32 * 1024 * 1024);
    assert.equal(config.documentMaxPages, 1000);
    assert.equal(config.documentParseTimeoutMs, 30_000);
    assert.equal(config.payloadTtlMs, 7 * 86_400_000);
  });

  test('the transformer pod has TRANSFORMER_SEMI_SPACE_MB (its default) for its threads and as its process\'s flag, as npm start does', () => {
    const c = container(find(rendered.dev!.manifests, 'Deployment', 'trawl-transformer'));
    const env = new Map(c.env.map((e: Manifest) => [e.name, e.value]));
    assert.equal(env.get('TRANSFORMER_SEMI_SPACE_MB'), String(TRANSFORMER_DEFAULTS.semiSpaceMb));
    assert.equal(env.get('NODE_OPTIONS'), '--max-semi-space-size=$(TRANSFORMER_SEMI_SPACE_MB)');
    // Kubernetes expands $(VAR) only from variables defined before it.
    assert.ok([...env.keys()].indexOf('TRANSFORMER_SEMI_SPACE_MB') < [...env.keys()].indexOf('NODE_OPTIONS'));
  });
});
