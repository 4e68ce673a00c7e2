import { InvalidArgument } from '../platform/errors.js';
import type { SqlDialect } from '../platform/db/database.js';
import type { FieldDecl, ResourceDecl } from '../platform/resource/declaration.js';
import type { PageResolver } from '../cms/index.js';
import { isMember } from '../access/index.js';
import { BLOG_RIGHTS } from './blog.shared.js';
import { deriveUrlKey, slugField } from './blog-category.resource.js';
import { resolveMethod } from './blog-taxonomy.js';

/** Fields of an author a view overlay may replace. */
export const AUTHOR_CONTENT_FIELDS: Record<string, FieldDecl> = {
  display_name: { type: 'string', description: 'Name shown with the posts.', maxLength: 255, trim: true, notBlank: true, example: 'Ada Baker' },
  bio: { type: 'string', description: 'Short biography (plain text).', maxLength: 5000, trim: true },
};

/** Blog authors: bylines of posts, optionally a platform user. Deleting one removes it from every post. */
export function blogAuthorResource(deps: { dialect: SqlDialect; resolver: PageResolver }): ResourceDecl {
  return {
    collection: 'blog_authors',
    singular: 'BlogAuthor',
    table: 'blog_authors',
    description:
      'An author of blog posts (a byline; optionally the platform user it is). Deleting an author removes it from every post (`author_ids`) in the ' +
      'same transaction. Per-view overlays live in `blog_authors/{a}/views`.',
    collectionPath: 'websites/{website_id}/blog_authors',
    itemPath: 'websites/{website_id}/blog_authors/{blog_author_id}',
    fields: {
      ...AUTHOR_CONTENT_FIELDS,
      display_name: { ...AUTHOR_CONTENT_FIELDS.display_name, behavior: ['REQUIRED'] },
      url_key: slugField('author', 'ada-baker'),
      avatar_media_id: {
        type: 'string',
        description: 'Media item of the same website used as the avatar (else INVALID_ARGUMENT); cleared when the media item is deleted.',
        maxLength: 64,
        refersTo: { table: 'media', what: 'a media item' },
      },
      user_id: {
        type: 'string',
        description: "The platform user this author is: a member of the website's account (else INVALID_ARGUMENT). Optional.",
        maxLength: 64,
      },
    },
    filterable: ['create_time', 'display_name', 'url_key', 'user_id'],
    sortable: ['create_time', 'display_name'],
    defaultOrder: 'display_name asc',
    methods: ['list', 'get', 'create', 'update', 'delete'],
    options: { clientId: true, validateOnly: true },
    rights: BLOG_RIGHTS,
    hooks: {
      async beforeCreate(ctx, row) {
        await deriveUrlKey(ctx, deps.dialect, 'blog_authors', row);
        if (row.user_id && !(await isMember(ctx.trx, row.account_id, row.user_id))) throw InvalidArgument.field('user_id', `${row.user_id} is not a member of this account`);
      },
      async beforeUpdate(ctx, next, previous) {
        await deriveUrlKey(ctx, deps.dialect, 'blog_authors', next);
        if (next.user_id && next.user_id !== previous.user_id && !(await isMember(ctx.trx, next.account_id, next.user_id))) {
          throw InvalidArgument.field('user_id', `${next.user_id} is not a member of this account`);
        }
      },
    },
    customMethods: [resolveMethod('author', 'BlogAuthor', deps.resolver, ['display_name', 'bio', 'url_key', 'avatar_media_id', 'user_id'], Object.keys(AUTHOR_CONTENT_FIELDS))],
  };
}
