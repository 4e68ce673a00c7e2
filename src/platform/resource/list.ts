import { sql, type CompiledQuery, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { SemiJoinPlan } from '../db/database.js';
import { dynamic } from '../db/dynamic.js';
import type { DB } from '../db/schema.js';
import type { RequestContext } from '../auth/context.js';
import { ApiError } from '../errors.js';
import { buildFilter, type FilterField } from '../query/filter.js';
import { keysetAfter, orderTerms, parseOrderBy } from '../query/order.js';
import { parsePageWindow } from '../query/list-params.js';
import { queryBinding } from '../query/page-token.js';
import type { FieldDecl, Row } from './declaration.js';
import type { ResourceCore } from './core.js';
import { columnOf } from './mapper.js';
import { fillFromParams } from './paths.js';
import { has } from './schemas.js';
import type { ListQuery, ResourceService } from './service.js';

/**
 * List of one declaration: the filter and order whitelists it derives, the page and count SQL a
 * request compiles to (keyset pages, plans that depend on how many rows match), and running them
 * with the cached exact count.
 */
export function createListMethods(core: ResourceCore): Pick<ResourceService, 'list' | 'listQueries'> {
  const { decl, deps, database, dialect, collectionParams, ownIdParam, hooks, scoped, checkParent, presentAll } = core;

  const common: Record<string, FieldDecl> = {
    create_time: { type: 'timestamp', description: '', behavior: ['OUTPUT_ONLY'] },
    update_time: { type: 'timestamp', description: '', behavior: ['OUTPUT_ONLY'] },
  };
  const filterFields: Record<string, FilterField> = {};
  for (const name of decl.filterable) {
    const field = fieldOrThrow(name);
    filterFields[name] = {
      column: columnOf(name, field) ?? name,
      type: field.type === 'object' || field.type === 'json' ? 'string' : field.type,
      values: field.values,
      hasMatchesPrefix: field.hasMatchesPrefix,
      lowercase: field.lowercase,
      has: field.filterHas,
      // Every table's filterable string columns carry its trigram text index (migrations).
      textIndexedTable: field.type === 'string' ? decl.table : undefined,
    };
  }
  const sortable: Record<string, { column: string; nullable: boolean }> = {};
  for (const name of decl.sortable) {
    const field = decl.fields[name] ?? common[name];
    if (!field) throw new Error(`${decl.collection}: sortable field ${name} is not declared`);
    const nullable = !common[name] && !has(field, 'REQUIRED') && field.default === undefined && !field.notNull;
    sortable[name] = { column: columnOf(name, field) ?? name, nullable };
  }

  function fieldOrThrow(name: string): FieldDecl {
    const field = decl.fields[name] ?? common[name];
    if (!field) throw new Error(`${decl.collection}: filterable field ${name} is not declared`);
    return field;
  }

  /**
   * Everything a List request runs, compiled but not run: the page (keyset after the token's cursor,
   * `skip`, one row more than the page to see whether another follows) and the count of what the
   * filter selects. `list()` runs exactly these; `listQueries()` hands them out (plan checks).
   */
  function compileList(ctx: RequestContext, params: Record<string, string>, query: ListQuery) {
    const { pageSize, skip } = parsePageWindow(query);
    const order = parseOrderBy(query.order_by?.trim() ? query.order_by : decl.defaultOrder, sortable);
    const filter = buildFilter(query.filter, filterFields, dialect, params);
    // Bound to the caller too: what a list shows (and the total a token carries) is the caller's view.
    const binding = queryBinding(`${fillFromParams(decl.collectionPath, params)}|${ctx.caller.userId}`, filter.canonical, order.canonical);
    const cursor = query.page_token ? deps.pageTokens.decode(query.page_token, binding) : undefined;

    const visible = hooks.listVisible?.(ctx);
    const filtered = (db: Kysely<DB>, where: Expression<SqlBool> | undefined, semiJoin: SemiJoinPlan = 'probe') => {
      const untyped = dynamic(db);
      let q = untyped.selectFrom(decl.table);
      // An empty list of visible ids shows nothing (guard against an empty IN list).
      if (visible) q = visible.values.length ? q.where(visible.column, 'in', visible.values) : q.where(sql<boolean>`1 = 0`);
      if (decl.table === 'accounts') {
        q = q.where('id', 'in', db.selectFrom('memberships').select('account_id').where('user_id', '=', ctx.caller.userId));
      } else if (semiJoin === 'drive') {
        // The side table's rows drive: no index leading with the parents may be walked instead.
        for (const p of collectionParams) q = q.where(dialect.notIndexed(p === ownIdParam ? 'id' : p), '=', params[p]);
      } else {
        q = scoped(q, params, collectionParams);
      }
      return where ? q.where(where) : q;
    };
    const pageWhere = (where: Expression<SqlBool> | undefined, semiJoin: SemiJoinPlan = 'probe') => {
      // A driving side table: the ordered index must not be walked, the matches are sorted instead.
      const refOf = semiJoin === 'drive' ? dialect.notIndexed : undefined;
      let page = filtered(database.read, where, semiJoin).selectAll();
      if (cursor) page = page.where(keysetAfter(order.columns, cursor.after, refOf));
      for (const term of orderTerms(order.columns, refOf)) page = page.orderBy(term);
      page = page.limit(pageSize + 1);
      if (skip) page = page.offset(skip);
      return page.compile();
    };
    const countWhere = (where: Expression<SqlBool> | undefined) => filtered(database.count, where).select((eb) => eb.fn.countAll().as('count'));
    const rowCheck = () => buildFilter(query.filter, filterFields, dialect, params, 'row_check').where;
    const planned = (matches: number) => {
      const text = filter.indexedContains.length > 0 && dialect.pageTextMatchPlan ? dialect.pageTextMatchPlan(matches, pageSize) : 'text_index';
      const semiJoin = filter.drivingSemiJoin && dialect.pageSemiJoinPlan ? dialect.pageSemiJoinPlan(matches, pageSize) : 'probe';
      if (text === 'text_index' && semiJoin === 'probe') return pageWhere(filter.where);
      return pageWhere(buildFilter(query.filter, filterFields, dialect, params, text, semiJoin).where, semiJoin);
    };
    // One contains whose text the whole table holds often: check the scope's rows instead of
    // fetching every match's row (`SqlDialect.textIndexHoldsMany`); SQLite evaluates only the branch taken.
    const [only] = filter.indexedContains;
    const holdsMany = filter.indexedContains.length === 1 ? dialect.textIndexHoldsMany?.(only.table, only.column, only.text) : undefined;
    const count = holdsMany
      ? sql<{ count: unknown }>`select case when ${holdsMany} then (${countWhere(rowCheck())}) else (${countWhere(filter.where)}) end as count`.compile(database.count)
      : countWhere(filter.where).compile();
    // A contains or a side-table filter the dialect can answer two ways: the page's SQL depends on
    // how many rows match (`SqlDialect.pageTextMatchPlan`, `pageSemiJoinPlan`), so `list()` learns
    // the total first and picks.
    const pageFor =
      (filter.indexedContains.length > 0 && dialect.pageTextMatchPlan) || (filter.drivingSemiJoin && dialect.pageSemiJoinPlan) ? planned : undefined;
    const countKey = visible ? `${filter.canonical}\n${visible.column} in ${[...visible.values].sort().join(',')}` : filter.canonical;
    // Every row of the path's scope: the trigger-kept row count answers the total (list-counts.ts).
    const scopeColumn = collectionParams.includes('website_id') ? 'website_id' : 'account_id';
    const allRows = !filter.where && !visible && collectionParams.length === 1 && collectionParams[0] === scopeColumn;
    return { pageSize, order, binding, cursor, filterCanonical: countKey, allRows, page: pageWhere(filter.where), pageFor, count };
  }

  return {
    listQueries: (ctx, params, query, known) => {
      const { page, pageFor, count } = compileList(ctx, params, query);
      return { page: pageFor && known?.matches !== undefined ? pageFor(known.matches) : page, count };
    },

    async list(ctx, params, query) {
      const { pageSize, order, binding, cursor, filterCanonical, allRows, page, pageFor, count } = compileList(ctx, params, query);
      if (!cursor) await checkParent(database.read, params);

      // The page and the count go to different connections (PostgreSQL), so a first page costs
      // max(page, count), and counts are bounded on their own.
      const countQuery = () => database.count.executeQuery<{ count: unknown }>(count).then((r) => Number(r.rows[0].count));
      // The change counter the count is kept under, as the list_versions triggers key the table: by
      // website when the path has one, else by account. The accounts collection (the caller's
      // memberships) and catalogues (no tenant) always count. A List of every row of a website (or
      // account) collection takes the counter's row_count instead of counting (`allRows`).
      const scope =
        decl.table === 'accounts' || decl.catalogue ? undefined : collectionParams.includes('website_id') ? params.website_id : ctx.access?.accountId;
      const counted = () =>
        deps.listCounts && scope !== undefined
          ? deps.listCounts.count({ table: decl.table, scope, query: `${fillFromParams(decl.collectionPath, params)}\n${filterCanonical}` }, countQuery, {
              allRows: allRows && params[collectionParams[0]] === scope,
            })
          : countQuery();
      const runPage = (query: CompiledQuery) => database.read.executeQuery<Row>(query).then((r) => r.rows);
      const total = () => (cursor ? Promise.resolve(cursor.total) : counted());
      const [rows, totalSize] = await (
        pageFor
          ? // The total first (the token's, or a count that is usually cached), then the page's plan.
            total().then(async (matches) => [await runPage(pageFor(matches)), matches] as const)
          : Promise.all([runPage(page), total()])
      ).catch((err) => {
        if (dialect.isTimeout(err)) throw new ApiError('DEADLINE_EXCEEDED', 'the list took too long to compute; narrow the filter');
        throw err;
      });

      const more = rows.length > pageSize;
      const items = await presentAll(database.read, more ? rows.slice(0, pageSize) : rows);
      let nextPageToken: string | undefined;
      if (more) {
        const last = rows[pageSize - 1];
        nextPageToken = deps.pageTokens.encode({ binding, after: order.columns.map((c) => last[c.column] ?? null), total: totalSize });
      }
      return { items, nextPageToken, totalSize };
    },
  };
}
