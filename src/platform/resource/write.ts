import type { Kysely } from 'kysely';
import { dynamic } from '../db/dynamic.js';
import type { DB, Trx } from '../db/schema.js';
import type { RequestContext } from '../auth/context.js';
import { Aborted, AlreadyExists, ApiError, InvalidArgument, NotFound, type FieldViolation } from '../errors.js';
import { actorOf } from '../events/events.js';
import type { ResourceDecl, Row, WriteContext } from './declaration.js';
import { etagMatches, type ResourceCore } from './core.js';
import { checkClientId, newId } from './ids.js';
import { columnOf, etagOf, toStored } from './mapper.js';
import { fillFromParams } from './paths.js';
import { has, isWritable } from './schemas.js';
import type { CreateOptions, DeleteOptions, Resource, ResourceService } from './service.js';

/*
 * The writes of one declaration: Create, Update, Delete and custom mutations, with what every write
 * does (references and uniqueness checked, hooks run, revision and etag precondition, request_id
 * replays, events recorded in the transaction, side effects after commit).
 */

/** `BlogPost` → `blog_post`: the prefix of a resource's event types. */
export function eventPrefixOf(decl: ResourceDecl): string {
  return decl.events?.prefix ?? decl.singular.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** Attempts of a write the database aborted to break a deadlock (inTransaction). */
const TRANSIENT_CONFLICT_ATTEMPTS = 4;

/** Thrown inside a transaction to roll it back and still answer (validate_only). */
class RollbackWith {
  constructor(readonly result: unknown) {}
}

/**
 * The transaction lock key of a `uniqueInParent` value (`SqlDialect.lockKey`): hooks that pick a
 * free value themselves (derived url_keys) lock candidates under the same key as the engine's check.
 */
export function uniqueKeyLock(table: string, column: string, parentIds: readonly unknown[], value: unknown): string {
  return `${table}.${column}|${parentIds.join('|')}|${String(value)}`;
}

type WriteMethods = Pick<ResourceService, 'insert' | 'create' | 'update' | 'mutate' | 'hold' | 'delete' | 'remove'>;

export function createWriteMethods(core: ResourceCore): WriteMethods {
  const { decl, deps, database, dialect, singleton, collectionParams, ownIdParam, hooks, fields, coversComputed, byKey, checkParent, presentOne, load, defaultRow } = core;

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
    trx: Trx,
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

  const referenceFields = fields.filter(([, field]) => field.refersTo);
  // Referenced rows belong to the same website (a website singleton's id is the website id), else
  // to the same account.
  const referenceScope = collectionParams.includes('website_id')
    ? { column: 'website_id', value: (row: Row) => row.website_id }
    : singleton && ownIdParam === 'website_id'
      ? { column: 'website_id', value: (row: Row) => row.id }
      : { column: 'account_id', value: (row: Row) => row.account_id };
  /** INVALID_ARGUMENT on every `refersTo` field whose ids are not rows of the same website (or account). */
  async function checkReferences(trx: Trx, row: Row, previous?: Row): Promise<void> {
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
      let query = dynamic(trx).selectFrom(target.table).select('id').where(referenceScope.column, '=', referenceScope.value(row)).where('id', 'in', ids);
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
  async function checkUnique(trx: Trx, row: Row, previous?: Row): Promise<void> {
    for (const [name, field] of uniqueFields) {
      const column = columnOf(name, field);
      if (!column || row[column] === null || row[column] === undefined || (previous && previous[column] === row[column])) continue;
      await dialect.lockKey(trx, uniqueKeyLock(decl.table, column, collectionParams.map((p) => row[p]), row[column]));
      let query = dynamic(trx).selectFrom(decl.table).select('id').where(column, '=', row[column]).where('id', '!=', row.id);
      for (const p of collectionParams) query = query.where(p, '=', row[p]);
      const taken = await query.executeTakeFirst();
      if (taken) throw new AlreadyExists(`${name} ${JSON.stringify(row[column])} is already used by ${decl.singular} ${taken.id}`, name);
    }
  }

  function writeContext(
    ctx: RequestContext,
    trx: Trx,
    params: Record<string, string>,
    pending: Array<() => void | Promise<void>>,
    input: Record<string, unknown>,
    updatedPaths: string[],
  ): WriteContext {
    return { ...ctx, trx, params, input, updatedPaths, afterCommit: (fn) => pending.push(fn) };
  }

  /**
   * Runs `work` in a transaction; validate_only rolls it back but still answers; side effects wait for
   * commit. A transaction the database aborted to break a deadlock (a cascade delete meeting the
   * background jobs of the same website) is run again from the start, a few times, then ABORTED.
   */
  async function inTransaction<T>(validateOnly: boolean, work: (trx: Trx, pending: Array<() => void | Promise<void>>) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
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
        if (dialect.isTransientConflict(err)) {
          if (attempt < TRANSIENT_CONFLICT_ATTEMPTS) {
            // Jittered, so the transactions that deadlocked do not meet again in step.
            await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt));
            continue;
          }
          throw new ApiError('ABORTED', `the ${decl.singular} write met concurrent writes ${attempt} times; retry`, []);
        }
        throw translateDriverError(err);
      }
      for (const fn of pending) await fn();
      return result;
    }
  }

  async function deleteRow(ctx: RequestContext, trx: Trx, pending: Array<() => void | Promise<void>>, params: Record<string, string>, opts: DeleteOptions): Promise<void> {
    const previous = await load(trx, ctx, params, true);
    await checkIfMatch(trx, opts.ifMatch, previous);
    await hooks.beforeDelete?.(writeContext(ctx, trx, params, pending, {}, []), previous, opts.force ?? false);
    // The resource as it was, read before anything of it goes.
    if (events) await emit(ctx, trx, pending, 'deleted', await presentOne(trx, { ...previous }), undefined, previous);
    const afterDelete = await deps.onDeleting?.(trx, decl.table, previous, ctx.now);
    if (afterDelete) pending.push(afterDelete);
    await byKey(dynamic(trx).deleteFrom(decl.table), previous).execute();
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

  /** Loads a singleton for update, creating its default row first when it was never written (concurrent first writes meet on the key). */
  async function loadSingletonForUpdate(trx: Trx, ctx: RequestContext, params: Record<string, string>): Promise<Row> {
    await dynamic(trx)
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
  async function replay(db: Kysely<DB>, params: Record<string, string>, scope: string, requestId: string, dropStale: boolean): Promise<Resource | undefined> {
    const previous = await db
      .selectFrom('idempotency_keys')
      .select('result')
      .where('scope', '=', scope)
      .where('request_id', '=', requestId)
      .executeTakeFirst();
    if (!previous) return undefined;
    const { id } = dialect.readJson<{ id: string }>(previous.result);
    // Ids may be unique inside their parent only: the row is looked up under the same parent ids.
    const existing = await byKey(dynamic(db).selectFrom(decl.table).selectAll(), { id, ...params }).executeTakeFirst();
    if (existing) return presentOne(db, existing);
    if (dropStale) await db.deleteFrom('idempotency_keys').where('scope', '=', scope).where('request_id', '=', requestId).execute();
    return undefined;
  }

  /** Inserts a new row with its hooks inside `trx`; answers the first result again for a repeated request_id. */
  async function insertRow(
    ctx: RequestContext,
    trx: Trx,
    pending: Array<() => void | Promise<void>>,
    params: Record<string, string>,
    input: Record<string, unknown>,
    opts: CreateOptions,
  ): Promise<Resource> {
    const idempotency = opts.requestId ? { scope: idempotencyScopeOf(ctx, params), requestId: opts.requestId } : undefined;
    if (idempotency) {
      const previous = await replay(trx, params, idempotency.scope, idempotency.requestId, true);
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
      const taken = await byKey(dynamic(trx).selectFrom(decl.table).select('id'), row).executeTakeFirst();
      if (taken) throw new AlreadyExists(`${decl.singular} ${row.id} already exists`, 'id');
    }
    await dynamic(trx).insertInto(decl.table).values(row).execute();
    await hooks.afterCreate?.(wctx, row);
    if (idempotency) {
      await trx
        .insertInto('idempotency_keys')
        .values({ scope: idempotency.scope, request_id: idempotency.requestId, result: dialect.json({ id: row.id }), create_time: ctx.now })
        .execute();
    }
    const resource = await presentOne(trx, row);
    await emit(ctx, trx, pending, 'created', resource, row, undefined);
    return resource;
  }

  async function checkIfMatch(db: Kysely<DB>, ifMatch: string | undefined, previous: Row): Promise<void> {
    if (!ifMatch) return;
    // An etag covering computed fields is the presented resource's (its row's alone would never match).
    const current = coversComputed ? String((await presentOne(db, { ...previous })).etag) : etagOf(previous);
    if (!etagMatches(ifMatch, current)) {
      throw new Aborted('the resource changed since the etag in If-Match was read', await presentOne(db, previous));
    }
  }

  /** Writes the columns `next` changed relative to `previous`, with revision + 1 and a new update_time. */
  async function persist(trx: Trx, ctx: RequestContext, next: Row, previous: Row): Promise<Row> {
    next.revision = Number(previous.revision) + 1;
    next.update_time = Math.max(ctx.now, Number(previous.update_time));
    const changes: Row = {};
    for (const [key, value] of Object.entries(next)) if (key !== 'id' && value !== previous[key]) changes[key] = value;
    await byKey(dynamic(trx).updateTable(decl.table).set(changes), previous).execute();
    return next;
  }

  return {
    insert: (ctx, tx, params, body) => insertRow(ctx, tx.trx, tx.afterCommit, params, { ...body }, {}),

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

      const work = async (trx: Trx, pending: Array<() => void | Promise<void>>) => {
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
