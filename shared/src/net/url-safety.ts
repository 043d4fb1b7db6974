// URL validation and SSRF protection, shared by the gateway (at submission), the fetcher
// (every request the browser makes, through its filtering proxy) and the webhook
// dispatcher (at delivery). The rule is decided on resolved IP addresses, never on the
// text of the host name: only globally routable unicast addresses pass, unless an operator
// exempts a range with SSRF_ALLOW_CIDRS.
import dns from 'node:dns/promises';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { InvalidUrlError, NetworkError, UrlNotAllowedError } from '../domain/errors.js';

export type CidrRange = [ipaddr.IPv4 | ipaddr.IPv6, number];

export function parseCidrList(raw: string): CidrRange[] {
  return raw
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      try {
        return ipaddr.parseCIDR(part.includes('/') ? part : `${part}/${part.includes(':') ? 128 : 32}`);
      } catch {
        throw new Error(`"${part}" is not a CIDR range such as 127.0.0.0/8 or fd00::/8`);
      }
    });
}

/**
 * The IPv4 address an IPv6 address carries, by the form that carries it. Every form is
 * decoded, not matched by spelling: `[::127.0.0.1]`, `[::7f00:1]` and `[0:0::7f00:1]` are
 * one address. Forms: IPv4-compatible ::a.b.c.d (deprecated, RFC 4291), IPv4-mapped
 * ::ffff:a.b.c.d, IPv4-translated ::ffff:0:a.b.c.d (RFC 6145), NAT64 64:ff9b::/96 and
 * 64:ff9b:1::/48 (RFC 6052, 8215), 6to4 2002::/16 (RFC 3056) and Teredo 2001::/32
 * (RFC 4380, client address inverted in the last 32 bits).
 */
export function embeddedIPv4(ip: ipaddr.IPv6): { form: string; address: ipaddr.IPv4 } | null {
  const p = ip.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  const zeros = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && p[5] === 0xffff) return { form: 'IPv4-mapped', address: v4(p[6]!, p[7]!) };
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) return { form: 'IPv4-translated', address: v4(p[6]!, p[7]!) };
  if (zeros(0, 6) && (p[6] !== 0 || p[7]! > 1)) return { form: 'IPv4-compatible', address: v4(p[6]!, p[7]!) };
  if (p[0] === 0x64 && p[1] === 0xff9b && (p[2] === 0 || p[2] === 1)) return { form: 'NAT64', address: v4(p[6]!, p[7]!) };
  if (p[0] === 0x2002) return { form: '6to4', address: v4(p[1]!, p[2]!) };
  if (p[0] === 0x2001 && p[1] === 0) return { form: 'Teredo', address: v4(~p[6]! & 0xffff, ~p[7]! & 0xffff) };
  return null;
}

function inRanges(ip: ipaddr.IPv4 | ipaddr.IPv6, ranges: CidrRange[]): boolean {
  return ranges.some(([net, bits]) => net.kind() === ip.kind() && ip.match([net, bits] as never));
}

/** Global unicast IPv6 (RFC 4291 2000::/3): nothing outside it is a public host. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];

/**
 * Returns why an address is blocked (loopback, private, linkLocal, carrierGradeNat,
 * multicast, uniqueLocal, reserved, ...) or null when it may be fetched. An IPv4 address
 * passes only when ipaddr.js classifies it as plain 'unicast'. An IPv6 address passes only
 * when it is global unicast (2000::/3) and carries no IPv4 address; IPv4-mapped addresses
 * are judged as the IPv4 address they are, and every other form that embeds or tunnels to
 * an IPv4 address (compatible, translated, NAT64, 6to4, Teredo) is refused, naming it.
 */
export function blockedReason(address: string, allow: CidrRange[]): string | null {
  if (!net.isIP(address)) return 'not an IP address';
  const ip = ipaddr.parse(address);
  if (inRanges(ip, allow)) return null;
  if (ip.kind() === 'ipv4') {
    const range = ip.range();
    return range === 'unicast' ? null : range;
  }
  const v6 = ip as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded?.form === 'IPv4-mapped') return blockedReason(embedded.address.toString(), allow);
  if (embedded) return `${embedded.form} address of ${embedded.address.toString()}`;
  const range = v6.range();
  if (range !== 'unicast') return range;
  return v6.match(GLOBAL_UNICAST_V6) ? null : 'not global unicast';
}

/** Syntax check: absolute http(s) URL with a host. Throws INVALID_URL. */
export function parseHttpUrl(raw: string, field = 'url'): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidUrlError(`${field}: "${truncate(raw)}" is not a valid URL`, field);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidUrlError(`${field}: only http and https URLs are supported, got "${url.protocol.replace(/:$/, '')}"`, field);
  }
  if (!url.hostname) throw new InvalidUrlError(`${field}: the URL has no host`, field);
  if (url.username || url.password) throw new InvalidUrlError(`${field}: URLs with credentials are not accepted`, field);
  return url;
}

export type Lookup = (host: string) => Promise<string[]>;

const LOOPBACK_NAME = /(^|\.)localhost$/i;

export const systemLookup: Lookup = async (host) => {
  const results = await dns.lookup(host, { all: true, verbatim: true });
  return results.map((r) => r.address);
};

/**
 * Resolves the URL's host and checks every address it resolves to (an attacker's DNS can
 * return one public and one private address). Returns the allowed addresses.
 * Throws URL_NOT_ALLOWED, or NETWORK_ERROR when the name does not resolve.
 */
export async function resolveAllowed(url: URL, allow: CidrRange[], lookup: Lookup = systemLookup): Promise<string[]> {
  // A trailing dot makes a name absolute; it is the same host (`localhost.` is `localhost`).
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
  let addresses: string[];
  if (net.isIP(host)) {
    addresses = [host];
  } else if (LOOPBACK_NAME.test(host)) {
    // RFC 6761: these names are loopback whatever DNS says, and Chromium resolves them so.
    addresses = ['127.0.0.1', '::1'];
  } else {
    try {
      addresses = await lookup(host);
    } catch (err) {
      throw new NetworkError(`could not resolve host "${host}": ${(err as NodeJS.ErrnoException).code ?? 'lookup failed'}`);
    }
    if (addresses.length === 0) throw new NetworkError(`host "${host}" has no addresses`);
  }
  for (const address of addresses) {
    const reason = blockedReason(address, allow);
    if (reason) throw new UrlNotAllowedError(`${host} resolves to ${address} (${reason}), which is blocked by SSRF protection`);
  }
  return addresses;
}

function truncate(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
