import { sql, type Kysely } from 'kysely';
import type { RequestContext } from '../platform/auth/context.js';
import type { Database } from '../platform/db/database.js';
import { InvalidArgument, NotFound } from '../platform/errors.js';
import type { Row } from '../platform/resource/declaration.js';
import type { JsonSchema } from '../platform/resource/schemas.js';

/** Reads a page or block as one view (and, for pages, one customer group) sees it. */
export interface PageResolver {
  resolve(ctx: RequestContext, params: Record<string, string>, body: { view_id?: string; customer_group_id?: string; customer_id?: string }): Promise<Record<string, unknown>>;
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
  groups?: { table: string; membersTable: string };
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
    overridden_fields: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 64 }, description: 'Fields taken from the view overlay.' },
    is_visible: { type: 'boolean', description: 'Whether the site serves the page in this view (`is_active` and `visible_view_ids`).' },
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
    overridden_fields: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 64 }, description: 'Fields taken from the view overlay.' },
    is_visible: { type: 'boolean', description: 'Whether the site shows the block in this view (`is_active` and `visible_view_ids`).' },
    identifier: text('Stable handle.'),
    title: text('Title.'),
    content: text('Sanitised rich text.'),
    is_active: { type: 'boolean', description: 'The block switch.' },
    visible_view_ids: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 64 }, description: 'Views the block is visible in (empty: every view).' },
    update_time: { type: 'string', format: 'date-time', maxLength: 40, description: 'Latest change of the block or overlay shown.' },
  },
};

/**
 * The read path of `:resolve`: one indexed query joins the row, the view (named or default) and the
 * view's overlay; for pages with a customer group a second one picks the winning group version
 * through the membership table (index `(website_id, cms_page_id, customer_group_id, view_id, priority)`).
 */
