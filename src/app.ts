import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import cors from '@fastify/cors';
import { randomUUID } from 'node:crypto';
import type { Config } from './config.js';
import { accountResource } from './accounts/account.resource.js';
import { projectResource } from './projects/project.resource.js';
import { websiteResource } from './websites/website.resource.js';
import { provisioningHandler, PROVISION_WEBSITE, type ProvisioningStep } from './websites/provisioning.js';
import { createUserService } from './users/user.service.js';
import { registerUserRoutes } from './users/user.routes.js';
import { createSignupService } from './signup/signup.service.js';
import { registerSignupRoutes } from './signup/signup.routes.js';
import { registerOperationRoutes } from './operations/operation.routes.js';
import type { Database } from './platform/db/database.js';
import { createAccessService, type AccessRoot } from './platform/auth/access.js';
import { createTokenService } from './platform/auth/tokens.js';
import { createCaptchaVerifier } from './platform/captcha/captcha.js';
import { createSecretBox } from './platform/crypto.js';
import { installErrorHandling } from './platform/http/errors.js';
import { registerOpenApi } from './platform/http/openapi.js';
import { createRateLimiter } from './platform/http/rate-limit.js';
import { createRouteContextFactory } from './platform/http/route-context.js';
import { createValidatorCompiler } from './platform/http/validation.js';
import { createOperations, type Operations } from './platform/jobs/operations.js';
import { createPageTokenCodec } from './platform/query/page-token.js';
import { createResourceService, type ResourceService } from './platform/resource/engine.js';
import { registerResourceRoutes } from './platform/resource/routes.js';

export const TENANT_PREFIX = '/tenant-api/v1';
export const SITE_PREFIX = '/site-api/v1';
export const ENGINE_PREFIX = '/engine-api/v1';

/** Paths that start at these parameters are resolved to their account for access checks. */
const ACCESS_ROOTS: Record<string, AccessRoot> = {
  account_id: { param: 'account_id', table: 'accounts', isWebsite: false },
  project_id: { param: 'project_id', table: 'projects', isWebsite: false },
  website_id: { param: 'website_id', table: 'websites', isWebsite: true },
};

export interface Platform {
  app: FastifyInstance;
  operations: Operations;
  services: Record<string, ResourceService>;
}

/**
 * The composition root: builds every service from its explicit dependencies and mounts the three
 * surfaces on one Fastify instance. Workers call `createWorkerServices` instead (no HTTP).
 */
export async function buildApp(opts: { config: Config; database: Database; logger?: FastifyServerOptions['logger'] }): Promise<Platform> {
  const { config, database } = opts;
  const app = Fastify({
    logger: opts.logger ?? false,
    genReqId: () => `req_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
    requestIdHeader: false,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    routerOptions: { maxParamLength: 256 },
  });
  app.setValidatorCompiler(createValidatorCompiler());
  // CORS first, so every answer (redirects and errors included) carries its headers.
  await app.register(cors, {
    origin: '*',
    methods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'X-Request-Id'],
    exposedHeaders: ['ETag', 'Location', 'Retry-After', 'X-Request-Id'],
    maxAge: 600,
  });
  installErrorHandling(app);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  const operations = createOperations({ database, logger: app.log });
  const tokens = createTokenService({ secret: config.jwtSecret, lifetimeSeconds: config.tokenLifetimeSeconds, db: database.db });
  const access = createAccessService(database.db);
  const context = createRouteContextFactory({ tokens, access, roots: ACCESS_ROOTS });
  const engineDeps = {
    database,
    pageTokens: createPageTokenCodec(config.jwtSecret),
    onDeleted: (table: string, id: string) => access.forgetRoot(table, id),
  };

  const services: Record<string, ResourceService> = {};
  for (const decl of [accountResource, projectResource, websiteResource({ operations, platformDomain: config.platformDomain })]) {
    services[decl.collection] = createResourceService(decl, engineDeps);
  }
  const provisioningSteps: ProvisioningStep[] = [];
  operations.register(PROVISION_WEBSITE, provisioningHandler({ db: database.db, steps: provisioningSteps, websites: () => services.websites }));

  const users = createUserService({ db: database.db, tokens });
  const signup = createSignupService({
    database,
    users,
    accounts: services.accounts,
    projects: services.projects,
    websites: services.websites,
    operations,
    secrets: createSecretBox(config.encryptionKey),
  });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    await database.db.selectFrom('operations').select('id').limit(1).execute();
    return reply.send({ status: 'ready' });
  });

  await app.register(async (tenant) => {
    await registerOpenApi(tenant, { prefix: TENANT_PREFIX, title: 'Tenant API', serverUrl: config.publicBaseUrl, bearer: true });
    registerUserRoutes(tenant, { prefix: TENANT_PREFIX, users, context });
    for (const service of Object.values(services)) {
      registerResourceRoutes(tenant, service, { context, prefix: TENANT_PREFIX, baseUrl: `${config.publicBaseUrl}${TENANT_PREFIX}` });
    }
    registerOperationRoutes(tenant, { prefix: TENANT_PREFIX, operations, context });
  });

  await app.register(async (site) => {
    await registerOpenApi(site, { prefix: SITE_PREFIX, title: 'Sign-up API', serverUrl: config.signupBaseUrl, bearer: false });
    registerSignupRoutes(site, {
      prefix: SITE_PREFIX,
      signup,
      captcha: createCaptchaVerifier(config.captcha),
      rateLimit: createRateLimiter({ limit: config.signupRateLimit, windowMs: 60_000 }),
    });
  });

  await app.register(async (engine) => {
    await registerOpenApi(engine, { prefix: ENGINE_PREFIX, title: 'Engine API (public reads)', serverUrl: config.publicBaseUrl, bearer: false });
  });

  return { app, operations, services };
}
