import type { SqlDialect } from '../platform/db/database.js';
import { FailedPrecondition, InvalidArgument } from '../platform/errors.js';
import type { CustomMethodDecl, FieldDecl, ResourceDecl, Row, WriteContext } from '../platform/resource/declaration.js';
import { resourceSchema } from '../platform/resource/schemas.js';
import { uniqueKeyLock, type ResourceService } from '../platform/resource/engine.js';
import { placeNewInTree, treeMoveMethod, type TreeSpec } from '../platform/resource/tree.js';
import { slugOf, URL_KEY_PATTERN } from '../cms/index.js';
import type { PageResolver } from '../cms/index.js';
import { CATEGORY_LINKS, categoryPostIds, countLinkedPosts, detachFromPosts, existingPostIds, hasChildCategory, replaceCategoryPosts, subtreeIds, urlKeyTaken, type TaxonomyTable } from './blog.repo.js';
import { BLOG_RIGHTS, freeDerivedKey } from './blog.shared.js';
import { resolveMethod } from './blog-taxonomy.js';

/** Deepest category level (root 0). */
export const MAX_CATEGORY_LEVEL = 7;
/** Most posts one `:set_posts` call names. */
export const MAX_SET_POSTS = 1000;

const treeOf = (row: Row): TreeSpec => ({ table: 'blog_categories', scope: { website_id: row.website_id }, maxLevel: MAX_CATEGORY_LEVEL });

/**
 * A category's, tag's or author's url_key when absent: from the display name, suffixed while taken.
 * Each candidate is locked under the engine's `uniqueInParent` key before it is checked, so two
 * concurrent writes get different suffixes; a key the client sent is the engine's check alone
 * (ALREADY_EXISTS naming url_key).
 */
export async function deriveUrlKey(ctx: WriteContext, dialect: SqlDialect, table: TaxonomyTable, row: Row): Promise<void> {
  if (row.url_key) return;
  row.url_key = await freeDerivedKey(slugOf(row.display_name), row.id, async (candidate) => {
    await dialect.lockKey(ctx.trx, uniqueKeyLock(table, 'url_key', [row.website_id], candidate));
    return !(await urlKeyTaken(ctx.trx, row.website_id, table, row.id, candidate));
  });
}

/** The `url_key` field of categories, tags and authors: unique per website, derived from the display name when absent. */
export const slugField = (what: string, example: string): FieldDecl => ({
  type: 'string',
  description: `URL segment of the ${what} (lowercase letters, digits, \`.\`, \`_\`, \`-\`); derived from the display name when absent (and when cleared), with \`-2\`, \`-3\`, … appended when that is taken. Unique per website: a url_key sent that is taken is ALREADY_EXISTS.`,
  pattern: URL_KEY_PATTERN,
  maxLength: 255,
  trim: true,
  uniqueInParent: true,
  notNull: true,
  example,
});

/** Fields of a category a view overlay may replace. */
export const CATEGORY_CONTENT_FIELDS: Record<string, FieldDecl> = {
  display_name: { type: 'string', description: 'Name of the category.', maxLength: 255, trim: true, notBlank: true, example: 'Recipes' },
  description: { type: 'string', description: 'Description (plain text).', maxLength: 5000, trim: true },
  meta_title: { type: 'string', description: 'SEO `<title>` of the category page; the display name when absent.', maxLength: 255, trim: true },
  meta_description: { type: 'string', description: 'SEO meta description of the category page.', maxLength: 1024, trim: true },
};

/**
 * Blog categories: a tree (`parent_id`, `path`, `level`, `sort_order`, `:move`) like media folders;
 * `:set_posts` replaces the posts of one category and their order.
 */
