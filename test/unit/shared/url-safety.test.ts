import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidUrlError, NetworkError, UrlNotAllowedError } from '../../../shared/src/errors.js';
import { blockedReason, parseCidrList, parseHttpUrl, resolveAllowed } from '../../../shared/src/url-safety.js';

test('only globally routable unicast addresses pass', () => {
  const blocked = ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.0.1', '169.254.169.254', '100.64.0.1', '224.0.0.1', '0.0.0.0',
    '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', 'fd12::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '2002:7f00:1::', '64:ff9b::a00:1', '198.18.0.1'];
  for (const ip of blocked) assert.notEqual(blockedReason(ip, []), null, ip);
  for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700::1111']) assert.equal(blockedReason(ip, []), null, ip);
});

test('SSRF_ALLOW_CIDRS exempts only the listed ranges', () => {
  const allow = parseCidrList('127.0.0.0/8');
  assert.equal(blockedReason('127.0.0.1', allow), null);
  assert.equal(blockedReason('::ffff:127.0.0.1', allow), null);
  assert.notEqual(blockedReason('10.0.0.1', allow), null);
  assert.notEqual(blockedReason('::1', allow), null);
  assert.throws(() => parseCidrList('banana'));
});

test('URL syntax: http(s) with a host, no credentials', () => {
  assert.equal(parseHttpUrl('https://example.com/a').hostname, 'example.com');
  for (const bad of ['', 'example.com', 'ftp://x/', 'javascript:alert(1)', 'file:///etc/passwd', 'http://u:p@x/', 'http://']) {
    assert.throws(() => parseHttpUrl(bad), InvalidUrlError, bad);
  }
});

test('resolution checks every address a name resolves to', async () => {
  const lookup = async (host: string) => (host === 'mixed.test' ? ['93.184.216.34', '10.0.0.1'] : host === 'ok.test' ? ['93.184.216.34'] : []);
  await assert.rejects(resolveAllowed(new URL('http://mixed.test/'), [], lookup), UrlNotAllowedError);
  assert.deepEqual(await resolveAllowed(new URL('http://ok.test/'), [], lookup), ['93.184.216.34']);
  await assert.rejects(resolveAllowed(new URL('http://empty.test/'), [], lookup), NetworkError);
  await assert.rejects(resolveAllowed(new URL('http://[::1]/'), []), UrlNotAllowedError);
  await assert.rejects(resolveAllowed(new URL('http://localhost/'), []), UrlNotAllowedError);
});
