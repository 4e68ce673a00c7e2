import type { CompiledQuery, Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { DB, Trx } from '../db/schema.js';
import type { RequestContext } from '../auth/context.js';
import type { ListCounts } from '../query/list-counts.js';
import type { PageTokenCodec } from '../query/page-token.js';
import type { Events } from '../events/events.js';
import type { ResourceDecl, Row, WriteContext } from './declaration.js';

/*
 * What a resource service offers and takes: the types of the engine (engine.ts assembles it from
 * list.ts and write.ts; virtual.ts answers the same interface from computed rows).
 */

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
  load(db: Kysely<DB>, ctx: RequestContext, params: Record<string, string>, forUpdate?: boolean): Promise<Row>;
  toResource(row: Row): Resource;
}

/** A transaction plus the side effects to run once it commits. */
export interface TransactionScope {
  trx: Trx;
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
  onDeleting?(trx: Trx, table: string, row: Row, now: number): Promise<void | (() => Promise<void>)>;
  /** Called after a delete commits, so caches of addressable roots forget the row. */
  onDeleted?(table: string, id: string): void;
  /** Where every write records its events (absent: no events, e.g. unit tests of the engine). */
  events?: Events;
}
