/**
 * Customers suite: create rate over HTTP, List with `tags:"vip"` at a million customers, and the
 * background recompute of a DYNAMIC group over all of them (SPEC 2.14: one Operation).
 *
 * Customers are seeded straight into the database set-based (like the foundation's projects), in
 * the signed-up user's website: every tenth carries the tag `vip`, the others `regular`.
 * BENCH_CUSTOMERS_ROWS overrides the count (default: 1 000 000; 100 000 with BENCH_QUICK).
 */
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { TENANT } from './api.js';
import type { LoadResult } from './load.js';
import type { CaseRow } from './report.js';
import type { BenchSuite, SuiteContext } from './suites.js';

const CREATE_CONNECTIONS = 10;
const RECOMPUTE_TARGET_MS = 60_000;
// Any PHC string: seeded customers are never signed in.
const SEED_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2VlZHNlZWRzZWVk$Q2FmZUJhYmVDYWZlQmFiZUNhZmVCYWJlQ2FmZUJhYmU';

function seedSqlite(file: string, websiteId: string, accountId: string, count: number, baseMs: number): void {
  const db = new SQLite(file);
  try {
    db.pragma('busy_timeout = 60000');
    db.pragma('cache_size = -262144');
    db.transaction(() => {
      db.prepare(
        `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < @count)
         INSERT INTO customers (id, account_id, website_id, revision, create_time, update_time, email, password_hash, display_name, tags, is_active, attributes)
         SELECT 'bench-c-' || printf('%08d', n), @account, @website, 1, @base + n * 1000, @base + n * 1000,
                'customer' || n || '@example.com', @hash, 'Customer ' || n,
                CASE WHEN n % 10 = 0 THEN '["vip"]' ELSE '["regular"]' END, 1, NULL
         FROM seq`,
      ).run({ count, account: accountId, website: websiteId, base: baseMs, hash: SEED_HASH });
      db.prepare(
        `INSERT INTO customer_tags (website_id, tag, customer_id)
         SELECT website_id, CASE WHEN CAST(substr(id, 9) AS INTEGER) % 10 = 0 THEN 'vip' ELSE 'regular' END, id
         FROM customers WHERE website_id = @website AND id LIKE 'bench-c-%'`,
      ).run({ website: websiteId });
    })();
    db.exec('ANALYZE');
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

async function seedPostgres(url: string, websiteId: string, accountId: string, count: number, baseMs: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO customers (id, account_id, website_id, revision, create_time, update_time, email, password_hash, display_name, tags, is_active, attributes)
       SELECT 'bench-c-' || lpad(n::text, 8, '0'), $1::text, $2::text, 1, $3::bigint + n * 1000, $3::bigint + n * 1000,
              'customer' || n || '@example.com', $4::text, 'Customer ' || n,
              CASE WHEN n % 10 = 0 THEN '["vip"]'::jsonb ELSE '["regular"]'::jsonb END, true, NULL
       FROM generate_series(1, $5::int) AS n`,
      [accountId, websiteId, baseMs, SEED_HASH, count],
    );
    await client.query(
      `INSERT INTO customer_tags (website_id, tag, customer_id)
       SELECT website_id, CASE WHEN substr(id, 9)::int % 10 = 0 THEN 'vip' ELSE 'regular' END, id
       FROM customers WHERE website_id = $1 AND id LIKE 'bench-c-%'`,
      [websiteId],
    );
    await client.query('COMMIT');
    await client.query('VACUUM (ANALYZE)');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}

/** A row the suite timed itself: `ms` per unit of work as p50/p99/max. */
function timedRow(id: string, label: string, ms: number[], seconds: number, notes: string[], target?: CaseRow['target']): CaseRow {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
  const result: LoadResult = {
    requests: ms.length,
    reqPerSec: ms.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
    max: sorted[sorted.length - 1],
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    statuses: {},
  };
  return { id, label, connections: 1, result, notes, target };
}

async function createRate(ctx: SuiteContext, site: string, n: string): Promise<void> {
  const latencies: number[] = [];
  let failures = 0;
  let seq = 0;
  const until = Date.now() + ctx.durationS * 1000;
  const started = Date.now();
  const worker = async () => {
    while (Date.now() < until) {
      const t0 = performance.now();
      const res = await fetch(`${ctx.base}${site}/customers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ctx.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ email: `rate-${process.pid}-${++seq}@example.com`, password: 'bench-pass-1', tags: seq % 2 ? ['vip'] : ['new'] }),
      });
      await res.arrayBuffer();
      if (res.status === 201) latencies.push(performance.now() - t0);
      else failures++;
    }
  };
  await Promise.all(Array.from({ length: CREATE_CONNECTIONS }, worker));
  const row = timedRow('customers-create', `Create customer on a website of ${n} (argon2id hash, tags, rule evaluation), ${CREATE_CONNECTIONS} concurrent clients`, latencies, (Date.now() - started) / 1000, [
    `${latencies.length} created in ${ctx.durationS} s${failures ? `, ${failures} FAILED` : ''}; hashing is bounded to PASSWORD_HASH_CONCURRENCY (default 2) at a time`,
  ]);
  row.connections = CREATE_CONNECTIONS;
  ctx.report.rows.push(row);
}

