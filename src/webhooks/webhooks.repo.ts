import { CompiledQuery, sql, type Selectable } from 'kysely';
import type { SqlDialect } from '../platform/db/database.js';
import type { DB, Db, Trx } from '../platform/db/schema.js';
import { newId } from '../platform/resource/ids.js';
import { administratorUserIds } from '../access/index.js';
import { usersById } from '../users/index.js';
import { websiteDisplayName } from '../websites/index.js';

/** SQL of the webhooks area the engine does not write; website id first, as every query of the area. */

/** A webhook's row. */
export type Webhook = Selectable<DB['webhooks']>;

export const DELIVERY_QUEUED = 'PENDING';
export const DELIVERY_LEASED = 'DELIVERING';
/** PostgreSQL NOTIFY channel that wakes delivery workers of other processes at commit. */
export const WEBHOOK_CHANNEL = 'platform_webhooks';

/** One recorded attempt of a delivery (`attempts[]` on the wire). */
export interface DeliveryAttempt {
  /** RFC 3339. */
  time: string;
  status_code: number | null;
  duration_ms: number;
  /** At most RESPONSE_EXCERPT_BYTES of the answer's body, as text. */
  response_excerpt: string | null;
  /** Why the attempt failed without an HTTP answer (refused address, timeout, connection error). */
  error: string | null;
}

/** The website's webhooks that take deliveries now (fan-out): few per website, read by the `webhooks_state` index. */
export async function activeWebhooksOf(trx: Db | Trx, dialect: SqlDialect, websiteId: string): Promise<Array<{ id: string; event_types: unknown }>> {
  // SQL text fixed once: this runs on every write of a website (no query builder per call).
  const text = dialect.name === 'postgres' ? ACTIVE_WEBHOOKS_PG : ACTIVE_WEBHOOKS_SQLITE;
  return (await trx.executeQuery<{ id: string; event_types: unknown }>(CompiledQuery.raw(text, [websiteId]))).rows as Array<{ id: string; event_types: unknown }>;
}
const ACTIVE_WEBHOOKS_SQLITE = `select "id", "event_types" from "webhooks" where "website_id" = ? and "state" = 'ACTIVE'`;
const ACTIVE_WEBHOOKS_PG = `select "id", "event_types" from "webhooks" where "website_id" = $1 and "state" = 'ACTIVE'`;

