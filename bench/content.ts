/**
 * Content suite (issue 6): page create rate over HTTP, and the resolved-page read
 * (`cms_pages/{p}:resolve` with a view whose overlay applies) against the plain Get of the same page,
 * on a website holding 100 000 pages with overlays on a tenth of them.
 */
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { apiClient, TENANT, waitForOperation } from './api.js';
import { hammer, type LoadResult } from './load.js';
import type { CaseRow } from './report.js';
import type { BenchSuite, SuiteContext } from './suites.js';

const CREATE_CONCURRENCY = 4;

/** Pages of the bench website: `bench-p-0000001` …, every tenth with an overlay for the default view. */
async function seedPages(ctx: SuiteContext, viewId: string, count: number): Promise<void> {
  const base = Date.UTC(2024, 0, 1);
  const pageSql = (series: string, n: string, pad: string) => `
    INSERT INTO cms_pages (id, account_id, website_id, title, url_key, is_active, content_heading, content, meta_title, meta_description,
                           meta_keywords, meta_robots, visible_view_ids, revision, create_time, update_time)
    SELECT 'bench-p-' || ${pad}, @account, @website, 'Page ' || ${n}, 'bench-page-' || ${n}, @active, NULL,
           '<p>Content of page ' || ${n} || '</p>', NULL, 'About page ' || ${n}, NULL, 'INDEX_FOLLOW', '[]', 1, @base + ${n} * 1000, @base + ${n} * 1000
    FROM ${series}`;
  const overlaySql = (series: string, n: string, pad: string) => `
    INSERT INTO cms_page_views (id, account_id, website_id, cms_page_id, overridden, title, content_heading, content, meta_title,
                                meta_description, meta_keywords, revision, create_time, update_time)
    SELECT @view, @account, @website, 'bench-p-' || ${pad}, '["title","content"]', 'Seite ' || ${n}, NULL, '<p>Inhalt ' || ${n} || '</p>',
           NULL, NULL, NULL, 1, @base, @base
    FROM ${series} WHERE ${n} % 10 = 0`;
  if (ctx.dialect === 'sqlite') {
    const db = new SQLite(ctx.sqliteFile);
    try {
      db.pragma('busy_timeout = 30000');
      const series = 'seq';
      const withSeq = (body: string) => `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < @count) ${body}`;
      const shared = { account: ctx.user.accountId, website: ctx.user.websiteId, base, count };
      db.transaction(() => {
        db.prepare(withSeq(pageSql(series, 'n', "printf('%07d', n)"))).run({ ...shared, active: 1 });
        db.prepare(withSeq(overlaySql(series, 'n', "printf('%07d', n)"))).run({ ...shared, view: viewId });
      })();
      db.exec('ANALYZE');
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: ctx.databaseUrl });
  await client.connect();
  try {
    const named = (sql: string, values: Record<string, unknown>) => {
      const order: unknown[] = [];
      const text = sql.replace(/@([a-z]+)/g, (_, key: string) => {
        order.push(values[key]);
        return `$${order.length}`;
      });
      return client.query(text.replace(/'\[\]'/g, "'[]'::jsonb").replace(/'\["title","content"\]'/g, `'["title","content"]'::jsonb`), order);
    };
    const series = 'generate_series(1, @count::int) AS n';
    const values = { account: ctx.user.accountId, website: ctx.user.websiteId, active: true, base, count, view: viewId };
    await client.query('BEGIN');
    await named(pageSql(series, 'n', "lpad(n::text, 7, '0')").replace(/@base/g, '@base::bigint'), values);
    await named(overlaySql(series, 'n', "lpad(n::text, 7, '0')").replace(/@base/g, '@base::bigint'), values);
    await client.query('COMMIT');
    await client.query('VACUUM (ANALYZE) cms_pages, cms_page_views');
  } finally {
    await client.end();
  }
}

/** Creates `total` pages over HTTP, CREATE_CONCURRENCY at a time; a LoadResult of the creates. */
async function timeCreates(ctx: SuiteContext, total: number): Promise<LoadResult> {
  const url = `${ctx.base}${TENANT}/websites/${ctx.user.websiteId}/cms_pages`;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const t0 = performance.now();
      const res = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${ctx.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: `Created ${i}`, url_key: `created-${i}`, content: `<h2>Section ${i}</h2><p>Some <strong>rich</strong> text <a href="/x">link</a>.</p>` }),
      });
      await res.text();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      if (res.status === 201) latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
  const non2xx = total - latencies.length;
  return { requests: total, reqPerSec: total / seconds, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1], non2xx, errors: 0, timeouts: 0, statuses };
}

