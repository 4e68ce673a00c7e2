/**
 * Blog suite (issue 13), `BENCH_SUITES=blog npm run bench`:
 *
 *   - posts of one category, `filter=category_ids:"c"&order_by=publish_time desc`, first page (with
 *     total_size) and a later page (page 21 of the token chain), on a website of 100 000 posts:
 *     a large category (every tenth post, 10 000) and a small one (every thousandth, 100);
 *   - the scheduled-publish lag: posts scheduled over HTTP a few seconds ahead go live through their
 *     Operations with the server's in-process worker running; the lag is the post's `update_time`
 *     (set by the publish) minus its `publish_time`. Target p99 < 2 s.
 */
import { apiClient, TENANT, waitForOperation } from './api.js';
import type { LoadResult } from './load.js';
import type { CaseRow } from './report.js';
import { runSeedStatements } from './seed.js';
import type { BenchSuite, SuiteContext } from './suites.js';

const POSTS = 100_000;
const LARGE = 'bench-cat-large';
const SMALL = 'bench-cat-small';

/** Posts `bench-post-0000001` …; every tenth in LARGE, every thousandth in SMALL; publish_time one minute apart. */
async function seedPosts(ctx: SuiteContext): Promise<void> {
  const base = Date.UTC(2020, 0, 1);
  const statements = (series: string, n: string, pad: string) => [
    `INSERT INTO blog_categories (website_id, id, account_id, display_name, url_key, parent_id, path, level, sort_order, revision, create_time, update_time)
     VALUES (@website, '${LARGE}', @account, 'Large', 'large', NULL, '${LARGE}', 0, 0, 1, @base, @base),
            (@website, '${SMALL}', @account, 'Small', 'small', NULL, '${SMALL}', 0, 1, 1, @base, @base)`,
    `INSERT INTO blog_posts (website_id, id, account_id, title, url_key, content, author_ids, category_ids, tag_ids, visible_view_ids, state, publish_time,
                             revision, create_time, update_time)
     SELECT @website, 'bench-post-' || ${pad}, @account, 'Post ' || ${n}, 'bench-post-' || ${n}, '<p>Post ' || ${n} || '</p>', '[]',
            CASE WHEN ${n} % 1000 = 0 THEN '["${LARGE}","${SMALL}"]' WHEN ${n} % 10 = 0 THEN '["${LARGE}"]' ELSE '[]' END, '[]', '[]', 'PUBLISHED',
            @base + ${n} * 60000, 1, @base + ${n} * 1000, @base + ${n} * 1000
     FROM ${series}`,
    `INSERT INTO blog_post_categories (website_id, category_id, post_id, position)
     SELECT @website, '${LARGE}', 'bench-post-' || ${pad}, ${n} FROM ${series} WHERE ${n} % 10 = 0`,
    `INSERT INTO blog_post_categories (website_id, category_id, post_id, position)
     SELECT @website, '${SMALL}', 'bench-post-' || ${pad}, ${n} FROM ${series} WHERE ${n} % 1000 = 0`,
  ];
  const values = { account: ctx.user.accountId, website: ctx.user.websiteId, base, count: POSTS };
  await runSeedStatements(ctx, statements, values, ['blog_posts', 'blog_post_categories', 'blog_categories']);
}

