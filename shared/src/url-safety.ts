// URL validation and SSRF protection, shared by the gateway (at submission), the fetcher
// (every request the browser makes, through its filtering proxy) and the webhook
// dispatcher (at delivery). The rule is decided on resolved IP addresses, never on the
// text of the host name: only globally routable unicast addresses pass, unless an operator
// exempts a range with SSRF_ALLOW_CIDRS.
import dns from 'node:dns/promises';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { InvalidUrlError, NetworkError, UrlNotAllowedError } from './errors.js';

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

/** Normalizes IPv4-mapped IPv6 (::ffff:10.0.0.1) to IPv4 so it cannot dodge the IPv4 rules. */
function canonical(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed;
}

function inRanges(ip: ipaddr.IPv4 | ipaddr.IPv6, ranges: CidrRange[]): boolean {
  return ranges.some(([net, bits]) => net.kind() === ip.kind() && ip.match([net, bits] as never));
}

/**
 * Returns why an address is blocked (loopback, private, linkLocal, carrierGradeNat,
 * multicast, uniqueLocal, reserved, 6to4, teredo, ...) or null when it may be fetched.
 * Everything ipaddr.js does not classify as plain 'unicast' is refused: ranges that embed
 * or tunnel to other addresses (6to4, Teredo, NAT64) included.
 */
export function blockedReason(address: string, allow: CidrRange[]): string | null {
  if (!net.isIP(address)) return 'not an IP address';
  const ip = canonical(address);
  if (inRanges(ip, allow)) return null;
  const range = ip.range();
  return range === 'unicast' ? null : range;
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
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (net.isIP(host)) {
    addresses = [host];
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
