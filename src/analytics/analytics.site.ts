import type { ValidateFunction } from 'ajv';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import type { AreaDeps, SiteContext, SiteContribution, SiteDeps } from '../platform/area.js';
import { InvalidArgument, ResourceExhausted } from '../platform/errors.js';
import { toApiError } from '../platform/http/errors.js';
import { addressKey, createRateLimiter } from '../platform/http/rate-limit.js';
import { createValidatorCompiler } from '../platform/http/validation.js';
import type { Hit } from './collection.repo.js';
import { createIngest, type IngestOptions } from './ingest.js';
import { INSIGHTS_SCRIPT, INSIGHTS_VERSION } from './insights-script.js';
import { createUserAgentReader, MAX_USER_AGENT_LENGTH } from './user-agents.js';
import { createVisitorIds } from './visitors.js';

export const INSIGHTS_PATH = '/_site/insights.js';
export const EVENT_PATH = '/_site/event';
/** Events one request may carry, and the largest body (bytes) it may have. */
export const MAX_EVENTS_PER_REQUEST = 25;
export const MAX_EVENT_BODY_BYTES = 16 * 1024;
/** Per client address: a burst of this many events, then EVENTS_PER_SECOND (token bucket). */
export const EVENT_BURST = 100;
export const EVENTS_PER_SECOND = 10;
/** `Retry-After` when the ingest queue is full: a flush every 500 ms empties it quickly. */
const QUEUE_FULL_RETRY_S = 2;
const ENABLED = 'analytics.enabled';
const RESPECT_PRIVACY = 'analytics.respect_privacy_signals';
/** Stored dimension values are cut to this length (a query string can be long; a report row need not be). */
const MAX_DIMENSION_LENGTH = 255;
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;
const CONTROL_CHARACTERS_ALL = /[\u0000-\u001f\u007f]/g;
const UTM = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const;

/** Body of `POST /_site/event` (docs/architecture.md, "Analytics: collection"). */
export const EVENT_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['events'],
  properties: {
    events: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_EVENTS_PER_REQUEST,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'url'],
        properties: {
          // `pageview` or a custom event name; no control characters.
          name: { type: 'string', minLength: 1, maxLength: 120, pattern: '^[^\\u0000-\\u001f\\u007f]+$' },
          // Absolute URL of the page; its host must be the host the request was sent to.
          url: { type: 'string', minLength: 1, maxLength: 2048 },
          referrer: { type: 'string', maxLength: 2048 },
        },
      },
    },
  },
} as const;

interface EventInput {
  name: string;
  url: string;
  referrer?: string;
}

export interface AnalyticsSiteOptions {
  ingest?: IngestOptions;
  /** Per-address token bucket: burst and refill per second. */
  burst?: number;
  perSecond?: number;
}

/**
 * Cookieless collection on every rendered site (issue 16; docs/architecture.md, "Analytics:
 * collection"): the layout's first-party script, `POST /_site/event`, daily-salted visitor ids and
 * the batched ingest. Nothing personal is stored: no address, no user agent, no cookie.
 */