export async function countWebhooks(trx: Db | Trx, websiteId: string): Promise<number> {
  const row = await trx.selectFrom('webhooks').select((eb) => eb.fn.countAll().as('n')).where('website_id', '=', websiteId).executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface NewDelivery {
  websiteId: string;
  webhookId: string;
  accountId: string;
  eventId: string;
  eventType: string;
  payload: string;
  redeliveryOf?: string;
}

/** Queues deliveries, due now (`now` is the delivery clock). Answers the rows written. */
export async function insertDeliveries(trx: Db | Trx, dialect: SqlDialect, deliveries: readonly NewDelivery[], now: number): Promise<Array<Selectable<DB['webhook_deliveries']>>> {
  const rows = deliveries.map((d) => ({
    website_id: d.websiteId,
    webhook_id: d.webhookId,
    id: newId(now),
    account_id: d.accountId,
    event_id: d.eventId,
    event_type: d.eventType,
    payload: d.payload,
    redelivery_of: d.redeliveryOf ?? null,
    state: DELIVERY_QUEUED,
    run_after: now,
    attempt: 0,
    attempts: dialect.json([]),
    last_status_code: null,
    lease_owner: null,
    lease_expire_time: null,
    revision: 1,
    create_time: now,
    update_time: now,
  }));
  if (rows.length) {
    await trx.insertInto('webhook_deliveries').values(rows).execute();
    await dialect.notify(trx, WEBHOOK_CHANNEL);
  }
  return rows;
}

/** What a delivery attempt needs of its webhook. */
export async function webhookForDelivery(db: Db | Trx, websiteId: string, webhookId: string) {
  return db
    .selectFrom('webhooks')
    .select(['website_id', 'id', 'account_id', 'url', 'state', 'secret_sealed', 'previous_secret_sealed', 'previous_secret_expire_time', 'failing_since'])
    .where('website_id', '=', websiteId)
    .where('id', '=', webhookId)
    .executeTakeFirst();
}

/** A success ends a failing streak. */
export async function markWebhookSucceeding(db: Db | Trx, websiteId: string, webhookId: string): Promise<void> {
  await db.updateTable('webhooks').set({ failing_since: null }).where('website_id', '=', websiteId).where('id', '=', webhookId).where('failing_since', 'is not', null).execute();
}

/** A failed attempt starts a failing streak unless one runs; answers when it started. */
export async function markWebhookFailing(db: Db | Trx, websiteId: string, webhookId: string, now: number): Promise<number | undefined> {
  await db.updateTable('webhooks').set({ failing_since: now }).where('website_id', '=', websiteId).where('id', '=', webhookId).where('failing_since', 'is', null).execute();
  const row = await db.selectFrom('webhooks').select('failing_since').where('website_id', '=', websiteId).where('id', '=', webhookId).executeTakeFirst();
  return row?.failing_since === null || row?.failing_since === undefined ? undefined : Number(row.failing_since);
}

/**
 * Disables an ACTIVE webhook (inside `trx`) and ends its pending deliveries; answers the webhook as
 * it was when this call disabled it, undefined when it was no longer ACTIVE (another worker did it).
 */
export async function disableWebhook(trx: Db | Trx, dialect: SqlDialect, websiteId: string, webhookId: string, reason: string, now: number): Promise<Webhook | undefined> {
  const row = await trx
    .updateTable('webhooks')
    .set((eb) => ({ state: 'DISABLED', enabled: dialect.bool(false), disabled_reason: reason, revision: eb('revision', '+', 1), update_time: now }))
    .where('website_id', '=', websiteId)
    .where('id', '=', webhookId)
    .where('state', '=', 'ACTIVE')
    .returningAll()
    .executeTakeFirst();
  if (!row) return undefined;
  await trx
    .updateTable('webhook_deliveries')
    .set((eb) => ({ state: 'FAILED', run_after: now, update_time: now, revision: eb('revision', '+', 1) }))
    .where('website_id', '=', websiteId)
    .where('webhook_id', '=', webhookId)
    .where('state', '=', DELIVERY_QUEUED)
    .execute();
  return row;
}

/** Addresses of the account's administrators (who get the mail of a disabled webhook). */
export async function administratorEmails(db: Db | Trx, accountId: string): Promise<string[]> {
  // Memberships are the access area's, addresses the users area's: each answers its own part.
  const users = await usersById(db, await administratorUserIds(db, accountId));
  return [...users.values()].map((u) => String(u.email));
}

export async function websiteNameOf(db: Db | Trx, websiteId: string): Promise<string> {
  const row = await websiteDisplayName(db, websiteId);
  return String(row?.display_name ?? websiteId);
}

/** Every change of a delivery is a new revision: its etag (and a reused Get answer) must follow it. */
export const REVISION_BUMP = { revision: sql`revision + 1` };

/** A claim's condition: due rows whose webhook has fewer than `maxInFlight` attempts in flight (live leases). */
export const belowInFlightBound = (maxInFlight: number, now: number) => (eb: any) =>
  eb(
    eb
      .selectFrom('webhook_deliveries as flight')
      .select(eb.fn.countAll().as('n'))
      .whereRef('flight.website_id', '=', 'webhook_deliveries.website_id')
      .whereRef('flight.webhook_id', '=', 'webhook_deliveries.webhook_id')
      .where('flight.state', '=', DELIVERY_LEASED)
      .where('flight.lease_expire_time', '>=', now),
    '<',
    maxInFlight,
  );

/** Deletes ended deliveries (SUCCEEDED, FAILED) last due before `before`. */
export async function purgeEndedDeliveries(db: Db | Trx, before: number): Promise<void> {
  await db.deleteFrom('webhook_deliveries').where('state', 'in', ['SUCCEEDED', 'FAILED']).where('run_after', '<', before).execute();
}

/** The columns of a webhook a delivery attempt reads. */
export type DeliveryWebhook = NonNullable<Awaited<ReturnType<typeof webhookForDelivery>>>;
