import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import compress from '@fastify/compress';
import cors from '@fastify/cors';
import type { Config } from './config.js';
import { accountNames, accountResource } from './accounts/index.js';
import { insertCreatorMembership, lockMembershipsOfAccounts, makeAdministrator, membershipsOfUser } from './access/index.js';
import { previewOrigins, registerAdminApp } from './admin-app/index.js';
import { projectResource } from './projects/index.js';
import { provisioningHandler, PROVISION_WEBSITE, websiteIdsOwnedBy, websiteResource } from './websites/index.js';
import { areas as platformAreas } from './areas.js';
import type { Area, AreaDeps, Reference, SurfaceDeps } from './platform/area.js';
import type { BlobStore } from './platform/storage/blobs.js';
import { blobStoreFromConfig } from './platform/storage/configured.js';
import { createUserService, profileResource, registerUserRoutes, userResource } from './users/index.js';
import { createSignupService, exchangeSignupHandoff, registerSignupRoutes } from './signup/index.js';
import { probeOperations, registerOperationRoutes } from './operations/index.js';
import type { Database } from './platform/db/database.js';
import { createAccessService, type AccessRoot } from './platform/auth/access.js';
import { createTokenService } from './platform/auth/tokens.js';
import { startCacheInvalidation, type CacheInvalidation } from './platform/cache-invalidation.js';
import type { Right } from './platform/auth/rights.js';
import { createCaptchaVerifier } from './platform/captcha/captcha.js';
import { createSecretBox } from './platform/crypto.js';
import { clientErrorHandler, frameworkErrors, installErrorHandling, trackRoutes } from './platform/http/errors.js';
import { createAnswerCache } from './platform/http/answer-cache.js';
import { installInputGuard } from './platform/http/input-guard.js';
import { registerOpenApi } from './platform/http/openapi.js';
import { applyRateLimit } from './platform/http/rate-limit.js';
import { createLimits } from './platform/limits/limits.js';
import { requestIdOf } from './platform/http/request-id.js';
import { createRouteContextFactory, requireCheckedFirst } from './platform/http/route-context.js';
import { buildSerializerFactory } from './platform/http/serialization.js';
import { validatorFactory } from './platform/http/validation.js';
import { createOperations, type Operations } from './platform/jobs/operations.js';
import { createMailer, type Mailer } from './platform/mail/mailer.js';
import { createEvents } from './platform/events/events.js';
import { createListCounts } from './platform/query/list-counts.js';
import { createPageTokenCodec } from './platform/query/page-token.js';
import { createResourceService, type ResourceService } from './platform/resource/engine.js';
import type { Trx } from './platform/db/schema.js';
import type { Row, WriteContext } from './platform/resource/declaration.js';
import { registerResourceRoutes } from './platform/resource/routes.js';
import { createSiteHosts, createSiteVersions, registerSiteSurface } from './site/index.js';

export const TENANT_PREFIX = '/tenant-api/v1';
export const SITE_PREFIX = '/site-api/v1';
export const ENGINE_PREFIX = '/engine-api/v1';

/** Longest path segment the router matches (ids are at most 63 characters; verbs and names ride along). */
const MAX_PARAM_LENGTH = 256;

/** Paths that start at these parameters are resolved to their account for access checks. */
const ACCESS_ROOTS: Record<string, AccessRoot> = {
  account_id: { param: 'account_id', table: 'accounts', isWebsite: false },
  project_id: { param: 'project_id', table: 'projects', isWebsite: false },
  website_id: { param: 'website_id', table: 'websites', isWebsite: true },
};

export interface Platform {
  app: FastifyInstance;
  operations: Operations;
  /** Outgoing mail; servers and `npm run worker` start its worker beside the Operations worker. */
  mail: Mailer;
  services: Record<string, ResourceService>;
  /** What every area is built from (tests reach real services through it). */
  deps: AreaDeps;
  /** Every route that declares a right, with that right. */
  routeRights: readonly RouteRight[];
  /** The per-process caches' invalidation (writers settle it before answering; tests reach it here). */
  invalidation: CacheInvalidation;
}

/** A route and the right it declares. */
export interface RouteRight {
  method: string;
  url: string;
  right: Right;
}

/**
 * The composition root: builds every service from its explicit dependencies and mounts the three
 * surfaces on one Fastify instance. `npm run worker` builds the same (so job handlers are
 * registered once) and never listens.
 */