export function blogCategoryResource(deps: { dialect: SqlDialect; resolver: PageResolver; services: () => Record<string, ResourceService> }): ResourceDecl {
  const { dialect } = deps;
  const setPosts: CustomMethodDecl = {
    verb: 'set_posts',
    on: 'item',
    summary: 'Replace the posts of a blog category',
    description:
      `Makes \`post_ids\` (at most ${MAX_SET_POSTS}, posts of the same website, no duplicates) exactly the posts of the category, in that order, in ` +
      'one transaction: posts left out lose the category from `category_ids`, posts named gain it. One unknown id writes nothing and answers ' +
      "INVALID_ARGUMENT naming `post_ids[i]`. Answers the category (as `:move` does), with its new etag; read its posts in order, page by page, with " +
      '`GET …/blog_categories/{c}/posts`. `If-Match` (or `etag`) is conditional on the category.',
    access: 'write',
    body: {
      required: ['post_ids'],
      properties: {
        post_ids: {
          type: 'array',
          maxItems: MAX_SET_POSTS,
          items: { type: 'string', minLength: 1, maxLength: 64 },
          description: 'The posts of the category, in order.',
        },
      },
    },
    async handle(ctx, call) {
      const postIds = call.body.post_ids as string[];
      const seen = new Map<string, number>();
      postIds.forEach((id, i) => {
        if (seen.has(id)) throw InvalidArgument.field(`post_ids[${i}]`, `${id} is listed twice (also at post_ids[${seen.get(id)}])`);
        seen.set(id, i);
      });
      let ids: string[] = [];
      const service = deps.services().blog_categories;
      const resource = await service.mutate(
        ctx,
        call.params,
        async (wctx, next) => {
          const known = await existingPostIds(wctx.trx, next.website_id, postIds);
          const unknown = postIds.findIndex((id) => !known.has(id));
          if (unknown >= 0) throw InvalidArgument.field(`post_ids[${unknown}]`, `${postIds[unknown]} is not a blog post of this website`);
          await replaceCategoryPosts(wctx.trx, dialect, next.website_id, next.id, postIds, wctx.now);
          ids = await categoryPostIds(wctx.trx, next.website_id, next.id, MAX_SET_POSTS);
        },
        { ifMatch: call.ifMatch },
      );
      // `post_ids` stays in the answer for clients of the earlier shape (SPEC 9: deprecated, kept for v1).
      return { ...resource, post_ids: ids };
    },
  };
  const decl: ResourceDecl = {
    collection: 'blog_categories',
    singular: 'BlogCategory',
    table: 'blog_categories',
    description:
      'A category of blog posts. Categories form a tree (materialised path, like media folders): `parent_id` is set on create and changed only by ' +
      '`:move`. `:set_posts` replaces the set and order of the posts in the category. Delete of a category with sub-categories or posts answers ' +
      'FAILED_PRECONDITION (`CATEGORY_NOT_EMPTY`) unless `force=true`, which deletes the category with its whole subtree and removes them from ' +
      'every post (`category_ids`); the posts themselves stay. Per-view overlays live in `blog_categories/{c}/views`.',
    collectionPath: 'websites/{website_id}/blog_categories',
    itemPath: 'websites/{website_id}/blog_categories/{blog_category_id}',
    fields: {
      ...CATEGORY_CONTENT_FIELDS,
      display_name: { ...CATEGORY_CONTENT_FIELDS.display_name, behavior: ['REQUIRED'] },
      url_key: slugField('category', 'recipes'),
      parent_id: {
        type: 'string',
        description: 'Parent category; absent at the root. Settable on create; afterwards changed only by `:move`.',
        behavior: ['IMMUTABLE'],
        maxLength: 64,
      },
      path: { type: 'string', description: 'Ids of the ancestors and the category joined by `/`; sorting by it lists the tree depth-first.', behavior: ['OUTPUT_ONLY'], notNull: true },
      level: { type: 'integer', description: `Depth; a root category is 0 (at most ${MAX_CATEGORY_LEVEL}).`, behavior: ['OUTPUT_ONLY'], notNull: true },
      sort_order: { type: 'integer', description: 'Position among its siblings (0 first); new categories come last; set by `:move`.', behavior: ['OUTPUT_ONLY'], notNull: true },
    },
    filterable: ['create_time', 'display_name', 'url_key', 'parent_id', 'path', 'level'],
    sortable: ['create_time', 'display_name', 'path', 'level', 'sort_order'],
    defaultOrder: 'path asc',
    methods: ['list', 'get', 'create', 'update', 'delete'],
    options: { clientId: true, validateOnly: true, force: true },
    rights: BLOG_RIGHTS,
    hooks: {
      async beforeCreate(ctx, row) {
        await deriveUrlKey(ctx, dialect, 'blog_categories', row);
        await placeNewInTree(ctx.trx, treeOf(row), row);
      },
      async beforeUpdate(ctx, next) {
        await deriveUrlKey(ctx, dialect, 'blog_categories', next);
      },
      async beforeDelete(ctx, row, force) {
        if (!force) {
          const posts = await countLinkedPosts(ctx.trx, row.website_id, CATEGORY_LINKS, row.id);
          if (posts > 0 || (await hasChildCategory(ctx.trx, row.website_id, row.id))) {
            throw new FailedPrecondition('CATEGORY_NOT_EMPTY', `category ${row.id} has sub-categories or posts; delete with force=true to delete its subtree and remove it from its posts`);
          }
          return;
        }
        // The category itself is detached by the area's reference; its descendants go by cascade, so detach them here.
        const below = (await subtreeIds(ctx.trx, row.website_id, row.path)).filter((id) => id !== row.id);
        await detachFromPosts(ctx.trx, dialect, row.website_id, CATEGORY_LINKS, below, ctx.now);
      },
    },
    customMethods: [
      treeMoveMethod({
        summary: 'Move a blog category (and its subtree)',
        description: 'Puts the category under `parent_id` (absent or null: the root) right after its sibling `after_id` (absent or null: first).',
        treeOf,
      }),
      setPosts,
      resolveMethod('category', 'BlogCategory', deps.resolver, Object.keys(CATEGORY_CONTENT_FIELDS).concat(['url_key']), Object.keys(CATEGORY_CONTENT_FIELDS)),
    ],
  };
  // The category as Get answers it, plus the deprecated `post_ids` of the earlier answer.
  const category = resourceSchema(decl);
  setPosts.response = {
    ...category,
    $id: 'SetBlogCategoryPostsResponse',
    description: 'The category (as `:move` answers it), and the deprecated `post_ids`.',
    properties: {
      ...(category.properties as Record<string, unknown>),
      post_ids: {
        type: 'array',
        maxItems: MAX_SET_POSTS,
        items: { type: 'string', maxLength: 64 },
        deprecated: true,
        description: 'Deprecated: read the posts in order with `GET …/blog_categories/{c}/posts` (paged). The posts, in order.',
      },
    },
  };
  return decl;
}
