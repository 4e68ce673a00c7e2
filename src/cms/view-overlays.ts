import type { Database, PreparedRead } from '../platform/db/database.js';
import { InvalidArgument } from '../platform/errors.js';
import type { Row } from '../platform/resource/declaration.js';
import type { JsonSchema } from '../platform/resource/schemas.js';
import { overlaidRowQuery, overlaysOfRows, viewChainQuery, viewChainWithOverlaysQuery } from './content.repo.js';

/**
 * A resource with per-view overlays (`overlayResource`): pages, blocks, and every other content
 * resource that gets them (blog posts, categories, tags, authors).
 */
export interface OverlaidResourceSpec {
  /** Base table, e.g. `cms_pages`; website-scoped, primary key `(website_id, id)`. */
  table: string;
  /** Overlay table, e.g. `cms_page_views` (its `id` is the view id), and its column naming the base row. */
  overlayTable: string;
  overlayParent: string;
  /** Fields an overlay may replace (its `overridden` names some of them). */
  fields: readonly string[];
}

/** A row as one view sees it. */
export interface ViewReading {
  /** The stored row, as read (every column). */
  row: Row;
  /** The view read as: the one asked for, else the website's default view (none only if the website has none). */
  viewId: string | undefined;
  /** The view, then its fallback, its fallback's fallback, … (each once; at most `MAX_VIEWS_PER_WEBSITE`). */
  viewChain: string[];
  /** Every overridable field's value in this view (null when neither an overlay nor the row has one). */
  values: Record<string, unknown>;
  /** Fields taken from an overlay of the chain, in declaration order. */
  overriddenFields: string[];
  /** For each of those, the overlay that supplied it: `views/{view_id}`. */
  fieldSources: Record<string, string>;
  /** Latest change of the row or of an overlay that supplied a field (ms). */
  updateTime: number;
}

export interface ViewOverlayReader {
  /**
   * Reads row `id` of the website as `viewId` (default: the website's default view) sees it;
   * undefined when the row does not exist in the website and account. A `viewId` that is not a view
   * of the website is INVALID_ARGUMENT naming `view_id`.
   */
  read(key: { websiteId: string; id: string; accountId: string; viewId?: string }): Promise<ViewReading | undefined>;
  /**
   * The same resolution for rows the caller already read (a page of a site listing, a feed): one
   * query for the view's chain and one for the overlays of all `rows` along it. `fields` narrows the
   * overlaid fields resolved (default: all); `rows` must carry those columns, `id` and `update_time`.
   * Answers in the order of `rows`. A `viewId` that is not a view of the website is INVALID_ARGUMENT.
   */
  readMany(key: { websiteId: string; viewId?: string; rows: readonly Row[]; fields?: readonly string[] }): Promise<ViewReading[]>;
}

const slot = (name: string) => `\u0000${name}`;

/**
 * Compiles a query once, with `slot(name)` placeholders standing for the request's values, and runs
 * it as a prepared statement (as the engine's Get does): the read path is the SQL alone.
 */
export function preparedQuery(database: Database, query: { compile(): { sql: string; parameters: readonly unknown[] } }) {
  const compiled = query.compile();
  const slots = compiled.parameters.map((p) => (typeof p === 'string' && p.startsWith('\u0000') ? p.slice(1) : undefined));
  // Prepared on first use: SQLite prepares against the schema, which migrations may not have built yet.
  let run: PreparedRead<Row> | undefined;
  return async (values: Record<string, unknown>): Promise<Row[]> => {
    run ??= database.prepare<Row>(compiled.sql);
    return run(slots.map((name, i) => (name === undefined ? compiled.parameters[i] : values[name])));
  };
}
export { slot as querySlot };

/**
 * The one resolution of views and overlays, shared by every `:resolve` (and the renderer): a view
 * shows, field by field, the value of the nearest view in its fallback chain whose overlay lists the
 * field in `overridden` — its own overlay first, then its fallback's, … — else the row's own value.
 *
 * Two prepared, indexed queries: the row by primary key; then the chain (a recursive CTE over
 * `views` by primary key, from the named or default view along `fallback_view_id`, at most
 * `MAX_VIEWS_PER_WEBSITE` steps, so a loop written behind the views area's back cannot hang a read)
 * left-joined to the overlays of the row for those views, nearest first.
 */
