import type { SemiJoinPlan } from '../db/database.js';
import type { Kysely, RawBuilder, Transaction } from 'kysely';
import type { DB } from '../db/schema.js';
import type { RequestContext } from '../auth/context.js';
import type { Right } from '../auth/rights.js';

/** Storage and wire type of a field. Timestamps are RFC 3339 on the wire, epoch ms in the database. */
export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'timestamp' | 'enum' | 'string_list' | 'object' | 'json';

/**
 * AIP-203 field behaviour. OUTPUT_ONLY: set by the server, ignored when sent. IMMUTABLE: settable
 * on create, refused when sent changed on update. REQUIRED: must be present on create.
 * INPUT_ONLY: write-only, never returned (passwords, keys).
 */
export type FieldBehavior = 'OUTPUT_ONLY' | 'IMMUTABLE' | 'REQUIRED' | 'INPUT_ONLY';

export interface FieldDecl {
  type: FieldType;
  description: string;
  behavior?: readonly FieldBehavior[];
  /** Enum members. */
  values?: readonly string[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  /** Per-item bounds of a string_list. */
  itemMinLength?: number;
  itemMaxLength?: number;
  /** Value a new resource gets when the field is absent, and a cleared field returns to. */
  default?: unknown;
  /** Column holding the field (default: the field name); `false` when the engine does not store it. */
  column?: string | false;
  /** Refuse empty or whitespace-only strings. */
  notBlank?: boolean;
  /**
   * The column is NOT NULL although the field is neither REQUIRED nor defaulted (values the server
   * always sets: a tree path, a stored filename). A sortable field pages with a plain keyset
   * condition only when it cannot be null; `test/infra/sortable-nulls.test.ts` checks this against
   * the database.
   */
  notNull?: boolean;
  /**
   * Unique among the rows of the same parent (a website's block `identifier`): a Create or an Update
   * that would repeat another row's value answers ALREADY_EXISTS naming the field. Back it with a
   * unique index for concurrent writes.
   */
  uniqueInParent?: boolean;
  /**
   * The field holds the id (string) or ids (string_list) of rows of another table of the same
   * website (or account, for account-scoped resources). On Create, and on Update when the value
   * changed, every id must name such a row (`where` narrows further, e.g. `{type: 'MANUAL'}`), else
   * INVALID_ARGUMENT on the field; another tenant's id is refused like a missing one and never read.
   * Lists are stored without duplicates.
   */
  refersTo?: { table: string; what: string; where?: Record<string, string | number | boolean> };
  /** Trim surrounding whitespace before validation. */
  trim?: boolean;
  /** Store lowercase (after trimming), and compare filter values on the field lowercase too. */
  lowercase?: boolean;
  /**
   * How `field:value` (has) is answered when not from the field's own column, e.g. from an indexed
   * side table. `scope` holds the List's path ids (`website_id`, ...); `plan`, the `SemiJoinPlan` the
   * List page chose, to pass to `SqlDialect.semiJoin`.
   */
  filterHas?: (value: string, scope: Readonly<Record<string, string>>, plan?: SemiJoinPlan) => RawBuilder<boolean>;
  /**
   * A realistic value for the OpenAPI example of the resource (default: the field's `default`, else
   * a value made up from its type; fields with a `pattern` and objects need one to appear).
   */
  example?: unknown;
  /** Extra JSON Schema for the field's OpenAPI description (objects). */
  schema?: Record<string, unknown>;
  /** For a filterable string: `field:"x"` matches values starting with x instead of containing it (dotted paths). */
  hasMatchesPrefix?: boolean;
}

/**
 * A stored row: columns by name. Its values are untyped because the engine serves every table by the
 * name its declaration gives; hooks read them as their columns' types.
 */
export type Row = Record<string, any>;

/** What the engine hands hooks: the request context plus the transaction in use. */
export interface WriteContext extends RequestContext {
  trx: Transaction<DB>;
  /** Ids from the path (parent ids, own id). */
  params: Record<string, string>;
  /** The request body after trimming: input-only and hook-owned fields are read from here. */
  input: Record<string, unknown>;
  /** On update: the fields being written (from `update_mask`, or the fields sent). */
  updatedPaths: string[];
  /** Runs after the transaction committed (never on validate_only or rollback). */
  afterCommit(fn: () => void | Promise<void>): void;
}

/**
 * A resource, declared once. Routes, validation, OpenAPI, filter/order whitelists and storage
 * mapping all derive from this declaration (see docs/architecture.md).
 */
export interface ResourceDecl {
  /**
   * `collection` (default): rows with their own ids. `singleton` (SPEC 2.1): one per parent, the
   * item path ends with a singular segment (`websites/{website_id}/theme`), the row's `id` is the
   * parent's id, no `id` field is shown, only Get and Update exist, a never-written singleton
   * answers its defaults without timestamps, and the first Update creates the row.
   */
  kind?: 'collection' | 'singleton';
  /** A platform catalogue (no tenant in the path, read-only): its routes need only authentication. */
  catalogue?: boolean;
  /**
   * The signed-in user's own resources: the path starts at `users/{user_id}`, where `me` stands for
   * the caller's id and any other user's id answers NOT_FOUND. No account is involved, so `rights`
   * are not checked (a signed-in user only); the table holds no `account_id`.
   */
  ownedByCaller?: boolean;
  /** Plural snake_case collection id: the path segment, the list field and the `name` segment. */
  collection: string;
  /** Singular PascalCase noun for operationIds (`ListProjects`, `GetProject`). */
  singular: string;
  /**
   * Plural PascalCase noun of List and collection methods, when the collection id alone would
   * repeat another's operationIds (view settings: `ListViewSettings`). Default: from `collection`.
   */
  pluralNoun?: string;
  /**
   * Table of the parent named by the last collection parameter when that parent is not the access
   * root (`cms_pages` for `websites/{w}/cms_pages/{p}/views`, `ai_agents` for
   * `accounts/{a}/ai_agents/{ai_agent_id}/versions`). List, Create (also an upsert) and every load
   * answer NOT_FOUND when that row does not exist under the other path ids, so rows kept after their
   * parent is gone (agent versions, kept for runs) stop being reachable.
   */
  parentTable?: string;
  /** Table holding the rows. Every tenant table has `id`, `account_id`, `revision`, `create_time`, `update_time`. */
  table: string;
  /** One line for OpenAPI tags and docs. */
  description: string;
  /** Where List and Create live, e.g. `accounts/{account_id}/projects`. The last path parameter names the parent column. */
  collectionPath: string;
  /** Where Get/Update/Delete live; also the `name` pattern, e.g. `projects/{project_id}`. */
  itemPath: string;
  fields: Record<string, FieldDecl>;
  filterable: readonly string[];
  sortable: readonly string[];
  /** e.g. `create_time desc`. */
  defaultOrder: string;
  methods: readonly ('list' | 'get' | 'create' | 'update' | 'delete')[];
  options?: {
    /** Client may choose the id with `?id=`. */
    clientId?: boolean;
    /** Create honours `request_id` (body or query) idempotently. */
    requestId?: boolean;
    validateOnly?: boolean;
    /** Update with `?allow_missing=true` creates (upsert). */
    allowMissing?: boolean;
    /** Delete accepts `?force=true`; without it `beforeDelete` may refuse a non-empty resource. */
    force?: boolean;
  };
  /** Right each method needs in the account that owns the resource. */
  rights: { read: Right; write: Right };
  hooks?: ResourceHooks;
  /**
   * The computed fields (`column: false`) can change while the row stays as it is, in ways
   * `hooks.enrich` does not show (a state read off the clock): the etag covers them too. A
   * declaration with `enrich` gets this without asking (see `etagCoversComputed` in mapper.ts).
   */
  etagCoversComputed?: boolean;
  /**
   * Rows computed per request instead of read from `table` (settings merge a registry with stored
   * values; platform catalogues live in code). The engine serves List from `all` (filter, order,
   * pages in memory: the source must be bounded by the platform) and Get/Update from the source.
   */
  virtual?: VirtualSource;
  /** AIP-136 custom methods (`POST {name}:{verb}` / `POST {collection}:{verb}`), routed and documented by the engine. */
  customMethods?: readonly CustomMethodDecl[];
  /**
   * Events of the resource's writes (docs/architecture.md, "Events"). By default every Create, Update,
   * Delete and `mutate` custom method records `{singular}.created|updated|deleted` in its transaction
   * (`singular` in snake_case: `blog_post.created`); `transitions` add named events for writes that
   * change a state (`blog_post.published`), whichever path wrote.
   */
  events?: ResourceEvents;
}

/** What a declaration says about its events. */
export interface ResourceEvents {
  /** No events for this resource (rows nobody subscribes to: sessions, counters). */
  off?: boolean;
  /** Prefix of the event types instead of the snake_case singular. */
  prefix?: string;
  transitions?: readonly EventTransitionDecl[];
}

/**
 * A named event an area declares: recorded (besides `.created`/`.updated`) by every engine write
 * for which `when` holds, once per write. `previous` is undefined on a Create, `next` on a Delete;
 * both are stored rows. The event carries the resource after the write and, as `previous`, before it.
 */
export interface EventTransitionDecl {
  /** Full type, e.g. `blog_post.published`. */
  type: string;
  description: string;
  when(next: Row | undefined, previous: Row | undefined): boolean;
}

/** What a free-form custom method receives besides the request context. */
export interface CustomCall {
  /** Ids from the path. */
  params: Record<string, string>;
  /** The validated JSON body (`{}` when none was sent); the method's `body` schema, not TypeScript, states its fields. */
  body: Record<string, any>;
  /** Request headers (lower-case names), e.g. `if-match`. */
  headers: Record<string, string | string[] | undefined>;
  /**
   * What the write is conditional on, for item methods that write: the `If-Match` header or the body's
   * `etag` (AIP-154). Compare it with `etagMatches`, or hand it to `service.mutate`.
   */
  ifMatch?: string;
}

/**
 * A custom method. Exactly one of `mutate` (item methods that change the row: the engine loads it
 * FOR UPDATE in a transaction, checks `If-Match`, persists the changed columns with revision + 1 and
 * answers the resource) or `handle` (anything else; its result is sent as the 200 body).
 */
export interface CustomMethodDecl {
  /** snake_case verb, e.g. `move`. */
  verb: string;
  on: 'item' | 'collection';
  summary: string;
  description: string;
  /** Which of the declaration's rights the route needs. */
  access: 'read' | 'write';
  /** A right of its own instead (`anyMember`: membership in the account is enough, e.g. `members:leave`). */
  right?: Right;
  /** JSON Schema of the request body (an object; unknown properties are refused). Absent: `{}` or no body. */
  body?: Record<string, unknown>;
  /** JSON Schema of the 200 answer; default: the resource. */
  response?: Record<string, unknown>;
  /** Change `next` (a copy of `previous`) in place; throw ApiErrors to refuse. */
  mutate?(ctx: WriteContext, next: Row, previous: Row, body: Record<string, any>): Promise<void> | void;
  handle?(ctx: RequestContext, call: CustomCall): Promise<unknown>;
}

/** Rules the declaration cannot express. All run inside the write's transaction. */
export interface ResourceHooks {
  /**
   * Runs before the write's transaction opens (Create and Update, validate_only included): slow,
   * self-contained work such as password hashing, so it never holds the write lock. May rewrite
   * `input` (the trimmed body); `paths` are the fields being written.
   */
  prepare?(ctx: RequestContext, input: Record<string, unknown>, paths: readonly string[], mode: 'create' | 'update'): Promise<void> | void;
  /** Fill server-decided fields on a new row and check rules; throw ApiErrors to refuse. */
  beforeCreate?(ctx: WriteContext, row: Row): Promise<void> | void;
  /** Writes that belong with the new row (memberships, operations). */
  afterCreate?(ctx: WriteContext, row: Row): Promise<void> | void;
  /** Check the whole updated row against its previous state. */
  beforeUpdate?(ctx: WriteContext, next: Row, previous: Row): Promise<void> | void;
  /** Writes that belong with an update (history rows), given the row as persisted (new revision). */
  afterUpdate?(ctx: WriteContext, row: Row, previous: Row): Promise<void> | void;
  /** Refuse or clean up before a delete; `force` is the AIP-135 flag. */
  beforeDelete?(ctx: WriteContext, row: Row, force: boolean): Promise<void> | void;
  /**
   * Loads computed data for a batch of rows (one query per page, never one per row) before
   * `present` runs; adds it to the rows, e.g. `row.$group_ids`. `db` is the connection or
   * transaction the rows came from.
   */
  enrich?(db: Kysely<DB>, rows: Row[]): Promise<void>;
  /** Computed output fields (e.g. `parent`, `website_url`), added to the mapped resource. */
  present?(row: Row, resource: Record<string, unknown>): void;
  /**
   * Whether the caller may see this row beyond its path (Get answers NOT_FOUND otherwise); the
   * per-row form of `listVisible` (events of sections the caller cannot read).
   */
  readable?(ctx: RequestContext, row: Row): boolean;
  /**
   * Narrow a List to the rows the caller may see beyond its path (a membership limited to some
   * websites lists only those): `column IN values`. Part of the List's count key too.
   */
  listVisible?(ctx: RequestContext): { column: string; values: readonly string[] } | undefined;
}

/** Where a virtual collection's resources come from (see ResourceDecl.virtual). */
export interface VirtualSource {
  /** Every resource of the parent the caller reaches, presented (name, id, fields, etag); needed for List. */
  all?(ctx: RequestContext, params: Record<string, string>): Promise<Record<string, unknown>[]>;
  /** One resource, or NOT_FOUND. */
  get(ctx: RequestContext, params: Record<string, string>): Promise<Record<string, unknown>>;
  /** Update with the engine's options (update_mask, If-Match, validate_only). */
  update?(
    ctx: RequestContext,
    params: Record<string, string>,
    body: Record<string, unknown>,
    opts: { updateMask?: string; ifMatch?: string; validateOnly?: boolean },
  ): Promise<Record<string, unknown>>;
}
