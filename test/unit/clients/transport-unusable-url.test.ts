// An API URL that fetch refuses before connecting (a blocked port, a scheme it does not
// speak) is the user's mistake, not a server that may come back: the SDK says so at once.
// Before, it was a lost connection, retried 8 times with backoff (about 30 s of silence).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConnectionError } from '../../../clients/sdk/errors.js';
import { Transport, type RetryInfo } from '../../../clients/sdk/transport.js';

for (const [apiUrl, reason] of [['http://127.0.0.1:6000', /fetch refuses that port/], ['ftp://127.0.0.1', /only http and https/]] as const) {
  test(`given the API URL ${apiUrl}, when a GET is sent, then it fails at once as INVALID_API_URL, never retried`, async () => {
    const retries: RetryInfo[] = [];
    const transport = new Transport({ apiUrl, apiKey: 'k', onRetry: (r) => retries.push(r) });
    await assert.rejects(transport.request('GET', '/v1/jobs'), (err: unknown) => {
      assert.ok(err instanceof ConnectionError);
      assert.equal(err.code, 'INVALID_API_URL');
      assert.match(err.message, reason);
      return true;
    });
    assert.deepEqual(retries, []);
  });
}
