import type { SqlDialect } from '../platform/db/database.js';
import { AlreadyExists, InvalidArgument } from '../platform/errors.js';
import type { Operations } from '../platform/jobs/operations.js';
import type { FieldDecl, ResourceDecl, Row, WriteContext } from '../platform/resource/declaration.js';
import { checkUrlKeyFree, MAX_CONTENT_LENGTH, sanitizeFields, slugOf, URL_KEY_PATTERN, visibleViewIdsField } from '../cms/index.js';
import type { PageResolver } from '../cms/index.js';
import { AUTHOR_LINKS, CATEGORY_LINKS, insertRevision, LINKS, linkHas, TAG_LINKS, writeLinks, type LinkSpec } from './blog.repo.js';
import { BLOG_RIGHTS, deriveExcerpt, freeDerivedKey, resolvedSchema } from './blog.shared.js';

/** Event of a post going live, whichever path published it. */
export const BLOG_POST_PUBLISHED = 'blog_post.published';
export const BLOG_POST_UNPUBLISHED = 'blog_post.unpublished';
/** Operation type of a scheduled publish. */
export const PUBLISH_SCHEDULED_POST = 'PUBLISH_SCHEDULED_BLOG_POST';
/** Revisions kept per post: the newest 50 (older ones are dropped by the write that adds one). */
export const MAX_REVISIONS = 50;
/** Most categories, tags and authors one post may list. */
const MAX_LINKS = 100;
const HTTP_URL_PATTERN = '^https?://[^\\s]+$';

/** Fields of a post a view overlay may replace. */
export const POST_CONTENT_FIELDS: Record<string, FieldDecl> = {
  title: { type: 'string', description: 'Title of the post.', maxLength: 255, trim: true, notBlank: true, example: 'Our new sourdough' },
  custom_excerpt: {
    type: 'string',
    description: 'Hand-written excerpt (rich text, sanitised with the same allow-list as `content`); when absent `excerpt` is derived from `content`.',
    maxLength: 2000,
    example: 'Three days of fermentation, one crust.',
  },
  content: {
    type: 'string',
    description:
      'Rich text (HTML), sanitised on write with the allow-list of CMS pages: script, style, event handlers, `javascript:`/`data:` URLs, forms, ' +
      `objects and foreign iframes are removed. At most ${MAX_CONTENT_LENGTH} characters.`,
    maxLength: MAX_CONTENT_LENGTH,
    example: '<p>We bake it every morning.</p>',
  },
  feature_image_alt: { type: 'string', description: 'Alt text of the feature image.', maxLength: 500, trim: true },
  meta_title: { type: 'string', description: 'SEO `<title>`; the title when absent.', maxLength: 255, trim: true },
  meta_description: { type: 'string', description: 'SEO meta description.', maxLength: 1024, trim: true },
  og_title: { type: 'string', description: 'Open Graph title; the meta title when absent.', maxLength: 255, trim: true },
  og_description: { type: 'string', description: 'Open Graph description; the meta description when absent.', maxLength: 1024, trim: true },
};
const RICH_TEXT = ['content', 'custom_excerpt'] as const;

/** What a revision keeps: everything an editor writes except the publishing state. */
export const REVISION_FIELDS = [
  ...Object.keys(POST_CONTENT_FIELDS),
  'url_key', 'feature_image_media_id', 'canonical_url', 'og_image_media_id', 'author_ids', 'category_ids', 'tag_ids', 'visible_view_ids',
] as const;
const LIST_FIELDS = ['author_ids', 'category_ids', 'tag_ids', 'visible_view_ids'];

const idList = (what: string, table: string, link: LinkSpec, dialect: SqlDialect): FieldDecl => ({
  type: 'string_list',
  description:
    `Ids of ${what}s of the same website (else INVALID_ARGUMENT naming the field), in the order given; replaced whole when sent, duplicates kept once. ` +
    `Deleting the ${what} removes it here. Filter \`${link.field}:"id"\` lists the posts holding it (an indexed side table).`,
  maxItems: MAX_LINKS,
  itemMinLength: 1,
  itemMaxLength: 64,
  default: [],
  refersTo: { table, what: `a blog ${what}` },
  filterHas: linkHas(dialect, link),
});

