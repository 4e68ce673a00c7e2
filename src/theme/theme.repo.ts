import type { Insertable } from 'kysely';
import type { DB, Db, Trx } from '../platform/db/schema.js';

/** Statements over `themes` (one row per website, `themes.id` is the website id). */

/** Columns of the theme that point at other areas' rows. */
export type ThemeReferenceField = 'logo_media_id' | 'favicon_media_id' | 'main_menu_id' | 'footer_block_id';

/** Whether the website's theme points at `id` through `field`. */
export async function themeRefersTo(db: Db | Trx, websiteId: string, field: ThemeReferenceField, id: string): Promise<boolean> {
  const row = await db.selectFrom('themes').select('id').where('id', '=', websiteId).where(field, '=', id).executeTakeFirst();
  return row !== undefined;
}

/** Clears `field` where it points at `id` (a new revision of the theme). */
export async function clearThemeReference(db: Db | Trx, websiteId: string, field: ThemeReferenceField, id: string, now: number): Promise<void> {
  await db
    .updateTable('themes')
    .set((eb) => ({ [field]: null, revision: eb('revision', '+', 1), update_time: now }))
    .where('id', '=', websiteId)
    .where(field, '=', id)
    .execute();
}

/** Inserts the website's theme unless it exists (provisioning may run again after a crash). */
export async function insertThemeOnce(db: Db | Trx, values: Insertable<DB['themes']>): Promise<void> {
  await db
    .insertInto('themes')
    .values(values)
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

/** What the rendered site reads of the theme. */
export function siteThemeRow(db: Db | Trx, websiteId: string, accountId: string) {
  return db
    .selectFrom('themes')
    .select(['variables', 'logo_media_id', 'favicon_media_id', 'main_menu_id', 'footer_block_id'])
    .where('id', '=', websiteId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}
