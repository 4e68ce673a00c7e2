import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';
import { addListRowCountTriggers } from './list-versions.js';
import { addTextIndex } from './text-indexes.js';

/**
 * Editorial (issue 14): the plan singleton of a website (`editorial_plans`, id = the website's id),
 * the backlog of topics and the rolling calendar of slots. A calendar slot is unique per website
 * (`editorial_calendar_entries_slot`), which is what keeps concurrent `:refill` calls from booking
 * one slot twice. Blog posts gain `field_provenance`: per field, who wrote its current value.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { json } = columnTypes(db);
  const common = (t: any) =>
    t
      .addColumn('revision', 'integer', (c: any) => c.notNull().defaultTo(1))
      .addColumn('create_time', 'bigint', (c: any) => c.notNull())
      .addColumn('update_time', 'bigint', (c: any) => c.notNull());
  const index = (table: string, name: string, columns: string[], unique = false) => {
    const builder = db.schema.createIndex(`${table}_${name}`).on(table).columns(columns);
    return (unique ? builder.unique() : builder).execute();
  };

  await common(
    db.schema
      .createTable('editorial_plans')
      .addColumn('id', 'text', (c) => c.primaryKey().references('websites.id').onDelete('cascade'))
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('slots', json, (c) => c.notNull())
      .addColumn('time_zone', 'text')
      .addColumn('horizon_days', 'integer', (c) => c.notNull())
      .addColumn('default_author_id', 'text')
      .addColumn('default_category_ids', json, (c) => c.notNull())
      .addColumn('default_visible_view_ids', json, (c) => c.notNull())
      .addColumn('drafting_agent_id', 'text')
      .addColumn('review_agent_id', 'text')
      .addColumn('automation', 'text', (c) => c.notNull())
      .addColumn('materialize_lead_hours', 'integer', (c) => c.notNull())
      .addColumn('require_passing_verdict', 'boolean', (c) => c.notNull())
      .addColumn('allow_person_approval', 'boolean', (c) => c.notNull())
      .addColumn('automation_state', 'text')
      .addColumn('automation_stop_reason', 'text')
      .addColumn('automation_tick_id', 'text'),
  ).execute();

  await common(
    db.schema
      .createTable('editorial_backlog_items')
      .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('topic', 'text', (c) => c.notNull())
      .addColumn('brief', 'text')
      .addColumn('keywords', json, (c) => c.notNull())
      .addColumn('category_id', 'text')
      .addColumn('priority', 'integer', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('source_execution_id', 'text')
      .addColumn('proposed_by', 'text', (c) => c.notNull()),
  )
    .addPrimaryKeyConstraint('editorial_backlog_items_pk', ['website_id', 'id'])
    .execute();
  for (const column of ['create_time', 'update_time', 'priority', 'topic', 'category_id', 'proposed_by']) {
    await index('editorial_backlog_items', column, ['website_id', column, 'id']);
  }
  await index('editorial_backlog_items', 'state_create_time', ['website_id', 'state', 'create_time', 'id']);
  // `:refill` takes READY items highest priority first, oldest first: one range of this index.
  await index('editorial_backlog_items', 'state_priority', ['website_id', 'state', 'priority', 'create_time', 'id']);
  await addTextIndex(db, 'editorial_backlog_items', ['topic', 'category_id', 'proposed_by']);
  await addListRowCountTriggers(db, 'editorial_backlog_items', 'website_id');

  await common(
    db.schema
      .createTable('editorial_calendar_entries')
      .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('slot_time', 'bigint', (c) => c.notNull())
      .addColumn('backlog_item_id', 'text')
      .addColumn('post_id', 'text')
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('drafting_execution_id', 'text')
      .addColumn('review_execution_id', 'text')
      .addColumn('verdict', json)
      .addColumn('approval', json)
      .addColumn('skipped_fields', json)
      .addColumn('failed_step', 'text')
      .addColumn('last_error', json),
  )
    .addPrimaryKeyConstraint('editorial_calendar_entries_pk', ['website_id', 'id'])
    .execute();
  // One entry per slot: concurrent refills meet here (insert … on conflict do nothing).
  await index('editorial_calendar_entries', 'slot', ['website_id', 'slot_time'], true);
  for (const column of ['slot_time', 'create_time', 'update_time', 'backlog_item_id', 'post_id']) {
    await index('editorial_calendar_entries', column, ['website_id', column, 'id']);
  }
  await index('editorial_calendar_entries', 'state_slot_time', ['website_id', 'state', 'slot_time', 'id']);
  await addTextIndex(db, 'editorial_calendar_entries', ['backlog_item_id', 'post_id']);
  await addListRowCountTriggers(db, 'editorial_calendar_entries', 'website_id');

  await db.schema.alterTable('blog_posts').addColumn('field_provenance', json).execute();
}

export async function down(): Promise<void> {
  // Frozen: never rolled back.
}
