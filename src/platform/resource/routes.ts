import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RequestContext } from '../auth/context.js';
import type { AnswerCache, CachedAnswer } from '../http/answer-cache.js';
import type { Right } from '../auth/rights.js';
import { InvalidArgument } from '../errors.js';
import { checkedFirst, type Checked, type RouteContextFactory } from '../http/route-context.js';
import { Reply, routeSchema } from '../http/components.js';
import { errorResponses, ETAG_HEADER, LOCATION_HEADER, OPERATION_LOCATION_HEADER, OPERATION_SCHEMA, pascal } from '../http/openapi-shapes.js';
import { MAX_PAGE_SIZE, MAX_SKIP_WINDOW } from '../query/list-params.js';
import type { CustomMethodDecl, ResourceDecl } from './declaration.js';
import { bareEtag, etagMatches, type ResourceService } from './engine.js';
import { routePath, templateParams } from './paths.js';
import { inputSchema, listSchema, resourceSchema, type JsonSchema } from './schemas.js';

export interface RouteDeps {
  context: RouteContextFactory;
  /** Absolute URL prefix of this surface, for `Location` headers. */
  baseUrl: string;
  /** Route prefix, e.g. `/tenant-api/v1`. */
  prefix: string;
  /** Answers of Gets that depend on the stored rows and the path alone (http/answer-cache.ts). */
  answers?: AnswerCache;
}

function paramsSchema(template: string): JsonSchema {
  const names = templateParams(template);
  return {
    type: 'object',
    properties: Object.fromEntries(names.map((n) => [n, { type: 'string', maxLength: 256, description: `Id of the ${n.replace(/_id$/, '')}.` }])),
    required: names,
  };
}

const boolQuery = (description: string): JsonSchema => ({ type: 'boolean', description });

const ETAG_FIELD: JsonSchema = { type: 'string', maxLength: 128, description: 'Write only if the resource still has this etag (like `If-Match`).' };