export function createViewOverlayReader(database: Database, spec: OverlaidResourceSpec): ViewOverlayReader {
  const { dialect, db } = database;
  const rowQuery = preparedQuery(database, overlaidRowQuery(db, spec.table, slot));
  const namedChain = preparedQuery(database, viewChainWithOverlaysQuery(db, dialect, spec, true, slot));
  const defaultChain = preparedQuery(database, viewChainWithOverlaysQuery(db, dialect, spec, false, slot));
  // readMany: the chain alone, then the overlays of many rows along it (primary key probes).
  const namedChainOnly = preparedQuery(database, viewChainQuery(db, dialect, true, slot));
  const defaultChainOnly = preparedQuery(database, viewChainQuery(db, dialect, false, slot));

  return {
    async read({ websiteId, id, accountId, viewId }) {
      const [row] = await rowQuery({ website: websiteId, id, account: accountId });
      if (!row) return undefined;
      const steps = await (viewId ? namedChain : defaultChain)({ website: websiteId, id, view: viewId });
      if (viewId && steps.length === 0) throw InvalidArgument.field('view_id', `${viewId} is not a view of this website`);
      return resolveSteps(row, steps, spec.fields);
    },

    async readMany({ websiteId, viewId, rows, fields = spec.fields }) {
      const chain = await (viewId ? namedChainOnly : defaultChainOnly)({ website: websiteId, view: viewId });
      if (viewId && chain.length === 0) throw InvalidArgument.field('view_id', `${viewId} is not a view of this website`);
      const chainIds = [...new Set(chain.map((c) => c.view_id as string))];
      const overlays = new Map<string, Row>();
      if (rows.length && chainIds.length) {
        const found = await overlaysOfRows(db, spec, fields, websiteId, rows.map((r) => r.id as string), chainIds);
        for (const o of found) overlays.set(`${o[spec.overlayParent]}|${o.id}`, o);
      }
      return rows.map((row) =>
        resolveSteps(
          row,
          chain.map((c) => {
            const o = overlays.get(`${row.id}|${c.view_id}`);
            if (!o) return { view_id: c.view_id, overlay_id: null };
            const step: Row = { view_id: c.view_id, overlay_id: o.id, o_overridden: o.overridden, o_update_time: o.update_time };
            for (const f of fields) step[`o_${f}`] = o[f];
            return step;
          }),
          fields,
        ),
      );
    },
  };

  /** Field by field, the nearest overlay of the chain listing the field, else the row's value. */
  function resolveSteps(row: Row, steps: Row[], fields: readonly string[]): ViewReading {
    // Nearest first; a view met again means a loop: the chain ends there.
    const viewChain: string[] = [];
    const overlays: { viewId: string; overridden: string[]; step: Row }[] = [];
    for (const step of steps) {
      const at = step.view_id as string;
      if (viewChain.includes(at)) break;
      viewChain.push(at);
      if (step.overlay_id !== null && step.overlay_id !== undefined) {
        overlays.push({ viewId: at, overridden: dialect.readJson<string[]>(step.o_overridden) ?? [], step });
      }
    }

    const values: Record<string, unknown> = {};
    const overriddenFields: string[] = [];
    const fieldSources: Record<string, string> = {};
    let updateTime = Number(row.update_time);
    for (const field of fields) {
      const source = overlays.find((o) => o.overridden.includes(field));
      if (!source) {
        values[field] = row[field] ?? null;
        continue;
      }
      values[field] = source.step[`o_${field}`] ?? null;
      overriddenFields.push(field);
      fieldSources[field] = `views/${source.viewId}`;
      updateTime = Math.max(updateTime, Number(source.step.o_update_time));
    }
    return { row, viewId: viewChain[0], viewChain, values, overriddenFields, fieldSources, updateTime };
  }
}

/** `overridden_fields` of a resolved answer (`note` adds what a resource's answer also leaves out). */
export function overriddenFieldsSchema(note = ''): JsonSchema {
  return {
    type: 'array',
    maxItems: 100,
    items: { type: 'string', maxLength: 64 },
    description: `Fields taken from a view overlay: the view's own, or along its fallback chain (see \`field_sources\`)${note}.`,
  };
}

/** `field_sources` of a resolved answer: each overridable field, when an overlay supplied it. */
export function fieldSourcesSchema(fields: readonly string[]): JsonSchema {
  return {
    type: 'object',
    description:
      'Where each field taken from a view overlay came from: `views/{view_id}`, the view whose overlay supplied it — the view read as, ' +
      "or the nearest view along its fallback chain whose overlay lists the field in `overridden`. Fields absent here show the resource's own value " +
      '(or, for pages, the customer-group version).',
    properties: Object.fromEntries(fields.map((f) => [f, { type: 'string', maxLength: 80, description: `Source of \`${f}\`.` }])),
    additionalProperties: false,
  };
}
