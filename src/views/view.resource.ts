import { read, write } from '../platform/auth/rights.js';
import type { ProvisioningStep, Reference } from '../platform/area.js';
import { FailedPrecondition, InvalidArgument } from '../platform/errors.js';
import type { SqlDialect } from '../platform/db/database.js';
import type { ResourceDecl, Row, WriteContext } from '../platform/resource/declaration.js';
import { newId } from '../platform/resource/ids.js';
import { LANGUAGE_PATTERN } from '../websites/index.js';
import { clearFallbacksTo, countViews, countViewsFallingBackTo, hasAnyView, insertView, MAX_VIEWS_PER_WEBSITE, unsetOtherDefaults, viewFallbacks } from './views.repo.js';

/** A path segment: the view answers under `/{url_prefix}/…`; the default view's prefix is empty. */
const URL_PREFIX_PATTERN = '^(?:|[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?)$';

/**
 * The fallback must be another view of the same website, and following fallbacks must never come
 * back. Fallback changes of one website are serialised (`lockKey`) before the chain is read: two
 * concurrent updates (A → B, B → A) would otherwise each see no cycle and together close one.
 */
async function checkFallback(dialect: SqlDialect, ctx: WriteContext, row: Row): Promise<void> {
  if (!row.fallback_view_id) return;
  if (row.fallback_view_id === row.id) throw InvalidArgument.field('fallback_view_id', 'a view cannot fall back to itself');
  await dialect.lockKey(ctx.trx, `views.fallback_view_id|${row.website_id}`);
  const views = await viewFallbacks(ctx.trx, row.website_id);
  const fallbackOf = new Map(views.map((v) => [v.id as string, v.fallback_view_id as string | null]));
  if (!fallbackOf.has(row.fallback_view_id)) throw InvalidArgument.field('fallback_view_id', `${row.fallback_view_id} is not a view of this website`);
  fallbackOf.set(row.id, row.fallback_view_id);
  const seen = new Set<string>([row.id]);
  for (let at = fallbackOf.get(row.id); at; at = fallbackOf.get(at) ?? null) {
    if (seen.has(at)) throw InvalidArgument.field('fallback_view_id', 'the fallbacks would form a cycle');
    seen.add(at);
  }
}

/** Other views that fall back to a view: the one reference the views area keeps itself. */
export const fallbackReference: Reference = {
  target: 'views',
  describe: 'views.fallback_view_id',
  count: (db, websiteId, viewId) => countViewsFallingBackTo(db, websiteId, viewId),
  detach: (db, websiteId, viewId, now) => clearFallbacksTo(db, websiteId, viewId, now),
};

/**
 * Views: the locales (store views) a website answers in. Every website has exactly one default
 * view, created at provisioning from `default_language` with an empty `url_prefix`.
 */
