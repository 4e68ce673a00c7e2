import type { FastifyInstance, FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

/**
 * One OpenAPI 3.1 document per surface, generated from the routes registered in the same
 * encapsulated context (`{prefix}/openapi.json`), plus a browsable reference at `{prefix}/docs`.
 */
export async function registerOpenApi(
  app: FastifyInstance,
  opts: {
    prefix: string;
    title: string;
    /** A function when the server is the host a request came in on (a rendered site's read API). */
    serverUrl: string | ((request: FastifyRequest) => string);
    bearer: boolean;
    /** Also serve the browsable reference at `{prefix}/docs` (default true). */
    docs?: boolean;
    description?: string;
  },
): Promise<void> {
  const staticServer = typeof opts.serverUrl === 'string' ? opts.serverUrl : '/';
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: opts.title,
        version: 'v1',
        description: `${opts.description ?? `${opts.title} of the website-building platform.`} Errors use one canonical body: \`{error: {code, status, message, details}}\`.`,
        contact: { name: 'Platform team', url: 'https://github.com/' },
        license: { name: 'Proprietary', url: 'https://example.com/license' },
      },
      // `x-internal: false`: the audience is the public (OWASP inventory rules).
      servers: [
        {
          url: staticServer,
          description:
            typeof opts.serverUrl === 'string'
              ? 'This deployment: production, staging or local development, as its PUBLIC_BASE_URL says.'
              : 'The website this document was read from (its platform host or custom domain).',
          'x-internal': false,
          // why: @fastify/swagger's server type has no extension fields.
        } as never,
      ],
      ...(opts.bearer && {
        components: {
          securitySchemes: {
            bearer: {
              type: 'http',
              scheme: 'bearer',
              bearerFormat: 'JWT',
              description: 'A JWT from `users:authenticate` or `users:exchange_handoff` (HS256, short-lived; issued and checked following RFC8725, JSON Web Token Best Current Practices).',
            },
          },
        },
        security: [{ bearer: [] }],
      }),
    },
    hideUntagged: false,
    // Named schemas (components.ts) keep their names: `components.schemas.CmsPage`, `$ref: '#/components/schemas/CmsPage'`.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    // why (the casts): the plugin types the document loosely on the way in and strictly on the way out.
    transformObject: (documentObject) => shareRepeatedParts((documentObject as { openapiObject: OpenApiDocument }).openapiObject) as never,
  });
  const serverUrl = opts.serverUrl;
  app.get(`${opts.prefix}/openapi.json`, { schema: { hide: true } }, async (request) => {
    const doc = app.swagger() as unknown as OpenApiDocument;
    if (typeof serverUrl === 'string') return doc;
    return { ...doc, servers: doc.servers?.map((server: Record<string, unknown>) => ({ ...server, url: serverUrl(request) })) };
  });
  if (opts.docs !== false) await app.register(swaggerUi, { routePrefix: `${opts.prefix}/docs`, staticCSP: true });
}

// A document read and rewritten generically (any OpenAPI object, any depth): `any` keeps that code plain.
type OpenApiDocument = Record<string, any> & { paths?: Record<string, Record<string, any>>; components?: Record<string, any> };

/** Names of the error answers every operation repeats, as `components.responses`. */
const ERROR_RESPONSE_NAMES: Record<string, string> = {
  '400': 'BadRequest',
  '401': 'Unauthenticated',
  '403': 'PermissionDenied',
  '404': 'NotFound',
  '409': 'Conflict',
  '429': 'TooManyRequests',
  '500': 'InternalError',
  '503': 'Unavailable',
  default: 'UnexpectedError',
};

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const pascalOf = (name: string) => name.replace(/(^|[_-])([a-zA-Z])/g, (_, __, c: string) => c.toUpperCase());

/**
 * Factors what operations repeat word for word into components, so the document (and clients
 * generated from it) name each thing once: the error answers (`components.responses.NotFound`) and
 * every parameter that reads the same wherever it appears (`components.parameters.PageSize`,
 * `IfMatch`, `WebsiteId`). Also declares every tag the operations use (spectral:oas
 * `operation-tag-defined`), sorted.
 */
export function shareRepeatedParts(doc: OpenApiDocument): OpenApiDocument {
  const operations = Object.values(doc.paths ?? {}).flatMap((item) => Object.values(item).filter((op) => op && typeof op === 'object' && op.responses));
  const responses: Record<string, unknown> = {};
  for (const op of operations) {
    for (const [code, response] of Object.entries<unknown>(op.responses)) {
      const name = ERROR_RESPONSE_NAMES[code];
      if (!name) continue;
      responses[name] ??= response;
      if (same(responses[name], response)) op.responses[code] = { $ref: `#/components/responses/${name}` };
    }
  }
  // A parameter becomes a component when every use of its name and place reads the same.
  const variants = new Map<string, unknown[]>();
  for (const op of operations) {
    for (const p of op.parameters ?? []) {
      const key = `${p.in}:${p.name}`;
      const seen = variants.get(key) ?? [];
      if (!seen.some((v) => same(v, p))) seen.push(p);
      variants.set(key, seen);
    }
  }
  const parameters: Record<string, unknown> = {};
  const parameterNames = new Map<string, string>();
  for (const [key, seen] of variants) {
    if (seen.length !== 1) continue;
    const [place, name] = key.split(':');
    const component = place === 'header' || place === 'path' ? pascalOf(name) : `${pascalOf(name)}${place === 'query' ? '' : pascalOf(place)}`;
    if (parameters[component]) continue;
    parameters[component] = seen[0];
    parameterNames.set(key, component);
  }
  for (const op of operations) {
    if (!op.parameters) continue;
    op.parameters = op.parameters.map((p: { in: string; name: string }) => {
      const component = parameterNames.get(`${p.in}:${p.name}`);
      return component ? { $ref: `#/components/parameters/${component}` } : p;
    });
  }
  const used = new Set<string>();
  for (const op of operations) op.tags?.forEach((t: string) => used.add(t));
  return {
    ...doc,
    tags: [...used].sort().map((name) => ({ name, description: `Methods of \`${name}\`.` })),
    components: { ...doc.components, responses, parameters },
  };
}