export const contentSuite: BenchSuite = {
  id: 'content',
  targets: [
    'content: resolved page (`:resolve` with a view overlay, and with a customer-group version too) within 2× the p99 of the plain page Get, on a website of 100 000 pages',
  ],
  async run(ctx) {
    // Seeding is one INSERT … SELECT, cheap enough to hold the 100 000 pages even in a quick run.
    const pages = 100_000;
    const api = apiClient(ctx.base, ctx.token);
    // Provisioning (default view, home page) must have finished.
    await waitForOperation(api, ctx.user.operation);
    const views = await api.call('GET', `${TENANT}/websites/${ctx.user.websiteId}/views?filter=${encodeURIComponent('is_default = true')}`);
    const viewId = views.body?.views?.[0]?.id as string | undefined;
    if (!viewId) throw new Error(`no default view: ${views.status} ${views.text.slice(0, 300)}`);

    const creates = ctx.quick ? 300 : 2_000;
    const createRow: CaseRow = { id: 'content-create', label: `Create cms_pages over HTTP (${CREATE_CONCURRENCY} clients, ${creates} pages)`, connections: CREATE_CONCURRENCY, notes: [] };
    ctx.report.rows.push(createRow);
    createRow.result = await timeCreates(ctx, creates);
    createRow.notes.push('each create sanitises its HTML, checks url_key per view scope and writes the page');

    ctx.log(`${ctx.dialect}: content: seeding ${pages} pages …`);
    await seedPages(ctx, viewId, pages);
    await ctx.restart();
    const seededApi = apiClient(ctx.base, ctx.token);
    const pageId = `bench-p-${String(Math.floor(pages / 2)).padStart(7, '0')}`; // a multiple of 10: has an overlay
    const pageUrl = `${ctx.base}${TENANT}/websites/${ctx.user.websiteId}/cms_pages/${pageId}`;
    const check = await seededApi.call('POST', `${TENANT}/websites/${ctx.user.websiteId}/cms_pages/${pageId}:resolve`, { view_id: viewId });
    if (check.status !== 200 || !String(check.body?.title).startsWith('Seite')) throw new Error(`resolve probe: ${check.status} ${check.text.slice(0, 300)}`);

    await ctx.measure('content-get', `Get cms_pages/{p} (${pages.toLocaleString('en-US')} pages)`, pageUrl);
    const resolveRow: CaseRow = {
      id: 'content-resolve',
      label: `POST cms_pages/{p}:resolve with view overlay (${pages.toLocaleString('en-US')} pages)`,
      connections: ctx.connections,
      target: { kind: 'relP99', baseline: 'content-get', factor: 2 },
      notes: ['two prepared queries: the page by primary key, then the view fallback chain (recursive CTE) ⟕ overlays; the plain Get is one prepared statement'],
    };
    ctx.report.rows.push(resolveRow);
    resolveRow.result = await hammer({
      url: `${pageUrl}:resolve`,
      token: ctx.token,
      method: 'POST',
      body: JSON.stringify({ view_id: viewId }),
      connections: ctx.connections,
      durationS: ctx.durationS,
    });

    // A customer group with a version of the page: the second indexed query of `:resolve`.
    const group = await seededApi.call('POST', `${TENANT}/websites/${ctx.user.websiteId}/customer_groups`, { display_name: 'Wholesale' });
    if (group.status !== 201) throw new Error(`customer group: ${group.status} ${group.text.slice(0, 300)}`);
    const version = await seededApi.call('POST', `${TENANT}/websites/${ctx.user.websiteId}/cms_pages/${pageId}/groups`, {
      customer_group_ids: [group.body.id],
      priority: 5,
      content: '<p>Trade prices</p>',
    });
    if (version.status !== 201) throw new Error(`page group: ${version.status} ${version.text.slice(0, 300)}`);
    const groupRow: CaseRow = {
      id: 'content-resolve-group',
      label: `POST cms_pages/{p}:resolve with view overlay and customer group version (${pages.toLocaleString('en-US')} pages)`,
      connections: ctx.connections,
      target: { kind: 'relP99', baseline: 'content-get', factor: 2 },
      notes: ['three prepared queries: the page, the view chain ⟕ overlays, then group ⟕ membership rows ⟕ version'],
    };
    ctx.report.rows.push(groupRow);
    groupRow.result = await hammer({
      url: `${pageUrl}:resolve`,
      token: ctx.token,
      method: 'POST',
      body: JSON.stringify({ view_id: viewId, customer_group_id: group.body.id }),
      connections: ctx.connections,
      durationS: ctx.durationS,
    });
  },
};