export interface BlogPostDeps {
  dialect: SqlDialect;
  operations: Operations;
  resolver: PageResolver;
}

/**
 * Blog posts: `websites/{w}/blog_posts/{p}`. State DRAFT → SCHEDULED → PUBLISHED (or `:publish` at
 * once); a SCHEDULED write enqueues a durable Operation due at `publish_time`; every content write
 * keeps the new state as a revision.
 */
export function blogPostResource(deps: BlogPostDeps): ResourceDecl {
  const { dialect, operations } = deps;

  /** Stored list values compared by content (JSON lists come back parsed on PostgreSQL, as text on SQLite). */
  const sameStored = (a: unknown, b: unknown) => a === b || JSON.stringify(dialect.readJson(a) ?? null) === JSON.stringify(dialect.readJson(b) ?? null);
  /** A stored field compared: lists by content, text as it is (text is never parsed as JSON). */
  const sameField = (field: string, a: unknown, b: unknown) => (LIST_FIELDS.includes(field) ? sameStored(a, b) : (a ?? null) === (b ?? null));

  /** The wire form of what a revision keeps. */
  function snapshotOf(row: Row): Record<string, unknown> {
    const snapshot: Record<string, unknown> = {};
    for (const f of REVISION_FIELDS) {
      const value = row[f];
      if (value === null || value === undefined) continue;
      snapshot[f] = LIST_FIELDS.includes(f) ? dialect.readJson<string[]>(value) : value;
    }
    return snapshot;
  }

  /** State rules: SCHEDULED needs a future `publish_time`; becoming PUBLISHED stamps the time it went live. */
  function settleState(ctx: WriteContext, row: Row, previous: Row | undefined): void {
    const changed = !previous || row.state !== previous.state || row.publish_time !== previous.publish_time;
    if (!changed) return;
    if (row.state === 'SCHEDULED') {
      if (row.publish_time === null || row.publish_time === undefined) throw InvalidArgument.field('publish_time', 'a SCHEDULED post needs the time it goes live');
      if (Number(row.publish_time) <= ctx.now) {
        throw InvalidArgument.field('publish_time', 'must be in the future for a SCHEDULED post (use state PUBLISHED or :publish to publish now)');
      }
    }
    if (row.state === 'PUBLISHED') {
      // Back-dating is allowed; a future time (on becoming PUBLISHED or later) would claim the post went
      // live when it has not, so it becomes now, as does a PUBLISHED post left without a time.
      if (row.publish_time === null || row.publish_time === undefined || Number(row.publish_time) > ctx.now) row.publish_time = ctx.now;
    }
  }

  async function schedule(ctx: WriteContext, row: Row, previous: Row | undefined): Promise<void> {
    if (row.state !== 'SCHEDULED') return;
    if (previous && previous.state === 'SCHEDULED' && previous.publish_time === row.publish_time) return;
    await operations.enqueue(
      ctx.trx,
      {
        type: PUBLISH_SCHEDULED_POST,
        accountId: row.account_id,
        websiteId: row.website_id,
        payload: { blog_post_id: row.id, publish_time: Number(row.publish_time) },
        step: 'WAITING_FOR_PUBLISH_TIME',
        runAfter: Number(row.publish_time),
      },
      ctx.now,
    );
  }

  async function recordRevision(ctx: WriteContext, row: Row): Promise<void> {
    await insertRevision(
      ctx.trx,
      dialect,
      row.website_id,
      { accountId: row.account_id, postId: row.id, postRevision: Number(row.revision), snapshot: snapshotOf(row), createdBy: ctx.agent ?? `users/${ctx.caller.userId}`, now: ctx.now },
      MAX_REVISIONS,
    );
  }

  async function syncLinks(ctx: WriteContext, row: Row, previous: Row | undefined): Promise<void> {
    for (const link of LINKS) {
      if (previous && sameStored(previous[link.field], row[link.field])) continue;
      await writeLinks(ctx.trx, row.website_id, row.id, link, dialect.readJson<string[]>(row[link.field]) ?? []);
    }
  }

  /**
   * `excerpt` written (WordPress's writable excerpt): it becomes `custom_excerpt`, unless
   * `custom_excerpt` itself is sent, or it repeats the excerpt the post shows now (a read-modify-write
   * round trip must not freeze a derived excerpt). Cleared under `update_mask`, the custom one goes.
   */
  function takeExcerpt(ctx: WriteContext, row: Row, previous: Row | undefined): void {
    const sent = previous ? ctx.updatedPaths.includes('excerpt') : ctx.input.excerpt !== undefined && ctx.input.excerpt !== null;
    const customSent = previous ? ctx.updatedPaths.includes('custom_excerpt') : ctx.input.custom_excerpt !== undefined && ctx.input.custom_excerpt !== null;
    if (!sent || customSent) return;
    const value = (ctx.input.excerpt as string | null | undefined) ?? null;
    if (previous && value === (previous.custom_excerpt ?? deriveExcerpt(previous.content as string | null) ?? null)) return;
    row.custom_excerpt = value;
    sanitizeFields(row, ['custom_excerpt']);
  }

  /**
   * Field provenance: each editable field the write changed (on create, each one it set) now comes
   * from whoever wrote — `users/{u}` for a person, `ctx.agent` (an AI run, an editorial entry) when
   * the platform writes on a run's behalf. Written in the post's own write, so it cannot drift.
   */
  function recordProvenance(ctx: WriteContext, row: Row, previous: Row | undefined): void {
    const source = ctx.agent ?? `users/${ctx.caller.userId}`;
    const provenance = { ...(dialect.readJson<Record<string, string>>(previous?.field_provenance) ?? {}) };
    let changed = false;
    for (const f of REVISION_FIELDS) {
      const was = previous ? previous[f] : undefined;
      const now = row[f];
      if (previous ? sameField(f, now, was) : now === null || now === undefined || (LIST_FIELDS.includes(f) && (dialect.readJson<unknown[]>(now) ?? []).length === 0)) continue;
      if (provenance[f] === source) continue;
      provenance[f] = source;
      changed = true;
    }
    if (changed || !previous) row.field_provenance = dialect.json(provenance);
  }

  const prepareRow = async (ctx: WriteContext, row: Row, previous: Row | undefined) => {
    sanitizeFields(row, previous ? RICH_TEXT.filter((f) => ctx.updatedPaths.includes(f)) : RICH_TEXT);
    takeExcerpt(ctx, row, previous);
    if (!row.url_key) {
      // Derived: the first free of `slug`, `slug-2`, … in the post's view scope.
      row.url_key = await freeDerivedKey(slugOf(row.title), row.id, async (candidate) => {
        try {
          await checkUrlKeyFree(ctx, dialect, { ...row, url_key: candidate }, 'blog_posts', 'post');
          return true;
        } catch (error) {
          if (error instanceof AlreadyExists) return false;
          throw error;
        }
      });
    } else if (!previous || row.url_key !== previous.url_key || !sameStored(row.visible_view_ids, previous.visible_view_ids)) {
      await checkUrlKeyFree(ctx, dialect, row, 'blog_posts', 'post');
    }
    settleState(ctx, row, previous);
    recordProvenance(ctx, row, previous);
  };

  return {
    collection: 'blog_posts',
    singular: 'BlogPost',
    table: 'blog_posts',
    description:
      'A blog post of the website. `state` DRAFT, SCHEDULED (goes live by itself at `publish_time`, through a durable Operation: a worker that was ' +
      'down or crashed publishes every overdue post as soon as it runs) or PUBLISHED. Every write that changes what an editor writes keeps the new ' +
      `state as a revision (\`blog_posts/{p}/revisions\`, the newest ${MAX_REVISIONS}). Per-view overlays live in \`blog_posts/{p}/views\`; \`:resolve\` reads the post as a view sees it.`,
    collectionPath: 'websites/{website_id}/blog_posts',
    itemPath: 'websites/{website_id}/blog_posts/{blog_post_id}',
    fields: {
      ...POST_CONTENT_FIELDS,
      title: { ...POST_CONTENT_FIELDS.title, behavior: ['REQUIRED'] },
      url_key: {
        notNull: true,
        type: 'string',
        description:
          'URL path of the post below the blog (`our-new-sourdough`); derived from `title` when absent (and when cleared), with `-2`, `-3`, … ' +
          'appended when that is taken. Unique per website and view scope, like CMS pages: another post may use it only when their ' +
          '`visible_view_ids` do not overlap; a url_key sent that is taken is ALREADY_EXISTS.',
        pattern: URL_KEY_PATTERN,
        maxLength: 255,
        trim: true,
        example: 'our-new-sourdough',
      },
      excerpt: {
        type: 'string',
        description:
          '`custom_excerpt` when set, else the start of `content` as text (about 300 characters, cut at a word, HTML entities kept). Writing it ' +
          'sets `custom_excerpt` (which wins when both are sent); sending back the excerpt the post shows now changes nothing, and clearing it ' +
          'under `update_mask` clears `custom_excerpt`.',
        maxLength: 2000,
        column: false,
      },
      feature_image_media_id: {
        type: 'string',
        description: 'Media item of the same website shown as the feature image (else INVALID_ARGUMENT); cleared when the media item is deleted.',
        maxLength: 64,
        refersTo: { table: 'media', what: 'a media item' },
      },
      canonical_url: { type: 'string', description: 'Canonical URL when the post first appeared elsewhere (`http(s)://…`).', pattern: HTTP_URL_PATTERN, maxLength: 2048, trim: true },
      og_image_media_id: {
        type: 'string',
        description: 'Media item of the same website for Open Graph (else INVALID_ARGUMENT); the feature image when absent; cleared when the media item is deleted.',
        maxLength: 64,
        refersTo: { table: 'media', what: 'a media item' },
      },
      author_ids: idList('author', 'blog_authors', AUTHOR_LINKS, dialect),
      category_ids: idList('category', 'blog_categories', CATEGORY_LINKS, dialect),
      tag_ids: idList('tag', 'blog_tags', TAG_LINKS, dialect),
      visible_view_ids: visibleViewIdsField('post'),
      state: {
        type: 'enum',
        description:
          'DRAFT (default), SCHEDULED (needs `publish_time` in the future, else INVALID_ARGUMENT: a past time is refused, not published at once) or ' +
          'PUBLISHED (when it becomes so, `publish_time` is the time it went live: now, or the earlier time sent to back-date it; a future time sent becomes now). `:publish` and `:unpublish` do the same.',
        values: ['DRAFT', 'SCHEDULED', 'PUBLISHED'],
        default: 'DRAFT',
      },
      publish_time: {
        type: 'timestamp',
        description: 'SCHEDULED: when the post goes live. PUBLISHED: when it went live. A DRAFT keeps the time it carried.',
      },
      field_provenance: {
        type: 'object',
        description:
          'Who wrote the current value of each editable field (`title`, `content`, `custom_excerpt`, `meta_title`, …): `users/{user}` when a person ' +
          'wrote it (Create, Update, `:restore`), `accounts/{a}/ai_executions/{e}` when an editorial drafting run did, or ' +
          '`websites/{w}/editorial_calendar_entries/{e}` for the placeholder draft an entry made without an agent. Editorial generation never ' +
          'overwrites a field whose value came from a person.',
        behavior: ['OUTPUT_ONLY'],
        schema: { additionalProperties: { type: 'string', maxLength: 300 }, maxProperties: 50 },
        example: { title: 'users/u1', content: 'accounts/a1/ai_executions/e1' },
      },
    },
    events: {
      // One rule for every path that publishes (Update, `:publish`, the scheduled publish, editorial):
      // all of them write through the engine, so each publish records exactly one event.
      transitions: [
        {
          type: BLOG_POST_PUBLISHED,
          description: 'A post became PUBLISHED (Update, `:publish`, its scheduled time, or the editorial calendar); `previous` is the post before.',
          when: (next, previous) => next?.state === 'PUBLISHED' && previous?.state !== 'PUBLISHED',
        },
        {
          type: BLOG_POST_UNPUBLISHED,
          description: 'A PUBLISHED post became a DRAFT or SCHEDULED again (Update or `:unpublish`); `previous` is the post before.',
          when: (next, previous) => previous?.state === 'PUBLISHED' && next !== undefined && next.state !== 'PUBLISHED',
        },
      ],
    },
    filterable: ['create_time', 'update_time', 'title', 'url_key', 'state', 'publish_time', 'category_ids', 'tag_ids', 'author_ids'],
    sortable: ['publish_time', 'create_time', 'update_time', 'title'],
    defaultOrder: 'create_time desc',
    methods: ['list', 'get', 'create', 'update', 'delete'],
    options: { clientId: true, requestId: true, validateOnly: true },
    rights: BLOG_RIGHTS,
    hooks: {
      async beforeCreate(ctx, row) {
        await prepareRow(ctx, row, undefined);
      },
      async afterCreate(ctx, row) {
        await syncLinks(ctx, row, undefined);
        await schedule(ctx, row, undefined);
        await recordRevision(ctx, row);
      },
      async beforeUpdate(ctx, next, previous) {
        await prepareRow(ctx, next, previous);
        await syncLinks(ctx, next, previous);
      },
      async afterUpdate(ctx, row, previous) {
        await schedule(ctx, row, previous);
        // A write of every editable field (what `:restore` sends) is kept even when it changes nothing,
        // so a restore always adds its revision.
        const whole = REVISION_FIELDS.every((f) => ctx.updatedPaths.includes(f));
        if (whole || REVISION_FIELDS.some((f) => !sameField(f, row[f], previous[f]))) await recordRevision(ctx, row);
      },
      present(row, resource) {
        resource.excerpt = row.custom_excerpt ?? deriveExcerpt(row.content);
      },
    },
    customMethods: [
      {
        verb: 'publish',
        on: 'item',
        summary: 'Publish a blog post now',
        description:
          'Makes the post PUBLISHED at once (a SCHEDULED post too: its pending Operation then does nothing); `publish_time` becomes now, or stays ' +
          'for a post already PUBLISHED. `If-Match` (or `etag` in the body) is honoured.',
        access: 'write',
        mutate(ctx, next, previous) {
          next.state = 'PUBLISHED';
          next.publish_time = previous.state === 'PUBLISHED' ? previous.publish_time : ctx.now;
        },
      },
      {
        verb: 'unpublish',
        on: 'item',
        summary: 'Take a blog post back to DRAFT',
        description:
          'Makes a PUBLISHED or SCHEDULED post a DRAFT (a pending scheduled publish then does nothing); `publish_time` is kept. `If-Match` is honoured.',
        access: 'write',
        mutate(_ctx, next) {
          next.state = 'DRAFT';
        },
      },
      {
        verb: 'resolve',
        on: 'item',
        summary: 'Read a blog post as a view sees it',
        description:
          "Answers the post as the rendered site shows it in `view_id` (default: the website's default view): each field listed in that view " +
          "overlay's `overridden` replaces the post's, and a view without an overlay listing a field shows its fallback chain's (`views.fallback_view_id`): " +
          'the one resolution of `cms_pages:resolve`. `excerpt` follows the resolved ' +
          '`custom_excerpt`/`content`. `is_visible`: PUBLISHED and visible in the view. A view of another website is INVALID_ARGUMENT. Reads only.',
        access: 'read',
        body: { properties: { view_id: { type: 'string', maxLength: 64, description: "View to read as; default: the website's default view." } } },
        response: resolvedSchema('ResolvedBlogPost', 'A blog post as one view sees it.', {
          ...Object.fromEntries(Object.keys(POST_CONTENT_FIELDS).map((f) => [f, 'text'])),
          excerpt: 'text', url_key: 'text', state: 'text', publish_time: 'time', feature_image_media_id: 'text', og_image_media_id: 'text', canonical_url: 'text',
          author_ids: 'list', category_ids: 'list', tag_ids: 'list', visible_view_ids: 'list',
        }, Object.keys(POST_CONTENT_FIELDS)),
        async handle(ctx, call) {
          const result = await deps.resolver.resolve(ctx, call.params, call.body);
          for (const f of ['author_ids', 'category_ids', 'tag_ids']) if (result[f] !== undefined) result[f] = dialect.readJson(result[f]);
          if (result.publish_time !== undefined) result.publish_time = new Date(Number(result.publish_time)).toISOString();
          result.excerpt = (result.custom_excerpt as string | undefined) ?? deriveExcerpt(result.content as string | undefined);
          const visible = (result.visible_view_ids as string[]) ?? [];
          const viewId = result.view_id as string | undefined;
          result.is_visible = result.state === 'PUBLISHED' && (visible.length === 0 || (viewId !== undefined && visible.includes(viewId)));
          return result;
        },
      },
    ],
  };
}
