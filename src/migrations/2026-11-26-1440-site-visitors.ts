import type { Kysely } from 'kysely';

/**
 * Visitors as customers (issue 15): one-time tokens of customers (password reset), stored as the
 * SHA-256 of the mailed secret, single use (`use_time`) and expiring. Nothing here is rendered on
 * the site, so no site-version triggers.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('customer_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    // PASSWORD_RESET (the only purpose so far).
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('expire_time', 'bigint', (c) => c.notNull())
    .addColumn('use_time', 'bigint')
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('customer_tokens_customer').on('customer_tokens').columns(['customer_id', 'purpose']).execute();
}

export async function down(): Promise<void> {
  // Frozen: never rolled back.
}
