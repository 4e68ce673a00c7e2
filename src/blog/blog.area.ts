import type { Area, Reference } from '../platform/area.js';
import type { SqlDialect } from '../platform/db/database.js';
import { ApiError, Internal, NotFound } from '../platform/errors.js';
import type { ResourceService } from '../platform/resource/engine.js';
import type { OperationRun } from '../platform/jobs/operations.js';
import { createResolver, overlayReference, overlayResource, visibleViewsReference } from '../cms/index.js';
import { draftPostsOnlyIn } from './blog.repo.js';
import { blogAuthorResource } from './blog-author.resource.js';
import { registerCategoryPostsRoute } from './category-posts.routes.js';
import { blogCategoryResource } from './blog-category.resource.js';
import { blogPostResource, PUBLISH_SCHEDULED_POST } from './blog-post.resource.js';
import { blogPostRevisionResource } from './blog-post-revision.resource.js';
import { blogTagResource } from './blog-tag.resource.js';
import { BLOG_RESOLVER_SPECS, OVERLAID } from './blog-overlaid.js';
import {
  AUTHOR_LINKS,
  CATEGORY_LINKS,
  clearMediaColumn,
  countLinkedPosts,
  countMediaColumn,
  detachFromPosts,
  scheduleOf,
  TAG_LINKS,
  type LinkSpec,
  type MediaColumn,
} from './blog.repo.js';
import { BLOG_RIGHTS } from './blog.shared.js';
import { blogSite } from './blog.site.js';

/** Thrown inside the scheduled publish's write when the post is no longer due: rolls it back, writes nothing. */
class NotScheduled {}

/**
 * The scheduled publish: PUBLISHED only while the post is still SCHEDULED for exactly that time, so
 * a rescheduled, unpublished or deleted post makes an old Operation a no-op, and a run repeated after
 * a crash changes nothing. Written through the engine like every other publish (`:publish`, Update,
 * editorial), so it records `blog_post.updated` and `blog_post.published` in its transaction.
 * Answers whether this call published it.
 */
async function publishIfScheduled(posts: ResourceService, accountId: string, websiteId: string, postId: string, publishTime: number): Promise<boolean> {
  const ctx = {
    requestId: `scheduled_publish_${postId}`,
    caller: { userId: 'platform' },
    now: Date.now(),
    access: { accountId, websiteId, role: 'roles/administrator', administrator: true },
  };
  try {
    await posts.mutate(ctx, { website_id: websiteId, blog_post_id: postId }, (_ctx, next, previous) => {
      if (previous.state !== 'SCHEDULED' || Number(previous.publish_time) !== publishTime) throw new NotScheduled();
      next.state = 'PUBLISHED';
    });
    return true;
  } catch (error) {
    if (error instanceof NotScheduled || error instanceof NotFound) return false;
    throw error;
  }
}

/** Wait before a scheduled publish that failed on the database is tried again. */
const PUBLISH_RETRY_MS = 5_000;

