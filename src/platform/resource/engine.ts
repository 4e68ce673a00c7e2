import { sql, type CompiledQuery, type Expression, type Kysely, type SqlBool, type Transaction } from 'kysely';
import type { Database, SemiJoinPlan } from '../db/database.js';
import type { RequestContext } from '../auth/context.js';
import { Aborted, AlreadyExists, ApiError, InvalidArgument, NotFound, type FieldViolation } from '../errors.js';
import { buildFilter, type FilterField } from '../query/filter.js';
import { keysetAfter, orderTerms, parseOrderBy } from '../query/order.js';
import { parsePageWindow } from '../query/list-params.js';
import type { ListCounts } from '../query/list-counts.js';
import { queryBinding, type PageTokenCodec } from '../query/page-token.js';
import type { FieldDecl, ResourceDecl, Row, WriteContext } from './declaration.js';
import { checkClientId, newId } from './ids.js';
import { columnOf, compileMapper, etagCoversComputed, etagOf, toStored } from './mapper.js';
import { fillFromParams, templateParams } from './paths.js';
import { has, isWritable } from './schemas.js';
import { createVirtualService } from './virtual.js';
import { actorOf, type Events } from '../events/events.js';

export type Resource = Record<string, unknown>;

export interface ListQuery {
  page_size?: string | number;
  page_token?: string;
  skip?: string | number;
  order_by?: string;
  filter?: string;
}

export interface ListResult {
  items: Resource[];
  nextPageToken?: string;
  totalSize: number;
}

/** The SQL of one List request: its page, and the count of every row the filter selects. */
export interface ListQueries {
  page: CompiledQuery;
  count: CompiledQuery;
}

/** What `list()` knows when it picks the page's SQL: how many rows the filter matches (the total). */
export interface ListQueryContext {
  matches?: number;
}

export interface CreateOptions {
  id?: string;
  requestId?: string;
  validateOnly?: boolean;
  /**
   * Columns a custom Create route decided itself (an upload's size, type, storage key): set on the
   * new row before `beforeCreate`, whatever the field's behaviour. Never taken from a request body.
   */
  serverColumns?: Row;
}

export interface UpdateOptions {
  updateMask?: string;
  ifMatch?: string;
  validateOnly?: boolean;
  allowMissing?: boolean;
  /**
   * Update inside a transaction the caller owns (every rule and hook of Update; side effects join
   * `tx.afterCommit`): lets a job write a resource and its own rows atomically (editorial drafting
   * writes a post and its calendar entry). Not with `validateOnly`.
   */
  tx?: TransactionScope;
}

export interface MutateOptions {
  ifMatch?: string;
  /** Handed to the change as `ctx.input`. */
  input?: Record<string, unknown>;
}

/** A change to a loaded row, made in place on `next` inside the write's transaction. */
export type RowChange = (ctx: WriteContext, next: Row, previous: Row) => Promise<void> | void;

export interface DeleteOptions {
  ifMatch?: string;
  force?: boolean;
}

/** The five standard methods of one declared resource, transport-free. */
export interface ResourceService {
  readonly decl: ResourceDecl;
  list(ctx: RequestContext, params: Record<string, string>, query: ListQuery): Promise<ListResult>;
  /**
   * The SQL `list()` runs for this request, compiled but not run: the page and the count (checks of
   * their query plans). Same validation and errors as `list()`. The page is the one `list()` runs when
   * the filter matches `known.matches` rows (a contains may change plan with it; unknown: the text index).
   */
  listQueries(ctx: RequestContext, params: Record<string, string>, query: ListQuery, known?: ListQueryContext): ListQueries;
  get(ctx: RequestContext, params: Record<string, string>): Promise<Resource>;
  create(ctx: RequestContext, params: Record<string, string>, body: Record<string, unknown>, opts?: CreateOptions): Promise<{ resource: Resource; created: boolean }>;
  update(ctx: RequestContext, params: Record<string, string>, body: Record<string, unknown>, opts?: UpdateOptions): Promise<{ resource: Resource; created: boolean }>;
  delete(ctx: RequestContext, params: Record<string, string>, opts?: DeleteOptions): Promise<void>;
  /**
   * Changes one row in place (custom methods such as `:move`, `:verify`): loads it FOR UPDATE in a
   * transaction, checks If-Match, runs `change`, writes the changed columns with revision + 1.
   */
  mutate(ctx: RequestContext, params: Record<string, string>, change: RowChange, opts?: MutateOptions): Promise<Resource>;
  /**
   * Runs `work` on one row loaded FOR UPDATE in a transaction, after the same If-Match check as
   * Update (409 ABORTED with the current resource), without writing the row: custom methods that are
   * conditional on a resource but write other rows (`editorial_plan:refill` books calendar entries).
   */
  hold<T>(ctx: RequestContext, params: Record<string, string>, work: (tx: TransactionScope, row: Row) => Promise<T>, opts?: { ifMatch?: string }): Promise<T>;
  /**
   * Create inside a transaction the caller owns, with every rule and hook of Create but `prepare`:
   * lets one request create several resources atomically (sign-up: account + project + website).
   * `prepare` (slow work such as hashing a password) runs before any transaction opens, so a
   * caller whose declaration has one runs `decl.hooks.prepare(ctx, body, paths, 'create')` on the
   * body first, outside its transaction, as the site's customer sign-up does.
   */
  insert(ctx: RequestContext, tx: TransactionScope, params: Record<string, string>, body: Record<string, unknown>): Promise<Resource>;
  /**
   * Delete inside a transaction the caller owns, with every rule and hook of Delete (references
   * detached, blobs removed once `tx` commits): lets one request delete several resources
   * atomically (`:delete_account` and the accounts it takes with it).
   */
  remove(ctx: RequestContext, tx: TransactionScope, params: Record<string, string>, opts?: DeleteOptions): Promise<void>;
  /** Loads a row the caller's scope reaches, or throws NOT_FOUND (for custom methods). */
  load(db: Kysely<any>, ctx: RequestContext, params: Record<string, string>, forUpdate?: boolean): Promise<Row>;
  toResource(row: Row): Resource;
}

