import { Resolver } from 'node:dns/promises';

/** What a DNS lookup of the custom domain's CNAME found. */
export type CnameLookup = { kind: 'found'; targets: string[] } | { kind: 'absent'; code: string } | { kind: 'unreachable'; code: string };

/** Answers that mean "the name has no such record", as opposed to "DNS could not be asked". */
const ABSENT = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN']);

/**
 * Looks up the CNAME of `domain` with node's resolver (c-ares), against `servers` when given
 * (`DNS_RESOLVER`, e.g. `127.0.0.1:5353`) or the system's. One try per server, bounded by
 * `timeoutMs`; the resolver is per call so concurrent checks never share state.
 */
export async function lookupCname(domain: string, opts: { servers: string[]; timeoutMs: number }): Promise<CnameLookup> {
  const resolver = new Resolver({ timeout: opts.timeoutMs, tries: 1 });
  if (opts.servers.length) resolver.setServers(opts.servers);
  try {
    const targets = await resolver.resolveCname(domain);
    return { kind: 'found', targets: targets.map((t) => t.toLowerCase().replace(/\.$/, '')) };
  } catch (err) {
    const code = String((err as { code?: string }).code ?? 'UNKNOWN');
    return ABSENT.has(code) ? { kind: 'absent', code } : { kind: 'unreachable', code };
  }
}
