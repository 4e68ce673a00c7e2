import type { RequestContext } from '../platform/auth/context.js';
import type { Database } from '../platform/db/database.js';
import { InvalidArgument, NotFound } from '../platform/errors.js';
import type { Row } from '../platform/resource/declaration.js';
import type { JsonSchema } from '../platform/resource/schemas.js';
import { bestCustomerVersionQuery, bestGroupVersionQuery, type GroupVersionTables } from './content.repo.js';
import { createViewOverlayReader, fieldSourcesSchema, overriddenFieldsSchema, preparedQuery, querySlot as slot } from './view-overlays.js';

/** Reads a page or block as one view (and, for pages, one customer group) sees it. */
export interface PageResolver {
  resolve(ctx: RequestContext, params: Record<string, string>, body: { view_id?: string; customer_group_id?: string; customer_id?: string }): Promise<Record<string, unknown>>;
  /**
   * The same answer without a request context (the rendered site reads as the website's own
   * account): `resolve` is this with the caller's account and the path's website.
   */
  read(key: ResolveKey): Promise<Record<string, unknown>>;
}

/** What `read` resolves: the row `id` of the website and account, as a view and a customer group or customer see it. */
export interface ResolveKey {
  websiteId: string;
  accountId: string;
  id: string;
  viewId?: string;
  customerGroupId?: string;
  customerId?: string;
}

/**
 * Whether the site serves a page or block in `viewId`: `is_active`, and `visible_view_ids` empty
 * (every view) or naming the view. The one rule `is_visible` of `:resolve` and the site follow.
 */
export function isVisibleIn(isActive: boolean, visibleViewIds: readonly string[], viewId: string | undefined): boolean {
  return isActive && (visibleViewIds.length === 0 || (viewId !== undefined && visibleViewIds.includes(viewId)));
}

export interface ResolverSpec {
  /** `cms_pages` / `cms_blocks`, their overlay table and the path parameter naming the row. */
  table: string;
  overlayTable: string;
  overlayParent: string;
  param: string;
  collection: string;
  /** Fields a view overlay (and a group version) may replace. */
  contentFields: readonly string[];
  /** Fields shown as stored. */
  plainFields: readonly string[];
  /** Customer-group versions (pages only). */
  groups?: GroupVersionTables;
}

// Bounded like the stored fields they come from (rich text: the content limit).
const text = (description: string): JsonSchema => ({ type: 'string', maxLength: 500_000, description });

/** Answer of `cms_pages/{p}:resolve`. */
export const resolvedPageSchema: JsonSchema = {
  type: 'object',
  title: 'ResolvedCmsPage',
  description: 'A page as one view and customer group see it.',
  properties: {
    name: text('The page, `websites/{w}/cms_pages/{p}`.'),
    id: text('Id of the page.'),
    view_id: text('The view read as (the default view when none was named).'),
    customer_group_id: text('The customer group read as: the one named, or for a `customer_id` the group whose version won.'),
    customer_id: text('The customer read as, when one was named.'),
    cms_page_group_id: text('The customer-group version that won, when one did.'),
    overridden_fields: overriddenFieldsSchema('; not those a customer-group version replaced'),
    field_sources: fieldSourcesSchema(['title', 'content_heading', 'content', 'meta_title', 'meta_description', 'meta_keywords']),
    is_visible: { type: 'boolean', description: 'Whether the site serves the page in this view (`is_active` and `visible_view_ids`, decided by the view read as, never by its fallbacks).' },
    title: text('Title.'),
    url_key: text('URL key.'),
    content_heading: text('Heading.'),
    content: text('Sanitised rich text.'),
    meta_title: text('SEO title.'),
    meta_description: text('SEO description.'),
    meta_keywords: text('SEO keywords.'),
    meta_robots: text('Robots directive.'),
    is_active: { type: 'boolean', description: 'The page switch.' },
    visible_view_ids: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 64 }, description: 'Views the page is visible in (empty: every view).' },
    update_time: { type: 'string', format: 'date-time', maxLength: 40, description: 'Latest change of the page, overlay or version shown.' },
  },
};

/** Answer of `cms_blocks/{b}:resolve`. */
export const resolvedBlockSchema: JsonSchema = {
  type: 'object',
  title: 'ResolvedCmsBlock',
  description: 'A block as one view sees it.',
  properties: {
    name: text('The block, `websites/{w}/cms_blocks/{b}`.'),
    id: text('Id of the block.'),
    view_id: text('The view read as (the default view when none was named).'),
    overridden_fields: overriddenFieldsSchema(),
    field_sources: fieldSourcesSchema(['title', 'content']),
    is_visible: { type: 'boolean', description: 'Whether the site shows the block in this view (`is_active` and `visible_view_ids`, decided by the view read as, never by its fallbacks).' },
    identifier: text('Stable handle.'),
    title: text('Title.'),
    content: text('Sanitised rich text.'),
    is_active: { type: 'boolean', description: 'The block switch.' },
    visible_view_ids: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 64 }, description: 'Views the block is visible in (empty: every view).' },
    update_time: { type: 'string', format: 'date-time', maxLength: 40, description: 'Latest change of the block or overlay shown.' },
  },
};