/** Schedules `count` posts over the next seconds (HTTP), waits until all went live, answers their lags. */
async function publishLag(ctx: SuiteContext, count: number): Promise<LoadResult> {
  const api = apiClient(ctx.base, ctx.token);
  const url = `${TENANT}/websites/${ctx.user.websiteId}/blog_posts`;
  const start = Date.now() + 3_000;
  const spreadMs = 5_000;
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const publishTime = new Date(start + Math.floor((i * spreadMs) / count)).toISOString();
    const res = await api.call('POST', url, { title: `Scheduled ${i}`, url_key: `scheduled-${i}-${Date.now()}`, state: 'SCHEDULED', publish_time: publishTime });
    if (res.status !== 201) throw new Error(`schedule: ${res.status} ${res.text.slice(0, 300)}`);
    names.push(res.body.name);
  }
  const lags: number[] = [];
  const deadline = start + spreadMs + 60_000;
  for (const name of names) {
    for (;;) {
      const res = await api.call('GET', `${TENANT}/${name}`);
      if (res.body?.state === 'PUBLISHED') {
        lags.push(Date.parse(res.body.update_time) - Date.parse(res.body.publish_time));
        break;
      }
      if (Date.now() > deadline) throw new Error(`${name} still ${res.body?.state} a minute after its publish_time`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const sorted = Float64Array.from(lags).sort();
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
  return { requests: count, reqPerSec: 0, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1], non2xx: 0, errors: 0, timeouts: 0, statuses: { 200: count } };
}

/** The URL of page 21 of a List (20 pages walked through the token chain). */
async function laterPage(ctx: SuiteContext, url: string): Promise<string> {
  const api = apiClient(ctx.base, ctx.token);
  let token = '';
  for (let i = 0; i < 20; i++) {
    const res = await api.call('GET', `${url}${token ? `&page_token=${encodeURIComponent(token)}` : ''}`);
    if (res.status !== 200) throw new Error(`walk: ${res.status} ${res.text.slice(0, 300)}`);
    token = res.body.next_page_token;
    if (!token) throw new Error(`${url}: fewer than 21 pages`);
  }
  return `${ctx.base}${url}&page_token=${encodeURIComponent(token)}`;
}

export const blogSuite: BenchSuite = {
  id: 'blog',
  targets: [
    'blog: posts of one category ordered by publish_time desc, first page and page 21, on a website of 100 000 posts (lists targets: 20 ms / 10 ms p99 at 4 connections)',
    'blog: scheduled-publish lag (publish_time → PUBLISHED) p99 under 2 s with the in-process worker running',
  ],
  setup: [
    'blog: 100 000 PUBLISHED posts seeded in one INSERT … SELECT, a category holding every tenth post (10 000) and one holding every thousandth (100), side rows included; server restarted before measuring',
  ],
  async run(ctx) {
    const api = apiClient(ctx.base, ctx.token);
    await waitForOperation(api, ctx.user.operation);
    ctx.log(`${ctx.dialect}: blog: seeding ${POSTS} posts …`);
    await seedPosts(ctx);
    await ctx.restart();

    const list = (category: string) =>
      `${TENANT}/websites/${ctx.user.websiteId}/blog_posts?page_size=50&order_by=${encodeURIComponent('publish_time desc')}&filter=${encodeURIComponent(`category_ids:"${category}"`)}`;
    const target = (maxMs: number) => ({ kind: 'p99' as const, maxMs });
    await ctx.measure('blog-category-first', 'List blog_posts of a category (10 000 of 100 000), publish_time desc, first page', `${ctx.base}${list(LARGE)}`, {
      connections: 4,
      target: target(20),
      notes: ['filter category_ids answered from blog_post_categories (semi-join), order from (website_id, publish_time, id)'],
    });
    await ctx.measure('blog-category-page21', 'List blog_posts of a category (10 000 of 100 000), publish_time desc, page 21', await laterPage(ctx, list(LARGE)), {
      connections: 4,
      target: target(10),
    });
    await ctx.measure('blog-small-category-first', 'List blog_posts of a category (100 of 100 000), publish_time desc, first page', `${ctx.base}${list(SMALL)}`, {
      connections: 4,
      target: target(20),
    });

    const count = ctx.quick ? 50 : 200;
    const lagRow: CaseRow = {
      id: 'blog-publish-lag',
      label: `Scheduled publish lag, publish_time → PUBLISHED (${count} posts over 5 s, worker inline)`,
      connections: 1,
      target: target(2_000),
      notes: ['lag = update_time written by the publish − publish_time; the Operation is due at publish_time (run_after) and claimed by the next poll (500 ms)'],
    };
    ctx.report.rows.push(lagRow);
    try {
      lagRow.result = await publishLag(ctx, count);
    } catch (error) {
      lagRow.error = (error as Error).message;
    }
  },
};
