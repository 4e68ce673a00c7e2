import { parseListDeclaration } from './declarations.js';
import { resolveReferences } from './references.js';
import { derefSchema, humanize, refName, snakeCase } from './schema.js';
import type {
  ApiModel,
  Area,
  Endpoint,
  HttpMethod,
  JsonSchema,
  LooseEndpoint,
  OpenApiDocument,
  OperationObject,
  ParameterObject,
  ResourceModel,
  Scope,
  Verb,
  VerbResult,
} from './types.js';

/** Prefix of every tenant API path; keys are written below it. */
export const API_PREFIX = '/tenant-api/v1/';

const METHODS: HttpMethod[] = ['get', 'post', 'patch', 'put', 'delete'];

/** `a/{b}/c/{d}` → `['b', 'd']`. */
export const templateParams = (template: string): string[] => [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);

function resolveParameter(doc: OpenApiDocument, p: ParameterObject | { $ref: string }): ParameterObject {
  if ('$ref' in p && p.$ref) {
    const found = doc.components.parameters?.[refName(p.$ref)];
    if (!found) throw new Error(`unresolved parameter ${p.$ref}`);
    return found;
  }
  return p as ParameterObject;
}

/** The component name and schema of a success answer (first 2xx with a body). */
function successSchema(op: OperationObject): JsonSchema | undefined {
  for (const code of ['200', '201', '202']) {
    const content = op.responses?.[code]?.content;
    if (content) return Object.values(content)[0]?.schema;
  }
  return undefined;
}

