import type { AreaDeps, SiteContext, SiteContribution, SiteDeps, SiteEntry, SitePage, SitePageContext, SiteView } from '../platform/area.js';
import type { Row } from '../platform/resource/declaration.js';
import { createViewOverlayReader, URL_KEY_PATTERN } from '../cms/index.js';
import type { ViewOverlayReader, ViewReading } from '../cms/index.js';
import { readSiteImages, responsiveContentImages } from '../media/index.js';
import { readSiteSettings } from '../settings/index.js';
import { OVERLAID } from './blog-overlaid.js';
import {
  AUTHOR_LINKS,
  CATEGORY_LINKS,
  liveCategoryPostsPage,
  liveChildCategories,
  liveNewerPost,
  livePostByUrlKey,
  livePostsAfter,
  livePostsPage,
  liveTaxonomyAfter,
  rowsByIds,
  TAG_LINKS,
  taxonomyByUrlKey,
  type LinkSpec,
  type LivePostRow,
  type LiveScope,
  type TaxonomyTable,
} from './blog.repo.js';
import { deriveExcerpt } from './blog.shared.js';
import { htmlToText, xml } from './blog-text.js';
import { BLOG_TEMPLATES } from './blog.templates.js';

/** Posts in each feed (RSS, Atom, JSON Feed): the newest live ones. */
export const BLOG_FEED_SIZE = 20;
/**
 * Deepest row a paginated blog listing reaches by offset (`?page=N`): pages starting beyond it are
 * 404. Bounds what one uncached page may walk (at most this many index entries); the sitemap,
 * llms.txt and the archives reach every post.
 */
export const MAX_BLOG_OFFSET = 10_000;
/** Posts (and archives) read per keyset batch by the inventory: memory stays bounded at any size. */
export const BLOG_INVENTORY_BATCH = 500;
/** Sub-categories linked from a category archive. */
const MAX_CHILD_CATEGORIES = 50;
const PAGE_SIZE_SETTING = 'design.pagination.page_size';
const DEFAULT_PAGE_SIZE = 12;
const URL_KEY = new RegExp(URL_KEY_PATTERN);
/** `?page=N`: a positive decimal without leading zeros; anything else names no page. */
const PAGE_NUMBER = /^[1-9][0-9]{0,6}$/;

type Table = 'blog_posts' | TaxonomyTable;
type ArchiveKind = 'category' | 'tag' | 'author';
const ARCHIVES: Record<ArchiveKind, { table: TaxonomyTable; link: LinkSpec }> = {
  category: { table: 'blog_categories', link: CATEGORY_LINKS },
  tag: { table: 'blog_tags', link: TAG_LINKS },
  author: { table: 'blog_authors', link: AUTHOR_LINKS },
};

/** A post as a listing, feed or post page shows it: the row resolved for the view. */
interface LivePost {
  row: Row;
  reading: ViewReading;
  path: string;
  title: string;
  /** Sanitised HTML (the custom excerpt, or the start of the content as text with entities kept). */
  excerpt?: string;
  publishTime: number;
  updateTime: number;
  /** Minutes a reader needs for the content at READING_WORDS_PER_MINUTE (at least 1); undefined when the content was not read. */
  readingMinutes?: number;
}

/** Reading speed behind "N min read" (adult silent reading of non-fiction, Brysbaert 2019). */
const READING_WORDS_PER_MINUTE = 230;
/** Posts the view's home page shows (one wide, then a row of three). */
export const HOME_POSTS = 4;
/** `sizes` of a card's image: a third of the content width on wide screens, half on tablets, the screen on phones. */
const CARD_SIZES = '(min-width: 72rem) 23rem, (min-width: 40rem) 45vw, 100vw';
const LEAD_CARD_SIZES = '(min-width: 72rem) 42rem, (min-width: 48rem) 58vw, 100vw';
const FEATURE_SIZES = '(min-width: 64rem) 60rem, 100vw';

const readingMinutes = (html: string) => Math.max(1, Math.round(htmlToText(html).split(' ').filter(Boolean).length / READING_WORDS_PER_MINUTE));

