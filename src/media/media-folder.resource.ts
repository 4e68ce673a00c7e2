import { read, write } from '../platform/auth/rights.js';
import { FailedPrecondition } from '../platform/errors.js';
import type { ResourceDecl, Row } from '../platform/resource/declaration.js';
import { placeNewInTree, treeMoveMethod, type TreeSpec } from '../platform/resource/tree.js';
import { deleteMediaInFolders, firstChildFolder, firstMediaInFolder, folderSubtreeIds, mediaInFolders } from './media.repo.js';
import { mediaBlobPrefix } from './media.resource.js';

/** Deepest folder level (root 0): 16 levels is deeper than any library we know of, and bounds `path`. */
export const MAX_FOLDER_LEVEL = 15;

const treeOf = (row: Row): TreeSpec => ({
  table: 'media_folders',
  scope: { account_id: row.account_id, website_id: row.website_id },
  maxLevel: MAX_FOLDER_LEVEL,
});

/** A range over the subtree below `path` (`/` sorts right before `0`, see tree.ts). */
const belowPath = (path: string): [string, string] => [`${path}/`, `${path}0`];

export interface MediaFolderDeps {
  /** Removes every blob under a prefix; runs after the delete commits. */
  deleteBlobs(prefix: string): Promise<void>;
}

/**
 * Folders of a website's media library: a tree (`parent_id`, `path`, `level`, `sort_order`)
 * rearranged only by `:move`. Delete of a non-empty folder needs `force` (AIP-135), which deletes
 * the folder's subtree and every media in it, blobs included.
 */
export function mediaFolderResource(deps: MediaFolderDeps): ResourceDecl {
  return {
    collection: 'media_folders',
    singular: 'MediaFolder',
    table: 'media_folders',
    description:
      'A folder of the media library. `parent_id` is set on create and changed only by `:move`, which also rewrites `path`, `level` and `sort_order` of the folder and its whole subtree. Delete of a folder holding folders or media answers FAILED_PRECONDITION (`FOLDER_NOT_EMPTY`) unless `force=true`, which deletes the subtree and its media.',
    collectionPath: 'websites/{website_id}/media_folders',
    itemPath: 'websites/{website_id}/media_folders/{media_folder_id}',
    fields: {
      display_name: { type: 'string', description: 'Name of the folder.', behavior: ['REQUIRED'], maxLength: 255, trim: true, notBlank: true },
      parent_id: {
        type: 'string',
        description: 'The folder holding this one; absent at the root. Settable on create; afterwards changed only by `:move`.',
        behavior: ['IMMUTABLE'],
        maxLength: 64,
      },
      path: { type: 'string', description: 'Ids of the ancestors and the folder itself, joined by `/`; sorting by it lists the tree depth-first.', behavior: ['OUTPUT_ONLY'], notNull: true },
      level: { type: 'integer', description: `Depth; a root folder is 0 (at most ${MAX_FOLDER_LEVEL}).`, behavior: ['OUTPUT_ONLY'], notNull: true },
      sort_order: { type: 'integer', description: 'Position among its siblings (0 first); new folders come last; set by `:move`.', behavior: ['OUTPUT_ONLY'], notNull: true },
    },
    filterable: ['display_name', 'level', 'parent_id', 'path'],
    sortable: ['display_name', 'level', 'parent_id', 'path', 'sort_order'],
    defaultOrder: 'path asc',
    methods: ['list', 'get', 'create', 'update', 'delete'],
    options: { validateOnly: true, force: true },
    rights: { read: read('website.media'), write: write('website.media') },
    hooks: {
      async beforeCreate(ctx, row) {
        await placeNewInTree(ctx.trx, treeOf(row), row);
      },
      async beforeDelete(ctx, row, force) {
        const [from, to] = belowPath(row.path);
        const inSubtree = folderSubtreeIds(ctx.trx, row.website_id, row.id, from, to);
        if (!force) {
          const child = await firstChildFolder(ctx.trx, row.website_id, row.id);
          const media = await firstMediaInFolder(ctx.trx, row.website_id, row.id);
          if (child || media) {
            throw new FailedPrecondition('FOLDER_NOT_EMPTY', `folder ${row.id} holds folders or media; delete with force=true to delete them too`);
          }
          return;
        }
        // The media go first (their rows reference the folders); the subtree's folders follow the
        // folder through the parent_id cascade. Blobs are removed once the delete committed.
        const doomed = await mediaInFolders(ctx.trx, row.website_id, inSubtree);
        if (doomed.length > 0) {
          await deleteMediaInFolders(ctx.trx, row.website_id, inSubtree);
          ctx.afterCommit(async () => {
            for (const media of doomed) await deps.deleteBlobs(mediaBlobPrefix(row.website_id, media.id));
          });
        }
      },
    },
    customMethods: [
      treeMoveMethod({
        summary: 'Move a MediaFolder',
        description: 'Moves the folder (with its whole subtree) under `parent_id` (absent or null: the root), right after the sibling `after_id` (absent or null: first among the new siblings).',
        treeOf,
      }),
    ],
  };
}
