#!/usr/bin/env node
// `npm run pack:clients`: the SDK and the CLI as npm packages that install without this
// checkout and without the internet (docs/clients.md "Installing the packages").
// - @trawl/sdk: one ES module bundled by esbuild (standardwebhooks inside), and the .d.ts
//   that tsc emits for it and the API contract (shared/src/api) it names its types from.
//   Those types are TypeBox's `Static<>`, so @sinclair/typebox is a dependency, shipped in
//   the tarball (bundleDependencies): no registry is asked at install time.
// - @trawl/cli: the `trawl` bin as one ES module with every dependency inside (the MCP
//   server, Ajv, cli-progress): nothing to resolve at install time.
// The tarballs go to dist/packages/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist', 'packages');
const staging = path.join(out, 'staging');
const version = /CLIENT_VERSION = '([^']+)'/.exec(fs.readFileSync(path.join(root, 'clients/sdk/version.ts'), 'utf8'))?.[1];
if (!version) throw new Error('clients/sdk/version.ts has no CLIENT_VERSION');
const typeboxDir = path.join(root, 'node_modules', '@sinclair', 'typebox');
const typeboxVersion = JSON.parse(fs.readFileSync(path.join(typeboxDir, 'package.json'), 'utf8')).version;

// Bundled CommonJS dependencies call require() for Node built-ins: give the ES module one.
const requireShim = "import { createRequire as __trawlCreateRequire } from 'node:module'; const require = __trawlCreateRequire(import.meta.url);";
const common = { bundle: true, platform: 'node', format: 'esm', target: 'node20', legalComments: 'none', logLevel: 'warning' };

function writeJson(file, value) {
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** Emits the .d.ts of `entry` and of what it imports, under `outDir` (paths as in the repo). */
function emitDeclarations(entry, outDir) {
  const program = ts.createProgram([path.join(root, entry)], {
    declaration: true, emitDeclarationOnly: true, outDir, rootDir: root, strict: true, skipLibCheck: true,
    module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'], verbatimModuleSyntax: true, types: ['node'],
  });
  const result = program.emit();
  const problems = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics].filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (problems.length) {
    const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };
    throw new Error(`declarations of ${entry}:\n${ts.formatDiagnostics(problems, host)}`);
  }
}

function npmPack(dir) {
  const name = execFileSync('npm', ['pack', '--pack-destination', out, '--loglevel', 'error'], { cwd: dir, encoding: 'utf8' }).trim().split('\n').at(-1);
  return path.join(out, name);
}

async function packSdk() {
  const dir = path.join(staging, 'sdk');
  await build({ ...common, entryPoints: [path.join(root, 'clients/sdk/index.ts')], outfile: path.join(dir, 'index.js'), banner: { js: requireShim } });
  emitDeclarations('clients/sdk/index.ts', path.join(dir, 'types'));
  const typebox = path.join(dir, 'node_modules', '@sinclair', 'typebox');
  fs.cpSync(fs.realpathSync(typeboxDir), typebox, { recursive: true, dereference: true });
  const types = './types/clients/sdk/index.d.ts';
  writeJson(path.join(dir, 'package.json'), {
    name: '@trawl/sdk', version, description: 'Typed client for the Trawl API (scrape, crawl, batch, map, webhooks)',
    type: 'module', main: './index.js', types, exports: { '.': { types, default: './index.js' } },
    files: ['index.js', 'types'], engines: { node: '>=20' },
    dependencies: { '@sinclair/typebox': typeboxVersion }, bundleDependencies: ['@sinclair/typebox'],
  });
  return npmPack(dir);
}

async function packCli() {
  const dir = path.join(staging, 'cli');
  await build({
    ...common, entryPoints: [path.join(root, 'clients/cli/main.ts')], outfile: path.join(dir, 'trawl.js'),
    banner: { js: requireShim }, // the entry's own #! line is kept first
  });
  fs.chmodSync(path.join(dir, 'trawl.js'), 0o755);
  writeJson(path.join(dir, 'package.json'), {
    name: '@trawl/cli', version, description: 'trawl: the Trawl API from the command line, and its MCP server (trawl mcp)',
    type: 'module', bin: { trawl: './trawl.js' }, files: ['trawl.js'], engines: { node: '>=20' },
  });
  return npmPack(dir);
}

// Only the old tarballs go: dist/packages/ also holds the compiled library rooms (dist/packages/extract).
fs.mkdirSync(out, { recursive: true });
for (const name of fs.readdirSync(out)) if (/^trawl-(sdk|cli)-.*\.tgz$/.test(name)) fs.rmSync(path.join(out, name));
fs.rmSync(staging, { recursive: true, force: true });
fs.mkdirSync(staging, { recursive: true });
const tarballs = [await packSdk(), await packCli()];
fs.rmSync(staging, { recursive: true, force: true });
for (const file of tarballs) console.log(`${path.relative(root, file)}  ${(fs.statSync(file).size / 1024).toFixed(0)} KiB`);
