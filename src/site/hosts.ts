import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { Database } from '../platform/db/database.js';
import { VersionedCache } from '../platform/cache.js';
import type { CacheInvalidation } from '../platform/cache-invalidation.js';
import type { Row } from '../platform/resource/declaration.js';
import type { SiteHost, SiteWebsite } from '../platform/site-context.js';
import { connectedDomainWebsiteId } from '../custom-domain/index.js';
import { SITE_WEBSITE_COLUMNS, siteWebsiteRow } from '../websites/index.js';

export type { SiteHost, SiteWebsite };

export { SITE_WEBSITE_COLUMNS };

/** A `websites` row (SITE_WEBSITE_COLUMNS) as the site knows it. */
export function siteWebsiteOf(row: Row): SiteWebsite {
  return {
    id: row.id,
    accountId: row.account_id,
    code: row.code,
    displayName: row.display_name,
    defaultLanguage: row.default_language,
    timeZone: row.time_zone,
    ready: row.provisioning_status === 'ACTIVE',
  };
}

const HOST_CACHE = { max: 10_000, maxBytes: 4 * 2 ** 20 };
/** Distinct Host headers whose decision is remembered (a few bytes each). */
const HOST_DECISIONS_MAX = 10_000;

/** A DNS label: what `{code}` may be (website codes follow the same pattern). */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const HOSTNAME = /^[a-z0-9.-]{1,253}$/;

/** `Host` header → lower-case host name without port or trailing dot; undefined when malformed. */
export function hostnameOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  let host = header.trim().toLowerCase();
  if (host.startsWith('[')) return undefined; // IPv6 literals never name a site
  const colon = host.lastIndexOf(':');
  if (colon !== -1) {
    if (!/^\d{1,5}$/.test(host.slice(colon + 1))) return undefined;
    host = host.slice(0, colon);
  }
  if (host.endsWith('.')) host = host.slice(0, -1);
  return HOSTNAME.test(host) ? host : undefined;
}

export interface SiteHosts {
  /**
   * Decides, per request and before routing, whether the request belongs to a rendered website.
   * A Fastify async constraint strategy (`constraints: { site: … }`): routes of the site surface
   * are constrained to `site`, so a site host never reaches the tenant surfaces and any other host
   * never reaches the site's routes.
   */
  constraint: {
    name: 'site';
    storage(): { get(value: string): unknown; set(value: string, store: unknown): void };
    deriveConstraint(req: IncomingMessage, ctx: unknown, done: (err: Error | null, value?: string) => void): void;
    validate(value: unknown): void;
    mustMatchWhenDerived: boolean;
  };
  /** The host the constraint recorded on the raw request (site requests only). */
  hostOf(req: IncomingMessage): SiteHost | undefined;
  /** The website a site host names; undefined for an unknown code or a domain no longer connected. */
  website(host: SiteHost): Promise<SiteWebsite | undefined>;
  /**
   * `website(host)` when the answer is in memory under the current version: the website, `null` for
   * none, `undefined` when it must be read (then call `website`).
   */
  known(host: SiteHost): SiteWebsite | null | undefined;
}

const HOST_KEY = Symbol('siteHost');
/** A raw request the site constraint has recorded its host on. */
type HostedRequest = IncomingMessage & { [HOST_KEY]?: SiteHost };

/**
 * Host → website. `{code}.{PLATFORM_DOMAIN}` is decided by the name alone (so an unknown code gets
 * the site's plain 404, never a tenant surface); any other name that is not an IP literal, the
 * platform domain itself or a host of the platform's own base URLs is looked up among CONNECTED
 * custom domains. Answers are cached per process (negative ones too, so a stream of requests with
 * made-up hosts costs one indexed read per name) under the `hosts` topic's version
 * (src/platform/cache-invalidation.ts), which every write to websites or custom domains raises, in
 * any process: a deleted website or a disconnected domain is gone on the next request.
 */
