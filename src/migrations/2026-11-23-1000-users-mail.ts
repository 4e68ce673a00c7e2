import type { Kysely } from 'kysely';

/**
 * Outgoing mail (docs/architecture.md, Outgoing mail): the outbox the mail worker claims from.
 * Not a tenant collection (no API lists it), so no list-version triggers.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mail_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // The Message-ID header, fixed at enqueue: a resend after a worker crash carries the same one.
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('template', 'text', (c) => c.notNull())
    .addColumn('locale', 'text')
    // The template data, sealed under ENCRYPTION_KEY (it holds one-time links); cleared once the message ends.
    .addColumn('data', 'text')
    // QUEUED, SENDING (claimed, under a lease), SENT, FAILED.
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('run_after', 'bigint', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expire_time', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('send_time', 'bigint')
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .execute();
  // The claim: due QUEUED rows by run_after, expired SENDING leases; and the purge of ended rows.
  await db.schema.createIndex('mail_messages_due').on('mail_messages').columns(['state', 'run_after']).execute();
  await db.schema.createIndex('mail_messages_lease').on('mail_messages').columns(['state', 'lease_expire_time']).execute();
  await db.schema.createIndex('mail_messages_ended').on('mail_messages').columns(['state', 'update_time']).execute();
}

