/**
 * The resource model the generated admin screens are drawn from: every collection, singleton and
 * custom method of the tenant OpenAPI, with the schemas and declarations each screen needs. Built by
 * pure functions from the committed document (see model.ts), so a new route of the API appears in
 * the admin without a line of screen code.
 */

/** The JSON Schema subset the tenant OpenAPI uses (draft 2020-12, as OpenAPI 3.1 embeds it). */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: boolean | JsonSchema;
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  minItems?: number;
  maxProperties?: number;
  readOnly?: boolean;
  writeOnly?: boolean;
  default?: unknown;
  example?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  [key: string]: unknown;
}

/** One parameter of an operation, resolved. */
export interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
  $ref?: string;
}

/** The part of an OpenAPI operation the model reads. */
export interface OperationObject {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: (ParameterObject | { $ref: string })[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { $ref?: string; description?: string; content?: Record<string, { schema?: JsonSchema }> }>;
}

/** The part of an OpenAPI 3.1 document the model reads. */
export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Partial<Record<HttpMethod, OperationObject>>>;
  components: {
    schemas: Record<string, JsonSchema>;
    parameters?: Record<string, ParameterObject>;
    responses?: Record<string, unknown>;
  };
}

export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

/** Where a collection hangs: under a website, an account, a project, the caller (their accounts, their user) or the platform catalogue. */
export type Scope = 'website' | 'account' | 'project' | 'user' | 'platform';

/** One operation of the document, as the screens call it. */
export interface Endpoint {
  /** Template of the full path, e.g. `/tenant-api/v1/websites/{website_id}/blog_posts/{blog_post_id}`. */
  path: string;
  method: HttpMethod;
  operationId: string;
  summary: string;
  description: string;
  /** Names of the path's `{params}`, in order. */
  pathParams: string[];
  /** Query parameter names the operation takes (`validate_only`, `update_mask`, `force`, ...). */
  query: string[];
  /** Whether the operation takes `If-Match` (a write guarded by the resource's etag). */
  ifMatch: boolean;
  /** Whether `validate_only` is accepted (live validation of a form). */
  validateOnly: boolean;
  /** Name of the request body's component schema, when it is one. */
  requestSchemaName?: string;
  /** The request body schema, resolved (absent: the call takes no body). */
  requestSchema?: JsonSchema;
  /** Media type of the body (`application/json`, or `multipart/form-data` for uploads). */
  requestMediaType?: string;
  /** Name of the success answer's component schema (`Operation`, `BlogPost`, `Empty`, ...). */
  responseSchemaName?: string;
  /** The right the call needs, from its description (`Requires WRITE on section \`website.blog\``). */
  right?: { level: 'READ' | 'WRITE'; section: string };
}

/** What a custom method answers, which decides how the admin shows the result. */
export type VerbResult = 'operation' | 'resource' | 'empty' | 'other';

/** A custom method (`POST …:verb`). */
export interface Verb {
  /** The method name after the colon, e.g. `publish`. */
  name: string;
  /** Human label, e.g. `Set posts`. */
  label: string;
  /** `collection`: `…/members:leave`; `resource`: `…/blog_posts/{blog_post_id}:publish` (singletons are resources). */
  on: 'collection' | 'resource';
  endpoint: Endpoint;
  result: VerbResult;
}

/** Filter and order declarations of a List (read from its description, see declarations.ts). */
export interface ListDeclaration {
  filterable: string[];
  sortable: string[];
  /** e.g. `create_time desc`. */
  defaultOrder: string;
}

/** A field holding the id (or ids) of another resource: shown as a picker of that collection. */
export interface Reference {
  /** Key of the referenced collection (`websites/{website_id}/media`). */
  collection: string;
  many: boolean;
}

/** One collection (a List) or singleton of the API, with everything its generic screens need. */
export interface ResourceModel {
  /**
   * Unique key: the path pattern below `/tenant-api/v1/` without the item segment, e.g.
   * `websites/{website_id}/blog_posts`, `websites/{website_id}/blog_posts/{blog_post_id}/views`,
   * `websites/{website_id}/dashboard`, `ai_models`.
   */
  key: string;
  /** Collection id, the last segment (`blog_posts`, `views`, `dashboard`). */
  id: string;
  kind: 'collection' | 'singleton';
  scope: Scope;
  /** Pattern of the parent (`websites/{website_id}`, `websites/{website_id}/blog_posts/{blog_post_id}`, `` for the platform). */
  parent: string;
  /** Path params the parent pattern needs, outermost first (`website_id`, `blog_post_id`). */
  parentParams: string[];
  /** Key of the parent resource's collection when the parent is itself an item (`…/blog_posts` for views of a post). */
  parentCollection?: string;
  /** Path param naming one item (`blog_post_id`); absent on singletons. */
  idParam?: string;
  /** Human title, e.g. `Blog posts`; singular, e.g. `Blog post`. */
  title: string;
  singular: string;
  /** Navigation area (SPEC's areas). */
  area: Area;
  description: string;
  /** Component name of the resource schema (`BlogPost`). */
  schemaName: string;
  schema: JsonSchema;
  createSchema?: JsonSchema;
  updateSchema?: JsonSchema;
  list?: Endpoint;
  /** Property of the List answer holding the page (`blog_posts`). */
  listProperty?: string;
  get?: Endpoint;
  create?: Endpoint;
  update?: Endpoint;
  delete?: Endpoint;
  declaration?: ListDeclaration;
  /** Fields (top-level) that a Create may set but an Update must not change. */
  immutable: string[];
  references: Record<string, Reference>;
  verbs: Verb[];
  /** Collections nested under one item of this one (`views`, `revisions`, `items`). */
  children: string[];
}

/** SPEC's areas, the admin's navigation. */
export type Area = 'Content' | 'Blog' | 'Editorial' | 'Customers' | 'Media' | 'AI' | 'Analytics' | 'Settings' | 'Team' | 'Account';

/**
 * A resource addressed by id with no List of its own (`users/{user_id}`,
 * `websites/{website_id}/operations/{operation_id}`), or custom methods on a collection that has no
 * List (`users:authenticate`): they belong to dedicated screens, not to generated ones.
 */
export interface LooseEndpoint {
  key: string;
  endpoints: Endpoint[];
  verbs: Verb[];
}

/** The whole model. */
export interface ApiModel {
  resources: ResourceModel[];
  byKey: Map<string, ResourceModel>;
  loose: LooseEndpoint[];
  /** Every endpoint of the document, by operationId. */
  endpoints: Map<string, Endpoint>;
}