export function analyticsSite(deps: AreaDeps, options: AnalyticsSiteOptions = {}): SiteContribution {
  const ingest = createIngest(deps.database, deps.operations, deps.logger, options.ingest);
  const visitors = createVisitorIds(deps.database.db);
  const userAgentFacts = createUserAgentReader();
  const burst = options.burst ?? EVENT_BURST;
  const perAddress = createRateLimiter({ limit: burst, windowMs: (burst / (options.perSecond ?? EVENTS_PER_SECOND)) * 1000, algorithm: 'token-bucket' });
  const validate = createValidatorCompiler()({ schema: EVENT_BODY_SCHEMA, httpPart: 'body', method: 'POST', url: EVENT_PATH }) as ValidateFunction;
  const scriptEtag = `"${INSIGHTS_VERSION}"`;

  function parseBody(text: string): unknown {
    if (text.trim() === '') return undefined;
    try {
      return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
    } catch {
      throw InvalidArgument.field('body', 'is not valid JSON');
    }
  }

  /** The hits of a valid body, or INVALID_ARGUMENT naming the first event whose URL is not of this site. */
  function hitsOf(ctx: SiteContext, events: EventInput[], now: number): Hit[] {
    return events.map((event, i) => {
      let url: URL;
      try {
        url = new URL(event.url);
      } catch {
        throw InvalidArgument.field(`events[${i}].url`, 'must be an absolute URL');
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw InvalidArgument.field(`events[${i}].url`, 'must be an http or https URL');
      if (url.hostname.replace(/\.$/, '') !== ctx.host.hostname) throw InvalidArgument.field(`events[${i}].url`, 'names another host than the one the event was sent to (forged)');
      let path = url.pathname;
      try {
        const decoded = decodeURIComponent(path);
        // Control characters stay percent-encoded (PostgreSQL text refuses NUL: one such hit would fail a whole flush).
        if (!CONTROL_CHARACTERS.test(decoded)) path = decoded;
      } catch {
        // Kept percent-encoded: a path that does not decode is still the page the visitor saw.
      }
      const first = path.split('/')[1] ?? '';
      const view = (first !== '' ? ctx.views.find((v) => !v.isDefault && v.urlPrefix === first) : undefined) ?? ctx.defaultView;
      const utm = (key: (typeof UTM)[number]) => url.searchParams.get(key)?.replace(CONTROL_CHARACTERS_ALL, '').slice(0, MAX_DIMENSION_LENGTH) || null;
      return {
        websiteId: ctx.website.id,
        accountId: ctx.website.accountId,
        time: now,
        name: event.name,
        path,
        // Filled in once the hit is known to be counted.
        visitorId: '',
        device: '',
        browser: '',
        os: '',
        viewId: view.id,
        referrerSource: referrerSource(event.referrer, ctx.host.hostname),
        utmSource: utm('utm_source'),
        utmMedium: utm('utm_medium'),
        utmCampaign: utm('utm_campaign'),
        utmTerm: utm('utm_term'),
        utmContent: utm('utm_content'),
      };
    });
  }

  async function collect(request: FastifyRequest, reply: FastifyReply, siteDeps: SiteDeps): Promise<FastifyReply> {
    reply.header('cache-control', 'no-store');
    const body = request.body;
    if (!validate(body)) throw toApiError({ name: 'FastifyError', message: 'body', code: 'FST_ERR_VALIDATION', validation: validate.errors ?? [], validationContext: 'body' });
    const events = (body as { events: EventInput[] }).events;
    const ctx = siteDeps.siteOf(request);
    const now = Date.now();
    // Checked before anything else decides: a forged hit is refused whatever the settings.
    const hits = hitsOf(ctx, events, now);
    // The request itself was counted on arrival; each further event of a batch costs one more.
    if (events.length > 1) perAddress.charge(addressKey(request.ip), events.length - 1, now);

    const settings = await siteDeps.settings(ctx, ctx.defaultView);
    if (settings.get(ENABLED) !== true) return reply.code(204).send();
    if (settings.get(RESPECT_PRIVACY) !== false && (request.headers.dnt === '1' || request.headers['sec-gpc'] === '1')) return reply.code(204).send();
    const userAgent = (request.headers['user-agent'] ?? '').slice(0, MAX_USER_AGENT_LENGTH);
    const ua = userAgentFacts(userAgent);
    // A bot is told nothing: the same answer as a counted hit.
    if (ua.bot) return reply.code(202).send();

    const salt = await visitors.saltOf(now);
    const visitorId = visitors.visitorId(salt, ctx.website.id, request.ip, userAgent);
    for (const hit of hits) Object.assign(hit, { visitorId, device: ua.device, browser: ua.browser, os: ua.os });
    if (!ingest.offer(hits)) throw new ResourceExhausted('too many analytics events right now; retry later', QUEUE_FULL_RETRY_S);
    return reply.code(202).send();
  }

  return {
    scripts(settings) {
      if (settings.get(ENABLED) !== true) return [];
      return [{ src: `${INSIGHTS_PATH}?v=${INSIGHTS_VERSION}`, data: { 'respect-privacy': String(settings.get(RESPECT_PRIVACY) !== false) } }];
    },

    async routes(site: FastifyInstance, siteDeps: SiteDeps) {
      // A graceful stop writes what is queued; a kill loses at most the last flush interval.
      site.addHook('onClose', () => ingest.close());

      // The script is the same for every site; its URL carries its version, so it is cached for a year.
      site.route({
        method: ['GET', 'HEAD'],
        url: INSIGHTS_PATH,
        logLevel: 'warn',
        handler: async (request, reply) => {
          reply.header('etag', scriptEtag).header('cache-control', 'public, max-age=31536000, immutable');
          if (request.headers['if-none-match'] === scriptEtag) return reply.code(304).send();
          return reply.type('text/javascript; charset=utf-8').send(INSIGHTS_SCRIPT);
        },
      });

      await site.register(async (scope) => {
        // sendBeacon sends a string as text/plain; both carry the same JSON, at most MAX_EVENT_BODY_BYTES
        // (Fastify refuses a larger body with 400 INVALID_ARGUMENT on `body` before reading it all).
        scope.removeAllContentTypeParsers();
        scope.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'string', bodyLimit: MAX_EVENT_BODY_BYTES }, (_request, text, done) => {
          try {
            done(null, parseBody(text as string));
          } catch (err) {
            done(err as Error, undefined);
          }
        });
        scope.post(EVENT_PATH, {
          config: { siteJson: true },
          // Fastify's per-request info lines carry the client address: not for visitors' hits.
          logLevel: 'warn',
          bodyLimit: MAX_EVENT_BODY_BYTES,
          // Every request counts, valid or not, and one over its address's budget is refused before its body is read.
          onRequest: async (request) => perAddress.hit(addressKey(request.ip)),
          handler: (request, reply) => collect(request, reply, siteDeps),
        });
      });
    },
  };
}

/** The referrer's host without `www.`; null when absent, not http(s), or this site itself. */
export function referrerSource(referrer: string | undefined, siteHostname: string): string | null {
  if (!referrer) return null;
  let url: URL;
  try {
    url = new URL(referrer);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const host = url.hostname.replace(/\.$/, '').replace(/^www\./, '');
  if (host === '' || host === siteHostname.replace(/^www\./, '')) return null;
  return host.slice(0, MAX_DIMENSION_LENGTH);
}
