// The image build (deploy/Dockerfile, .dockerignore), the Tiltfile and docs/deploy.md,
// checked against each other and against the chart: no Docker engine runs here, so these
// read the files; the chart tests render what the Tiltfile deploys.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { loadChart, renderChart } from './support/helm-lite.js';
import { CHART_DIR, DEV_VALUES, readRepoFile, REPO_ROOT, SERVICES } from './support/repo.js';

interface Instruction { op: string; args: string }
interface Stage { name: string; from: string; steps: Instruction[] }

/** Dockerfile instructions grouped by stage (continuation lines joined, comments dropped). */
function dockerStages(source: string): Stage[] {
  const lines = source.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, op = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    if (op.toUpperCase() === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      stages.push({ from: m?.[1] ?? '', name: m?.[2] ?? String(stages.length), steps: [] });
    } else if (stages.length) stages[stages.length - 1]!.steps.push({ op: op.toUpperCase(), args });
  }
  return stages;
}

const dockerfile = readRepoFile('deploy/Dockerfile');
const stages = dockerStages(dockerfile);
const stage = (name: string): Stage => {
  const found = stages.find((s) => s.name === name);
  assert.ok(found, `stage ${name} missing; have ${stages.map((s) => s.name).join(', ')}`);
  return found;
};
const runs = (s: Stage): string => s.steps.filter((i) => i.op === 'RUN').map((i) => i.args).join('\n');
/** A stage's steps plus those of the stages it is built FROM. */
const lineage = (s: Stage): Stage[] => {
  const parent = stages.find((p) => p.name === s.from);
  return parent ? [...lineage(parent), s] : [s];
};

describe('deploy/Dockerfile', () => {
  test('every stage starts from Node 24 (directly or through another stage)', () => {
    const arg = /^ARG NODE_IMAGE=(\S+)$/m.exec(dockerfile);
    assert.match(arg?.[1] ?? '', /^node:24[-.]/);
    for (const s of stages) assert.ok(s.from === '${NODE_IMAGE}' || stages.some((p) => p.name === s.from), `${s.name} FROM ${s.from}`);
  });

  test('the build stage installs dev dependencies and compiles dist/ with tsc', () => {
    const build = stage('build');
    assert.match(runs(build), /npm ci\b(?![^\n]*--omit=dev)/, 'devDependencies (typescript) are installed');
    assert.match(runs(build), /tsc -p deploy\/tsconfig\.build\.json/);
    const config = JSON.parse(readRepoFile('deploy/tsconfig.build.json')) as { extends: string; include: string[] };
    assert.equal(config.extends, '../tsconfig.json', 'same compiler options as npm run build');
    for (const dir of ['../shared/src/', '../services/*/src/', '../deploy/']) assert.ok(config.include.some((i) => i.startsWith(dir)), dir);
    const copied = build.steps.filter((i) => i.op === 'COPY').map((i) => i.args).join(' ');
    for (const source of ['package-lock.json', 'tsconfig.json', 'shared', 'services', 'deploy/tsconfig.build.json']) assert.ok(copied.includes(source), `build copies ${source}`);
  });

  test('the dependencies patched in patches/ are patched in the images too (install scripts are skipped there)', () => {
    const patched = fs.readdirSync(path.join(REPO_ROOT, 'patches')).map((f) => /^(.+)\+[^+]+\.patch$/.exec(f)![1]!.replace('+', '/'));
    assert.ok(patched.length > 0);
    assert.match(runs(stage('build')), /npx patch-package/);
    assert.ok(stage('build').steps.some((i) => i.op === 'COPY' && i.args === 'patches ./patches'), 'patches/ copied into the build stage');
    assert.ok(readRepoFile('.dockerignore').split('\n').map((l) => l.trim()).includes('!patches/**'), 'patches/ in the build context');
    const depsCopies = stage('deps').steps.filter((i) => i.op === 'COPY').map((i) => i.args);
    for (const name of patched) assert.ok(depsCopies.includes(`--from=build /app/node_modules/${name} ./node_modules/${name}`), `deps stage takes the patched ${name}`);
  });

  test('the images carry the operator CLI for API keys (kubectl exec … node dist/scripts/keys.js)', () => {
    const config = JSON.parse(readRepoFile('deploy/tsconfig.build.json')) as { include: string[] };
    assert.ok(config.include.includes('../scripts/keys.ts'), 'compiled into dist/scripts/keys.js');
    assert.ok(stage('build').steps.some((i) => i.op === 'COPY' && i.args === 'scripts/keys.ts ./scripts/'), 'copied into the build stage');
    const rules = readRepoFile('.dockerignore').split('\n').map((l) => l.trim());
    assert.ok(rules.includes('!scripts/keys.ts'), 'in the build context');
    // Only what the build stage has: the shared code (the other scripts stay out of the image).
    for (const [, spec] of readRepoFile('scripts/keys.ts').matchAll(/from '(\.[^']+)'/g)) assert.match(spec!, /^\.\.\/shared\/src\//);
  });

  test('runtime images get production dependencies only, package.json (ESM) and dist/, and run as non-root', () => {
    assert.match(runs(stage('deps')), /npm ci --omit=dev/);
    for (const name of ['app', 'fetcher']) {
      const steps = stage(name).steps;
      const copies = steps.filter((i) => i.op === 'COPY').map((i) => i.args);
      assert.ok(copies.includes('package.json ./'), `${name}: package.json makes dist/*.js ES modules`);
      assert.ok(copies.some((c) => /--from=deps \/app\/node_modules/.test(c)), `${name}: node_modules from deps`);
      assert.ok(copies.some((c) => /--from=build \/app\/dist/.test(c)), `${name}: dist from build`);
      const user = steps.filter((i) => i.op === 'USER').at(-1)?.args ?? '';
      assert.match(user, /^[1-9]\d*(:\d+)?$/, `${name}: numeric non-root USER (runAsNonRoot can verify it)`);
      const entry = lineage(stage(name)).flatMap((s) => s.steps).filter((i) => i.op === 'ENTRYPOINT').at(-1);
      assert.match(entry?.args ?? '', /tini.*node/, `${name}: tini forwards SIGTERM and reaps Chromium's children`);
    }
  });

  test('the fetcher image installs chromium-headless-shell and fonts; the app image has no browser', () => {
    const fetcherRuns = lineage(stage('fetcher')).map(runs).join('\n');
    assert.match(fetcherRuns, /apt-get install[^\n]*chromium-headless-shell/);
    assert.match(dockerfile, /FONT_PACKAGES="[^"]*fonts-liberation/);
    assert.match(fetcherRuns, /\$\{FONT_PACKAGES\}/);
    assert.match(stage('fetcher').steps.filter((i) => i.op === 'ENV').map((i) => i.args).join(' '), /CHROMIUM_PATH=\/usr\/lib\/chromium\/chromium-headless-shell/);
    assert.doesNotMatch(lineage(stage('app')).map(runs).join('\n'), /chromium/);
  });

  test('.dockerignore lets in the sources and keeps out node_modules, dist, .data and .git', () => {
    const rules = readRepoFile('.dockerignore').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    assert.equal(rules[0], '**', 'allow-list: everything is excluded unless named');
    for (const needed of ['package.json', 'package-lock.json', 'tsconfig.json', 'shared/src/**', 'services/*/src/**', 'deploy/tsconfig.build.json', 'deploy/*.ts']) {
      assert.ok(rules.includes(`!${needed}`), `${needed} must reach the build context`);
    }
    assert.ok(!rules.some((r) => /^!(node_modules|dist|\.data|\.git|test)\b/.test(r)));
  });
});

