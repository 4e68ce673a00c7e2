import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';
import { addListRowCountTriggers } from './list-versions.js';

/**
 * Webhooks (`websites/{w}/webhooks`) and their deliveries (`…/webhooks/{h}/deliveries`).
 *
 * `webhook_deliveries` is also a durable queue of the shared lease primitive
 * (platform/jobs/lease.ts): `id` (unique across websites), `state`, `run_after`, `attempt`,
 * `lease_owner`, `lease_expire_time`. Deliveries go with their webhook (cascade), webhooks with
 * their website.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { json } = columnTypes(db);
  await db.schema
    .createTable('webhooks')
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('event_types', json, (c) => c.notNull())
    .addColumn('enabled', 'boolean', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('previous_secret_sealed', 'text')
    .addColumn('previous_secret_expire_time', 'bigint')
    // First failed attempt since the last success: a webhook failing for WEBHOOK_DISABLE_AFTER_MS is disabled.
    .addColumn('failing_since', 'bigint')
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhooks_pk', ['website_id', 'id'])
    .execute();
  await db.schema.createIndex('webhooks_create_time').on('webhooks').columns(['website_id', 'create_time', 'id']).execute();
  // Also the fan-out's lookup of a website's ACTIVE webhooks.
  await db.schema.createIndex('webhooks_state').on('webhooks').columns(['website_id', 'state', 'create_time', 'id']).execute();
  await db.schema.createIndex('webhooks_enabled').on('webhooks').columns(['website_id', 'enabled', 'create_time', 'id']).execute();
  await addListRowCountTriggers(db, 'webhooks', 'website_id');

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('website_id', 'text', (c) => c.notNull())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    // The request body as signed (`{type, timestamp, data}`), fixed at fan-out: a retry or redelivery sends the same bytes.
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('redelivery_of', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('run_after', 'bigint', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('attempts', json, (c) => c.notNull())
    .addColumn('last_status_code', 'integer')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expire_time', 'bigint')
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_deliveries_pk', ['website_id', 'webhook_id', 'id'])
    .addForeignKeyConstraint('webhook_deliveries_webhook_fk', ['website_id', 'webhook_id'], 'webhooks', ['website_id', 'id'], (c) => c.onDelete('cascade'))
    .execute();
  // The lease primitive addresses a row by `id` alone.
  await db.schema.createIndex('webhook_deliveries_id').on('webhook_deliveries').column('id').unique().execute();
  // Due rows (`state = PENDING and run_after <= now`) and expired leases (`state = DELIVERING and lease_expire_time < now`).
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['state', 'run_after']).execute();
  await db.schema.createIndex('webhook_deliveries_lease').on('webhook_deliveries').columns(['state', 'lease_expire_time']).execute();
  for (const column of ['create_time', 'state']) {
    const columns = column === 'create_time' ? ['website_id', 'webhook_id', 'create_time', 'id'] : ['website_id', 'webhook_id', column, 'create_time', 'id'];
    await db.schema.createIndex(`webhook_deliveries_${column}`).on('webhook_deliveries').columns(columns).execute();
  }
  await addListRowCountTriggers(db, 'webhook_deliveries', 'website_id');
}

export async function down(): Promise<void> {
  // Frozen: never rolled back.
}
