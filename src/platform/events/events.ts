/**
 * Events (docs/architecture.md, "Events"): every write the platform commits is also a row of
 * `events` (website-scoped resources) or `account_events` (account-scoped ones: AI, billing,
 * members, projects, websites themselves), inserted in the write's own transaction, so a rolled-back
 * write leaves none and a committed one always has one.
 *
 * API (one `Events` per app, `deps.events`):
 * - `record(trx, event, afterCommit)`: inserts the event in the caller's transaction, then runs
 *   every in-transaction subscriber with the same `trx` (a throw rolls the write back). The
 *   resource engine calls it for every Create/Update/Delete/custom-method write; code that writes
 *   a resource's row itself (raw SQL) calls it explicitly. `afterCommit` is the caller's
 *   after-commit registration (`WriteContext.afterCommit`, a `TransactionScope`'s list via
 *   `afterCommitOf`, or `runNow` for a write that already committed).
 * - `onEvent((trx, event) => Promise<void>)`: in-transaction subscriber (webhooks' fan-out writes
 *   its delivery rows here). Runs for every event; filter by `event.type` yourself.
 * - `afterEventCommitted((events) => void)`: after-commit subscriber, once per committed
 *   transaction with the events it recorded, in order (in-process effects: caches, wake-ups).
 *   Never runs for a rolled-back transaction; errors are logged, not thrown.
 * - `declare(type)`: adds a named event type to the catalogue (`catalogue()`), for types written
 *   outside the engine (`operation.done`). Engine types (`{singular}.created|updated|deleted` and
 *   each declaration's `events.transitions`) are declared by the engine.
 * - `purgeExpired(now)`: deletes events older than `EVENT_RETENTION_MS` (run by the worker).
 *
 * Areas register subscribers from `Area.events(events, deps)` (platform/area.ts).
 */
