import type { ResolverSpec } from '../cms/index.js';
import { AUTHOR_CONTENT_FIELDS } from './blog-author.resource.js';
import { CATEGORY_CONTENT_FIELDS } from './blog-category.resource.js';
import { POST_CONTENT_FIELDS } from './blog-post.resource.js';
import { TAG_CONTENT_FIELDS } from './blog-tag.resource.js';

// The blog's overlaid resources, shared by its declarations (blog.area.ts), its rendered site
// (blog.site.ts) and its live-post readers (published-posts.ts): here rather than in blog.area.ts so
// the site does not import the area that imports it.

/** The overlaid blog resources: table, collection, path parameter, overridable fields, rich text. */
export const OVERLAID = [
  { singular: 'BlogPostView', table: 'blog_post_views', parent: 'blog_posts', param: 'blog_post_id', noun: 'blog post', fields: POST_CONTENT_FIELDS, richText: ['content', 'custom_excerpt'] },
  { singular: 'BlogCategoryView', table: 'blog_category_views', parent: 'blog_categories', param: 'blog_category_id', noun: 'blog category', fields: CATEGORY_CONTENT_FIELDS, richText: [] },
  { singular: 'BlogTagView', table: 'blog_tag_views', parent: 'blog_tags', param: 'blog_tag_id', noun: 'blog tag', fields: TAG_CONTENT_FIELDS, richText: [] },
  { singular: 'BlogAuthorView', table: 'blog_author_views', parent: 'blog_authors', param: 'blog_author_id', noun: 'blog author', fields: AUTHOR_CONTENT_FIELDS, richText: [] },
] as const;

/** Plain (not overlaid) fields each `:resolve` answers as stored. */
const PLAIN_FIELDS: Record<string, string[]> = {
  blog_posts: ['url_key', 'state', 'publish_time', 'visible_view_ids', 'author_ids', 'category_ids', 'tag_ids', 'feature_image_media_id', 'og_image_media_id', 'canonical_url'],
  blog_categories: ['url_key'],
  blog_tags: ['url_key'],
  blog_authors: ['url_key', 'avatar_media_id', 'user_id'],
};

/** How each overlaid blog resource is read as a view sees it (`:resolve`, and the rendered site's reads). */
export const BLOG_RESOLVER_SPECS: Record<string, ResolverSpec> = Object.fromEntries(
  OVERLAID.map((o) => [
    o.parent,
    {
      table: o.parent,
      overlayTable: o.table,
      overlayParent: o.param,
      param: o.param,
      collection: o.parent,
      contentFields: Object.keys(o.fields),
      plainFields: PLAIN_FIELDS[o.parent],
    },
  ]),
);
