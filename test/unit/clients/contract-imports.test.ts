// The clients depend on the API contract (shared/src/api), never on the gateway: loading
// the MCP server (what `trawl mcp` runs) and the SDK pulls in no file of services/, and
// the SDK loads no schema library at run time (its types are erased; only fetch is needed).
// Watched with a resolve hook, so a dynamic import counts as much as a static one.
import assert from 'node:assert/strict';
import { registerHooks } from 'node:module';
import { describe, test } from 'node:test';

const loaded: string[] = [];
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    loaded.push(resolved.url);
    return resolved;
  },
});

/** The modules a fresh import of `specifier` resolves (this file's own are loaded already). */
async function modulesOf(specifier: string): Promise<string[]> {
  const from = loaded.length;
  await import(specifier);
  return loaded.slice(from);
}

describe('clients load the contract, not the gateway', () => {
  test('the SDK: no gateway file, no TypeBox', async () => {
    const sdk = await modulesOf('../../../clients/sdk/index.js');
    assert.ok(sdk.some((u) => u.includes('/clients/sdk/')), 'the hook sees the SDK load');
    assert.deepEqual(sdk.filter((u) => u.includes('/services/')), []);
    assert.deepEqual(sdk.filter((u) => u.includes('@sinclair/typebox') || u.includes('/typebox/')), []);
  });

  test('the MCP server: no gateway file (its tools and validator come from shared/src/api)', async () => {
    const mcp = await modulesOf('../../../clients/mcp/server.js');
    assert.deepEqual(mcp.filter((u) => u.includes('/services/')), []);
    assert.ok(mcp.some((u) => u.includes('/shared/src/api/')), 'the contract is what it loads');
  });
});