/** A Delete carries no body; one sent anyway may hold the etag (`{"etag": "…"}`) and nothing else. */
function deleteBodyEtag(body: unknown): unknown {
  if (body === undefined || body === null) return undefined;
  if (typeof body !== 'object' || Array.isArray(body)) throw InvalidArgument.field('body', 'a Delete takes no body but `{"etag": "…"}`');
  const { etag, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw InvalidArgument.field(unknown, 'is not a field of a Delete; only `etag` is');
  return etag;
}

// Integers are written in decimal digits only (validation.ts refuses `1e2`, `0x10`); the upper
// bounds are the largest exact JSON integer because larger page sizes are clamped, not refused, and a
// skip window beyond MAX_SKIP_WINDOW is OUT_OF_RANGE rather than INVALID_ARGUMENT (SPEC 4.2, 7).
const listQuery: JsonSchema = {
  type: 'object',
  properties: {
    page_size: {
      type: 'integer',
      format: 'int64',
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: `Items per page, 1 to ${MAX_PAGE_SIZE}; 0 or absent means 50; larger is clamped to ${MAX_PAGE_SIZE}.`,
    },
    page_token: { type: 'string', maxLength: 4096, description: 'From a previous `next_page_token`.' },
    skip: {
      type: 'integer',
      format: 'int64',
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: `Rows to skip; \`skip + page_size\` beyond ${MAX_SKIP_WINDOW} is OUT_OF_RANGE.`,
    },
    order_by: { type: 'string', maxLength: 512, description: 'Comma-separated `field [asc|desc]`, at most 3 keys.' },
    filter: { type: 'string', maxLength: 2000, description: 'AIP-160 filter over the filterable fields.' },
  },
};

/**
 * The etag a write is conditional on (SPEC 4.1 rule 4, AIP-154): the `If-Match` header, or the
 * `etag` a client sends in the body (or, on Delete, in `?etag=`, AIP-135) — the same check, 409
 * ABORTED with the current resource on a mismatch. Both sent: they must agree (the header matches
 * the body's etag, `*` included), and the body's etag is the condition; a contradiction is
 * INVALID_ARGUMENT on `etag` rather than a guess at which one the client meant.
 */
export function preconditionOf(headers: FastifyRequest['headers'], sentEtag: unknown): string | undefined {
  const header = typeof headers['if-match'] === 'string' && headers['if-match'] !== '' ? headers['if-match'] : undefined;
  if (sentEtag === undefined || sentEtag === null || sentEtag === '') return header;
  if (typeof sentEtag !== 'string') throw InvalidArgument.field('etag', 'must be a string');
  if (header !== undefined && !etagMatches(header, bareEtag(sentEtag))) throw InvalidArgument.field('etag', 'disagrees with the If-Match header');
  return sentEtag;
}
const header = (name: string, description: string): JsonSchema => ({
  type: 'object',
  properties: { [name]: { type: 'string', maxLength: 4096, description } },
});
const ifMatch = header('If-Match', 'Write only if the resource still has this etag (quoted or not; a list or `*`); else 409 ABORTED.');
const ifNoneMatch = header('If-None-Match', 'Answer 304 without a body when the resource still has this etag.');
const etagOnly = { ETag: ETAG_HEADER };

/** Sends a resource with its ETag header. */
export function sendResource(reply: FastifyReply, resource: Record<string, unknown>, status = 200) {
  if (typeof resource.etag === 'string') reply.header('etag', `"${resource.etag}"`);
  return reply.code(status).send(resource);
}

/** A kept Get answer: its etag (304 when `If-None-Match` matches), the body as it was serialized. */
function sendAnswer(request: FastifyRequest, reply: FastifyReply, answer: CachedAnswer): FastifyReply {
  if (answer.etag !== undefined) {
    reply.header('etag', `"${answer.etag}"`);
    const ifNoneMatch = request.headers['if-none-match'];
    if (ifNoneMatch && etagMatches(ifNoneMatch, answer.etag)) return reply.code(304).send();
  }
  // Already serialized by the route's serializer: sent as it is.
  return reply.type('application/json; charset=utf-8').send(answer.body);
}

/**
 * Registers the standard methods of a declared resource. Everything comes from the declaration:
 * paths, operationIds, body/query/response schemas, the right each method needs.
 */
export function registerResourceRoutes(app: FastifyInstance, service: ResourceService, deps: RouteDeps): void {
  const decl: ResourceDecl = service.decl;
  // Platform catalogues have no tenant in the path: authentication is all they need. A user's own
  // resources need the caller to be that user.
  const context: (request: FastifyRequest, template: string, right: Right) => Checked<RequestContext> = decl.catalogue
    ? (request) => deps.context.authenticated(request)
    : decl.ownedByCaller
      ? (request, template) => deps.context.own(request, template)
      : deps.context;
  const plural = decl.pluralNoun ?? pascal(decl.collection);
  const tags = [decl.collection];
  const resource = resourceSchema(decl);
  const errors = (conflict: boolean) => errorResponses({ authenticated: true, roles: !decl.catalogue && !decl.ownedByCaller, notFound: true, conflict });
  const itemParams = paramsSchema(decl.itemPath);
  const collectionParams = templateParams(decl.collectionPath).length ? paramsSchema(decl.collectionPath) : undefined;
  const rightNote = (r: Right) =>
    decl.catalogue
      ? 'Requires a signed-in user only.'
      : decl.ownedByCaller
        ? 'Only the signed-in user reaches their own `users/{user}` (`users/me` is an alias); any other user id answers 404 NOT_FOUND.'
        : r.section === ''
          ? 'Requires membership in the account only.'
          : r.alternatives?.length
            ? `Requires ${[r, ...r.alternatives].map((g) => `${g.access} on section \`${g.section}\``).join(' or ')}.`
            : `Requires ${r.access} on section \`${r.section}\`.`;
  const methods = new Set(decl.methods);

  if (methods.has('list')) {
    app.get(routePath(deps.prefix, decl.collectionPath), {
      schema: routeSchema(app, {
        operationId: `List${plural}`,
        summary: `List ${decl.collection}`,
        description: `${decl.description}\n\nSortable: ${decl.sortable.join(', ')}. Filterable: ${decl.filterable.join(', ')}. Default order: \`${decl.defaultOrder}\`. ${rightNote(decl.rights.read)}`,
        tags,
        ...(collectionParams && { params: collectionParams }),
        querystring: listQuery,
        response: { 200: new Reply(`A page of ${decl.collection}.`, listSchema(decl, plural)), ...errors(false) },
      }),
      config: { right: decl.rights.read },
      ...checkedFirst((request) => context(request, decl.collectionPath, decl.rights.read)),
      handler: async (request) => {
        const ctx = await context(request, decl.collectionPath, decl.rights.read);
        const result = await service.list(ctx, request.params as Record<string, string>, request.query as Record<string, string>);
        return { [decl.collection]: result.items, next_page_token: result.nextPageToken ?? '', total_size: result.totalSize };
      },
    });
  }

  if (methods.has('create')) {
    const options = decl.options ?? {};
    const createQuery: JsonSchema = {
      type: 'object',
      properties: {
        ...(options.clientId && { id: { type: 'string', maxLength: 63, description: 'Client-chosen id; ALREADY_EXISTS when taken.' } }),
        ...(options.requestId && { request_id: { type: 'string', maxLength: 64, description: 'Idempotency key; a repeat answers the first result.' } }),
        ...(options.validateOnly && { validate_only: boolQuery('Run every check, write nothing, answer the would-be resource.') }),
      },
    };
    const createdReply = new Reply(`The created ${decl.singular}${options.requestId ? ' (a repeated `request_id`: the first one, as it is now)' : ''}.`, resource, {
      ...etagOnly,
      Location: LOCATION_HEADER,
    });
    const bodyExtra: Record<string, JsonSchema> = options.requestId
      ? { request_id: { type: 'string', minLength: 1, maxLength: 64, description: 'Idempotency key (also accepted as a query parameter).' } }
      : {};
    app.post(routePath(deps.prefix, decl.collectionPath), {
      schema: routeSchema(app, {
        operationId: `Create${decl.singular}`,
        summary: `Create a ${decl.singular}`,
        description: `${decl.description}\n\n${rightNote(decl.rights.write)}`,
        tags,
        ...(collectionParams && { params: collectionParams }),
        querystring: createQuery,
        body: inputSchema(decl, 'create', bodyExtra),
        response: {
          ...(options.validateOnly && { 200: new Reply('`validate_only`: the would-be resource; nothing was written.', resource, etagOnly) }),
          201: createdReply,
          ...errors(true),
        },
      }),
      config: { right: decl.rights.write },
      ...checkedFirst((request) => context(request, decl.collectionPath, decl.rights.write)),
      handler: async (request, reply) => {
        const ctx = await context(request, decl.collectionPath, decl.rights.write);
        const query = request.query as { id?: string; request_id?: string; validate_only?: boolean };
        const { request_id: bodyRequestId, ...body } = (request.body ?? {}) as Record<string, unknown>;
        const { resource: created } = await service.create(ctx, request.params as Record<string, string>, body, {
          id: query.id,
          requestId: query.request_id ?? (bodyRequestId as string | undefined),
          validateOnly: query.validate_only === true,
        });
        if (query.validate_only) return sendResource(reply, created, 200);
        reply.header('location', `${deps.baseUrl}/${created.name}`);
        return sendResource(reply, created, 201);
      },
    });
  }

  if (methods.has('get')) {
    // The answer depends on the rows and the path only: not on the caller (`readable`), nor on the
    // clock (`etagCoversComputed`), nor (singletons' defaults) on the request's time.
    const answers = !decl.hooks?.readable && !decl.etagCoversComputed && decl.kind !== 'singleton' && !decl.virtual ? deps.answers : undefined;
    const getParams = templateParams(decl.itemPath);
    app.get(routePath(deps.prefix, decl.itemPath), {
      schema: routeSchema(app, {
        operationId: `Get${decl.singular}`,
        summary: `Get a ${decl.singular}`,
        description: `Answers 304 without a body when \`If-None-Match\` matches the etag. ${rightNote(decl.rights.read)}`,
        tags,
        params: itemParams,
        headers: ifNoneMatch,
        response: {
          200: new Reply(`The ${decl.singular}.`, resource, etagOnly),
          304: new Reply('Not modified: `If-None-Match` matches the etag.', undefined, etagOnly),
          ...errors(false),
        },
      }),
      config: { right: decl.rights.read },
      ...checkedFirst((request) => context(request, decl.itemPath, decl.rights.read)),
      handler: (request, reply) => {
        const params = request.params as Record<string, string>;
        let key = '';
        if (answers) {
          key = decl.itemPath;
          for (const p of getParams) key += `|${params[p]}`;
        }
        // A caller's usual Get: checked from memory by the route's onRequest (checkedFirst) and the
        // answer kept under the current version: sent without a promise.
        const kept = answers?.peek?.(key);
        if (kept) {
          sendAnswer(request, reply, kept);
          return;
        }
        return getAnswer(request, reply, params, key);
      },
    });

    const getAnswer = async (request: FastifyRequest, reply: FastifyReply, params: Record<string, string>, key: string) => {
      const ctx = await context(request, decl.itemPath, decl.rights.read);
      if (answers?.load) {
        return sendAnswer(request, reply, await answers.load(key, async (): Promise<CachedAnswer> => {
          const found = await service.get(ctx, params);
          return { body: String(reply.serialize(found)), etag: typeof found.etag === 'string' ? found.etag : undefined };
        }));
      }
      const found = await service.get(ctx, params);
      const ifNoneMatch = request.headers['if-none-match'];
      if (ifNoneMatch && etagMatches(ifNoneMatch, found.etag as string)) {
        return reply.code(304).header('etag', `"${found.etag}"`).send();
      }
      if (answers && typeof found.etag === 'string') {
        reply.header('etag', `"${found.etag}"`);
        return reply.type('application/json; charset=utf-8').send(answers.reuse(key, found.etag, () => String(reply.serialize(found))));
      }
      return sendResource(reply, found);
    };
  }

  if (methods.has('update')) {
    const options = decl.options ?? {};
    app.patch(routePath(deps.prefix, decl.itemPath), {
      schema: routeSchema(app, {
        operationId: `Update${decl.singular}`,
        summary: `Update a ${decl.singular}`,
        description:
          'Merge semantics: only fields present are written. With `update_mask`, a listed field sent as null or absent is cleared; without it a null is dropped. ' +
          `Output-only fields are ignored; immutable fields sent with a new value are refused. \`If-Match\` (or \`etag\` in the body, AIP-154) with a stale etag answers 409 ABORTED. ${rightNote(decl.rights.write)}`,
        tags,
        params: itemParams,
        querystring: {
          type: 'object',
          properties: {
            update_mask: { type: 'string', maxLength: 2048, description: 'Comma-separated top-level field paths; `*` for every writable field.' },
            ...(options.validateOnly && { validate_only: boolQuery('Run every check, write nothing.') }),
            ...(options.allowMissing && { allow_missing: boolQuery('Create the resource when it does not exist.') }),
          },
        },
        headers: ifMatch,
        body: inputSchema(decl, 'update'),
        response: {
          200: new Reply(`The updated ${decl.singular}${options.validateOnly ? ' (with `validate_only`: as it would be)' : ''}.`, resource, etagOnly),
          ...(options.allowMissing && { 201: new Reply(`\`allow_missing\`: the ${decl.singular} did not exist and was created.`, resource, etagOnly) }),
          ...errors(true),
        },
      }),
      config: { right: decl.rights.write },
      ...checkedFirst((request) => context(request, decl.itemPath, decl.rights.write)),
      handler: async (request, reply) => {
        const ctx = await context(request, decl.itemPath, decl.rights.write);
        const query = request.query as { update_mask?: string; validate_only?: boolean; allow_missing?: boolean };
        if (request.body === undefined || request.body === null) throw InvalidArgument.field('body', 'a JSON object is required');
        const body = request.body as Record<string, unknown>;
        const { resource: updated, created } = await service.update(ctx, request.params as Record<string, string>, body, {
          updateMask: query.update_mask,
          ifMatch: preconditionOf(request.headers, body.etag),
          validateOnly: query.validate_only === true,
          allowMissing: query.allow_missing === true,
        });
        return sendResource(reply, updated, created && !query.validate_only ? 201 : 200);
      },
    });
  }

  for (const method of decl.customMethods ?? []) registerCustomMethod(app, service, method, deps, { itemParams, collectionParams, resource, tags, rightNote, errors, context });

  if (methods.has('delete')) {
    app.delete(routePath(deps.prefix, decl.itemPath), {
      schema: routeSchema(app, {
        operationId: `Delete${decl.singular}`,
        summary: `Delete a ${decl.singular}`,
        description: `Hard delete; 204 without a body. \`If-Match\` (or \`?etag=\`, AIP-135) with a stale etag answers 409 ABORTED. ${rightNote(decl.rights.write)}`,
        tags,
        params: itemParams,
        headers: ifMatch,
        querystring: {
          type: 'object',
          properties: {
            etag: { type: 'string', maxLength: 128, description: 'Delete only if the resource still has this etag (like `If-Match`).' },
            ...(decl.options?.force && { force: boolQuery('Also delete everything the resource contains.') }),
          },
        },
        response: { 204: new Reply('Deleted.'), ...errors(true) },
      }),
      config: { right: decl.rights.write },
      ...checkedFirst((request) => context(request, decl.itemPath, decl.rights.write)),
      handler: async (request, reply) => {
        const ctx = await context(request, decl.itemPath, decl.rights.write);
        const query = (request.query ?? {}) as { force?: boolean; etag?: string };
        await service.delete(ctx, request.params as Record<string, string>, {
          ifMatch: preconditionOf(request.headers, query.etag ?? deleteBodyEtag(request.body)),
          force: query.force === true,
        });
        return reply.code(204).send();
      },
    });
  }
}