export function createResolver(database: Database, spec: ResolverSpec): PageResolver {
  const { dialect } = database;
  const db: Kysely<any> = database.db;
  const overlayColumns = spec.contentFields.map((f) => `o.${f} as o_${f}`);
  const slot = (name: string) => `\u0000${name}`;

  /**
   * Compiles a query once, with placeholder values standing for the request's ids, and runs it as a
   * prepared statement (as the engine's Get does): the read path is the SQL alone.
   */
  function prepared(query: { compile(): { sql: string; parameters: readonly unknown[] } }) {
    const compiled = query.compile();
    const slots = compiled.parameters.map((p) => (typeof p === 'string' && p.startsWith('\u0000') ? p.slice(1) : undefined));
    // Prepared on first use: SQLite prepares against the schema, which migrations may not have built yet.
    let run: ReturnType<Database['prepare']> | undefined;
    return async (values: Record<string, unknown>) => {
      run ??= database.prepare(compiled.sql);
      return (await run(slots.map((name, i) => (name === undefined ? compiled.parameters[i] : values[name]))))[0];
    };
  }

  const resolveRow = (namedView: boolean) =>
    prepared(
      db
        .selectFrom(`${spec.table} as r`)
        .leftJoin('views as vw', (join) => {
          const j = join.onRef('vw.website_id', '=', 'r.website_id');
          return namedView ? j.on('vw.id', '=', slot('view')) : j.on('vw.is_default', '=', dialect.bool(true) as never);
        })
        .leftJoin(`${spec.overlayTable} as o`, (join) =>
          join.onRef('o.website_id', '=', 'r.website_id').onRef(`o.${spec.overlayParent}`, '=', 'r.id').onRef('o.id', '=', 'vw.id'),
        )
        .selectAll('r')
        .select(['vw.id as view_found', 'o.overridden as o_overridden', 'o.update_time as o_update_time', ...overlayColumns])
        .where('r.website_id', '=', slot('website'))
        .where('r.id', '=', slot('id'))
        .where('r.account_id', '=', slot('account')),
    );
  const inNamedView = resolveRow(true);
  const inDefaultView = resolveRow(false);

  // One row per existing group: the best matching version, or nulls when none matches.
  const bestVersion = spec.groups
    ? prepared(
        db
          .selectFrom('customer_groups as cg')
          .leftJoin(`${spec.groups.membersTable} as m`, (join) =>
            join
              .onRef('m.website_id', '=', 'cg.website_id')
              .onRef('m.customer_group_id', '=', 'cg.id')
              .on('m.cms_page_id', '=', slot('page'))
              // '' stands for "every view"; without a view only those match.
              .on('m.view_id', 'in', [slot('view'), '']),
          )
          .leftJoin(`${spec.groups.table} as g`, (join) => join.onRef('g.website_id', '=', 'm.website_id').onRef('g.id', '=', 'm.cms_page_group_id'))
          .select(['cg.id as group_found', 'g.id as version_id', 'g.update_time as version_update_time', ...spec.contentFields.map((f) => `g.${f} as g_${f}`)])
          .where('cg.website_id', '=', slot('website'))
          .where('cg.id', '=', slot('group'))
          .orderBy('m.priority', 'desc')
          .orderBy('m.create_time', 'asc')
          .limit(1),
      )
    : undefined;

  // A customer: the best version among their groups' versions. SPEC 2.14: between groups the
  // customer group's `priority` decides; within one group the version's `priority`; then the older.
  const bestVersionForCustomer = spec.groups
    ? prepared(
        db
          .selectFrom('customers as c')
          .leftJoin('customer_group_members as cm', (join) => join.onRef('cm.customer_id', '=', 'c.id').onRef('cm.website_id', '=', 'c.website_id'))
          .leftJoin('customer_groups as cg', 'cg.id', 'cm.group_id')
          .leftJoin(`${spec.groups.membersTable} as m`, (join) =>
            join
              .onRef('m.website_id', '=', 'c.website_id')
              .onRef('m.customer_group_id', '=', 'cm.group_id')
              .on('m.cms_page_id', '=', slot('page'))
              .on('m.view_id', 'in', [slot('view'), '']),
          )
          .leftJoin(`${spec.groups.table} as g`, (join) => join.onRef('g.website_id', '=', 'm.website_id').onRef('g.id', '=', 'm.cms_page_group_id'))
          .select([
            'c.id as customer_found',
            'm.customer_group_id as matched_group_id',
            'g.id as version_id',
            'g.update_time as version_update_time',
            ...spec.contentFields.map((f) => `g.${f} as g_${f}`),
          ])
          .where('c.website_id', '=', slot('website'))
          .where('c.id', '=', slot('customer'))
          .orderBy(sql`case when g.id is null then 1 else 0 end`)
          .orderBy('cg.priority', 'desc')
          .orderBy('m.priority', 'desc')
          .orderBy('m.create_time', 'asc')
          .limit(1),
      )
    : undefined;

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

  return {
    async resolve(ctx, params, body) {
      const websiteId = params.website_id;
      const id = params[spec.param];
      const values = { website: websiteId, id, account: ctx.access!.accountId, view: body.view_id };
      const row = await (body.view_id ? inNamedView(values) : inDefaultView(values));
      if (!row) throw new NotFound(`${spec.collection.replace(/s$/, '')} ${id}`);
      if (body.view_id && !row.view_found) throw InvalidArgument.field('view_id', `${body.view_id} is not a view of this website`);
      const viewId = (row.view_found as string | null) ?? undefined;

      const result: Record<string, unknown> = { name: `websites/${websiteId}/${spec.collection}/${id}`, id };
      if (viewId) result.view_id = viewId;
      let updateTime = Number(row.update_time);
      const overridden = row.o_overridden ? dialect.readJson<string[]>(row.o_overridden) : [];
      for (const f of spec.contentFields) {
        const value = overridden.includes(f) ? row[`o_${f}`] : row[f];
        if (value !== null && value !== undefined) result[f] = value;
      }
      if (overridden.length) updateTime = Math.max(updateTime, Number(row.o_update_time));
      result.overridden_fields = overridden;

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
          result.overridden_fields = overridden.filter((f) => !replaced.includes(f));
          updateTime = Math.max(updateTime, Number(version.version_update_time));
        }
      }
      for (const f of spec.plainFields) {
        const value = row[f];
        if (value === null || value === undefined) continue;
        result[f] = f === 'visible_view_ids' ? dialect.readJson(value) : f === 'is_active' ? value === true || value === 1 : value;
      }
      const visible = (result.visible_view_ids as string[]) ?? [];
      result.is_visible = result.is_active === true && (visible.length === 0 || (viewId !== undefined && visible.includes(viewId)));
      result.update_time = new Date(updateTime).toISOString();
      return result;
    },
  };
}