/**
 * The read path of `:resolve`: the row as the view (named or default) sees it through the shared
 * resolution of views and overlays (`view-overlays.ts`: fallback chain, field by field); for pages
 * with a customer group a further query picks the winning group version through the membership
 * table (index `(website_id, cms_page_id, customer_group_id, view_id, priority)`).
 */
export function createResolver(database: Database, spec: ResolverSpec): PageResolver {
  const { dialect, db } = database;
  const reader = createViewOverlayReader(database, {
    table: spec.table,
    overlayTable: spec.overlayTable,
    overlayParent: spec.overlayParent,
    fields: spec.contentFields,
  });
  const prepared = (query: Parameters<typeof preparedQuery>[1]) => {
    const run = preparedQuery(database, query);
    return async (values: Record<string, unknown>) => (await run(values))[0];
  };

  // One row per existing group: the best matching version, or nulls when none matches.
  const bestVersion = spec.groups ? prepared(bestGroupVersionQuery(db, spec.groups, spec.contentFields, slot)) : undefined;
  // A customer: the best version among their groups' versions (SPEC 2.14, see the query).
  const bestVersionForCustomer = spec.groups ? prepared(bestCustomerVersionQuery(db, spec.groups, spec.contentFields, slot)) : undefined;

  async function customerVersion(websiteId: string, pageId: string, viewId: string | undefined, customerId: string): Promise<Row | undefined> {
    const row = await bestVersionForCustomer!({ website: websiteId, page: pageId, view: viewId ?? '', customer: customerId });
    if (!row) throw InvalidArgument.field('customer_id', `${customerId} is not a customer of this website`);
    return row.version_id ? row : undefined;
  }

  async function groupVersion(websiteId: string, pageId: string, viewId: string | undefined, groupId: string): Promise<Row | undefined> {
    const row = await bestVersion!({ website: websiteId, page: pageId, view: viewId ?? '', group: groupId });
    if (!row) throw InvalidArgument.field('customer_group_id', `${groupId} is not a customer group of this website`);
    return row.version_id ? row : undefined;
  }

  const resolver: PageResolver = {
    resolve: (ctx, params, body) =>
      resolver.read({
        websiteId: params.website_id,
        id: params[spec.param],
        accountId: ctx.access!.accountId,
        viewId: body.view_id,
        customerGroupId: body.customer_group_id,
        customerId: body.customer_id,
      }),

    async read({ websiteId, id, accountId, viewId: askedView, customerGroupId, customerId }) {
      const body = { view_id: askedView, customer_group_id: customerGroupId, customer_id: customerId };
      const reading = await reader.read({ websiteId, id, accountId, viewId: body.view_id });
      if (!reading) throw new NotFound(`${spec.collection.replace(/s$/, '')} ${id}`);
      const { row, viewId } = reading;

      const result: Record<string, unknown> = { name: `websites/${websiteId}/${spec.collection}/${id}`, id };
      if (viewId) result.view_id = viewId;
      let updateTime = reading.updateTime;
      for (const f of spec.contentFields) {
        const value = reading.values[f];
        if (value !== null && value !== undefined) result[f] = value;
      }
      result.overridden_fields = reading.overriddenFields;
      result.field_sources = reading.fieldSources;

      if (spec.groups && body.customer_group_id && body.customer_id) {
        throw InvalidArgument.field('customer_id', 'name either customer_id or customer_group_id, not both');
      }
      if (spec.groups && (body.customer_group_id || body.customer_id)) {
        let version: Row | undefined;
        if (body.customer_id) {
          result.customer_id = body.customer_id;
          version = await customerVersion(websiteId, id, viewId, body.customer_id);
          if (version) result.customer_group_id = version.matched_group_id;
        } else {
          result.customer_group_id = body.customer_group_id;
          version = await groupVersion(websiteId, id, viewId, body.customer_group_id!);
        }
        if (version) {
          result.cms_page_group_id = version.version_id;
          // A version's own fields win; fields it leaves empty show what the view shows.
          const replaced = spec.contentFields.filter((f) => version[`g_${f}`] !== null && version[`g_${f}`] !== undefined);
          for (const f of replaced) result[f] = version[`g_${f}`];
          result.overridden_fields = reading.overriddenFields.filter((f) => !replaced.includes(f));
          result.field_sources = Object.fromEntries(Object.entries(reading.fieldSources).filter(([f]) => !replaced.includes(f)));
          updateTime = Math.max(updateTime, Number(version.version_update_time));
        }
      }
      for (const f of spec.plainFields) {
        const value = row[f];
        if (value === null || value === undefined) continue;
        result[f] = f === 'visible_view_ids' ? dialect.readJson(value) : f === 'is_active' ? value === true || value === 1 : value;
      }
      result.is_visible = isVisibleIn(result.is_active === true, (result.visible_view_ids as string[]) ?? [], viewId);
      result.update_time = new Date(updateTime).toISOString();
      return result;
    },
  };
  return resolver;
}
