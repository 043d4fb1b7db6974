import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidUrlError, NetworkError, UrlNotAllowedError } from '../../../shared/src/domain/errors.js';
import { blockedReason, parseCidrList, parseHttpUrl, resolveAllowed } from '../../../shared/src/net/url-safety.js';

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

test('IPv6 addresses are judged by what they mean: every form that embeds an IPv4 address is decoded', () => {
  const blocked: [string, RegExp][] = [
    ['::7f00:1', /IPv4-compatible address of 127\.0\.0\.1/], // [::127.0.0.1] as the URL parser writes it
    ['::a00:1', /IPv4-compatible address of 10\.0\.0\.1/],
    ['::808:808', /IPv4-compatible address of 8\.8\.8\.8/], // deprecated form: refused even for a public address
    ['::ffff:0:7f00:1', /IPv4-translated address of 127\.0\.0\.1/],
    ['64:ff9b::7f00:1', /NAT64 address of 127\.0\.0\.1/],
    ['64:ff9b:1::a9fe:a9fe', /NAT64 address of 169\.254\.169\.254/],
    ['2002:7f00:1::', /6to4 address of 127\.0\.0\.1/],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', /Teredo address of 127\.0\.0\.1/],
    ['::ffff:a9fe:a9fe', /linkLocal/],
    ['4000::1', /not global unicast/],
    ['100::1', /discard/],
  ];
  for (const [ip, reason] of blocked) assert.match(blockedReason(ip, []) ?? 'allowed', reason, ip);
  assert.equal(blockedReason('::ffff:808:808', []), null); // IPv4-mapped public address: as 8.8.8.8
  assert.equal(blockedReason('2a00:1450:4001::200e', []), null);
});

test('an allowed IPv4 range does not open its IPv6 spellings other than IPv4-mapped', () => {
  const allow = parseCidrList('127.0.0.0/8');
  assert.equal(blockedReason('::ffff:7f00:1', allow), null);
  assert.notEqual(blockedReason('::7f00:1', allow), null);
  assert.notEqual(blockedReason('64:ff9b::7f00:1', allow), null);
});

test('localhost names are loopback whatever the spelling, trailing dots included', async () => {
  for (const url of ['http://localhost./', 'http://LOCALHOST../', 'http://api.localhost/', 'http://a.b.localhost./']) {
    await assert.rejects(resolveAllowed(new URL(url), []), UrlNotAllowedError, url);
  }
  const seen: string[] = [];
  await resolveAllowed(new URL('http://example.test./'), [], async (host) => { seen.push(host); return ['93.184.216.34']; });
  assert.deepEqual(seen, ['example.test']);
});