/** Blog: posts (scheduled publishing, revisions), categories (tree), tags and authors, each with per-view overlays. */
export const blogArea: Area = {
  name: 'blog',
  resources: (deps) => {
    const { dialect } = deps.database;
    const resolvers = Object.fromEntries(OVERLAID.map((o) => [o.parent, createResolver(deps.database, BLOG_RESOLVER_SPECS[o.parent])]));
    const services = () => deps.services;
    const post = blogPostResource({ dialect, operations: deps.operations, resolver: resolvers.blog_posts });
    return [
      post,
      blogPostRevisionResource({ database: deps.database, services, post }),
      blogCategoryResource({ dialect, resolver: resolvers.blog_categories, services }),
      blogTagResource({ dialect, resolver: resolvers.blog_tags }),
      blogAuthorResource({ dialect, resolver: resolvers.blog_authors }),
      ...OVERLAID.map((o) =>
        overlayResource({
          singular: o.singular,
          table: o.table,
          parentTable: o.parent,
          parentCollection: o.parent,
          parentParam: o.param,
          noun: o.noun,
          fields: o.fields,
          richText: o.richText,
          dialect,
          rights: BLOG_RIGHTS,
        }),
      ),
    ];
  },
  // A category's manual post order, read back page by page (the category resource cannot carry 100 000 ids).
  tenantRoutes: (app, deps) => registerCategoryPostsRoute(app, deps),
  jobs: (operations, deps) => {
    const db = deps.database.db;
    const republish = (op: OperationRun, runAfter: number) =>
      operations.enqueue(db, { type: PUBLISH_SCHEDULED_POST, accountId: op.accountId, websiteId: op.websiteId, payload: op.payload, step: 'WAITING_FOR_PUBLISH_TIME', runAfter }, Date.now());
    operations.register(PUBLISH_SCHEDULED_POST, {
      async run(op) {
        const websiteId = op.websiteId;
        if (!websiteId) throw new Internal('a scheduled publish without a website');
        const postId = String(op.payload.blog_post_id);
        const publishTime = Number(op.payload.publish_time);
        try {
          const post = await scheduleOf(db, websiteId, postId);
          // Published at this very time already: a rerun after its worker died past the publish (or a
          // twin Operation for the same time) reports the outcome without writing again.
          if (post?.state === 'PUBLISHED' && post.publish_time === publishTime) return { published: true };
          // Rescheduled, unpublished, published by hand or deleted since: this Operation has nothing to do.
          if (!post || post.state !== 'SCHEDULED' || post.publish_time !== publishTime) return { published: false };
          // Claimed early (clocks of several workers): wait for the time without holding a worker.
          if (publishTime > Date.now()) op.deferUntil(publishTime);
          await op.setStep('PUBLISHING');
          return { published: await publishIfScheduled(deps.services.blog_posts, op.accountId, websiteId, postId, publishTime) };
        } catch (error) {
          // A database hiccup (locked, connection lost) must not end the Operation with an error and
          // leave the post SCHEDULED for ever (WordPress's "missed schedule"): try again shortly. The
          // publish is conditional, so a retry after a write that did land changes nothing.
          if (error instanceof ApiError || !(error instanceof Error)) throw error;
          op.deferUntil(Date.now() + PUBLISH_RETRY_MS);
        }
      },
      async onFailure(op, error) {
        // Given up after its worker died MAX_ATTEMPTS times mid-run: a fresh Operation keeps the post
        // from missing its schedule. A `:cancel` of the Operation is the caller's wish and stays.
        if (error.status === 'CANCELLED' || !op.websiteId) return;
        const post = await scheduleOf(db, op.websiteId, String(op.payload.blog_post_id));
        if (post?.state === 'SCHEDULED' && post.publish_time === Number(op.payload.publish_time)) await republish(op, Date.now() + PUBLISH_RETRY_MS);
      },
    });
  },
  references: (deps) => blogReferences(deps.database.dialect),
  site: (deps) => blogSite(deps),
};

/** A category, tag or author listed by posts: deleting it removes it from every post, in the Delete's transaction. */
function linkReference(link: LinkSpec, target: string, dialect: SqlDialect): Reference {
  return {
    target,
    describe: `blog_posts.${link.field}`,
    count: (db, websiteId, id) => countLinkedPosts(db, websiteId, link, id),
    detach: (db, websiteId, id, now) => detachFromPosts(db, dialect, websiteId, link, [id], now),
  };
}

function mediaReference(ref: MediaColumn): Reference {
  return {
    target: 'media',
    describe: `${ref.table}.${ref.column}`,
    count: (db, websiteId, id) => countMediaColumn(db, websiteId, ref, id),
    detach: (db, websiteId, id, now) => clearMediaColumn(db, websiteId, ref, id, now),
  };
}

/**
 * Posts' `visible_view_ids`: the view's id is removed; a post visible in that view alone goes back to
 * DRAFT first, since an empty list would make it visible in every view.
 */
function postViewsReference(dialect: SqlDialect): Reference {
  const list = visibleViewsReference('blog_posts', dialect, undefined);
  return {
    ...list,
    async detach(db, websiteId, viewId, now) {
      await draftPostsOnlyIn(db, dialect, websiteId, viewId);
      await list.detach(db, websiteId, viewId, now);
    },
  };
}

/** Everything the blog keeps that points at other rows: its taxonomy in posts, media, views. */
export function blogReferences(dialect: SqlDialect): Reference[] {
  return [
    linkReference(CATEGORY_LINKS, 'blog_categories', dialect),
    linkReference(TAG_LINKS, 'blog_tags', dialect),
    linkReference(AUTHOR_LINKS, 'blog_authors', dialect),
    mediaReference({ table: 'blog_posts', column: 'feature_image_media_id' }),
    mediaReference({ table: 'blog_posts', column: 'og_image_media_id' }),
    mediaReference({ table: 'blog_authors', column: 'avatar_media_id' }),
    postViewsReference(dialect),
    ...OVERLAID.map((o) => overlayReference(o.table)),
  ];
}
