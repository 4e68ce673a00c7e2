import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

/**
 * One OpenAPI 3.1 document per surface, generated from the routes registered in the same
 * encapsulated context (`{prefix}/openapi.json`), plus a browsable reference at `{prefix}/docs`.
 */
export async function registerOpenApi(
  app: FastifyInstance,
  opts: { prefix: string; title: string; serverUrl: string; bearer: boolean },
): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: opts.title,
        version: 'v1',
        description: `${opts.title} of the website-building platform. Errors use one canonical body: \`{error: {code, status, message, details}}\`.`,
        contact: { name: 'Platform team', url: 'https://github.com/' },
        license: { name: 'Proprietary', url: 'https://example.com/license' },
      },
      servers: [{ url: opts.serverUrl }],
      ...(opts.bearer && {
        components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
        security: [{ bearer: [] }],
      }),
    },
    hideUntagged: false,
    // Named schemas (components.ts) keep their names: `components.schemas.CmsPage`, `$ref: '#/components/schemas/CmsPage'`.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    // Declare every tag the operations use (spectral:oas `operation-tag-defined`), sorted.
    transformObject: (documentObject) => {
      const { openapiObject } = documentObject as { openapiObject: { paths?: Record<string, unknown> } & Record<string, unknown> };
      const used = new Set<string>();
      for (const item of Object.values(openapiObject.paths ?? {})) {
        for (const op of Object.values(item as Record<string, { tags?: string[] }>)) op.tags?.forEach((t) => used.add(t));
      }
      return { ...openapiObject, tags: [...used].sort().map((name) => ({ name, description: `Methods of \`${name}\`.` })) } as never;
    },
  });
  app.get(`${opts.prefix}/openapi.json`, { schema: { hide: true } }, async () => app.swagger());
  await app.register(swaggerUi, { routePrefix: `${opts.prefix}/docs`, staticCSP: true });
}
