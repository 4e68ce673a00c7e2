import type { Expression, Selectable } from 'kysely';
import type { SqlDialect } from '../platform/db/database.js';
import type { Db, DB, Trx } from '../platform/db/schema.js';

/** Statements over `settings`: one row per written path, per website (`scope_id` '') or view (`scope_id` the view id). */

export type SettingRow = Selectable<DB['settings']>;

/** Inserts a website-level setting unless the path is already stored (provisioning; a re-run does nothing). */
export async function insertSettingOnce(
  db: Db | Trx,
  row: { websiteId: string; accountId: string; path: string; value: string; now: number },
): Promise<void> {
  await db
    .insertInto('settings')
    .values({ website_id: row.websiteId, scope_id: '', path: row.path, account_id: row.accountId, value: row.value, revision: 1, create_time: row.now, update_time: row.now })
    .onConflict((oc) => oc.columns(['website_id', 'scope_id', 'path']).doNothing())
    .execute();
}

/** Stored rows of the account's website in `scopeIds`, optionally of one path. */
export async function storedSettings(db: Db | Trx, accountId: string, websiteId: string, scopeIds: string[], path?: string): Promise<SettingRow[]> {
  let query = db.selectFrom('settings').selectAll().where('account_id', '=', accountId).where('website_id', '=', websiteId).where('scope_id', 'in', scopeIds);
  if (path) query = query.where('path', '=', path);
  return query.execute();
}

/**
 * A never-written path gets its row first (revision 0 = still the default), so concurrent first
 * writes meet on the primary key and then queue on the row lock.
 */
export async function insertDefaultRowOnce(trx: Db | Trx, key: { websiteId: string; scopeId: string; path: string; accountId: string }, now: number): Promise<void> {
  await trx
    .insertInto('settings')
    .values({ website_id: key.websiteId, scope_id: key.scopeId, path: key.path, account_id: key.accountId, value: null, revision: 0, create_time: now, update_time: now })
    .onConflict((oc) => oc.columns(['website_id', 'scope_id', 'path']).doNothing())
    .execute();
}

/** The row of one path, locked until the transaction ends (it exists: `insertDefaultRowOnce` ran). */
export async function lockSetting(trx: Db | Trx, dialect: SqlDialect, key: { websiteId: string; scopeId: string; path: string; accountId: string }): Promise<SettingRow> {
  return dialect
    .forUpdate(
      trx
        .selectFrom('settings')
        .selectAll()
        .where('website_id', '=', key.websiteId)
        .where('scope_id', '=', key.scopeId)
        .where('path', '=', key.path)
        .where('account_id', '=', key.accountId),
    )
    .executeTakeFirstOrThrow();
}

export async function updateSetting(
  trx: Db | Trx,
  key: { websiteId: string; scopeId: string; path: string },
  next: { value: string | null; revision: number; create_time: number; update_time: number },
): Promise<void> {
  await trx
    .updateTable('settings')
    .set({ value: next.value, revision: next.revision, create_time: next.create_time, update_time: next.update_time })
    .where('website_id', '=', key.websiteId)
    .where('scope_id', '=', key.scopeId)
    .where('path', '=', key.path)
    .execute();
}

/** Overrides a view holds (rows with a value). */
export async function countViewOverrides(db: Db | Trx, websiteId: string, viewId: string): Promise<number> {
  const row = await db
    .selectFrom('settings')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('website_id', '=', websiteId)
    .where('scope_id', '=', viewId)
    .where('value', 'is not', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function deleteViewOverrides(db: Db | Trx, websiteId: string, viewId: string): Promise<void> {
  await db.deleteFrom('settings').where('website_id', '=', websiteId).where('scope_id', '=', viewId).execute();
}

/** The stored value of a website-level setting (undefined: never written), undecoded. */
export async function websiteSettingValue(db: Db | Trx, websiteId: string, path: string): Promise<unknown> {
  const row = await db.selectFrom('settings').select('value').where('website_id', '=', websiteId).where('scope_id', '=', '').where('path', '=', path).executeTakeFirst();
  return row?.value;
}

/**
 * The stored value of one website-level setting of the website `websiteId` names, as a scalar
 * subquery another area embeds in its own statement (media's public read decides on the signature
 * setting in the same statement that finds the file). Null when never written.
 */
export function websiteSettingValueQuery(db: Db | Trx, websiteId: Expression<string>, scopeId: string, path: string) {
  return db.selectFrom('settings').select('settings.value').where('settings.website_id', '=', websiteId).where('settings.scope_id', '=', scopeId).where('settings.path', '=', path);
}