export function createSiteHosts(deps: { database: Database; platformDomain: string; ownHosts: string[]; invalidation: CacheInvalidation }): SiteHosts {
  const db = deps.database.db;
  const platformDomain = deps.platformDomain.toLowerCase().replace(/\.$/, '');
  const suffix = `.${platformDomain}`;
  const ownHosts = new Set(deps.ownHosts.map((h) => hostnameOf(h)).filter((h): h is string => !!h));
  ownHosts.add(platformDomain);
  ownHosts.add('localhost');
  const customDomains = new VersionedCache<string, string | null>(HOST_CACHE);
  const websites = new VersionedCache<string, SiteWebsite | null>(HOST_CACHE);
  const hostsVersion = () => deps.invalidation.version('hosts');

  function platformCode(hostname: string): string | undefined {
    if (!hostname.endsWith(suffix) || ownHosts.has(hostname)) return undefined;
    const code = hostname.slice(0, -suffix.length);
    // One label only: `a.b.{domain}` is not a website (and not a tenant surface either).
    return code;
  }

  function connectedDomain(hostname: string): Promise<string | null> {
    return customDomains.load(hostname, hostsVersion, async () => {
      return (await connectedDomainWebsiteId(db, hostname)) ?? null;
    });
  }

  const present = siteWebsiteOf;
  const websiteKey = (host: SiteHost) => (host.kind === 'platform' ? `code:${host.code}` : `id:${host.websiteId}`);

  /**
   * What a Host header names, from the name alone: a platform host's site (one frozen object for
   * every request), `null` for no site (malformed, an IP literal, one of the platform's own hosts),
   * else the host name to look up among custom domains (which can change: looked up per request).
   */
  function decide(header: string): SiteHost | string | null {
    const hostname = hostnameOf(header);
    if (!hostname || isIP(hostname) || ownHosts.has(hostname)) return null;
    const code = platformCode(hostname);
    if (code !== undefined) return Object.freeze({ hostname, kind: 'platform', code } satisfies SiteHost);
    return hostname;
  }
  // Host header → decision (every request asks; a site's visitors send one header, the platform's own surfaces a few).
  const decisions = new Map<string, SiteHost | string | null>();

  return {
    constraint: {
      name: 'site',
      storage() {
        const stores = new Map<string, unknown>();
        return { get: (value) => stores.get(value) ?? null, set: (value, store) => void stores.set(value, store) };
      },
      deriveConstraint(req, _ctx, done) {
        const header = req.headers.host;
        let decided = header === undefined ? null : decisions.get(header);
        if (decided === undefined) {
          decided = decide(header!);
          // Made-up Host headers must not grow the process: the memo starts over past its bound.
          if (decisions.size >= HOST_DECISIONS_MAX) decisions.clear();
          decisions.set(header!, decided);
        }
        if (decided === null) return done(null, undefined);
        if (typeof decided !== 'string') {
          (req as HostedRequest)[HOST_KEY] = decided;
          return done(null, 'site');
        }
        const hostname = decided;
        connectedDomain(hostname).then(
          (websiteId) => {
            if (!websiteId) return done(null, undefined);
            (req as HostedRequest)[HOST_KEY] = { hostname, kind: 'custom', websiteId } satisfies SiteHost;
            done(null, 'site');
          },
          // The database cannot say: the request stays on the platform's surfaces (never an error
          // out of the router, which would answer outside our error handling).
          () => done(null, undefined),
        );
      },
      validate(value) {
        if (value !== 'site') throw new Error('the site constraint takes the value "site"');
      },
      mustMatchWhenDerived: true,
    },

    hostOf: (req) => (req as HostedRequest)[HOST_KEY],

    known(host) {
      const version = hostsVersion();
      if (typeof version !== 'number') return undefined;
      const found = websites.get(websiteKey(host), version);
      return found === null ? null : found;
    },

    async website(host) {
      const key = websiteKey(host);
      const found = await websites.load(key, hostsVersion, async () => {
        if (host.kind !== 'custom' && !LABEL.test(host.code ?? '')) return null;
        const row = await siteWebsiteRow(db, host.kind === 'platform' ? { code: host.code! } : { id: host.websiteId! });
        return row ? present(row) : null;
      });
      return found ?? undefined;
    },
  };
}