/** A transaction plus the side effects to run once it commits. */
export interface TransactionScope {
  trx: Transaction<any>;
  afterCommit: Array<() => void | Promise<void>>;
}

export interface EngineDeps {
  database: Database;
  pageTokens: PageTokenCodec;
  /** Reuses a first page's exact count until the collection changes; without it every first page counts. */
  listCounts?: ListCounts;
  /**
   * Called inside a Delete's transaction, after `beforeDelete`: other areas drop what points at the
   * row (see `Reference` in platform/area.ts), so no id of a deleted row is left behind. May answer
   * work to run once the Delete committed (removing blobs of what the delete cascades to).
   */
  onDeleting?(trx: Transaction<any>, table: string, row: Row, now: number): Promise<void | (() => Promise<void>)>;
  /** Called after a delete commits, so caches of addressable roots forget the row. */
  onDeleted?(table: string, id: string): void;
  /** Where every write records its events (absent: no events, e.g. unit tests of the engine). */
  events?: Events;
}

/** `BlogPost` → `blog_post`: the prefix of a resource's event types. */
export function eventPrefixOf(decl: ResourceDecl): string {
  return decl.events?.prefix ?? decl.singular.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}


/** Thrown inside a transaction to roll it back and still answer (validate_only). */
class RollbackWith {
  constructor(readonly result: unknown) {}
}

/** Normalises an etag as sent in If-Match / If-None-Match (quotes, weak prefix). */
export function bareEtag(value: string): string {
  return value.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1');
}

/** Whether an If-Match / If-None-Match header value matches `etag` (lists and `*` included). */
export function etagMatches(header: string, etag: string): boolean {
  return header.split(',').some((part) => part.trim() === '*' || bareEtag(part) === etag);
}


/** Creates the standard methods for a declaration. Hooks add the rules the declaration cannot express. */
/**
 * The transaction lock key of a `uniqueInParent` value (`SqlDialect.lockKey`): hooks that pick a
 * free value themselves (derived url_keys) lock candidates under the same key as the engine's check.
 */
export function uniqueKeyLock(table: string, column: string, parentIds: readonly unknown[], value: unknown): string {
  return `${table}.${column}|${parentIds.join('|')}|${String(value)}`;
}