describe('Tiltfile', () => {
  const tiltfile = readRepoFile('Tiltfile');
  const dev = renderChart(loadChart(CHART_DIR), { valuesFiles: [DEV_VALUES] });

  test('builds one image per Dockerfile target, named as the dev values name them', () => {
    const builds = [...tiltfile.matchAll(/docker_build\('([^']+)',\s*'\.',\s*dockerfile='deploy\/Dockerfile',\s*target='([^']+)'\)/g)];
    assert.deepEqual(builds.map((b) => b[2]).sort(), ['app', 'fetcher']);
    for (const [, , target] of builds) stage(target!);
    const values = parse(fs.readFileSync(DEV_VALUES, 'utf8')) as { image: { repository: string }; fetcherImage: { repository: string } };
    const images = new Map(builds.map((b) => [b[2], b[1]]));
    assert.equal(images.get('app'), values.image.repository);
    assert.equal(images.get('fetcher'), values.fetcherImage.repository);
    const used = new Set(dev.manifests.flatMap((m) => m.spec?.template?.spec?.containers ?? []).map((c: { image: string }) => c.image.split(':')[0]));
    for (const image of images.values()) assert.ok(used.has(image), `${image} is deployed`);
  });

  test('deploys the chart with the dev values and forwards the gateway to 3000', () => {
    assert.match(tiltfile, /k8s_yaml\(helm\(\s*'deploy\/helm\/trawl',\s*name='trawl',\s*values=\['deploy\/helm\/trawl\/values-dev\.yaml'\]/);
    assert.ok(fs.existsSync(path.join(REPO_ROOT, 'deploy/helm/trawl/values-dev.yaml')));
    assert.match(tiltfile, /k8s_resource\(\s*'trawl-gateway',\s*port_forwards=\['3000:3000'\]/);
    const gateway = dev.manifests.find((m) => m.kind === 'Deployment' && m.metadata.name === 'trawl-gateway');
    assert.equal(gateway?.spec.template.spec.containers[0].ports[0].containerPort, 3000);
    // Every resource the Tiltfile names is a workload the chart renders.
    const workloads = new Set(dev.manifests.filter((m) => ['Deployment', 'StatefulSet'].includes(m.kind)).map((m) => m.metadata.name));
    const loop = /for service in \[([^\]]+)\]/.exec(tiltfile)?.[1] ?? '';
    const named = [...tiltfile.matchAll(/k8s_resource\(\s*'([^']+)'/g)].map((m) => m[1]!)
      .concat([...loop.matchAll(/'([^']+)'/g)].map((m) => `trawl-${m[1]}`))
      .filter((n) => n !== 'trawl-');
    for (const name of named) assert.ok(workloads.has(name), `Tiltfile names ${name}, which the chart does not render`);
    for (const service of SERVICES) assert.ok(named.includes(`trawl-${service}`), `Tiltfile configures trawl-${service}`);
  });
});

describe('docs/deploy.md', () => {
  const doc = readRepoFile('docs/deploy.md');

  test('documents every top-level value and every service', () => {
    const values = parse(fs.readFileSync(path.join(CHART_DIR, 'values.yaml'), 'utf8')) as Record<string, unknown>;
    for (const key of Object.keys(values)) assert.ok(doc.includes(`\`${key}`), `values key ${key} is not in docs/deploy.md`);
    for (const service of SERVICES) assert.ok(doc.includes(service), service);
  });

  test('shows the helm install, the image builds and tilt up', () => {
    assert.match(doc, /helm (upgrade --install|install)/);
    assert.match(doc, /docker build -f deploy\/Dockerfile --target fetcher/);
    assert.match(doc, /tilt up/);
  });
});
