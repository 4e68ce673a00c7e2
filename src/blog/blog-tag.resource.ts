import type { SqlDialect } from '../platform/db/database.js';
import type { FieldDecl, ResourceDecl } from '../platform/resource/declaration.js';
import type { PageResolver } from '../cms/index.js';
import { BLOG_RIGHTS } from './blog.shared.js';
import { deriveUrlKey, slugField } from './blog-category.resource.js';
import { resolveMethod } from './blog-taxonomy.js';

/** Fields of a tag a view overlay may replace. */
export const TAG_CONTENT_FIELDS: Record<string, FieldDecl> = {
  display_name: { type: 'string', description: 'Name of the tag.', maxLength: 255, trim: true, notBlank: true, example: 'Sourdough' },
  description: { type: 'string', description: 'Description (plain text).', maxLength: 5000, trim: true },
};

/** Blog tags: flat labels of posts. Deleting one removes it from every post in the same transaction. */
export function blogTagResource(deps: { dialect: SqlDialect; resolver: PageResolver }): ResourceDecl {
  return {
    collection: 'blog_tags',
    singular: 'BlogTag',
    table: 'blog_tags',
    description:
      'A tag of blog posts. Deleting a tag removes it from every post (`tag_ids`) in the same transaction. Per-view overlays live in `blog_tags/{t}/views`.',
    collectionPath: 'websites/{website_id}/blog_tags',
    itemPath: 'websites/{website_id}/blog_tags/{blog_tag_id}',
    fields: {
      ...TAG_CONTENT_FIELDS,
      display_name: { ...TAG_CONTENT_FIELDS.display_name, behavior: ['REQUIRED'] },
      url_key: slugField('tag', 'sourdough'),
    },
    filterable: ['create_time', 'display_name', 'url_key'],
    sortable: ['create_time', 'display_name'],
    defaultOrder: 'display_name asc',
    methods: ['list', 'get', 'create', 'update', 'delete'],
    options: { clientId: true, validateOnly: true },
    rights: BLOG_RIGHTS,
    hooks: {
      beforeCreate: (ctx, row) => deriveUrlKey(ctx, deps.dialect, 'blog_tags', row),
      beforeUpdate: (ctx, next) => deriveUrlKey(ctx, deps.dialect, 'blog_tags', next),
    },
    customMethods: [resolveMethod('tag', 'BlogTag', deps.resolver, ['display_name', 'description', 'url_key'], Object.keys(TAG_CONTENT_FIELDS))],
  };
}