export function createResourceService(decl: ResourceDecl, deps: EngineDeps): ResourceService {
  if (decl.virtual) return createVirtualService(decl, decl.virtual, deps.pageTokens);
  const { database } = deps;
  const { dialect } = database;
  const singleton = decl.kind === 'singleton';
  if (singleton && decl.methods.some((m) => m !== 'get' && m !== 'update')) {
    throw new Error(`${decl.collection}: a singleton supports only get and update`);
  }
  // A singleton's row is keyed by its parent's id alone (row.id = the last path id): no parent column.
  const collectionParams = singleton ? [] : templateParams(decl.collectionPath);
  const itemParams = templateParams(decl.itemPath);
  const ownIdParam = itemParams[itemParams.length - 1];
  const hooks = decl.hooks ?? {};
  const fields = Object.entries(decl.fields);

  const common: Record<string, FieldDecl> = {
    create_time: { type: 'timestamp', description: '', behavior: ['OUTPUT_ONLY'] },
    update_time: { type: 'timestamp', description: '', behavior: ['OUTPUT_ONLY'] },
  };
  const filterFields: Record<string, FilterField> = {};
  for (const name of decl.filterable) {
    const field = fieldOrThrow(name);
    filterFields[name] = {
      column: columnOf(name, field) ?? name,
      type: field.type === 'object' || field.type === 'json' ? 'string' : field.type,
      values: field.values,
      hasMatchesPrefix: field.hasMatchesPrefix,
      lowercase: field.lowercase,
      has: field.filterHas,
      // Every table's filterable string columns carry its trigram text index (migrations).
      textIndexedTable: field.type === 'string' ? decl.table : undefined,
    };
  }
  const sortable: Record<string, { column: string; nullable: boolean }> = {};
  for (const name of decl.sortable) {
    const field = decl.fields[name] ?? common[name];
    if (!field) throw new Error(`${decl.collection}: sortable field ${name} is not declared`);
    const nullable = !common[name] && !has(field, 'REQUIRED') && field.default === undefined && !field.notNull;
    sortable[name] = { column: columnOf(name, field) ?? name, nullable };
  }

  function fieldOrThrow(name: string): FieldDecl {
    const field = decl.fields[name] ?? common[name];
    if (!field) throw new Error(`${decl.collection}: filterable field ${name} is not declared`);
    return field;
  }

  /**
   * WHERE terms every query of this collection carries: the ids of its path (the access root, the
   * parent ids, and the own id when `idParams` names it), nothing else. `account_id` is not repeated:
   * route-context already resolved the root (account, project, website) to its account and checked
   * the caller's membership there, and a project or website never changes account; where the root is
   * the account itself, `account_id` is a path id anyway. So every index can lead with the parent
   * columns and answer a List's count on its own.
   */
  function scoped<Q extends { where: (...args: any[]) => Q }>(query: Q, params: Record<string, string>, idParams: string[]): Q {
    let q = query;
    for (const p of idParams) q = q.where(p === ownIdParam ? 'id' : p, '=', params[p]);
    return q;
  }

  const present = compileMapper(decl, dialect);
  const coversComputed = etagCoversComputed(decl);

  // Events: every committed write of a tenant's resource records one (docs/architecture.md, "Events").
  const events = deps.events && !decl.events?.off && !decl.ownedByCaller && !decl.catalogue ? deps.events : undefined;
  const eventPrefix = eventPrefixOf(decl);
  const transitions = decl.events?.transitions ?? [];
  const websiteScoped = collectionParams.includes('website_id') || (singleton && ownIdParam === 'website_id');
  if (events) {
    const scope = websiteScoped ? 'website' : 'account';
    const declare = (kind: string, description: string) => events.declare({ type: `${eventPrefix}.${kind}`, collection: decl.collection, scope, description });
    if (decl.methods.includes('create') || (decl.methods.includes('update') && decl.options?.allowMissing)) declare('created', `A ${decl.singular} was created.`);
    if (decl.methods.includes('update') || decl.customMethods?.some((m) => m.mutate) || decl.customMethods?.some((m) => m.handle && m.access === 'write')) {
      declare('updated', `A ${decl.singular} was changed (Update or a custom method).`);
    }
    if (decl.methods.includes('delete')) declare('deleted', `A ${decl.singular} was deleted; \`data\` is the resource as it was.`);
    for (const t of transitions) events.declare({ type: t.type, collection: decl.collection, scope, description: t.description });
  }

  /**
   * Records the write's events in its transaction: `{prefix}.{kind}` and every declared transition
   * the write makes. `resource` is the answer after the write (before it, for a delete).
   */
  async function emit(
    ctx: RequestContext,
    trx: Transaction<any>,
    pending: Array<() => void | Promise<void>>,
    kind: 'created' | 'updated' | 'deleted',
    resource: Resource,
    next: Row | undefined,
    previous: Row | undefined,
  ): Promise<void> {
    if (!events) return;
    const row = (next ?? previous)!;
    const websiteId = websiteScoped ? (collectionParams.includes('website_id') ? row.website_id : row.id) : null;
    const accountId = decl.table === 'accounts' ? row.id : row.account_id;
    if (!accountId) return;
    const base = { accountId, websiteId, resource: String(resource.name), collection: decl.collection, actor: actorOf(ctx), occurTime: ctx.now };
    const afterCommit = (fn: () => void | Promise<void>) => void pending.push(fn);
    await events.record(trx, { ...base, type: `${eventPrefix}.${kind}`, data: resource, previous: null }, afterCommit);
    let before: Resource | undefined;
    for (const t of transitions) {
      if (!t.when(next, previous)) continue;
      before ??= previous && next ? await presentOne(trx, { ...previous }) : undefined;
      await events.record(trx, { ...base, type: t.type, data: resource, previous: before ?? null }, afterCommit);
    }
  }

  /** WHERE of one stored row: its id within its parent (ids of website-scoped rows are unique per website only). */
  function byKey<Q extends { where: (...args: any[]) => Q }>(query: Q, row: Row): Q {
    let q = query.where('id', '=', row.id);
    for (const p of collectionParams) q = q.where(p, '=', row[p]);
    return q;
  }

  const referenceFields = fields.filter(([, field]) => field.refersTo);
  // Referenced rows belong to the same website (a website singleton's id is the website id), else
  // to the same account.
  const referenceScope = collectionParams.includes('website_id')
    ? { column: 'website_id', value: (row: Row) => row.website_id }
    : singleton && ownIdParam === 'website_id'
      ? { column: 'website_id', value: (row: Row) => row.id }
      : { column: 'account_id', value: (row: Row) => row.account_id };
  /** INVALID_ARGUMENT on every `refersTo` field whose ids are not rows of the same website (or account). */
  async function checkReferences(trx: Transaction<any>, row: Row, previous?: Row): Promise<void> {
    const violations: FieldViolation[] = [];
    for (const [name, field] of referenceFields) {
      const column = columnOf(name, field);
      const value = column ? row[column] : undefined;
      if (!column || value === null || value === undefined || (previous && previous[column] === value)) continue;
      const list = field.type === 'string_list';
      const ids = list ? [...new Set(dialect.readJson<string[]>(value) ?? [])] : [String(value)];
      if (list) row[column] = dialect.json(ids);
      if (ids.length === 0) continue;
      const target = field.refersTo!;
      let query = trx.selectFrom(target.table).select('id').where(referenceScope.column, '=', referenceScope.value(row)).where('id', 'in', ids);
      for (const [column, wanted] of Object.entries(target.where ?? {})) {
        query = query.where(column, '=', typeof wanted === 'boolean' ? dialect.bool(wanted) : wanted);
      }
      const known = new Set((await query.execute()).map((found) => found.id as string));
      const unknown = ids.filter((id) => !known.has(id));
      if (unknown.length) violations.push({ field: name, description: `${unknown.join(', ')} is not ${target.what} of this ${referenceScope.column === 'website_id' ? 'website' : 'account'}` });
    }
    throwViolations(violations);
  }

  const uniqueFields = fields.filter(([, field]) => field.uniqueInParent);
  /**
   * ALREADY_EXISTS when a `uniqueInParent` field repeats another row's value under the same parent.
   * The value is locked for the transaction first (`uniqueKeyLock`), so two concurrent writes of one
   * value meet here, not in the unique index (whose 409 would name no field).
   */
  async function checkUnique(trx: Transaction<any>, row: Row, previous?: Row): Promise<void> {
    for (const [name, field] of uniqueFields) {
      const column = columnOf(name, field);
      if (!column || row[column] === null || row[column] === undefined || (previous && previous[column] === row[column])) continue;
      await dialect.lockKey(trx, uniqueKeyLock(decl.table, column, collectionParams.map((p) => row[p]), row[column]));
      let query = trx.selectFrom(decl.table).select('id').where(column, '=', row[column]).where('id', '!=', row.id);
      for (const p of collectionParams) query = query.where(p, '=', row[p]);
      const taken = await query.executeTakeFirst();
      if (taken) throw new AlreadyExists(`${name} ${JSON.stringify(row[column])} is already used by ${decl.singular} ${taken.id}`, name);
    }
  }

  /**
   * NOT_FOUND when the parent named by the last collection parameter is missing (nested collections):
   * on List's first page, Create (and upserts), and every load, so rows kept after their parent is
   * gone (agent versions) stop being reachable.
   */
  async function checkParent(db: Kysely<any>, params: Record<string, string>): Promise<void> {
    if (!decl.parentTable) return;
    const parentParam = collectionParams[collectionParams.length - 1];
    // Scoped like the collection itself: by the path ids alone (see `scoped`).
    let q = db.selectFrom(decl.parentTable).select('id').where('id', '=', params[parentParam]);
    for (const p of collectionParams.slice(0, -1)) q = q.where(p, '=', params[p]);
    if (!(await q.executeTakeFirst())) throw new NotFound(`${parentParam.replace(/_id$/, '')} ${params[parentParam]}`);
  }

  /** Maps rows to resources, first loading their computed data in one batch (`hooks.enrich`). */
  async function presentAll(db: Kysely<any>, rows: Row[]): Promise<Resource[]> {
    if (hooks.enrich && rows.length) await hooks.enrich(db, rows);
    return rows.map(present);
  }
  const presentOne = async (db: Kysely<any>, row: Row): Promise<Resource> => (await presentAll(db, [row]))[0];

  /**
   * Get by id is the hottest read: a point read by the path's id columns (`Database.pointReader`:
   * a cached statement on SQLite, batched with concurrent Gets of the same collection on PostgreSQL).
   */
  let hotGet: ReturnType<Database['pointReader']> | undefined;

  async function load(db: Kysely<any>, ctx: RequestContext, params: Record<string, string>, forUpdate = false): Promise<Row> {
    await checkParent(db, params);
    if (db === database.db && !forUpdate) {
      // Made on first use: the table may not exist yet while services are built (before migrations).
      hotGet ??= database.pointReader(decl.table, itemParams.map((p) => (p === ownIdParam ? 'id' : p)));
      const row = await hotGet(itemParams.map((p) => params[p]));
      if (!row) throw new NotFound(`${decl.singular} ${params[ownIdParam]}`);
      return row;
    }
    let query = scoped(db.selectFrom(decl.table).selectAll(), params, itemParams);
    if (forUpdate) query = dialect.forUpdate(query);
    const row = await query.executeTakeFirst();
    if (!row) throw new NotFound(`${decl.singular} ${params[ownIdParam]}`);
    return row;
  }

  function writeContext(
    ctx: RequestContext,
    trx: Transaction<any>,
    params: Record<string, string>,
    pending: Array<() => void | Promise<void>>,
    input: Record<string, unknown>,
    updatedPaths: string[],
  ): WriteContext {
    return { ...ctx, trx, params, input, updatedPaths, afterCommit: (fn) => pending.push(fn) };
  }

  /** Runs `work` in a transaction; validate_only rolls it back but still answers; side effects wait for commit. */
  async function inTransaction<T>(validateOnly: boolean, work: (trx: Transaction<any>, pending: Array<() => void | Promise<void>>) => Promise<T>): Promise<T> {
    const pending: Array<() => void | Promise<void>> = [];
    let result: T;
    try {
      result = await database.db.transaction().execute(async (trx) => {
        const value = await work(trx, pending);
        if (validateOnly) throw new RollbackWith(value);
        return value;
      });
    } catch (err) {
      if (err instanceof RollbackWith) return err.result as T;
      throw translateDriverError(err);
    }
    for (const fn of pending) await fn();
    return result;
  }

  async function deleteRow(ctx: RequestContext, trx: Transaction<any>, pending: Array<() => void | Promise<void>>, params: Record<string, string>, opts: DeleteOptions): Promise<void> {
    const previous = await load(trx, ctx, params, true);
    await checkIfMatch(trx, opts.ifMatch, previous);
    await hooks.beforeDelete?.(writeContext(ctx, trx, params, pending, {}, []), previous, opts.force ?? false);
    // The resource as it was, read before anything of it goes.
    if (events) await emit(ctx, trx, pending, 'deleted', await presentOne(trx, { ...previous }), undefined, previous);
    const afterDelete = await deps.onDeleting?.(trx, decl.table, previous, ctx.now);
    if (afterDelete) pending.push(afterDelete);
    await byKey(trx.deleteFrom(decl.table), previous).execute();
    pending.push(() => deps.onDeleted?.(decl.table, previous.id));
  }

  function translateDriverError(err: unknown): unknown {
    if (err instanceof ApiError) return err;
    if (dialect.isUniqueViolation(err)) return new AlreadyExists(`${decl.singular} already exists`);
    if (dialect.isForeignKeyViolation(err)) return new NotFound('parent resource');
    return err;
  }

  /** Trims, checks not-blank, and collects violations of rules JSON Schema cannot state. */
  function normalise(input: Record<string, unknown>, names: Iterable<string>, violations: FieldViolation[]): void {
    for (const name of names) {
      const field = decl.fields[name];
      const value = input[name];
      if (!field || typeof value !== 'string') continue;
      const trimmed = field.trim ? value.trim() : value;
      const text = field.lowercase ? trimmed.toLowerCase() : trimmed;
      input[name] = text;
      if (field.notBlank && text.trim() === '') violations.push({ field: name, description: 'must not be blank' });
    }
  }

  function throwViolations(violations: FieldViolation[]): void {
    if (violations.length === 0) return;
    const message = violations.map((v) => `${v.field}: ${v.description}`).join('; ');
    throw new InvalidArgument(message, violations);
  }

  /** Builds the row a Create would insert; collects every field violation at once. */
  function newRow(ctx: RequestContext, params: Record<string, string>, input: Record<string, unknown>, id: string | undefined): Row {
    const violations: FieldViolation[] = [];
    normalise(input, Object.keys(input), violations);
    const row: Row = { id: id ?? newId(ctx.now), revision: 1, create_time: ctx.now, update_time: ctx.now };
    if (decl.table === 'accounts') row.account_id = row.id;
    else if (ctx.access) row.account_id = ctx.access.accountId;
    for (const p of collectionParams) row[p] = params[p];
    for (const [name, field] of fields) {
      const column = columnOf(name, field);
      if (!isWritable(field)) {
        if (column && field.default !== undefined) row[column] = toStored(field, field.default, dialect);
        continue;
      }
      const value = input[name] ?? field.default;
      if ((value === undefined || value === null) && has(field, 'REQUIRED')) {
        violations.push({ field: name, description: 'is required' });
        continue;
      }
      if (column) row[column] = toStored(field, value, dialect);
    }
    throwViolations(violations);
    return row;
  }

  /** A singleton nobody wrote yet: its defaults at revision 0 (no timestamps shown, etag `0`). */
  function defaultRow(ctx: RequestContext, params: Record<string, string>): Row {
    const row: Row = { id: params[ownIdParam], revision: 0, create_time: ctx.now, update_time: ctx.now };
    if (ctx.access) row.account_id = ctx.access.accountId;
    for (const [name, field] of fields) {
      const column = columnOf(name, field);
      if (column) row[column] = field.default === undefined ? null : toStored(field, field.default, dialect);
    }
    return row;
  }

  /** Loads a singleton for update, creating its default row first when it was never written (concurrent first writes meet on the key). */
  async function loadSingletonForUpdate(trx: Transaction<any>, ctx: RequestContext, params: Record<string, string>): Promise<Row> {
    await trx
      .insertInto(decl.table)
      .values(defaultRow(ctx, params))
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    return load(trx, ctx, params, true);
  }

  /** Scope of a create's `request_id`: one collection, one caller. */
  function idempotencyScopeOf(ctx: RequestContext, params: Record<string, string>): string {
    return `${fillFromParams(decl.collectionPath, params)}|${ctx.caller.userId}`;
  }

  /**
   * The resource a previous create with this `request_id` made. A key whose resource was deleted
   * since is dropped (inside `trx` only), so the create goes ahead instead of colliding with it.
   */
  async function replay(db: Kysely<any>, params: Record<string, string>, scope: string, requestId: string, dropStale: boolean): Promise<Resource | undefined> {
    const previous = await db
      .selectFrom('idempotency_keys')
      .select('result')
      .where('scope', '=', scope)
      .where('request_id', '=', requestId)
      .executeTakeFirst();
    if (!previous) return undefined;
    const { id } = dialect.readJson<{ id: string }>(previous.result);
    // Ids may be unique inside their parent only: the row is looked up under the same parent ids.
    const existing = await byKey(db.selectFrom(decl.table).selectAll(), { id, ...params }).executeTakeFirst();
    if (existing) return presentOne(db, existing);
    if (dropStale) await db.deleteFrom('idempotency_keys').where('scope', '=', scope).where('request_id', '=', requestId).execute();
    return undefined;
  }

  /** Inserts a new row with its hooks inside `trx`; answers the first result again for a repeated request_id. */
  async function insertRow(
    ctx: RequestContext,
    trx: Transaction<any>,
    pending: Array<() => void | Promise<void>>,
    params: Record<string, string>,
    input: Record<string, unknown>,
    opts: CreateOptions,
  ): Promise<Resource> {
    const idempotencyScope = opts.requestId ? idempotencyScopeOf(ctx, params) : undefined;
    if (idempotencyScope) {
      const previous = await replay(trx, params, idempotencyScope, opts.requestId!, true);
      if (previous) return previous;
    }
    await checkParent(trx, params);
    const row = newRow(ctx, params, input, opts.id);
    if (opts.serverColumns) Object.assign(row, opts.serverColumns);
    const wctx = writeContext(ctx, trx, { ...params, [ownIdParam]: row.id }, pending, input, []);
    // References first, so hooks may rely on them naming rows of this website.
    await checkReferences(trx, row);
    await hooks.beforeCreate?.(wctx, row);
    await checkUnique(trx, row);
    if (opts.id) {
      const taken = await byKey(trx.selectFrom(decl.table).select('id'), row).executeTakeFirst();
      if (taken) throw new AlreadyExists(`${decl.singular} ${row.id} already exists`, 'id');
    }
    await trx.insertInto(decl.table).values(row).execute();
    await hooks.afterCreate?.(wctx, row);
    if (idempotencyScope) {
      await trx
        .insertInto('idempotency_keys')
        .values({ scope: idempotencyScope, request_id: opts.requestId, result: dialect.json({ id: row.id }), create_time: ctx.now })
        .execute();
    }
    const resource = await presentOne(trx, row);
    await emit(ctx, trx, pending, 'created', resource, row, undefined);
    return resource;
  }

  async function checkIfMatch(db: Kysely<any>, ifMatch: string | undefined, previous: Row): Promise<void> {
    if (!ifMatch) return;
    // An etag covering computed fields is the presented resource's (its row's alone would never match).
    const current = coversComputed ? String((await presentOne(db, { ...previous })).etag) : etagOf(previous);
    if (!etagMatches(ifMatch, current)) {
      throw new Aborted('the resource changed since the etag in If-Match was read', await presentOne(db, previous));
    }
  }

  /** Writes the columns `next` changed relative to `previous`, with revision + 1 and a new update_time. */
  async function persist(trx: Transaction<any>, ctx: RequestContext, next: Row, previous: Row): Promise<Row> {
    next.revision = Number(previous.revision) + 1;
    next.update_time = Math.max(ctx.now, Number(previous.update_time));
    const changes: Row = {};
    for (const [key, value] of Object.entries(next)) if (key !== 'id' && value !== previous[key]) changes[key] = value;
    await byKey(trx.updateTable(decl.table).set(changes), previous).execute();
    return next;
  }

  /**
   * Everything a List request runs, compiled but not run: the page (keyset after the token's cursor,
   * `skip`, one row more than the page to see whether another follows) and the count of what the
   * filter selects. `list()` runs exactly these; `listQueries()` hands them out (plan checks).
   */
  function compileList(ctx: RequestContext, params: Record<string, string>, query: ListQuery) {
    const { pageSize, skip } = parsePageWindow(query);
    const order = parseOrderBy(query.order_by?.trim() ? query.order_by : decl.defaultOrder, sortable);
    const filter = buildFilter(query.filter, filterFields, dialect, params);
    // Bound to the caller too: what a list shows (and the total a token carries) is the caller's view.
    const binding = queryBinding(`${fillFromParams(decl.collectionPath, params)}|${ctx.caller.userId}`, filter.canonical, order.canonical);
    const cursor = query.page_token ? deps.pageTokens.decode(query.page_token, binding) : undefined;

    const visible = hooks.listVisible?.(ctx);
    const filtered = (db: Kysely<any>, where: Expression<SqlBool> | undefined, semiJoin: SemiJoinPlan = 'probe') => {
      let q = db.selectFrom(decl.table);
      // An empty list of visible ids shows nothing (guard against an empty IN list).
      if (visible) q = visible.values.length ? q.where(visible.column, 'in', visible.values) : q.where(sql<boolean>`1 = 0`);
      if (decl.table === 'accounts') {
        q = q.where('id', 'in', db.selectFrom('memberships').select('account_id').where('user_id', '=', ctx.caller.userId));
      } else if (semiJoin === 'drive') {
        // The side table's rows drive: no index leading with the parents may be walked instead.
        for (const p of collectionParams) q = q.where(dialect.notIndexed(p === ownIdParam ? 'id' : p), '=', params[p]);
      } else {
        q = scoped(q, params, collectionParams);
      }
      return where ? q.where(where) : q;
    };
    const pageWhere = (where: Expression<SqlBool> | undefined, semiJoin: SemiJoinPlan = 'probe') => {
      // A driving side table: the ordered index must not be walked, the matches are sorted instead.
      const refOf = semiJoin === 'drive' ? dialect.notIndexed : undefined;
      let page = filtered(database.read, where, semiJoin).selectAll();
      if (cursor) page = page.where(keysetAfter(order.columns, cursor.after, refOf));
      for (const term of orderTerms(order.columns, refOf)) page = page.orderBy(term);
      page = page.limit(pageSize + 1);
      if (skip) page = page.offset(skip);
      return page.compile();
    };
    const countWhere = (where: Expression<SqlBool> | undefined) => filtered(database.count, where).select((eb) => eb.fn.countAll().as('count'));
    const rowCheck = () => buildFilter(query.filter, filterFields, dialect, params, 'row_check').where;
    const planned = (matches: number) => {
      const text = filter.indexedContains.length > 0 && dialect.pageTextMatchPlan ? dialect.pageTextMatchPlan(matches, pageSize) : 'text_index';
      const semiJoin = filter.drivingSemiJoin && dialect.pageSemiJoinPlan ? dialect.pageSemiJoinPlan(matches, pageSize) : 'probe';
      if (text === 'text_index' && semiJoin === 'probe') return pageWhere(filter.where);
      return pageWhere(buildFilter(query.filter, filterFields, dialect, params, text, semiJoin).where, semiJoin);
    };
    // One contains whose text the whole table holds often: check the scope's rows instead of
    // fetching every match's row (`SqlDialect.textIndexHoldsMany`); SQLite evaluates only the branch taken.
    const [only] = filter.indexedContains;
    const holdsMany = filter.indexedContains.length === 1 ? dialect.textIndexHoldsMany?.(only.table, only.column, only.text) : undefined;
    const count = holdsMany
      ? sql<{ count: unknown }>`select case when ${holdsMany} then (${countWhere(rowCheck())}) else (${countWhere(filter.where)}) end as count`.compile(database.count)
      : countWhere(filter.where).compile();
    // A contains or a side-table filter the dialect can answer two ways: the page's SQL depends on
    // how many rows match (`SqlDialect.pageTextMatchPlan`, `pageSemiJoinPlan`), so `list()` learns
    // the total first and picks.
    const pageFor =
      (filter.indexedContains.length > 0 && dialect.pageTextMatchPlan) || (filter.drivingSemiJoin && dialect.pageSemiJoinPlan) ? planned : undefined;
    const countKey = visible ? `${filter.canonical}\n${visible.column} in ${[...visible.values].sort().join(',')}` : filter.canonical;
    // Every row of the path's scope: the trigger-kept row count answers the total (list-counts.ts).
    const scopeColumn = collectionParams.includes('website_id') ? 'website_id' : 'account_id';
    const allRows = !filter.where && !visible && collectionParams.length === 1 && collectionParams[0] === scopeColumn;
    return { pageSize, order, binding, cursor, filterCanonical: countKey, allRows, page: pageWhere(filter.where), pageFor, count };
  }

  return {
    decl,
    load,
    toResource: present,
    insert: (ctx, tx, params, body) => insertRow(ctx, tx.trx, tx.afterCommit, params, { ...body }, {}),

    listQueries: (ctx, params, query, known) => {
      const { page, pageFor, count } = compileList(ctx, params, query);
      return { page: pageFor && known?.matches !== undefined ? pageFor(known.matches) : page, count };
    },

    async list(ctx, params, query) {
      const { pageSize, order, binding, cursor, filterCanonical, allRows, page, pageFor, count } = compileList(ctx, params, query);
      if (!cursor) await checkParent(database.read, params);

      // The page and the count go to different connections (PostgreSQL), so a first page costs
      // max(page, count), and counts are bounded on their own.
      const countQuery = () => database.count.executeQuery<{ count: unknown }>(count).then((r) => Number(r.rows[0].count));
      // The change counter the count is kept under, as the list_versions triggers key the table: by
      // website when the path has one, else by account. The accounts collection (the caller's
      // memberships) and catalogues (no tenant) always count. A List of every row of a website (or
      // account) collection takes the counter's row_count instead of counting (`allRows`).
      const scope =
        decl.table === 'accounts' || decl.catalogue ? undefined : collectionParams.includes('website_id') ? params.website_id : ctx.access?.accountId;
      const counted = () =>
        deps.listCounts && scope !== undefined
          ? deps.listCounts.count({ table: decl.table, scope, query: `${fillFromParams(decl.collectionPath, params)}\n${filterCanonical}` }, countQuery, {
              allRows: allRows && params[collectionParams[0]] === scope,
            })
          : countQuery();
      const runPage = (query: CompiledQuery) => database.read.executeQuery<Row>(query).then((r) => r.rows);
      const total = () => (cursor ? Promise.resolve(cursor.total) : counted());
      const [rows, totalSize] = await (
        pageFor
          ? // The total first (the token's, or a count that is usually cached), then the page's plan.
            total().then(async (matches) => [await runPage(pageFor(matches)), matches] as const)
          : Promise.all([runPage(page), total()])
      ).catch((err) => {
        if (dialect.isTimeout(err)) throw new ApiError('DEADLINE_EXCEEDED', 'the list took too long to compute; narrow the filter');
        throw err;
      });

      const more = rows.length > pageSize;
      const items = await presentAll(database.read, more ? rows.slice(0, pageSize) : rows);
      let nextPageToken: string | undefined;
      if (more) {
        const last = rows[pageSize - 1];
        nextPageToken = deps.pageTokens.encode({ binding, after: order.columns.map((c) => last[c.column] ?? null), total: totalSize });
      }
      return { items, nextPageToken, totalSize };
    },

    async get(ctx, params) {
      if (singleton) {
        const row = await load(database.db, ctx, params).catch((err) => {
          if (err instanceof NotFound) return defaultRow(ctx, params);
          throw err;
        });
        return presentOne(database.db, row);
      }
      const row = await load(database.db, ctx, params);
      if (hooks.readable && !hooks.readable(ctx, row)) throw new NotFound(`${decl.singular} ${params[ownIdParam]}`);
      return presentOne(database.db, row);
    },

    async create(ctx, params, body, opts = {}) {
      if (opts.id !== undefined) {
        if (!decl.options?.clientId) throw InvalidArgument.field('id', `${decl.collection} ids are assigned by the server`);
        checkClientId(opts.id);
      }
      if (opts.requestId !== undefined && (opts.requestId.length === 0 || opts.requestId.length > 64)) {
        throw InvalidArgument.field('request_id', 'must be 1 to 64 characters');
      }
      const input = { ...body };
      await hooks.prepare?.(ctx, input, Object.keys(input), 'create');
      try {
        const resource = await inTransaction(opts.validateOnly ?? false, (trx, pending) => insertRow(ctx, trx, pending, params, input, opts));
        return { resource, created: true };
      } catch (err) {
        // A concurrent create with the same request_id committed first: answer its result.
        if (err instanceof AlreadyExists && opts.requestId) {
          const previous = await replay(database.db, params, idempotencyScopeOf(ctx, params), opts.requestId, false);
          if (previous) return { resource: previous, created: true };
        }
        throw err;
      }
    },

    async update(ctx, params, body, opts = {}) {
      const input = { ...body };
      const violations: FieldViolation[] = [];
      let paths: string[];
      if (opts.updateMask !== undefined) {
        const listed = opts.updateMask.split(',').map((p) => p.trim()).filter(Boolean);
        if (listed.length === 0) throw InvalidArgument.field('update_mask', 'lists no field');
        paths = [];
        for (const path of listed) {
          if (path === '*') {
            paths.push(...fields.filter(([, f]) => isWritable(f) && !has(f, 'IMMUTABLE')).map(([n]) => n));
            continue;
          }
          const field = decl.fields[path];
          if (!field && !['name', 'id', 'etag', 'create_time', 'update_time'].includes(path)) {
            throw InvalidArgument.field('update_mask', `${path} is not a field of ${decl.singular}`);
          }
          if (field && isWritable(field)) paths.push(path);
        }
      } else {
        // Without a mask, fields sent as null are dropped (merge semantics).
        paths = Object.keys(input).filter((k) => decl.fields[k] && isWritable(decl.fields[k]) && input[k] !== null);
      }
      normalise(input, paths, violations);
      await hooks.prepare?.(ctx, input, paths, 'update');

      const work = async (trx: Transaction<any>, pending: Array<() => void | Promise<void>>) => {
        let previous: Row;
        try {
          previous = singleton ? await loadSingletonForUpdate(trx, ctx, params) : await load(trx, ctx, params, true);
        } catch (err) {
          if (err instanceof NotFound && opts.allowMissing && decl.options?.allowMissing) {
            const resource = await insertRow(ctx, trx, pending, params, { ...body }, { id: params[ownIdParam] });
            return { resource, created: true };
          }
          throw err;
        }
        await checkIfMatch(trx, opts.ifMatch, previous);
        const next: Row = { ...previous };
        for (const name of paths) {
          const field = decl.fields[name];
          const column = columnOf(name, field);
          const value = input[name];
          if (has(field, 'IMMUTABLE')) {
            // An immutable field sent unchanged (a read sent back) is accepted; a change is refused.
            const current = column ? previous[column] : undefined;
            if (value !== undefined && toStored(field, value, dialect) !== current) {
              violations.push({ field: name, description: 'is immutable and cannot be changed' });
            }
            continue;
          }
          if (value === undefined || value === null) {
            if (has(field, 'REQUIRED')) {
              violations.push({ field: name, description: 'is required and cannot be cleared' });
              continue;
            }
            if (column) next[column] = toStored(field, field.default ?? null, dialect);
            continue;
          }
          if (column) next[column] = toStored(field, value, dialect);
        }
        throwViolations(violations);
        const wctx = writeContext(ctx, trx, params, pending, input, paths);
        await checkReferences(trx, next, previous);
        await hooks.beforeUpdate?.(wctx, next, previous);
        await checkUnique(trx, next, previous);
        const persisted = await persist(trx, ctx, next, previous);
        await hooks.afterUpdate?.(wctx, persisted, previous);
        const resource = await presentOne(trx, persisted);
        await emit(ctx, trx, pending, 'updated', resource, persisted, previous);
        return { resource, created: false };
      };
      if (opts.tx) {
        try {
          return await work(opts.tx.trx, opts.tx.afterCommit);
        } catch (err) {
          throw translateDriverError(err);
        }
      }
      return inTransaction(opts.validateOnly ?? false, work);
    },

    async mutate(ctx, params, change, opts = {}) {
      return inTransaction(false, async (trx, pending) => {
        const previous = singleton ? await loadSingletonForUpdate(trx, ctx, params) : await load(trx, ctx, params, true);
        await checkIfMatch(trx, opts.ifMatch, previous);
        const next: Row = { ...previous };
        await change(writeContext(ctx, trx, params, pending, opts.input ?? {}, []), next, previous);
        const persisted = await persist(trx, ctx, next, previous);
        const resource = await presentOne(trx, persisted);
        await emit(ctx, trx, pending, 'updated', resource, persisted, previous);
        return resource;
      });
    },

    async hold(ctx, params, work, opts = {}) {
      return inTransaction(false, async (trx, pending) => {
        const row = singleton ? await loadSingletonForUpdate(trx, ctx, params) : await load(trx, ctx, params, true);
        await checkIfMatch(trx, opts.ifMatch, row);
        return work({ trx, afterCommit: pending }, row);
      });
    },

    async delete(ctx, params, opts = {}) {
      await inTransaction(false, (trx, pending) => deleteRow(ctx, trx, pending, params, opts));
    },

    async remove(ctx, tx, params, opts = {}) {
      try {
        await deleteRow(ctx, tx.trx, tx.afterCommit, params, opts);
      } catch (err) {
        throw translateDriverError(err);
      }
    },
  };
}