function endpointOf(doc: OpenApiDocument, path: string, method: HttpMethod, op: OperationObject): Endpoint {
  const params = (op.parameters ?? []).map((p) => resolveParameter(doc, p));
  const content = op.requestBody?.content;
  const mediaType = content ? Object.keys(content)[0] : undefined;
  const bodySchema = mediaType ? content![mediaType]!.schema : undefined;
  const success = successSchema(op);
  // Rights are stated in prose by the resource engine (`rightNote`): the admin hides what a role cannot do.
  const right = /Requires (READ|WRITE) on section `([^`]+)`/.exec(op.description ?? '');
  return {
    path,
    method,
    operationId: op.operationId ?? `${method} ${path}`,
    summary: op.summary ?? '',
    description: op.description ?? '',
    pathParams: templateParams(path),
    query: params.filter((p) => p.in === 'query').map((p) => p.name),
    ifMatch: params.some((p) => p.in === 'header' && p.name.toLowerCase() === 'if-match'),
    validateOnly: params.some((p) => p.in === 'query' && p.name === 'validate_only'),
    ...(bodySchema && {
      requestSchema: derefSchema(doc, bodySchema),
      requestMediaType: mediaType,
      ...(bodySchema.$ref && { requestSchemaName: refName(bodySchema.$ref) }),
    }),
    ...(success?.$ref && { responseSchemaName: refName(success.$ref) }),
    ...(right && { right: { level: right[1] as 'READ' | 'WRITE', section: right[2]! } }),
  };
}

function scopeOf(key: string): Scope {
  if (key.startsWith('websites/{website_id}')) return 'website';
  if (key.startsWith('accounts/{account_id}')) return 'account';
  if (key.startsWith('projects/{project_id}')) return 'project';
  if (key === 'accounts' || key.startsWith('users/{user_id}')) return 'user';
  return 'platform';
}

/** SPEC's navigation areas, by collection id. */
export function areaOf(id: string, key: string): Area {
  if (id.startsWith('blog_')) return 'Blog';
  if (id.startsWith('cms_') || id.startsWith('navigation_') || id === 'items' || id === 'groups') return 'Content';
  if (id.startsWith('editorial_')) return 'Editorial';
  if (id.startsWith('customer')) return 'Customers';
  if (id.startsWith('media')) return 'Media';
  if (id.startsWith('ai_') || (id === 'versions' && key.includes('/ai_'))) return 'AI';
  if (id === 'analytics' || id.startsWith('dashboard')) return 'Analytics';
  if (['members', 'invitations', 'account_roles', 'roles', 'permissions'].includes(id)) return 'Team';
  if (['accounts', 'projects', 'profile'].includes(id)) return 'Account';
  if (id === 'revisions') return 'Blog';
  if (id === 'views' && /\/(blog_|cms_)/.test(key)) return key.includes('/blog_') ? 'Blog' : 'Content';
  return 'Settings';
}

/**
 * Fields an Update must not change. The document says so only in prose (the resource engine's
 * IMMUTABLE behaviour is not emitted as a keyword), so read the phrases the declarations use.
 */
const IMMUTABLE_PROSE = /fixed after create|\bimmutable\b|settable on create; afterwards|\bfixed\b[.;]|; fixed$|^create only\b/i;

function immutableFields(update: JsonSchema | undefined): string[] {
  if (!update?.properties) return [];
  return Object.entries(update.properties)
    .filter(([, s]) => IMMUTABLE_PROSE.test(s.description ?? ''))
    .map(([name]) => name);
}

function verbResult(endpoint: Endpoint, resourceSchemaName: string | undefined): VerbResult {
  const name = endpoint.responseSchemaName;
  if (name === 'Operation') return 'operation';
  if (!name || name === 'Empty') return 'empty';
  if (name === resourceSchemaName) return 'resource';
  return 'other';
}

/** Builds the resource model of a tenant OpenAPI document. */
export function buildApiModel(doc: OpenApiDocument): ApiModel {
  const endpoints = new Map<string, Endpoint>();
  const byRel = new Map<string, Partial<Record<HttpMethod, Endpoint>>>();
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith(API_PREFIX)) continue;
    const rel = path.slice(API_PREFIX.length);
    const ops: Partial<Record<HttpMethod, Endpoint>> = {};
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const endpoint = endpointOf(doc, path, method, op);
      ops[method] = endpoint;
      endpoints.set(endpoint.operationId, endpoint);
    }
    byRel.set(rel, ops);
  }

  const isVerbPath = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1).includes(':');
  const isItemPath = (rel: string) => rel.endsWith('}');

  // Collections: every List.
  const resources: ResourceModel[] = [];
  const itemOwner = new Map<string, ResourceModel>(); // item rel → collection
  for (const [rel, ops] of byRel) {
    if (isVerbPath(rel) || isItemPath(rel) || !ops.get?.operationId.startsWith('List')) continue;
    const list = ops.get;
    const listSchema = doc.components.schemas[list.responseSchemaName ?? ''];
    const pageProperty = Object.entries(listSchema?.properties ?? {}).find(([, s]) => s.type === 'array' && s.items?.$ref);
    if (!pageProperty) throw new Error(`List ${list.operationId} answers no page of resources`);
    const schemaName = refName(pageProperty[1].items!.$ref!);
    resources.push(newResource(doc, rel, 'collection', schemaName, ops, { list, listProperty: pageProperty[0] }));
  }

  // Item paths: under their List (`a/{a}/b/{b}`), or at the top level (`projects/{project_id}` of `accounts/{account_id}/projects`).
  const looseByKey = new Map<string, LooseEndpoint>();
  const loose = (key: string) => {
    let entry = looseByKey.get(key);
    if (!entry) looseByKey.set(key, (entry = { key, endpoints: [], verbs: [] }));
    return entry;
  };
  for (const [rel, ops] of byRel) {
    if (isVerbPath(rel) || !isItemPath(rel)) continue;
    const collectionRel = rel.slice(0, rel.lastIndexOf('/'));
    const segment = collectionRel.slice(collectionRel.lastIndexOf('/') + 1);
    const owner =
      resources.find((r) => r.key === collectionRel) ??
      (!collectionRel.includes('/') ? resources.find((r) => r.id === segment && !r.idParam && r.key !== collectionRel) : undefined);
    if (!owner) {
      loose(rel).endpoints.push(...Object.values(ops));
      continue;
    }
    owner.idParam = rel.slice(rel.lastIndexOf('{') + 1, -1);
    owner.get = ops.get;
    owner.update = ops.patch;
    owner.delete = ops.delete;
    if (ops.patch?.requestSchema) owner.updateSchema = ops.patch.requestSchema;
    itemOwner.set(rel, owner);
  }

  // Singletons: a Get (and maybe an Update) on a path that is neither a List nor an item.
  for (const [rel, ops] of byRel) {
    if (isVerbPath(rel) || isItemPath(rel) || resources.some((r) => r.key === rel) || !ops.get) continue;
    const schemaName = ops.get.responseSchemaName;
    if (!schemaName) continue;
    const singleton = newResource(doc, rel, 'singleton', schemaName, ops, {});
    singleton.get = ops.get;
    singleton.update = ops.patch;
    if (ops.patch?.requestSchema) singleton.updateSchema = ops.patch.requestSchema;
    resources.push(singleton);
    itemOwner.set(rel, singleton);
  }

  // Custom methods: on a collection, on one of its items, on a singleton, or loose.
  for (const [rel, ops] of byRel) {
    if (!isVerbPath(rel)) continue;
    const colon = rel.lastIndexOf(':');
    const target = rel.slice(0, colon);
    const name = rel.slice(colon + 1);
    for (const endpoint of Object.values(ops)) {
      const onCollection = resources.find((r) => r.kind === 'collection' && r.key === target);
      const onItem = itemOwner.get(target);
      const owner = onCollection ?? onItem;
      const verb: Verb = {
        name,
        label: humanize(name),
        on: onCollection ? 'collection' : 'resource',
        endpoint,
        result: verbResult(endpoint, owner?.schemaName),
      };
      if (owner) owner.verbs.push(verb);
      else loose(target).verbs.push(verb);
    }
  }

  const byKey = new Map(resources.map((r) => [r.key, r]));
  // Parents and children: `…/blog_posts/{blog_post_id}/views` belongs to a blog post.
  for (const r of resources) {
    if (!r.parent.endsWith('}')) continue;
    const owner = itemOwner.get(r.parent);
    if (!owner || owner.kind !== 'collection') continue;
    r.parentCollection = owner.key;
    // The context roots (a website, an account) are the admin's frame, not a detail with children.
    if (r.parent !== 'websites/{website_id}' && r.parent !== 'accounts/{account_id}') owner.children.push(r.key);
  }
  for (const r of resources) {
    r.immutable = immutableFields(r.updateSchema);
    r.references = resolveReferences(r, resources);
  }
  resources.sort((a, b) => a.key.localeCompare(b.key));
  return { resources, byKey, loose: [...looseByKey.values()].sort((a, b) => a.key.localeCompare(b.key)), endpoints };
}

function newResource(
  doc: OpenApiDocument,
  key: string,
  kind: ResourceModel['kind'],
  schemaName: string,
  ops: Partial<Record<HttpMethod, Endpoint>>,
  extra: Partial<ResourceModel>,
): ResourceModel {
  const id = key.slice(key.lastIndexOf('/') + 1);
  const parent = key.includes('/') ? key.slice(0, key.lastIndexOf('/')) : '';
  const schema = doc.components.schemas[schemaName];
  if (!schema) throw new Error(`no schema ${schemaName}`);
  const create = kind === 'collection' ? ops.post : undefined;
  const declaration = extra.list ? parseListDeclaration(extra.list.description) : undefined;
  return {
    key,
    id,
    kind,
    scope: scopeOf(key),
    parent,
    parentParams: templateParams(parent),
    title: humanize(id),
    singular: humanize(snakeCase(schemaName)),
    area: areaOf(id, key),
    description: (extra.list ?? ops.get)?.description.split('\n\n')[0] ?? schema.description ?? '',
    schemaName,
    schema: derefSchema(doc, schema),
    ...(create && { create, createSchema: create.requestSchema }),
    ...(declaration && { declaration }),
    immutable: [],
    references: {},
    verbs: [],
    children: [],
    ...extra,
  };
}
