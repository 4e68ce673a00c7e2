import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { dynamic } from '../db/dynamic.js';
import type { DB } from '../db/schema.js';
import type { RequestContext } from '../auth/context.js';
import { NotFound } from '../errors.js';
import type { ResourceDecl, Row } from './declaration.js';
import { columnOf, compileMapper, etagCoversComputed, toStored } from './mapper.js';
import { templateParams } from './paths.js';
import type { EngineDeps, Resource } from './service.js';

/*
 * What List (list.ts) and the writes (write.ts) of one declaration share: its path parameters, how a
 * statement is scoped to them, how a row is loaded and presented.
 */

/** Normalises an etag as sent in If-Match / If-None-Match (quotes, weak prefix). */
export function bareEtag(value: string): string {
  return value.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1');
}

/** Whether an If-Match / If-None-Match header value matches `etag` (lists and `*` included). */
export function etagMatches(header: string, etag: string): boolean {
  return header.split(',').some((part) => part.trim() === '*' || bareEtag(part) === etag);
}

/** A query builder that takes `where(column, op, value)`: the select, update and delete builders alike. */
type Scopable<Q> = { where(column: string, op: '=', value: unknown): Q };

export type ResourceCore = ReturnType<typeof createResourceCore>;

export function createResourceCore(decl: ResourceDecl, deps: EngineDeps) {
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
  const present = compileMapper(decl, dialect);

  /**
   * WHERE terms every query of this collection carries: the ids of its path (the access root, the
   * parent ids, and the own id when `idParams` names it), nothing else. `account_id` is not repeated:
   * route-context already resolved the root (account, project, website) to its account and checked
   * the caller's membership there, and a project or website never changes account; where the root is
   * the account itself, `account_id` is a path id anyway. So every index can lead with the parent
   * columns and answer a List's count on its own.
   */
  function scoped<Q extends Scopable<Q>>(query: Q, params: Record<string, string>, idParams: string[]): Q {
    let q = query;
    for (const p of idParams) q = q.where(p === ownIdParam ? 'id' : p, '=', params[p]);
    return q;
  }

  /** WHERE of one stored row: its id within its parent (ids of website-scoped rows are unique per website only). */
  function byKey<Q extends Scopable<Q>>(query: Q, row: Row): Q {
    let q = query.where('id', '=', row.id);
    for (const p of collectionParams) q = q.where(p, '=', row[p]);
    return q;
  }

  /**
   * NOT_FOUND when the parent named by the last collection parameter is missing (nested collections):
   * on List's first page, Create (and upserts), and every load, so rows kept after their parent is
   * gone (agent versions) stop being reachable.
   */
  async function checkParent(db: Kysely<DB>, params: Record<string, string>): Promise<void> {
    if (!decl.parentTable) return;
    const parentParam = collectionParams[collectionParams.length - 1];
    // Scoped like the collection itself: by the path ids alone (see `scoped`).
    let q = dynamic(db).selectFrom(decl.parentTable).select('id').where('id', '=', params[parentParam]);
    for (const p of collectionParams.slice(0, -1)) q = q.where(p, '=', params[p]);
    if (!(await q.executeTakeFirst())) throw new NotFound(`${parentParam.replace(/_id$/, '')} ${params[parentParam]}`);
  }

  /** Maps rows to resources, first loading their computed data in one batch (`hooks.enrich`). */
  async function presentAll(db: Kysely<DB>, rows: Row[]): Promise<Resource[]> {
    if (hooks.enrich && rows.length) await hooks.enrich(db, rows);
    return rows.map(present);
  }
  const presentOne = async (db: Kysely<DB>, row: Row): Promise<Resource> => (await presentAll(db, [row]))[0];

  /**
   * Get by id is the hottest read: a point read by the path's id columns (`Database.pointReader`:
   * a cached statement on SQLite, batched with concurrent Gets of the same collection on PostgreSQL).
   */
  let hotGet: ReturnType<Database['pointReader']> | undefined;

  /** Loads a row the caller's scope reaches, or throws NOT_FOUND. */
  async function load(db: Kysely<DB>, ctx: RequestContext, params: Record<string, string>, forUpdate = false): Promise<Row> {
    await checkParent(db, params);
    if (db === database.db && !forUpdate) {
      // Made on first use: the table may not exist yet while services are built (before migrations).
      hotGet ??= database.pointReader(decl.table, itemParams.map((p) => (p === ownIdParam ? 'id' : p)));
      const row = await hotGet(itemParams.map((p) => params[p]));
      if (!row) throw new NotFound(`${decl.singular} ${params[ownIdParam]}`);
      return row;
    }
    let query = scoped(dynamic(db).selectFrom(decl.table).selectAll(), params, itemParams);
    if (forUpdate) query = dialect.forUpdate(query);
    const row = await query.executeTakeFirst();
    if (!row) throw new NotFound(`${decl.singular} ${params[ownIdParam]}`);
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

  return {
    decl,
    deps,
    database,
    dialect,
    singleton,
    collectionParams,
    itemParams,
    ownIdParam,
    hooks,
    fields,
    present,
    coversComputed: etagCoversComputed(decl),
    scoped,
    byKey,
    checkParent,
    presentAll,
    presentOne,
    load,
    defaultRow,
  };
}