export function viewResource(deps: { dialect: SqlDialect; references: () => Reference[] }): ResourceDecl {
  const { dialect } = deps;
  return {
    collection: 'views',
    singular: 'View',
    table: 'views',
    description:
      'A view of the website: a locale under its own URL prefix, with an optional fallback view whose content shows where this one has none. ' +
      'Pages, blocks and settings carry per-view overlays keyed by the view id.',
    collectionPath: 'websites/{website_id}/views',
    itemPath: 'websites/{website_id}/views/{view_id}',
    fields: {
      display_name: { type: 'string', description: 'Label in the admin and the locale switcher.', behavior: ['REQUIRED'], maxLength: 255, trim: true, notBlank: true },
      locale: { type: 'string', description: 'BCP 47 language tag, e.g. `de` or `pt-BR`.', behavior: ['REQUIRED'], pattern: LANGUAGE_PATTERN, maxLength: 35, trim: true, example: 'de' },
      url_prefix: {
        type: 'string',
        description: 'First path segment the view answers under (`de` → `/de/…`); empty for the default view. Unique on the website. Default on create: the locale in lower case.',
        pattern: URL_PREFIX_PATTERN,
        maxLength: 32,
        trim: true,
        uniqueInParent: true,
      },
      fallback_view_id: {
        type: 'string',
        description:
          'View whose content shows where this view has none: field by field, a field no overlay of this view overrides shows the ' +
          "fallback's overlay value, then its fallback's, …, else the resource's own (`:resolve` names the source in `field_sources`). " +
          'A view of the same website, never forming a cycle. Deleting the fallback view (with `force`) clears it.',
        maxLength: 64,
      },
      is_default: { type: 'boolean', description: 'Whether this is the website default view (set by `:make_default`).', behavior: ['OUTPUT_ONLY'], default: false },
      is_active: { type: 'boolean', description: 'Whether the rendered site serves the view.', default: true },
    },
    filterable: ['create_time', 'display_name', 'locale', 'url_prefix', 'is_default', 'is_active', 'fallback_view_id'],
    sortable: ['create_time', 'display_name', 'locale'],
    defaultOrder: 'create_time asc',
    methods: ['list', 'get', 'create', 'update', 'delete'],
    options: { clientId: true, validateOnly: true, force: true },
    rights: { read: read('website.views'), write: write('website.views') },
    hooks: {
      async beforeCreate(ctx, row) {
        if ((await countViews(ctx.trx, row.website_id)) >= MAX_VIEWS_PER_WEBSITE) {
          throw new FailedPrecondition('VIEW_LIMIT', `a website has at most ${MAX_VIEWS_PER_WEBSITE} views`);
        }
        if (row.url_prefix === null || row.url_prefix === undefined) row.url_prefix = String(row.locale).toLowerCase();
        await checkFallback(dialect, ctx, row);
      },
      async beforeUpdate(ctx, next, previous) {
        if (next.url_prefix === null) next.url_prefix = previous.is_default ? '' : String(next.locale).toLowerCase();
        if (next.fallback_view_id !== previous.fallback_view_id) await checkFallback(dialect, ctx, next);
        if (previous.is_default && !next.is_active) throw InvalidArgument.field('is_active', 'the default view cannot be switched off');
      },
      async beforeDelete(ctx, row, force) {
        if (row.is_default) throw new FailedPrecondition('VIEW_IS_DEFAULT', 'the default view cannot be deleted; make another view the default first');
        // Unless forced, refuse while anything points at the view; the engine then detaches every
        // reference (`Reference.detach`) in this transaction.
        if (force) return;
        const used: string[] = [];
        for (const reference of deps.references()) {
          const n = await reference.count(ctx.trx, row.website_id, row.id);
          if (n > 0) used.push(`${reference.describe} (${n})`);
        }
        if (used.length) {
          throw new FailedPrecondition('VIEW_IN_USE', `the view is still referenced by ${used.join(', ')}; pass force=true to detach those references and delete it`);
        }
      },
      present(row, resource) {
        resource.url_prefix = row.url_prefix ?? '';
      },
    },
    customMethods: [
      {
        verb: 'make_default',
        on: 'item',
        summary: 'Make a view the website default',
        description: 'The view becomes the default (empty URL prefix is not implied: prefixes stay as they are); the previous default stops being it.',
        access: 'write',
        async mutate(ctx, next) {
          if (!next.is_active) throw new FailedPrecondition('VIEW_INACTIVE', 'an inactive view cannot become the default');
          await unsetOtherDefaults(ctx.trx, dialect, next.website_id, next.id, ctx.now);
          next.is_default = dialect.bool(true);
        },
      },
    ],
  };
}

/** Provisioning: the default view from the website's `default_language` (skipped when it exists). */
export const defaultViewStep = (dialect: SqlDialect): ProvisioningStep => ({
  name: 'CREATE_DEFAULT_VIEW',
  async run(db, website) {
    if (await hasAnyView(db, website.id)) return;
    const now = Date.now();
    const locale = website.default_language ?? 'en';
    await insertView(db, {
      id: newId(now),
      account_id: website.account_id,
      website_id: website.id,
      display_name: new Intl.DisplayNames(['en'], { type: 'language' }).of(locale) ?? locale,
      locale,
      url_prefix: '',
      fallback_view_id: null,
      is_default: dialect.bool(true),
      is_active: dialect.bool(true),
      revision: 1,
      create_time: now,
      update_time: now,
    });
  },
});