async function recompute(ctx: SuiteContext, site: string, rows: number, rule: string, label: string, groupId?: string): Promise<string> {
  const t0 = Date.now();
  const answer = groupId
    ? await ctx.api.call('PATCH', `${site}/customer_groups/${groupId}`, { rule })
    : await ctx.api.call('POST', `${site}/customer_groups`, { display_name: `Bench ${Date.now()}`, type: 'DYNAMIC', rule });
  if (answer.status !== 200 && answer.status !== 201) throw new Error(`saving the rule: ${answer.status} ${answer.text.slice(0, 300)}`);
  const group = answer.body;
  let op: any;
  for (;;) {
    const polled = await ctx.api.call('GET', `${TENANT}/${group.operation}`);
    op = polled.body;
    if (op?.done) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const wall = Date.now() - t0;
  const opMs = Date.parse(op.metadata.end_time) - Date.parse(op.metadata.create_time);
  const row = timedRow(`customers-recompute-${groupId ? 'change' : 'new'}`, label, [opMs], wall / 1000, [
    op.error ? `ERROR in the Operation: ${JSON.stringify(op.error)}` : `${op.response.member_count.toLocaleString('en-US')} members of ${rows.toLocaleString('en-US')} customers; Operation create → end ${opMs} ms, rule saved → done seen ${wall} ms`,
  ], { kind: 'p99', maxMs: RECOMPUTE_TARGET_MS });
  row.connections = 1;
  ctx.report.rows.push(row);
  return group.id;
}

export const customersSuite: BenchSuite = {
  id: 'customers',
  targets: [
    'customers: recomputing a DYNAMIC group over every customer (1M) is one Operation that ends within 60 s (`customers-recompute-*`, the figure is the Operation time);',
    'customers: List with `tags:"vip"` at 1M customers is reported without a target; create rate is reported.',
  ],
  async run(ctx) {
    const rows = Number(process.env.BENCH_CUSTOMERS_ROWS ?? (ctx.quick ? 100_000 : 1_000_000));
    const site = `${TENANT}/websites/${ctx.user.websiteId}`;

    const t0 = Date.now();
    const baseMs = Date.UTC(2024, 0, 1);
    if (ctx.dialect === 'sqlite') seedSqlite(ctx.sqliteFile, ctx.user.websiteId, ctx.user.accountId, rows, baseMs);
    else await seedPostgres(ctx.databaseUrl!, ctx.user.websiteId, ctx.user.accountId, rows, baseMs);
    ctx.report.info.push(`customers: seeded ${rows.toLocaleString('en-US')} customers (10 % tagged vip) and their tag rows in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    ctx.log(`${ctx.dialect}: seeded ${rows} customers`);
    await ctx.restart();
    const api = ctx.api;

    const N = rows >= 1_000_000 && rows % 1_000_000 === 0 ? `${rows / 1_000_000}M` : rows.toLocaleString('en-US');
    const listUrl = (query: Record<string, string>) => `${ctx.base}${site}/customers?${new URLSearchParams({ page_size: '50', ...query })}`;
    await ctx.measure('customers-list-vip', `List customers ${N}: tags:"vip", create_time desc, first page (latency)`, listUrl({ filter: 'tags:"vip"' }), { connections: 4 });
    const first = await api.call('GET', `${site}/customers?${new URLSearchParams({ page_size: '50', filter: 'tags:"vip"' })}`);
    if (first.body?.next_page_token) {
      await ctx.measure('customers-page-vip', `List customers ${N}: tags:"vip", page 2 (latency)`, listUrl({ filter: 'tags:"vip"', page_token: first.body.next_page_token }), { connections: 4 });
    }
    await ctx.measure('customers-list-email', `List customers ${N}: order_by email, first page (latency)`, listUrl({ order_by: 'email' }), { connections: 4 });

    const groupId = await recompute(ctx, site, rows, 'tags:"vip"', `Recompute DYNAMIC group over ${N} customers: new rule tags:"vip"`);
    await recompute(ctx, site, rows, 'tags:"regular" OR email:"customer1"', `Recompute DYNAMIC group over ${N} customers: rule changed to tags:"regular" OR email:"customer1"`, groupId);
    // Measured on the full website with that DYNAMIC group in place: every create also evaluates its rule.
    await createRate(ctx, site, N);
  },
};
