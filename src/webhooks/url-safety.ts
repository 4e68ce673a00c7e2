import { lookup as systemLookup } from 'node:dns/promises';
import { Resolver } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may point (SSRF guard). A URL is checked twice: at create/update (its form, and
 * what its host resolves to now) and at every delivery (resolved again, every address checked, and
 * the connection made to the checked address: a name that resolved to a public address at create and
 * to 127.0.0.1 later — DNS rebinding — is refused then). Operators list exceptions in
 * `WEBHOOK_ALLOW_HOSTS` (host names, addresses or CIDR ranges; plain http is allowed for them).
 */

export const MAX_URL_LENGTH = 2048;

/** Addresses no webhook may reach unless allowed: loopback, private, link-local, metadata, CGNAT, unspecified, multicast, reserved. */
const FORBIDDEN = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // unspecified / "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  FORBIDDEN.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b::', 96], // NAT64 (embeds an IPv4 address)
  ['64:ff9b:1::', 48],
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (includes fd00:ec2::254, the EC2 metadata address)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // old site-local
  ['ff00::', 8], // multicast
] as const) {
  FORBIDDEN.addSubnet(net, prefix, 'ipv6');
}

/** `::ffff:10.0.0.1` (and `::10.0.0.1`) is the IPv4 address it embeds. */
function normalise(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const lower = address.toLowerCase().replace(/^\[|\]$/g, '');
  const mapped = /^::(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return { address: mapped[1], family: 'ipv4' };
  const hexMapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hexMapped) {
    const hi = parseInt(hexMapped[1], 16);
    const lo = parseInt(hexMapped[2], 16);
    return { address: `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, family: 'ipv4' };
  }
  return { address: lower, family: isIP(lower) === 6 ? 'ipv6' : 'ipv4' };
}

/** The operator's exceptions (`WEBHOOK_ALLOW_HOSTS`). */
export interface AllowList {
  hosts: ReadonlySet<string>;
  ranges: BlockList;
  empty: boolean;
}

/** Parses `WEBHOOK_ALLOW_HOSTS`: names, addresses and CIDR ranges; throws naming a malformed entry. */
export function parseAllowList(entries: readonly string[]): AllowList {
  const hosts = new Set<string>();
  const ranges = new BlockList();
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase().replace(/^\[|\]$/g, '');
    if (!entry) continue;
    const cidr = /^(.+)\/(\d{1,3})$/.exec(entry);
    if (cidr) {
      const { address, family } = normalise(cidr[1]);
      const prefix = Number(cidr[2]);
      if (!isIP(address) || prefix > (family === 'ipv4' ? 32 : 128)) throw new Error(`WEBHOOK_ALLOW_HOSTS: ${raw} is not a CIDR range`);
      ranges.addSubnet(address, prefix, family);
    } else if (isIP(entry)) {
      const { address, family } = normalise(entry);
      ranges.addAddress(address, family);
    } else {
      hosts.add(entry.replace(/\.$/, ''));
    }
  }
  return { hosts, ranges, empty: hosts.size === 0 && ranges.rules.length === 0 };
}

/** Whether an address is one no webhook may reach unless the operator allowed it. */
export function isForbiddenAddress(address: string): boolean {
  const { address: a, family } = normalise(address);
  return FORBIDDEN.check(a, family);
}

function allowedAddress(allow: AllowList, address: string): boolean {
  const { address: a, family } = normalise(address);
  return allow.ranges.check(a, family);
}

/** A webhook URL after the form checks: what delivery needs. */
export interface CheckedUrl {
  url: URL;
  /** Host name without brackets, lowercase. */
  host: string;
  /** The host is an IP literal. */
  literal: boolean;
  /** Listed in WEBHOOK_ALLOW_HOSTS (by name or as an allowed literal): may be http and reach any address. */
  allowedHost: boolean;
}

/** Why a URL is refused (the text of the FIELD_VIOLATION on `url`, or the attempt's error). */
export class UnsafeUrl extends Error {}

/** Form checks (no DNS): absolute http(s), no userinfo, bounded, https unless the host is allowed. */
export function checkUrlForm(raw: string, allow: AllowList): CheckedUrl {
  if (raw.length > MAX_URL_LENGTH) throw new UnsafeUrl(`must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrl('is not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UnsafeUrl('must be an https URL');
  if (url.username || url.password) throw new UnsafeUrl('must not carry a user name or password');
  if (url.hash) throw new UnsafeUrl('must not carry a fragment');
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (!host) throw new UnsafeUrl('has no host');
  const literal = isIP(host) !== 0;
  const allowedHost = allow.hosts.has(host) || (literal && allowedAddress(allow, host));
  if (url.protocol === 'http:' && !allowedHost) throw new UnsafeUrl('must be an https URL (plain http only for hosts the operator allows)');
  if (literal && !allowedHost && isForbiddenAddress(host)) throw new UnsafeUrl(`points at a loopback, private, link-local or reserved address (${host})`);
  return { url, host, literal, allowedHost };
}

export interface ResolveOptions {
  /** DNS_RESOLVER (`host:port` list); empty: the system resolver (getaddrinfo). */
  servers: readonly string[];
  timeoutMs: number;
}

/** Every address `host` resolves to; throws UnsafeUrl('does not resolve') when none. */
export async function resolveHost(host: string, opts: ResolveOptions): Promise<string[]> {
  if (isIP(host)) return [host];
  let addresses: string[];
  if (opts.servers.length) {
    // A resolver of our own (tests, operators with a split horizon): both families, each may be absent.
    const resolver = new Resolver({ timeout: opts.timeoutMs, tries: 1 });
    resolver.setServers([...opts.servers]);
    const [v4, v6] = await Promise.all([resolver.resolve4(host).catch(() => []), resolver.resolve6(host).catch(() => [])]);
    addresses = [...v4, ...v6];
  } else {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new UnsafeUrl('DNS did not answer in time')), opts.timeoutMs)));
    try {
      addresses = (await Promise.race([systemLookup(host, { all: true, verbatim: true }), timeout])).map((a) => a.address);
    } catch (err) {
      if (err instanceof UnsafeUrl) throw err;
      addresses = [];
    } finally {
      clearTimeout(timer);
    }
  }
  if (addresses.length === 0) throw new UnsafeUrl(`the host ${host} does not resolve`);
  return addresses;
}

/**
 * The address to connect to: every address the host resolves to must be allowed (one forbidden
 * address refuses the whole name, so a round-robin answer cannot smuggle one in).
 */
export async function checkedAddress(target: CheckedUrl, allow: AllowList, opts: ResolveOptions): Promise<{ address: string; family: 4 | 6 }> {
  const addresses = await resolveHost(target.host, opts);
  if (!target.allowedHost) {
    for (const address of addresses) {
      if (isForbiddenAddress(address) && !allowedAddress(allow, address)) {
        throw new UnsafeUrl(`the host ${target.host} resolves to a loopback, private, link-local or reserved address (${address})`);
      }
    }
  }
  const address = addresses[0];
  return { address, family: isIP(address) === 6 ? 6 : 4 };
}
