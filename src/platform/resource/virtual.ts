import type { RequestContext } from '../auth/context.js';
import { compileFilterPredicate, formatFilter, parseFilter, type FilterField, type FilterOperand } from '../query/filter.js';
import { parsePageWindow } from '../query/list-params.js';
import { parseOrderBy } from '../query/order.js';
import { queryBinding, type PageTokenCodec } from '../query/page-token.js';
import type { ResourceDecl, VirtualSource } from './declaration.js';
import type { ListQuery, ListResult, Resource, ResourceService } from './service.js';
import { fillFromParams } from './paths.js';

/**
 * The service of a virtual collection: rows computed per request from a bounded source (settings:
 * the descriptor registry merged with a website's stored values; platform catalogues) instead of
 * one table. List takes the same parameters and follows the same rules as the engine's SQL List
 * (page_size, skip window, order_by over the declared sortable fields with `id` as tie-breaker,
 * AIP-160 filter over the declared filterable fields, signed keyset page tokens bound to
 * collection, caller, filter and order), evaluated in memory; Get and Update are the source's.
 * Only for sources whose size the platform bounds, never tenants.
 */
export function createVirtualService(decl: ResourceDecl, source: VirtualSource, pageTokens: PageTokenCodec): ResourceService {
  const list = createVirtualList(decl, pageTokens);
  const unsupported = (method: string) => () => {
    throw new Error(`${decl.collection} is a virtual collection: ${method} is not supported`);
  };
  return {
    decl,
    list: async (ctx, params, query) => {
      if (!source.all) return unsupported('list')();
      return list(ctx, params, query, await source.all(ctx, params));
    },
    get: (ctx, params) => source.get(ctx, params),
    update: async (ctx, params, body, opts = {}) => {
      if (!source.update) return unsupported('update')();
      return { resource: await source.update(ctx, params, body, opts), created: false };
    },
    // Lists run in memory: there is no SQL to hand out.
    listQueries: unsupported('listQueries'),
    create: unsupported('create'),
    delete: unsupported('delete'),
    insert: unsupported('insert'),
    remove: unsupported('remove'),
    mutate: unsupported('mutate'),
    hold: unsupported('hold'),
    load: unsupported('load'),
    toResource: unsupported('toResource'),
  };
}

/** In-memory List over already-presented resources (see createVirtualService). */
export function createVirtualList(decl: ResourceDecl, pageTokens: PageTokenCodec) {
  const filterFields: Record<string, FilterField> = {};
  for (const name of decl.filterable) {
    const field = decl.fields[name];
    if (!field || field.type === 'object' || field.type === 'json') throw new Error(`${decl.collection}: filterable field ${name} is not a declared scalar`);
    filterFields[name] = { column: name, type: field.type, values: field.values, hasMatchesPrefix: field.hasMatchesPrefix };
  }
  const sortable: Record<string, { column: string; nullable: boolean }> = {};
  for (const name of decl.sortable) {
    if (!decl.fields[name]) throw new Error(`${decl.collection}: sortable field ${name} is not declared`);
    sortable[name] = { column: name, nullable: false };
  }
  /** Wire value → comparable operand (timestamps as epoch ms, like the SQL side). */
  const operand = (resource: Resource, name: string): FilterOperand => {
    const value = resource[name];
    if (value === undefined || value === null) return null;
    if (decl.fields[name]?.type === 'timestamp') return Date.parse(String(value));
    return value as FilterOperand;
  };

  return function list(ctx: RequestContext, params: Record<string, string>, query: ListQuery, resources: Resource[]): ListResult {
    const { pageSize, skip } = parsePageWindow(query);
    const order = parseOrderBy(query.order_by?.trim() ? query.order_by : decl.defaultOrder, sortable);
    const ast = parseFilter(query.filter ?? '');
    const matches = compileFilterPredicate(ast, filterFields);
    const binding = queryBinding(`${fillFromParams(decl.collectionPath, params)}|${ctx.caller.userId}`, formatFilter(ast), order.canonical);
    const cursor = query.page_token ? pageTokens.decode(query.page_token, binding) : undefined;

    const keyOf = (r: Resource) => order.columns.map((c) => operand(r, c.field));
    const compareKeys = (a: readonly unknown[], b: readonly unknown[]) => {
      for (let i = 0; i < order.columns.length; i++) {
        const x = a[i] as string | number | boolean | null;
        const y = b[i] as string | number | boolean | null;
        if (x === y) continue;
        // Absent values sort last ascending, first descending (as the SQL side does).
        const c = x === null ? 1 : y === null ? -1 : x < y ? -1 : 1;
        return order.columns[i].desc ? -c : c;
      }
      return 0;
    };
    const filtered = resources.filter((r) => matches(Object.fromEntries(Object.keys(filterFields).map((f) => [f, operand(r, f)]))));
    const sorted = filtered.map((r) => ({ r, key: keyOf(r) })).sort((a, b) => compareKeys(a.key, b.key));
    const after = cursor ? sorted.filter((e) => compareKeys(e.key, cursor.after) > 0) : sorted;
    const page = after.slice(skip, skip + pageSize + 1);
    const more = page.length > pageSize;
    const items = (more ? page.slice(0, pageSize) : page).map((e) => e.r);
    const totalSize = cursor ? cursor.total : filtered.length;
    const nextPageToken = more ? pageTokens.encode({ binding, after: page[pageSize - 1].key, total: totalSize }) : undefined;
    return { items, nextPageToken, totalSize };
  };
}
