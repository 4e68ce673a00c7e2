import { sql, type Kysely } from 'kysely';

/**
 * The user lifecycle (profiles, sessions, one-time tokens) and outgoing mail (docs/architecture.md,
 * Outgoing mail): the outbox the mail worker claims from. None of these tables is listed through the
 * API, so no list-version triggers.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // The profile singleton `users/{user}/profile`: one row per user, keyed by the user's id.
  await db.schema
    .createTable('user_profiles')
    .addColumn('id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('display_name', 'text')
    .addColumn('locale', 'text')
    .addColumn('time_zone', 'text')
    .addColumn('avatar_uri', 'text')
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into user_profiles (id, display_name, revision, create_time, update_time)
    select id, display_name, 1, create_time, update_time from users`.execute(db);

  // One row per sign-in; a bearer token names its session (`sid`) and works while the row exists.
  await db.schema
    .createTable('user_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // When the newest token of the session expires (refresh moves it); expired rows are purged.
    .addColumn('expire_time', 'bigint', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('user_sessions_user').on('user_sessions').columns(['user_id', 'expire_time']).execute();

  // One-time tokens mailed to users (password reset, email change): only their SHA-256 is kept.
  await db.schema
    .createTable('user_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // PASSWORD_RESET or EMAIL_CHANGE.
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    // EMAIL_CHANGE: the address being confirmed.
    .addColumn('new_email', 'text')
    .addColumn('expire_time', 'bigint', (c) => c.notNull())
    .addColumn('use_time', 'bigint')
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('user_tokens_user').on('user_tokens').columns(['user_id', 'purpose']).execute();

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