export async function buildApp(opts: {
  config: Config;
  database: Database;
  logger?: FastifyServerOptions['logger'];
  /** Default: what BLOB_STORE names (local disk under DATA_DIR/blobs, or S3). */
  blobs?: BlobStore;
  /** Default: every area of `src/areas.ts` (the test of docs/architecture.md adds the doc's example area). */
  areas?: readonly Area[];
  /** `false` records no events (bench/events.ts compares write throughput without them); default true. */
  recordEvents?: boolean;
}): Promise<Platform> {
  const { config, database } = opts;
  const areas = opts.areas ?? platformAreas;
  // Every per-process cache another process's write can make stale is invalidated through this (PostgreSQL: listens first).
  const invalidation = await startCacheInvalidation(database);
  // Requests whose Host names a rendered website go to the site surface (src/site/), decided before routing.
  const siteHosts = createSiteHosts({ database, invalidation, platformDomain: config.platformDomain, ownHosts: [new URL(config.publicBaseUrl).host, new URL(config.signupBaseUrl).host] });
  const app = Fastify({
    logger: opts.logger ?? false,
    // A well-formed client X-Request-Id is kept (so a caller's trace id finds our log lines); others are replaced.
    genReqId: requestIdOf,
    requestIdHeader: false,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH, constraints: { site: siteHosts.constraint as never } },
    // Errors raised before any hook runs (bad URL encoding, an over-long path segment, a malformed
    // request line or oversized headers) answer the canonical body too.
    frameworkErrors,
    clientErrorHandler,
    // While draining on SIGTERM, a request that still arrives on an open keep-alive connection is served
    // (with `Connection: close`) rather than refused with Fastify's own, non-canonical 503.
    return503OnClosing: false,
  });
  const routes = trackRoutes(app, { maxParamLength: MAX_PARAM_LENGTH });
  // The right every route declares (`config.right`), for the permission tree's checks.
  const routeRights: RouteRight[] = [];
  app.addHook('onRoute', (route) => {
    const right = (route.config as { right?: Right } | undefined)?.right;
    if (right) for (const method of [route.method].flat()) routeRights.push({ method, url: route.url, right });
  });
  // Per encapsulated context: each surface's named schemas (platform/http/components.ts) are known to its validators.
  app.setSchemaController({ compilersFactory: { buildValidator: validatorFactory() as never, buildSerializer: buildSerializerFactory as never } });
  // CORS first, so every answer (redirects and errors included) carries its headers.
  await app.register(cors, {
    origin: '*',
    methods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'X-Request-Id'],
    exposedHeaders: ['ETag', 'Location', 'Retry-After', 'X-Request-Id', 'RateLimit', 'RateLimit-Policy', 'WWW-Authenticate'],
    maxAge: 600,
    // An OPTIONS without the preflight headers is answered like a preflight, not with a plain-text 400.
    strictPreflight: false,
  });
  // Answers of 1 KiB and more, in a type worth compressing (JSON, text, SVG; never JPEG/PNG/WebP/AVIF/GIF,
  // which are compressed already), go out br/gzip/deflate as the client accepts. Request bodies are not
  // decompressed: no client needs it, and it would multiply what BODY_LIMIT_BYTES lets in.
  await app.register(compress, { global: true, threshold: 1024, encodings: ['br', 'gzip', 'deflate'], globalDecompression: false });
  installErrorHandling(app, routes);
  installInputGuard(app);
  // Set once close() begins (SIGTERM): answers of requests still in flight then end their connection,
  // so a drained keep-alive connection does not hold the process until its idle timeout.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (closing) reply.header('connection', 'close');
  });
  app.addHook('onClose', async () => invalidation.close());
  // PostgreSQL: a tenant API write that changed what a per-process cache holds (one of its statements
  // announced a cache topic while it ran: Database.topicAnnouncements) answers once every process has
  // handled its commit's invalidations (cache-invalidation.ts, settle), so the caller's next request
  // anywhere sees it. Every other write answers at once. Only the tenant API writes what the caches
  // hold; the site's hot POSTs (analytics events) never wait.
  const announcements = database.topicAnnouncements?.bind(database);
  if (database.subscribe && announcements) {
    const writes = (method: string) => method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';
    const announcedBefore = new WeakMap<object, number>();
    app.addHook('onRequest', (request, _reply, done) => {
      if (writes(request.method)) announcedBefore.set(request, announcements());
      done();
    });
    app.addHook('onSend', async (request) => {
      if (!writes(request.method)) return;
      // Another request's announcement in the meantime makes this one settle too: never too few.
      const before = announcedBefore.get(request);
      if (before === undefined || announcements() === before) return;
      if (request.url.startsWith(`${TENANT_PREFIX}/`) && !request.url.startsWith(`${TENANT_PREFIX}/users:authenticate`)) await invalidation.settle();
    });
  }
  // Every committed write is an event (platform/events/): the engine, Operations and raw writes record them.
  const events = createEvents({ database, logger: app.log, enabled: opts.recordEvents ?? true });
  const operations = createOperations({ database, logger: app.log, events });
  const tokens = createTokenService({ secret: config.jwtSecret, lifetimeSeconds: config.tokenLifetimeSeconds, database, invalidation });
  const access = createAccessService(database, invalidation);
  const context = createRouteContextFactory({ tokens, access, roots: ACCESS_ROOTS });
  const blobs = opts.blobs ?? blobStoreFromConfig(config);
  const engineDeps = {
    database,
    pageTokens: createPageTokenCodec(config.jwtSecret),
    listCounts: createListCounts({
      database,
      shareAfterMs: config.listCountShareMs,
      onShareError: (err) => app.log.warn({ err }, 'could not share a list count with other processes'),
    }),
    onDeleting: async (trx: Trx, table: string, row: Row, now: number) => {
      if (row.website_id) for (const reference of referencesTo(table)) await reference.detach(trx, row.website_id, row.id, now);
      // Rows of deleted websites go by foreign-key cascade, their blobs by prefix once the delete
      // committed: the website's own (media), and for an account its AI artifacts too.
      const owner = table === 'accounts' ? 'account' : table === 'projects' ? 'project' : table === 'websites' ? 'website' : undefined;
      if (!owner) return;
      const websites = await websiteIdsOwnedBy(trx, owner, row.id);
      const prefixes = [...websites.map((id) => `websites/${id}`), ...(table === 'accounts' ? [`accounts/${row.id}`] : [])];
      return async () => {
        for (const prefix of prefixes) {
          await blobs.deletePrefix(prefix).catch((err) => app.log.error({ err, prefix }, 'could not remove the blobs of a deleted resource'));
        }
      };
    },
    onDeleted: async (table: string, id: string) => access.forgetRoot(table, id),
    events,
  };

  const services: Record<string, ResourceService> = {};
  const secrets = createSecretBox(config.encryptionKey);
  const mail = createMailer({ database, secrets, logger: app.log, settings: { ...config.mail, adminBaseUrl: config.adminBaseUrl, dataDir: config.dataDir } });
  app.addHook('onClose', async () => mail.close());
  const limits = createLimits(database, { onPurgeError: (err) => app.log.warn({ err }, 'could not purge expired limit counters') });
  app.addHook('onClose', async () => limits.close());
  // Collected on first use: an area's references may need the deps (its SQL dialect).
  let referencesByTarget: Map<string, Reference[]> | undefined;
  function referencesTo(target: string): Reference[] {
    if (!referencesByTarget) {
      referencesByTarget = new Map();
      for (const area of areas) {
        const list = typeof area.references === 'function' ? area.references(deps) : (area.references ?? []);
        for (const reference of list) referencesByTarget.set(reference.target, [...(referencesByTarget.get(reference.target) ?? []), reference]);
      }
    }
    return referencesByTarget.get(target) ?? [];
  }
  // No onMembershipChanged: the membership cache is invalidated by triggers (src/platform/cache-invalidation.ts).
  const users = createUserService({
    database,
    tokens,
    mail,
    limits,
    logger: app.log,
    services,
    deletion: { membershipsOfUser, lockMembershipsOfAccounts, makeAdministrator, accountNames },
    exchangeSignupHandoff,
  });
  const deps: AreaDeps = {
    config,
    database,
    operations,
    blobs,
    secrets,
    mail,
    users,
    limits,
    events,
    logger: app.log,
    services,
    areas,
    referencesTo,
  };
  const onAccountCreate = async (ctx: WriteContext, row: Row) => {
    // The creator becomes the new account's administrator first (the access area's table).
    await insertCreatorMembership(ctx.trx, row.id, ctx.caller.userId, ctx.now);
    for (const area of areas) await area.onAccountCreate?.(ctx, row, deps);
  };
  const declarations = [
    accountResource(onAccountCreate),
    userResource({ users, services }),
    profileResource({ users, services }),
    projectResource,
    websiteResource({ operations, platformDomain: config.platformDomain, publicBaseUrl: config.publicBaseUrl }),
    ...areas.flatMap((area) => area.resources?.(deps) ?? []),
  ];
  for (const decl of declarations) {
    if (services[decl.collectionPath]) throw new Error(`two resources declare ${decl.collectionPath}`);
    services[decl.collectionPath] = createResourceService(decl, engineDeps);
  }
  // Collection ids alone are ambiguous once sub-collections (`versions`, `views`) repeat; the
  // foundation's own services keep their short names for existing callers.
  for (const service of Object.values(services)) services[service.decl.collection] ??= service;
  const provisioningSteps = areas.flatMap((area) => area.provisioningSteps?.(deps) ?? []);
  operations.register(PROVISION_WEBSITE, provisioningHandler({ db: database.db, steps: provisioningSteps, websites: () => services.websites }));
  for (const area of areas) area.jobs?.(operations, deps);
  for (const area of areas) area.events?.(events, deps);

  const signup = createSignupService({
    database,
    users,
    accounts: services.accounts,
    projects: services.projects,
    websites: services.websites,
    operations,
    secrets,
  });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    await probeOperations(database.db);
    return reply.send({ status: 'ready' });
  });

  // Per user (per client address for calls without a valid token); off unless TENANT_RATE_LIMIT is set.
  const tenantLimiter = limits.limiter('tenant', { limit: config.tenantRateLimit, windowMs: 60_000, algorithm: 'token-bucket' });

  await app.register(async (tenant) => {
    // Every route that needs credentials checks them, and the caller's reach of the path, before its body.
    tenant.addHook('onRoute', requireCheckedFirst);
    // Counted before the body is read, so a client over its limit costs no parsing. No hook at all when off.
    if (config.tenantRateLimit !== 0) tenant.addHook('onRequest', async (request, reply) => {
      const key = await tokens.authenticate(request.headers.authorization, Date.now()).then(
        (who) => `user:${who.userId}`,
        () => `address:${request.ip}`,
      );
      await applyRateLimit(reply, 'tenant', tenantLimiter, key);
    });
    await registerOpenApi(tenant, { prefix: TENANT_PREFIX, title: 'Tenant API', serverUrl: config.publicBaseUrl, bearer: true });
    registerUserRoutes(tenant, { prefix: TENANT_PREFIX, users, context });
    const surface: SurfaceDeps = { ...deps, context, prefix: TENANT_PREFIX, baseUrl: `${config.publicBaseUrl}${TENANT_PREFIX}` };
    const answers = createAnswerCache(database);
    for (const service of new Set(Object.values(services))) registerResourceRoutes(tenant, service, { ...surface, answers });
    registerOperationRoutes(tenant, { prefix: TENANT_PREFIX, operations, context });
    for (const area of areas) await area.tenantRoutes?.(tenant, surface);
  });

  await app.register(async (site) => {
    await registerOpenApi(site, { prefix: SITE_PREFIX, title: 'Sign-up API', serverUrl: config.signupBaseUrl, bearer: false });
    registerSignupRoutes(site, {
      prefix: SITE_PREFIX,
      signup,
      captcha: createCaptchaVerifier(config.captcha),
      rateLimit: limits.limiter('signup', { limit: config.signupRateLimit, windowMs: 60_000 }),
      tenantBaseUrl: `${config.publicBaseUrl}${TENANT_PREFIX}`,
      captchaWidget: { provider: config.captcha.provider, siteKey: config.captcha.siteKey },
    });
  });

  await app.register(async (engine) => {
    await registerOpenApi(engine, { prefix: ENGINE_PREFIX, title: 'Engine API (public reads)', serverUrl: config.publicBaseUrl, bearer: false });
    const surface: SurfaceDeps = { ...deps, context, prefix: ENGINE_PREFIX, baseUrl: `${config.publicBaseUrl}${ENGINE_PREFIX}` };
    for (const area of areas) await area.engineRoutes?.(engine, surface);
  });

  await registerSiteSurface(app, {
    deps,
    hosts: siteHosts,
    versions: createSiteVersions(database),
    contributions: areas.flatMap((area) => (area.site ? [area.site(deps)] : [])),
    routes,
  });

  // The admin web app (admin/dist) on the platform host: `/` and its client routes, /assets/.
  await registerAdminApp(app, { frameOrigins: previewOrigins(config.platformDomain) });

  return { app, operations, mail, services, deps, routeRights, invalidation };
}
