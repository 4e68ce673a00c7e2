import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/**
 * Customer area: attribute sections, attribute definitions, groups, customers, their tags and
 * group memberships (side tables that filters and DYNAMIC rules query set-based), and sessions.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { json } = columnTypes(db);
  const common = (table: string) =>
    db.schema
      .createTable(table)
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
      .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('create_time', 'bigint', (c) => c.notNull())
      .addColumn('update_time', 'bigint', (c) => c.notNull());

  await common('customer_attribute_groups')
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('labels', json)
    .addColumn('sort_order', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('customer_attribute_groups_website_sort_order')
    .on('customer_attribute_groups')
    .columns(['website_id', 'sort_order', 'id'])
    .execute();

  await common('customer_attributes')
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('labels', json)
    .addColumn('description', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('options', json)
    .addColumn('is_required', 'boolean', (c) => c.notNull())
    .addColumn('show_in_registration', 'boolean', (c) => c.notNull())
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('min_length', 'integer')
    .addColumn('max_length', 'integer')
    .addColumn('min_value', 'double precision')
    .addColumn('max_value', 'double precision')
    // No foreign key: deleting a section clears group_id explicitly (same transaction), SPEC 4.6.
    .addColumn('group_id', 'text')
    .addColumn('sort_order', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('customer_attributes_website_key').on('customer_attributes').columns(['website_id', 'key']).unique().execute();
  await db.schema
    .createIndex('customer_attributes_website_sort_order')
    .on('customer_attributes')
    .columns(['website_id', 'sort_order', 'id'])
    .execute();
  await db.schema.createIndex('customer_attributes_website_group').on('customer_attributes').columns(['website_id', 'group_id']).execute();

  await common('customer_groups')
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('rule', 'text')
    .addColumn('priority', 'integer', (c) => c.notNull())
    // The Operation recomputing a DYNAMIC group's members since its rule was last saved.
    .addColumn('operation_id', 'text')
    .execute();
  await db.schema
    .createIndex('customer_groups_website_display_name')
    .on('customer_groups')
    .columns(['website_id', 'display_name', 'id'])
    .execute();
  await db.schema.createIndex('customer_groups_website_name_unique').on('customer_groups').columns(['website_id', 'display_name']).unique().execute();
  await db.schema.createIndex('customer_groups_website_create_time').on('customer_groups').columns(['website_id', 'create_time', 'id']).execute();

  await common('customers')
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text')
    .addColumn('tags', json)
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('attributes', json)
    .execute();
  // The unique index also serves `order_by=email` and the email filters.
  await db.schema.createIndex('customers_website_email').on('customers').columns(['website_id', 'email']).unique().execute();
  await db.schema.createIndex('customers_website_create_time').on('customers').columns(['website_id', 'create_time', 'id']).execute();

  // One row per (customer, tag): `tags:"vip"` and DYNAMIC rules read this index instead of JSON.
  await db.schema
    .createTable('customer_tags')
    .addColumn('website_id', 'text', (c) => c.notNull())
    .addColumn('tag', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('customer_tags_pk', ['website_id', 'tag', 'customer_id'])
    .execute();
  await db.schema.createIndex('customer_tags_customer').on('customer_tags').columns(['customer_id']).execute();

  // Members of MANUAL groups (as chosen) and of DYNAMIC groups (as computed); the group's type tells which.
  await db.schema
    .createTable('customer_group_members')
    .addColumn('website_id', 'text', (c) => c.notNull())
    .addColumn('group_id', 'text', (c) => c.notNull().references('customer_groups.id').onDelete('cascade'))
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('customer_group_members_pk', ['group_id', 'customer_id'])
    .execute();
  await db.schema.createIndex('customer_group_members_customer').on('customer_group_members').columns(['customer_id', 'group_id']).execute();

  await db.schema
    .createTable('customer_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('website_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('expire_time', 'bigint', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('customer_sessions_customer').on('customer_sessions').columns(['customer_id']).execute();
}

export async function down(): Promise<void> {
  // Frozen: never rolled back.
}
