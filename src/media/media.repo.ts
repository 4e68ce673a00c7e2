import type { Db, Trx } from '../platform/db/schema.js';
import { MEDIA_REQUIRE_SIGNATURE_PATH, WEBSITE_SCOPE, websiteSettingValueQuery } from '../settings/index.js';

/**
 * The media library's SQL: media rows and their folders. No rules here; every function takes the
 * executor first so it runs inside the caller's transaction.
 */

/** The ids of a folder and every folder below it, as a subquery (`path` orders the tree: `[from, to)` is the subtree). */
export function folderSubtreeIds(db: Db | Trx, websiteId: string, folderId: string, from: string, to: string) {
  return db
    .selectFrom('media_folders')
    .select('id')
    .where('website_id', '=', websiteId)
    .where((eb) => eb.or([eb('id', '=', folderId), eb.and([eb('path', '>=', from), eb('path', '<', to)])]));
}

/** One child folder of a folder, if any. */
export function firstChildFolder(db: Db | Trx, websiteId: string, folderId: string) {
  return db.selectFrom('media_folders').select('id').where('website_id', '=', websiteId).where('parent_id', '=', folderId).limit(1).executeTakeFirst();
}

/** One media file of a folder, if any. */
export function firstMediaInFolder(db: Db | Trx, websiteId: string, folderId: string) {
  return db.selectFrom('media').select('id').where('website_id', '=', websiteId).where('folder_id', '=', folderId).limit(1).executeTakeFirst();
}

/** The media files in the folders of `folderIds` (a subquery). */
export function mediaInFolders(db: Db | Trx, websiteId: string, folderIds: ReturnType<typeof folderSubtreeIds>) {
  return db.selectFrom('media').select('id').where('website_id', '=', websiteId).where('folder_id', 'in', folderIds).execute();
}

/** Deletes the media files in the folders of `folderIds` (a subquery). */
export async function deleteMediaInFolders(db: Db | Trx, websiteId: string, folderIds: ReturnType<typeof folderSubtreeIds>): Promise<void> {
  await db.deleteFrom('media').where('website_id', '=', websiteId).where('folder_id', 'in', folderIds).execute();
}

/** The media file of the website with this filename, if any. */
export function mediaByFilename(db: Db | Trx, websiteId: string, filename: string) {
  return db.selectFrom('media').select('id').where('website_id', '=', websiteId).where('filename', '=', filename).executeTakeFirst();
}

/** What the rendered site needs of some media files of a website. */
export function siteImageRows(db: Db | Trx, websiteId: string, ids: readonly string[]) {
  return db
    .selectFrom('media')
    .select(['id', 'filename', 'mime_type', 'width', 'height', 'alt_text'])
    .where('website_id', '=', websiteId)
    .where('id', 'in', ids)
    .execute();
}

/**
 * The public transformed read's lookup, compiled once with placeholder ids (`\u0000website`,
 * `\u0000media`): the media row and, from its primary key, the website's signature setting, so the
 * hot path costs one statement.
 */
export function compilePublicLookup(db: Db) {
  return db
    .selectFrom('media')
    .select((eb) => [
      'media.id',
      'media.website_id',
      'media.filename',
      'media.mime_type',
      'media.storage_path',
      'media.file_size',
      'media.is_image',
      'media.width',
      'media.height',
      'media.create_time',
      websiteSettingValueQuery(db, eb.ref('media.website_id'), WEBSITE_SCOPE, MEDIA_REQUIRE_SIGNATURE_PATH).as('require_signature'),
    ])
    .where('media.website_id', '=', '\u0000website')
    .where('media.id', '=', '\u0000media')
    .compile();
}