/**
 * `POST {name}:{verb}` or `POST {collection}:{verb}` (AIP-136). `mutate` methods change the loaded
 * row through the engine (If-Match, revision, etag); `handle` methods answer whatever they return.
 */
function registerCustomMethod(
  app: FastifyInstance,
  service: ResourceService,
  method: CustomMethodDecl,
  deps: RouteDeps,
  shared: {
    itemParams: JsonSchema;
    collectionParams: JsonSchema | undefined;
    resource: JsonSchema;
    tags: string[];
    rightNote: (r: Right) => string;
    errors: (conflict: boolean) => Record<string, Reply>;
    context: (request: FastifyRequest, template: string, right: Right) => Checked<RequestContext>;
  },
): void {
  const decl = service.decl;
  if (!method.mutate === !method.handle) throw new Error(`${decl.collection}:${method.verb} needs exactly one of mutate or handle`);
  if (method.mutate && method.on !== 'item') throw new Error(`${decl.collection}:${method.verb}: mutate works on items only`);
  const template = method.on === 'item' ? decl.itemPath : decl.collectionPath;
  const right = method.right ?? (method.access === 'read' ? decl.rights.read : decl.rights.write);
  const params = method.on === 'item' ? shared.itemParams : shared.collectionParams;
  const noun = method.on === 'item' ? decl.singular : (decl.pluralNoun ?? pascal(decl.collection));
  // Item methods that write take the etag they are conditional on in the body too (AIP-154), besides If-Match.
  const takesEtag = method.on === 'item' && method.access === 'write';
  const operationId = `${pascal(method.verb)}${noun}`;
  const body = method.body && {
    $id: `${operationId}Request`,
    additionalProperties: false,
    ...method.body,
    type: 'object',
    ...(takesEtag && { properties: { ...(method.body.properties as object), etag: ETAG_FIELD } }),
  };
  // Named like the operation (`MoveMediaFolderRequest`); a response with a title is a component of that name.
  const response = method.response && typeof method.response.title === 'string' && !method.response.$id ? { $id: method.response.title, ...method.response } : method.response;
  // A method whose whole answer is an Operation only starts the work: 202 with `Location` at the
  // Operation to poll (SPEC 4.1 rule 7), for every such verb alike.
  const startsOperation = response?.$id === OPERATION_SCHEMA.$id;
  const answer =
    response === undefined
      ? new Reply(`The ${decl.singular}.`, shared.resource, { ETag: ETAG_HEADER })
      : startsOperation
        ? new Reply(String(response.description ?? 'Started: the Operation to poll (`Location` points at it).'), response, { Location: OPERATION_LOCATION_HEADER })
        : new Reply(String(response.description ?? 'The answer.'), response);
  app.post(routePath(deps.prefix, template, method.verb), {
    schema: routeSchema(app, {
      operationId,
      summary: method.summary,
      description: `${method.description}${takesEtag ? '\n\n`If-Match` (or `etag` in the body) with a stale etag answers 409 ABORTED.' : ''}\n\n${shared.rightNote(right)}`,
      tags: shared.tags,
      ...(params && { params }),
      ...(takesEtag && { headers: ifMatch }),
      ...(body && { body }),
      response: { [startsOperation ? 202 : 200]: answer, ...shared.errors(method.access === 'write') },
    }),
    config: { right },
    ...checkedFirst((request) => shared.context(request, template, right)),
    handler: async (request, reply) => {
      const ctx = await shared.context(request, template, right);
      const pathParams = request.params as Record<string, string>;
      const { etag: sentEtag, ...body } = (request.body ?? {}) as Record<string, unknown>;
      if (!takesEtag && sentEtag !== undefined) body.etag = sentEtag;
      if (!method.body && typeof body === 'object' && Object.keys(body).length > 0) {
        throw InvalidArgument.field(Object.keys(body)[0], `${method.verb} takes no fields`);
      }
      const ifMatch = takesEtag ? preconditionOf(request.headers, sentEtag) : undefined;
      if (method.mutate) {
        const mutate = method.mutate;
        const updated = await service.mutate(ctx, pathParams, (wctx, next, previous) => mutate(wctx, next, previous, body), { ifMatch, input: body });
        return sendResource(reply, updated);
      }
      const result = await method.handle!(ctx, { params: pathParams, body, headers: request.headers, ifMatch });
      if (startsOperation) {
        reply.header('location', `${deps.baseUrl}/${(result as { name: string }).name}`);
        return reply.code(202).send(result);
      }
      if (result && typeof result === 'object' && typeof (result as Record<string, unknown>).etag === 'string') {
        return sendResource(reply, result as Record<string, unknown>);
      }
      return reply.code(200).send(result);
    },
  });
}