import { CompiledQuery, type Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/database.js';
import type { DB } from '../db/schema.js';
import type { RequestContext } from '../auth/context.js';
import { randomBytes } from 'node:crypto';
import { newId } from '../ids.js';

let sequence = 0;
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
// Random bytes drawn in bulk: one `randomBytes` call per id (as `newId`) was ~10 µs of each event on a
// busy machine (profile in docs/performance.md, "Events on SQLite attributed").
let pool = Buffer.alloc(0);
let poolAt = 0;
/**
 * An event id: `newId`'s 10 time characters, then a per-process sequence (4 characters) and 6 random
 * ones, so the events one write records in the same millisecond (`.updated`, then its transitions)
 * list in the order they were recorded (ids break ties of `occur_time`).
 */
function eventId(time: number): string {
  sequence = (sequence + 1) % 32 ** 4;
  let id = '';
  for (let t = time, i = 0; i < 10; i++, t = Math.floor(t / 32)) id = ALPHABET[t % 32] + id;
  let seq = '';
  for (let n = sequence, i = 0; i < 4; i++, n = Math.floor(n / 32)) seq = ALPHABET[n % 32] + seq;
  if (poolAt + 6 > pool.length) {
    pool = randomBytes(6 * 512);
    poolAt = 0;
  }
  let random = '';
  for (let i = 0; i < 6; i++) random += ALPHABET[pool[poolAt++] % 32];
  return id + seq + random;
}

/** Events are kept this long, then deleted by the worker's housekeeping (docs/api.md, Events). */
export const EVENT_RETENTION_MS = 30 * 24 * 3600_000;

/** Who caused an event, as the engine knows the caller. */
export interface EventActor {
  /** `USER`: a signed-in person (member of the account); `SYSTEM`: the platform itself (a scheduled publish, a worker). */
  type: 'USER' | 'SYSTEM';
  /** `users/{user_id}` for USER. */
  user?: string;
  /** The caller's role in the account (`roles/editor`, `accounts/{a}/account_roles/{r}`), for USER. */
  role?: string;
  /** Set when the platform wrote on behalf of an AI run (`RequestContext.agent`). */
  agent?: string;
}

/** An event as written by `record` and handed to subscribers. */
export interface PlatformEvent {
  /** Time-ordered id (`newId`), unique across both tables: the idempotency key of deliveries. */
  id: string;
  /** `{singular}.created|updated|deleted` or a declared transition, e.g. `blog_post.published`. */
  type: string;
  accountId: string;
  /** Set for website-scoped resources (stored in `events`); null: account-scoped (`account_events`). */
  websiteId: string | null;
  /** Full resource name, e.g. `websites/w1/blog_posts/p1`. */
  resource: string;
  /** Collection id of the resource (`blog_posts`): what decides who may read the event. */
  collection: string;
  /** Epoch ms. */
  occurTime: number;
  actor: EventActor;
  /** The resource as Get answers it after the write; for a delete, as it was before. */
  data: Record<string, unknown>;
  /** The resource before the write, where the event type carries it (transitions); else null. */
  previous: Record<string, unknown> | null;
}

/** What `record` needs: the event without its id (generated), time defaulting to now. */
export type EventInput = Omit<PlatformEvent, 'id' | 'occurTime'> & { occurTime?: number };

/** One entry of the event type catalogue. */
export interface EventType {
  type: string;
  /** The collection whose resources it is about. */
  collection: string;
  /** `website`: events of `websites/{w}/events`; `account`: of `accounts/{a}/events`. */
  scope: 'website' | 'account';
  description: string;
}

export type InTransactionSubscriber = (trx: Kysely<DB>, event: PlatformEvent) => Promise<void>;
export type CommittedSubscriber = (events: readonly PlatformEvent[]) => void;
/** How a caller defers work until its transaction commits. */
export type AfterCommit = (fn: () => void | Promise<void>) => void;

/** For a write that is already committed (no transaction): after-commit work runs at once. */
export const runNow: AfterCommit = (fn) => void fn();

/** The `AfterCommit` of a `TransactionScope` (`{trx, afterCommit: [...]}`). */
export const afterCommitOf = (scope: { afterCommit: Array<() => void | Promise<void>> }): AfterCommit => (fn) => void scope.afterCommit.push(fn);

export interface Events {
  record(trx: Kysely<DB>, event: EventInput, afterCommit: AfterCommit): Promise<PlatformEvent>;
  onEvent(subscriber: InTransactionSubscriber): void;
  afterEventCommitted(subscriber: CommittedSubscriber): void;
  declare(type: EventType): void;
  /** Every event type the platform can write, sorted by type. */
  catalogue(): EventType[];
  /** Deletes events that occurred before `now - EVENT_RETENTION_MS`; answers how many. */
  purgeExpired(now: number): Promise<number>;
  /** False when built with `enabled: false` (bench comparison only): `record` writes nothing. */
  readonly enabled: boolean;
}

/** The actor of a write made under `ctx`. */
export function actorOf(ctx: RequestContext): EventActor {
  // Contexts the platform builds for its own jobs name the caller `platform` (editorial, the blog's schedule).
  const actor: EventActor =
    ctx.caller.userId === 'platform' || !ctx.caller.userId
      ? { type: 'SYSTEM' }
      : { type: 'USER', user: `users/${ctx.caller.userId}`, ...(ctx.access?.role && { role: ctx.access.role }) };
  if (ctx.agent) actor.agent = ctx.agent;
  return actor;
}

/** The system as the actor (workers, retention). */
export const SYSTEM_ACTOR: EventActor = { type: 'SYSTEM' };

/** Storage table of an event: website events and account events are listed (and counted) apart. */
export const eventTable = (websiteId: string | null | undefined) => (websiteId ? 'events' : 'account_events');

export function createEvents(deps: { database: Database; logger: FastifyBaseLogger; enabled?: boolean }): Events {
  const { dialect } = deps.database;
  const enabled = deps.enabled ?? true;
  const inTransaction: InTransactionSubscriber[] = [];
  const committed: CommittedSubscriber[] = [];
  const types = new Map<string, EventType>();
  // Events recorded per open transaction, handed to after-commit subscribers once it commits.
  const pendingOf = new WeakMap<object, PlatformEvent[]>();
  const insertOf = (table: string, scope: string[]) => {
    // update_time is create_time (an event is never changed); revision 1.
    const columns = ['id', 'account_id', 'type', 'collection', 'resource', 'actor', 'data', 'previous', 'create_time', 'update_time', ...scope];
    const values = columns.map((_, i) => (dialect.name === 'postgres' ? `$${i + 1}` : '?'));
    return `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}, "revision") values (${values.join(', ')}, 1)`;
  };
  const insertWebsiteEvent = insertOf('events', ['website_id']);
  const insertAccountEvent = insertOf('account_events', []);

  function dispatch(events: readonly PlatformEvent[]): void {
    for (const subscriber of committed) {
      try {
        subscriber(events);
      } catch (err) {
        deps.logger.error({ err, events: events.map((e) => e.id) }, 'an after-commit event subscriber failed');
      }
    }
  }

  return {
    enabled,
    async record(trx, input, afterCommit) {
      const occurTime = input.occurTime ?? Date.now();
      const event: PlatformEvent = { ...input, websiteId: input.websiteId ?? null, previous: input.previous ?? null, occurTime, id: eventId(occurTime) };
      if (!enabled) return event;
      // One SQL text per table, compiled once (Kysely's query builder costs more per call than SQLite's
      // INSERT itself; the statement cache of database.ts reuses the prepared statement).
      const website = event.websiteId !== null;
      const parameters: unknown[] = [
        event.id,
        event.accountId,
        event.type,
        event.collection,
        event.resource,
        dialect.json(event.actor),
        dialect.json(event.data),
        event.previous === null ? null : dialect.json(event.previous),
        occurTime,
        occurTime,
      ];
      if (website) parameters.push(event.websiteId);
      await trx.executeQuery(CompiledQuery.raw(website ? insertWebsiteEvent : insertAccountEvent, parameters));
      for (const subscriber of inTransaction) await subscriber(trx, event);
      if (committed.length) {
        const isTx = trx.isTransaction;
        if (!isTx) {
          afterCommit(() => dispatch([event]));
        } else {
          let pending = pendingOf.get(trx);
          if (!pending) {
            const list: PlatformEvent[] = [];
            pending = list;
            pendingOf.set(trx, list);
            afterCommit(() => dispatch(list));
          }
          pending.push(event);
        }
      }
      return event;
    },
    onEvent(subscriber) {
      inTransaction.push(subscriber);
    },
    afterEventCommitted(subscriber) {
      committed.push(subscriber);
    },
    declare(type) {
      types.set(type.type, type);
    },
    catalogue() {
      return [...types.values()].sort((a, b) => a.type.localeCompare(b.type));
    },
    async purgeExpired(now) {
      // Ids begin with their occurrence time (`eventId`), so the primary key's range finds old events
      // without an index of its own (every index of the tables leads with the scope column).
      const before = newId(now - EVENT_RETENTION_MS).slice(0, 10);
      let deleted = 0;
      for (const table of ['events', 'account_events'] as const) {
        const result = await deps.database.db.deleteFrom(table).where('id', '<', before).executeTakeFirst();
        deleted += Number(result.numDeletedRows ?? 0);
      }
      return deleted;
    },
  };
}
