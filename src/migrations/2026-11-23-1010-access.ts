import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';
import { addListVersionTriggers } from './list-versions.js';

/**
 * Access (issue 12): members become a collection (`accounts/{a}/members/{user id}`) with a role
 * (built-in, or an account role), extra grants and the websites the membership is limited to;
 * account roles; invitations; and `membership_access`, the one row an access check reads per request.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { json, pg } = columnTypes(db);
  const emptyList = pg ? sql`'[]'::jsonb` : sql`'[]'`;

  // `role` keeps its meaning ('administrator' is an administrator); 'account_role' means the role is
  // the account role `account_role_id`. `id` is the user id (the member's resource id).
  await db.schema.alterTable('memberships').addColumn('id', 'text').execute();
  await db.schema.alterTable('memberships').addColumn('account_role_id', 'text').execute();
  await db.schema.alterTable('memberships').addColumn('grants', json, (c) => c.notNull().defaultTo(emptyList)).execute();
  await db.schema.alterTable('memberships').addColumn('website_ids', json, (c) => c.notNull().defaultTo(emptyList)).execute();
  await db.schema.alterTable('memberships').addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('memberships').addColumn('update_time', 'bigint').execute();
  await db.updateTable('memberships').set({ id: sql.ref('user_id'), update_time: sql.ref('create_time') }).execute();
  await db.schema.createIndex('memberships_account_id').on('memberships').columns(['account_id', 'id']).unique().execute();
  await db.schema.createIndex('memberships_account_create_time').on('memberships').columns(['account_id', 'create_time', 'id']).execute();
  await db.schema.createIndex('memberships_account_role').on('memberships').columns(['account_id', 'role', 'create_time', 'id']).execute();
  await db.schema.createIndex('memberships_account_role_id').on('memberships').columns(['account_id', 'account_role_id', 'create_time', 'id']).execute();
  await addListVersionTriggers(db, 'memberships', 'account_id');

  await db.schema
    .createTable('account_roles')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('grants', json, (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('account_roles_pk', ['account_id', 'id'])
    .execute();
  await db.schema.createIndex('account_roles_display_name').on('account_roles').columns(['account_id', 'display_name']).unique().execute();
  await db.schema.createIndex('account_roles_display_name_id').on('account_roles').columns(['account_id', 'display_name', 'id']).execute();
  await db.schema.createIndex('account_roles_create_time').on('account_roles').columns(['account_id', 'create_time', 'id']).execute();
  await addListVersionTriggers(db, 'account_roles', 'account_id');

  await db.schema
    .createTable('invitations')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('grants', json, (c) => c.notNull())
    .addColumn('website_ids', json, (c) => c.notNull())
    // Stored state: PENDING, ACCEPTED or REVOKED; EXPIRED is computed from expire_time.
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('expire_time', 'bigint', (c) => c.notNull())
    // SHA-256 of the token (hex); the token itself is only ever in the mail.
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('inviter_user_id', 'text')
    .addColumn('accept_time', 'bigint')
    .addColumn('accepted_user_id', 'text')
    .addColumn('send_count', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('invitations_pk', ['account_id', 'id'])
    .execute();
  await db.schema.createIndex('invitations_token_hash').on('invitations').column('token_hash').unique().execute();
  await db.schema.createIndex('invitations_create_time').on('invitations').columns(['account_id', 'create_time', 'id']).execute();
  await db.schema.createIndex('invitations_email').on('invitations').columns(['account_id', 'email', 'id']).execute();
  await addListVersionTriggers(db, 'invitations', 'account_id');

  // What an access check needs, in one row: the membership and its account role's grants.
  await db.schema
    .createView('membership_access')
    .as(
      db
        .selectFrom('memberships as m')
        .leftJoin('account_roles as r', (j) => j.onRef('r.account_id', '=', 'm.account_id').onRef('r.id', '=', 'm.account_role_id'))
        .select(['m.account_id', 'm.user_id', 'm.role', 'm.account_role_id', 'm.grants', 'm.website_ids', 'r.grants as role_grants']),
    )
    .execute();
}

export async function down(): Promise<void> {
  // Frozen: never rolled back.
}
