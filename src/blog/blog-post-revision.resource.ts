import type { Database } from '../platform/db/database.js';
import type { ResourceDecl } from '../platform/resource/declaration.js';
import type { ResourceService } from '../platform/resource/engine.js';
import { resourceSchema } from '../platform/resource/schemas.js';
import { existingIds, type IdTable } from './blog.repo.js';
import { BLOG_RIGHTS } from './blog.shared.js';
import { MAX_REVISIONS } from './blog-post.resource.js';

export const POSTS_PATH = 'websites/{website_id}/blog_posts';
export const REVISIONS_PATH = 'websites/{website_id}/blog_posts/{blog_post_id}/revisions';

/**
 * `blog_posts/{p}/revisions`: read-only history of a post, newest first. Each is the post as one content
 * write left it; `:restore` writes it back as a new write (which adds a revision of its own).
 */
export function blogPostRevisionResource(deps: { database: Database; services: () => Record<string, ResourceService>; post: ResourceDecl }): ResourceDecl {
  return {
    collection: 'revisions',
    singular: 'BlogPostRevision',
    pluralNoun: 'BlogPostRevisions',
    table: 'blog_post_revisions',
    parentTable: 'blog_posts',
    description:
      `Read-only history of a blog post: every write that changes what an editor writes (create, update, \`:restore\`) adds the post as it then ` +
      `stood, with who wrote it and when; the newest ${MAX_REVISIONS} are kept (older ones are dropped by the write that adds one). The id is the ` +
      "post's revision number at that write (`post_revision`). `:restore` adds one even when it changes nothing. State changes (`:publish`, a scheduled publish) and category membership set by `blog_categories:set_posts` add none.",
    collectionPath: REVISIONS_PATH,
    itemPath: `${REVISIONS_PATH}/{revision_id}`,
    fields: {
      post_revision: { type: 'integer', description: "The post's revision number this state had (the number its etag carried then).", behavior: ['OUTPUT_ONLY'], notNull: true },
      snapshot: {
        type: 'object',
        description: 'The post as that write left it: title, url_key, excerpt and content fields, images, SEO fields and the id lists (not its state).',
        behavior: ['OUTPUT_ONLY'],
        schema: { additionalProperties: true },
      },
      created_by: { type: 'string', description: 'Whose write produced it: `users/{user}`, or the AI run (`accounts/{a}/ai_executions/{e}`) or calendar entry an editorial draft came from.', behavior: ['OUTPUT_ONLY'], notNull: true },
    },
    filterable: ['create_time', 'created_by'],
    sortable: ['create_time', 'post_revision'],
    defaultOrder: 'post_revision desc',
    methods: ['list', 'get'],
    rights: BLOG_RIGHTS,
    customMethods: [
      {
        verb: 'restore',
        on: 'item',
        summary: 'Restore a blog post revision',
        description:
          "Writes the revision's fields back to the post (not its state), as one write: the post's etag changes and a new revision records the " +
          'restored state. Categories, tags, authors, media and views deleted since are left out. `etag` in the body (or `If-Match`) is the ' +
          "post's etag the restore is conditional on. Answers the post.",
        access: 'write',
        response: resourceSchema(deps.post),
        async handle(ctx, call) {
          const services = deps.services();
          const revision = await services[REVISIONS_PATH].get(ctx, call.params);
          const websiteId = call.params.website_id;
          const body = await stillExisting(websiteId, revision.snapshot as Record<string, unknown>);
          // The post's own Update: every rule, reference check, side table and the new revision apply;
          // fields the revision has no value for are cleared (update_mask).
          const { resource } = await services[POSTS_PATH].update(
            ctx,
            { website_id: websiteId, blog_post_id: call.params.blog_post_id },
            body,
            { updateMask: RESTORED.join(','), ifMatch: call.ifMatch },
          );
          return resource;
        },
      },
    ],
  };

  /** The snapshot without ids of rows deleted since (their Delete detached them from the post too). */
  async function stillExisting(websiteId: string, snapshot: Record<string, unknown>): Promise<Record<string, unknown>> {
    const body: Record<string, unknown> = {};
    for (const field of RESTORED) if (snapshot[field] !== undefined) body[field] = snapshot[field];
    for (const [field, table] of Object.entries(REFERENCED)) {
      const value = body[field];
      if (value === undefined || value === null) continue;
      const ids = Array.isArray(value) ? (value as string[]) : [value as string];
      if (!ids.length) continue;
      const found = await existingIds(deps.database.db, websiteId, table, ids);
      body[field] = Array.isArray(value) ? ids.filter((id) => found.has(id)) : found.has(value as string) ? value : null;
    }
    return body;
  }
}

/** Where the ids a revision holds live. */
const REFERENCED: Record<string, IdTable> = {
  author_ids: 'blog_authors',
  category_ids: 'blog_categories',
  tag_ids: 'blog_tags',
  visible_view_ids: 'views',
  feature_image_media_id: 'media',
  og_image_media_id: 'media',
};

/** Fields a restore writes (cleared when the revision has no value for them). */
const RESTORED = [
  'title', 'custom_excerpt', 'content', 'feature_image_alt', 'meta_title', 'meta_description', 'og_title', 'og_description',
  'url_key', 'feature_image_media_id', 'canonical_url', 'og_image_media_id', 'author_ids', 'category_ids', 'tag_ids', 'visible_view_ids',
];