/**
 * The blog's part of every rendered site (docs/decisions.md, "Rendered websites: the blog"): index,
 * posts, category / tag / author archives and three feeds inside every view, and its inventory.
 * Reads only through the blog area's readers (blog.repo.ts) and the one overlay resolution
 * (`createViewOverlayReader`, field by field along the view's fallback chain).
 */
export function blogSite(deps: AreaDeps): SiteContribution {
  const { database } = deps;
  const db = database.db;
  const { dialect } = database;
  const readers = Object.fromEntries(
    OVERLAID.map((o) => [o.parent, createViewOverlayReader(database, { table: o.parent, overlayTable: o.table, overlayParent: o.param, fields: Object.keys(o.fields) })]),
  ) as Record<Table, ViewOverlayReader>;
  // The site's dependencies arrive with `routes` (registration), before any page is served.
  let site: SiteDeps | undefined;

  const scopeOf = (ctx: SiteContext, view: SiteView): LiveScope => ({ websiteId: ctx.website.id, viewId: view.id, now: ctx.now });
  const viewHref = (view: SiteView, path: string) => (view.urlPrefix ? `/${view.urlPrefix}${path === '/' ? '' : path}` : path);
  const postPath = (view: SiteView, urlKey: string) => viewHref(view, `/blog/${urlKey}`);

  async function pageSize(ctx: SiteContext, view: SiteView): Promise<number> {
    const settings = site ? await site.settings(ctx, view) : await readSiteSettings(database, ctx.website.id, view.id);
    const size = Number(settings.get(PAGE_SIZE_SETTING));
    return Number.isInteger(size) && size >= 1 && size <= 100 ? size : DEFAULT_PAGE_SIZE;
  }

  /** Posts read for a view, resolved through the overlays (one query for all of them). */
  async function resolvePosts(ctx: SiteContext, view: SiteView, rows: Row[], fields?: string[]): Promise<LivePost[]> {
    const readings = await readers.blog_posts.readMany({ websiteId: ctx.website.id, viewId: view.id, rows, fields });
    return readings.map((reading) => {
      const { row, values } = reading;
      return {
        row,
        reading,
        path: postPath(view, row.url_key),
        title: String(values.title ?? row.title),
        excerpt: (values.custom_excerpt as string | null) ?? deriveExcerpt(values.content as string | null),
        publishTime: Number(row.publish_time),
        updateTime: reading.updateTime,
        readingMinutes: typeof values.content === 'string' ? readingMinutes(values.content) : undefined,
      };
    });
  }

  /** Categories, tags or authors by id as the view shows them, with their archive links. */
  async function resolveTaxonomy(ctx: SiteContext, view: SiteView, kind: ArchiveKind, ids: readonly string[]) {
    const { table } = ARCHIVES[kind];
    const rows = await rowsByIds(db, ctx.website.id, table, ids);
    const readings = await readers[table].readMany({ websiteId: ctx.website.id, viewId: view.id, rows });
    return readings.map((r) => ({ id: r.row.id as string, name: String(r.values.display_name ?? r.row.display_name), href: viewHref(view, `/blog/${kind}/${r.row.url_key}`), urlKey: r.row.url_key as string }));
  }

  function dateLabel(ctx: SiteContext, view: SiteView, ms: number): string {
    try {
      return new Intl.DateTimeFormat(view.locale, { dateStyle: 'long', timeZone: ctx.website.timeZone || 'UTC' }).format(ms);
    } catch {
      return new Date(ms).toISOString().slice(0, 10);
    }
  }

  /**
   * Posts as cards (title, excerpt, date, reading time, feature image through the media transforms):
   * the first card of a page is the likely largest paint, loaded at once; the others lazily.
   */
  async function cards(ctx: SiteContext, view: SiteView, posts: LivePost[], opts: { lead?: boolean } = {}) {
    const images = await readSiteImages(deps, ctx.website.id, posts.map((p) => p.row.feature_image_media_id as string).filter(Boolean));
    return posts.map((post, i) => {
      const image = post.row.feature_image_media_id ? images.get(post.row.feature_image_media_id as string) : undefined;
      const alt = post.reading.values.feature_image_alt;
      return {
        title: post.title,
        href: post.path,
        excerpt: post.excerpt,
        publish_iso: new Date(post.publishTime).toISOString(),
        publish_label: dateLabel(ctx, view, post.publishTime),
        reading_label: post.readingMinutes ? `${post.readingMinutes} min read` : undefined,
        image: image ? { src: image.src, srcset: image.srcset, width: image.width, height: image.height, alt: typeof alt === 'string' && alt.trim() ? alt : image.alt } : undefined,
        sizes: opts.lead && i === 0 ? LEAD_CARD_SIZES : CARD_SIZES,
        lazy: i > 0,
      };
    });
  }

  /** The feeds of the view, as `<link rel="alternate">` in the head of every blog page. */
  const feedLinks = (ctx: SitePageContext) => [
    { type: 'application/rss+xml', title: 'RSS', href: `${ctx.origin}${ctx.href('/blog/rss.xml')}` },
    { type: 'application/atom+xml', title: 'Atom', href: `${ctx.origin}${ctx.href('/blog/atom.xml')}` },
    { type: 'application/feed+json', title: 'JSON Feed', href: `${ctx.origin}${ctx.href('/blog/feed.json')}` },
  ];

  /**
   * `?page=N` of a listing at `base` (bounded offset: see MAX_BLOG_OFFSET). Undefined (404) for a
   * page that is not a positive number, starts beyond the bound, or (past the first) holds nothing.
   */
  async function paginate(ctx: SitePageContext, base: string, read: (offset: number, limit: number) => Promise<Row[]>) {
    // An empty `?page=` is the first page: the page cache keys it like an absent one.
    const raw = ctx.query.page || undefined;
    if (raw !== undefined && !PAGE_NUMBER.test(raw)) return undefined;
    const page = raw === undefined ? 1 : Number(raw);
    const size = await pageSize(ctx, ctx.view);
    const offset = (page - 1) * size;
    if (offset > MAX_BLOG_OFFSET) return undefined;
    const rows = await read(offset, size + 1);
    if (page > 1 && rows.length === 0) return undefined;
    const hasNext = rows.length > size && offset + size <= MAX_BLOG_OFFSET;
    const at = (n: number) => `${ctx.href(base)}${n > 1 ? `?page=${n}` : ''}`;
    return {
      page,
      rows: rows.slice(0, size),
      canonicalPath: at(page),
      pager: { label: 'Pagination', page, prev_href: page > 1 ? at(page - 1) : undefined, next_href: hasNext ? at(page + 1) : undefined, prev_label: 'Newer posts', next_label: 'Older posts' },
    };
  }

  /** Alternates of a listing's first page: the same listing in every active view. */
  const listingAlternates = (ctx: SitePageContext, base: string, page: number) =>
    page === 1 ? Object.fromEntries(ctx.views.map((v) => [v.id, viewHref(v, base)])) : undefined;

  async function blogIndex(ctx: SitePageContext): Promise<SitePage | undefined> {
    const scope = scopeOf(ctx, ctx.view);
    const listing = await paginate(ctx, '/blog', (offset, limit) => livePostsPage(db, dialect, scope, { offset, limit, withContent: true }));
    if (!listing) return undefined;
    const posts = await resolvePosts(ctx, ctx.view, listing.rows);
    const title = listing.page > 1 ? `Blog – page ${listing.page}` : 'Blog';
    const lead = listing.page === 1;
    return {
      kind: 'html',
      template: 'blog/listing',
      data: { heading: title, posts: await cards(ctx, ctx.view, posts, { lead }), lead, empty: 'No posts yet.', pager: listing.pager, feeds: feedLinks(ctx) },
      meta: {
        title,
        canonicalPath: listing.canonicalPath,
        alternates: listingAlternates(ctx, '/blog', listing.page),
        breadcrumbs: [{ name: await siteName(ctx), path: ctx.href('/') }, { name: 'Blog', path: listing.canonicalPath }],
      },
    };
  }

  async function archive(ctx: SitePageContext, kind: ArchiveKind): Promise<SitePage | undefined> {
    const urlKey = ctx.params.url_key;
    if (!urlKey || urlKey.length > 255 || !URL_KEY.test(urlKey)) return undefined;
    const { table, link } = ARCHIVES[kind];
    const row = await taxonomyByUrlKey(db, ctx.website.id, table, urlKey);
    if (!row) return undefined;
    const [reading] = await readers[table].readMany({ websiteId: ctx.website.id, viewId: ctx.view.id, rows: [row] });
    const values = reading.values;
    const scope = scopeOf(ctx, ctx.view);
    const base = `/blog/${kind}/${row.url_key}`;
    const listing = await paginate(ctx, base, (offset, limit) =>
      kind === 'category'
        ? liveCategoryPostsPage(db, dialect, scope, { categoryId: row.id, offset, limit, withContent: true })
        : livePostsPage(db, dialect, scope, { offset, limit, link: { spec: link, id: row.id }, withContent: true }),
    );
    if (!listing) return undefined;
    let children: Array<{ name: string; href: string }> = [];
    if (kind === 'category' && listing.page === 1) {
      const childRows = await liveChildCategories(db, dialect, scope, row.id, MAX_CHILD_CATEGORIES);
      const childReadings = await readers.blog_categories.readMany({ websiteId: ctx.website.id, viewId: ctx.view.id, rows: childRows });
      children = childReadings.map((r) => ({ name: String(r.values.display_name ?? r.row.display_name), href: viewHref(ctx.view, `/blog/category/${r.row.url_key}`) }));
    }
    // An archive with nothing live in this view does not exist on the site (no empty tag or author pages).
    if (listing.rows.length === 0 && children.length === 0) return undefined;
    const name = String(values.display_name ?? row.display_name);
    const posts = await resolvePosts(ctx, ctx.view, listing.rows);
    const intro = (kind === 'author' ? values.bio : values.description) as string | null;
    const lead = { category: 'Category', tag: 'Tag', author: 'Author' }[kind];
    const heading = `${lead}: ${name}`;
    const metaTitle = (kind === 'category' && (values.meta_title as string | null)) || heading;
    return {
      kind: 'html',
      template: 'blog/listing',
      data: {
        heading,
        intro: intro ?? undefined,
        children,
        children_label: 'Sub-categories',
        posts: await cards(ctx, ctx.view, posts),
        empty: 'No posts in this category itself yet.',
        pager: listing.pager,
        feeds: feedLinks(ctx),
      },
      meta: {
        title: listing.page > 1 ? `${metaTitle} – page ${listing.page}` : metaTitle,
        description: ((kind === 'category' && (values.meta_description as string | null)) || intro || undefined) ?? undefined,
        canonicalPath: listing.canonicalPath,
        breadcrumbs: [{ name: await siteName(ctx), path: ctx.href('/') }, { name: 'Blog', path: ctx.href('/blog') }, { name: heading, path: listing.canonicalPath }],
      },
    };
  }

  async function postPage(ctx: SitePageContext): Promise<SitePage | undefined> {
    const urlKey = ctx.params['*'];
    if (!urlKey || urlKey.length > 255 || !URL_KEY.test(urlKey)) return undefined;
    const row = await livePostByUrlKey(db, dialect, scopeOf(ctx, ctx.view), urlKey);
    if (!row) return undefined;
    const [post] = await resolvePosts(ctx, ctx.view, [row]);
    const values = post.reading.values;
    const ids = (field: 'author_ids' | 'category_ids' | 'tag_ids') => (dialect.readJson<string[]>(row[field]) ?? []).filter((id) => typeof id === 'string');
    const scope = scopeOf(ctx, ctx.view);
    const at = { publishTime: post.publishTime, id: row.id as string };
    const [authors, categories, tags, images, name, [olderRow], newerRow] = await Promise.all([
      resolveTaxonomy(ctx, ctx.view, 'author', ids('author_ids')),
      resolveTaxonomy(ctx, ctx.view, 'category', ids('category_ids')),
      resolveTaxonomy(ctx, ctx.view, 'tag', ids('tag_ids')),
      readSiteImages(deps, ctx.website.id, [row.feature_image_media_id, row.og_image_media_id].filter((id): id is string => Boolean(id))),
      siteName(ctx),
      livePostsAfter(db, dialect, scope, at, 1),
      liveNewerPost(db, dialect, scope, at),
    ]);
    const neighbours = await resolvePosts(ctx, ctx.view, [olderRow, newerRow].filter((r) => r !== undefined), ['title']);
    const neighbour = (r: LivePostRow | undefined) => {
      const found = r && neighbours.find((n) => n.row.id === r.id);
      return found ? { title: found.title, href: found.path } : undefined;
    };
    const feature = row.feature_image_media_id ? images.get(row.feature_image_media_id) : undefined;
    const social = (row.og_image_media_id && images.get(row.og_image_media_id)) || feature;
    const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
    const description = text(values.meta_description) ?? (post.excerpt ? htmlToText(post.excerpt) : undefined);
    const visible = dialect.readJson<string[]>(row.visible_view_ids) ?? [];
    const alternates = Object.fromEntries(ctx.views.filter((v) => visible.length === 0 || visible.includes(v.id)).map((v) => [v.id, postPath(v, row.url_key)]));
    const publishIso = new Date(post.publishTime).toISOString();
    const updateIso = new Date(post.updateTime).toISOString();
    const content = String(values.content ?? '');
    const featureAlt = feature ? (text(values.feature_image_alt) ?? feature.alt) : undefined;
    const socialImage = social ? social.variant({ w: 1200, fmt: 'jpeg' }) : undefined;
    const blogPath = ctx.href('/blog');
    return {
      kind: 'html',
      template: 'blog/post',
      data: {
        post: {
          title: post.title,
          content: await responsiveContentImages(deps, ctx.website.id, content),
          excerpt: text(values.custom_excerpt),
          publish_iso: publishIso,
          publish_label: dateLabel(ctx, ctx.view, post.publishTime),
          update_iso: updateIso,
          reading_label: `${readingMinutes(content)} min read`,
          authors,
          categories,
          tags,
          feature_image: feature ? { src: feature.src, srcset: feature.srcset, width: feature.width, height: feature.height, alt: featureAlt } : undefined,
          feature_sizes: FEATURE_SIZES,
          older: neighbour(olderRow),
          newer: neighbour(newerRow),
        },
        labels: { by: 'By', published: 'Published', categories: 'Categories', tags: 'Tags', back: 'All posts', older: 'Older post', newer: 'Newer post', posts: 'More posts' },
        blog_href: ctx.href('/blog'),
        feeds: feedLinks(ctx),
      },
      meta: {
        title: text(values.meta_title) ?? post.title,
        description,
        ogTitle: text(values.og_title) ?? text(values.meta_title) ?? post.title,
        ogDescription: text(values.og_description) ?? description,
        canonicalPath: post.path,
        canonicalUrl: text(row.canonical_url),
        image: socialImage,
        imageAlt: social === feature ? featureAlt : social?.alt,
        type: 'article',
        publishTime: publishIso,
        updateTime: updateIso,
        alternates,
        breadcrumbs: [
          { name, path: ctx.href('/') },
          { name: 'Blog', path: blogPath },
          ...(categories[0] ? [{ name: categories[0].name, path: categories[0].href }] : []),
          { name: post.title, path: post.path },
        ],
        jsonLd: [
          {
            '@type': 'BlogPosting',
            headline: post.title.slice(0, 110),
            ...(description ? { description } : {}),
            url: `${ctx.origin}${post.path}`,
            mainEntityOfPage: { '@type': 'WebPage', '@id': text(row.canonical_url) ?? `${ctx.origin}${post.path}` },
            datePublished: publishIso,
            dateModified: updateIso,
            inLanguage: ctx.view.locale,
            ...(socialImage ? { image: [socialImage] } : {}),
            author: authors.length ? authors.map((a) => ({ '@type': 'Person', name: a.name, url: `${ctx.origin}${a.href}` })) : [{ '@type': 'Organization', name, url: `${ctx.origin}${ctx.href('/')}` }],
            publisher: { '@type': 'Organization', name, url: `${ctx.origin}${ctx.href('/')}` },
            ...(categories.length ? { articleSection: categories.map((c) => c.name) } : {}),
            ...(tags.length ? { keywords: tags.map((t) => t.name).join(', ') } : {}),
            wordCount: htmlToText(content).split(' ').filter(Boolean).length,
          },
        ],
      },
      contentHtml: content,
    };
  }

  async function siteName(ctx: SiteContext): Promise<string> {
    const settings = site ? await site.settings(ctx, ctx.defaultView) : await readSiteSettings(database, ctx.website.id, ctx.defaultView.id);
    return String(settings.get('general.site.name') || ctx.website.displayName);
  }

  /** The view's home page: its HOME_POSTS newest posts as cards (nothing while the blog has none). */
  async function home(ctx: SitePageContext): Promise<Record<string, unknown> | undefined> {
    const rows = await livePostsPage(db, dialect, scopeOf(ctx, ctx.view), { offset: 0, limit: HOME_POSTS, withContent: true });
    if (rows.length === 0) return undefined;
    const posts = await resolvePosts(ctx, ctx.view, rows);
    return { posts: await cards(ctx, ctx.view, posts, { lead: true }), posts_heading: 'Latest posts', blog_href: ctx.href('/blog'), all_posts_label: 'All posts' };
  }

  /** The newest BLOG_FEED_SIZE live posts of the view with their authors and tags. */
  async function feedItems(ctx: SitePageContext) {
    const rows = await livePostsAfter(db, dialect, scopeOf(ctx, ctx.view), undefined, BLOG_FEED_SIZE, true);
    const posts = await resolvePosts(ctx, ctx.view, rows);
    const list = (row: Row, field: string) => dialect.readJson<string[]>(row[field]) ?? [];
    const [authors, tags] = await Promise.all([
      resolveTaxonomy(ctx, ctx.view, 'author', [...new Set(rows.flatMap((r) => list(r, 'author_ids')))]),
      resolveTaxonomy(ctx, ctx.view, 'tag', [...new Set(rows.flatMap((r) => list(r, 'tag_ids')))]),
    ]);
    const authorById = new Map(authors.map((a) => [a.id, a]));
    const tagById = new Map(tags.map((t) => [t.id, t]));
    return posts.map((p) => ({
      ...p,
      url: `${ctx.origin}${p.path}`,
      content: String(p.reading.values.content ?? ''),
      authors: list(p.row, 'author_ids').flatMap((id) => (authorById.has(id) ? [{ name: authorById.get(id)!.name, url: `${ctx.origin}${authorById.get(id)!.href}` }] : [])),
      tags: list(p.row, 'tag_ids').flatMap((id) => (tagById.has(id) ? [tagById.get(id)!.name] : [])),
    }));
  }

  async function feedHead(ctx: SitePageContext) {
    const settings = site ? await site.settings(ctx, ctx.view) : await readSiteSettings(database, ctx.website.id, ctx.view.id);
    const name = String(settings.get('general.site.name') || ctx.website.displayName);
    return { title: `${name} – Blog`, description: String(settings.get('general.site.tagline') || `The blog of ${name}`), home: `${ctx.origin}${ctx.href('/blog')}` };
  }

  async function rss(ctx: SitePageContext): Promise<SitePage> {
    const [head, items] = await Promise.all([feedHead(ctx), feedItems(ctx)]);
    const self = `${ctx.origin}${ctx.href('/blog/rss.xml')}`;
    const newest = items.reduce((m, i) => Math.max(m, i.updateTime), 0) || ctx.now;
    const body = [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/">',
      '<channel>',
      `<title>${xml(head.title)}</title>`,
      `<link>${xml(head.home)}</link>`,
      `<description>${xml(head.description)}</description>`,
      `<language>${xml(ctx.view.locale)}</language>`,
      `<lastBuildDate>${new Date(newest).toUTCString()}</lastBuildDate>`,
      `<atom:link href="${xml(self)}" rel="self" type="application/rss+xml"/>`,
      ...items.map((i) =>
        [
          '<item>',
          `<title>${xml(i.title)}</title>`,
          `<link>${xml(i.url)}</link>`,
          `<guid isPermaLink="true">${xml(i.url)}</guid>`,
          `<pubDate>${new Date(i.publishTime).toUTCString()}</pubDate>`,
          ...i.authors.map((a) => `<dc:creator>${xml(a.name)}</dc:creator>`),
          ...i.tags.map((t) => `<category>${xml(t)}</category>`),
          i.excerpt ? `<description>${xml(i.excerpt)}</description>` : '',
          `<content:encoded>${xml(i.content)}</content:encoded>`,
          '</item>',
        ].join(''),
      ),
      '</channel>',
      '</rss>',
      '',
    ].join('\n');
    return { kind: 'raw', contentType: 'application/rss+xml; charset=utf-8', body };
  }

  async function atom(ctx: SitePageContext): Promise<SitePage> {
    const [head, items] = await Promise.all([feedHead(ctx), feedItems(ctx)]);
    const self = `${ctx.origin}${ctx.href('/blog/atom.xml')}`;
    const iso = (ms: number) => new Date(ms).toISOString();
    const newest = items.reduce((m, i) => Math.max(m, i.updateTime), 0) || ctx.now;
    const body = [
      '<?xml version="1.0" encoding="UTF-8"?>',
      `<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="${xml(ctx.view.locale)}">`,
      `<id>${xml(self)}</id>`,
      `<title>${xml(head.title)}</title>`,
      `<subtitle>${xml(head.description)}</subtitle>`,
      `<updated>${iso(newest)}</updated>`,
      `<link rel="self" type="application/atom+xml" href="${xml(self)}"/>`,
      `<link rel="alternate" type="text/html" href="${xml(head.home)}"/>`,
      // Entries without authors of their own take the feed's (RFC 4287 4.1.1: an author is required).
      `<author><name>${xml(head.title)}</name></author>`,
      ...items.map((i) =>
        [
          '<entry>',
          `<id>${xml(i.url)}</id>`,
          `<title>${xml(i.title)}</title>`,
          `<link rel="alternate" type="text/html" href="${xml(i.url)}"/>`,
          `<published>${iso(i.publishTime)}</published>`,
          `<updated>${iso(i.updateTime)}</updated>`,
          ...i.authors.map((a) => `<author><name>${xml(a.name)}</name><uri>${xml(a.url)}</uri></author>`),
          ...i.tags.map((t) => `<category term="${xml(t)}"/>`),
          i.excerpt ? `<summary type="html">${xml(i.excerpt)}</summary>` : '',
          `<content type="html">${xml(i.content)}</content>`,
          '</entry>',
        ].join(''),
      ),
      '</feed>',
      '',
    ].join('\n');
    return { kind: 'raw', contentType: 'application/atom+xml; charset=utf-8', body };
  }

  async function jsonFeed(ctx: SitePageContext): Promise<SitePage> {
    const [head, items] = await Promise.all([feedHead(ctx), feedItems(ctx)]);
    const feed = {
      version: 'https://jsonfeed.org/version/1.1',
      title: head.title,
      home_page_url: head.home,
      feed_url: `${ctx.origin}${ctx.href('/blog/feed.json')}`,
      description: head.description,
      language: ctx.view.locale,
      items: items.map((i) => ({
        id: i.url,
        url: i.url,
        title: i.title,
        content_html: i.content,
        ...(i.excerpt ? { summary: htmlToText(i.excerpt) } : {}),
        date_published: new Date(i.publishTime).toISOString(),
        date_modified: new Date(i.updateTime).toISOString(),
        ...(i.authors.length ? { authors: i.authors } : {}),
        ...(i.tags.length ? { tags: i.tags } : {}),
      })),
    };
    return { kind: 'raw', contentType: 'application/feed+json; charset=utf-8', body: JSON.stringify(feed) };
  }

  async function* inventory(ctx: SiteContext, view: SiteView): AsyncIterable<SiteEntry> {
    const scope = scopeOf(ctx, view);
    const iso = (ms: number) => new Date(ms).toISOString();
    let after: { publishTime: number; id: string } | undefined;
    let newest = 0;
    for (;;) {
      const rows = await livePostsAfter(db, dialect, scope, after, BLOG_INVENTORY_BATCH);
      if (rows.length === 0) break;
      const posts = await resolvePosts(ctx, view, rows, ['title', 'meta_description']);
      for (const post of posts) {
        newest = Math.max(newest, post.updateTime);
        const visible = dialect.readJson<string[]>(post.row.visible_view_ids) ?? [];
        const description = post.reading.values.meta_description;
        yield {
          kind: 'post',
          path: post.path,
          title: post.title,
          ...(typeof description === 'string' && description ? { description } : {}),
          updateTime: iso(post.updateTime),
          viewId: view.id,
          alternates: Object.fromEntries(ctx.views.filter((v) => visible.length === 0 || visible.includes(v.id)).map((v) => [v.id, postPath(v, post.row.url_key)])),
        };
      }
      if (rows.length < BLOG_INVENTORY_BATCH) break;
      const last = rows[rows.length - 1];
      after = { publishTime: Number(last.publish_time), id: last.id };
    }
    if (newest === 0) return;
    yield {
      kind: 'blog',
      path: viewHref(view, '/blog'),
      title: 'Blog',
      updateTime: iso(newest),
      viewId: view.id,
      alternates: Object.fromEntries(ctx.views.map((v) => [v.id, viewHref(v, '/blog')])),
    };
    for (const kind of ['category', 'tag', 'author'] as const) {
      const { table, link } = ARCHIVES[kind];
      let afterId: string | undefined;
      for (;;) {
        const rows = await liveTaxonomyAfter(db, dialect, scope, link, table, afterId, BLOG_INVENTORY_BATCH);
        if (rows.length === 0) break;
        const readings = await readers[table].readMany({ websiteId: ctx.website.id, viewId: view.id, rows });
        for (const r of readings) {
          const description = kind === 'author' ? r.values.bio : r.values.description;
          yield {
            kind: `blog_${kind}`,
            path: viewHref(view, `/blog/${kind}/${r.row.url_key}`),
            title: String(r.values.display_name ?? r.row.display_name),
            ...(typeof description === 'string' && description ? { description } : {}),
            updateTime: iso(r.updateTime),
            viewId: view.id,
          };
        }
        if (rows.length < BLOG_INVENTORY_BATCH) break;
        afterId = rows[rows.length - 1].id;
      }
    }
  }

  return {
    templates: BLOG_TEMPLATES,
    pages: [
      { pattern: '/blog', handler: blogIndex },
      { pattern: '/blog/rss.xml', handler: rss },
      { pattern: '/blog/atom.xml', handler: atom },
      { pattern: '/blog/feed.json', handler: jsonFeed },
      { pattern: '/blog/category/:url_key', handler: (ctx) => archive(ctx, 'category') },
      { pattern: '/blog/tag/:url_key', handler: (ctx) => archive(ctx, 'tag') },
      { pattern: '/blog/author/:url_key', handler: (ctx) => archive(ctx, 'author') },
      // Post url_keys may hold `/` (like pages'), so the rest of the path is the key.
      { pattern: '/blog/*', handler: postPage },
    ],
    inventory,
    home,
    routes(_app, siteDeps) {
      site = siteDeps;
    },
  };
}
