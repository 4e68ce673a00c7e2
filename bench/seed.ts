/**
 * Set-based seeding of `projects` straight into the database (the API would take hours for a million rows):
 * SQLite through a recursive CTE, PostgreSQL through generate_series. Every tenth project is named
 * `Shop …`, so `display_name:"shop"` matches 10 % of an account's rows.
 */
import SQLite from 'better-sqlite3';
import pg from 'pg';

export interface SeedSpec {
  accountId: string;
  count: number;
  /** Prefix of the generated ids (`{prefix}0000001`, zero-padded so ids sort like n). */
  idPrefix: string;
  /** create_time of row 1 (epoch ms); row n is created `stepMs` after row n-1. */
  baseMs: number;
  stepMs: number;
}

/** A create_time halfway through an account's rows, as RFC 3339: `create_time > mid` keeps about half. */
export function midCreateTime(spec: SeedSpec): string {
  return new Date(spec.baseMs + Math.floor(spec.count / 2) * spec.stepMs).toISOString();
}

const PAD = 7;

export function seedSqlite(file: string, specs: SeedSpec[]): void {
  const db = new SQLite(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 30000');
    db.pragma('cache_size = -262144'); // 256 MiB for the bulk insert's index pages
    const insert = db.prepare(`
      WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < @count)
      INSERT INTO projects (id, account_id, display_name, description, revision, create_time, update_time)
      SELECT @prefix || printf('%0${PAD}d', n),
             @account,
             CASE WHEN n % 10 = 0 THEN 'Shop ' || n ELSE 'Project ' || n END,
             NULL,
             1,
             @base + n * @step,
             @base + n * @step + (n % 1000) * 1000
      FROM seq`);
    const run = db.transaction(() => {
      for (const s of specs) insert.run({ count: s.count, prefix: s.idPrefix, account: s.accountId, base: s.baseMs, step: s.stepMs });
    });
    run();
    db.exec('ANALYZE');
    // Fold the WAL back into the main file so the server's reads do not wade through a huge WAL.
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

export async function seedPostgres(url: string, specs: SeedSpec[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    for (const s of specs) {
      await client.query(
        `INSERT INTO projects (id, account_id, display_name, description, revision, create_time, update_time)
         SELECT $1::text || lpad(n::text, ${PAD}, '0'),
                $2::text,
                CASE WHEN n % 10 = 0 THEN 'Shop ' || n ELSE 'Project ' || n END,
                NULL,
                1,
                $3::bigint + n * $4::bigint,
                $3::bigint + n * $4::bigint + (n % 1000) * 1000
         FROM generate_series(1, $5::int) AS n`,
        [s.idPrefix, s.accountId, s.baseMs, s.stepMs, s.count],
      );
    }
    await client.query('COMMIT');
    // The throwaway cluster runs without autovacuum: VACUUM sets the visibility map (index-only scans
    // for counts) and ANALYZE gives the planner statistics, as a live server's autovacuum would.
    await client.query('VACUUM (ANALYZE)');
    await client.query('CHECKPOINT').catch(() => {}); // superuser only; best effort
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}

/** How many rows of `account` the seed produced (sanity check). */
export async function countProjects(dialect: 'sqlite' | 'postgres', where: string, accountId: string): Promise<number> {
  if (dialect === 'sqlite') {
    const db = new SQLite(where, { readonly: true });
    try {
      return (db.prepare('SELECT count(*) AS c FROM projects WHERE account_id = ?').get(accountId) as { c: number }).c;
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: where });
  await client.connect();
  try {
    const { rows } = await client.query<{ c: string }>('SELECT count(*) AS c FROM projects WHERE account_id = $1', [accountId]);
    return Number(rows[0].c);
  } finally {
    await client.end();
  }
}

/**
 * How set-based seed statements name their numbers, per dialect: `series` is the FROM item, `n` the
 * row number and `pad` its zero-padded text (ids sort like n).
 */
export type SeedStatements = (series: string, n: string, pad: string) => string[];

/**
 * Runs set-based seed statements in one transaction straight on the server's database: SQLite through
 * a recursive CTE `seq` (prepended to statements reading `FROM seq`), PostgreSQL through
 * `generate_series`. `@name` placeholders take `values` (bigint for `@base`; `'[…]'` literals become
 * jsonb on PostgreSQL); `vacuum` lists the tables PostgreSQL analyzes afterwards.
 */
export async function runSeedStatements(
  target: { dialect: 'sqlite' | 'postgres'; sqliteFile: string; databaseUrl?: string },
  statements: SeedStatements,
  values: Record<string, string | number>,
  vacuum: readonly string[],
): Promise<void> {
  if (target.dialect === 'sqlite') {
    const db = new SQLite(target.sqliteFile);
    try {
      db.pragma('busy_timeout = 30000');
      db.transaction(() => {
        for (const statement of statements('seq', 'n', "printf('%07d', n)")) {
          const text = statement.includes('FROM seq') ? `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < @count) ${statement}` : statement;
          db.prepare(text).run(Object.fromEntries(Object.entries(values).filter(([k]) => text.includes(`@${k}`))));
        }
      })();
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: target.databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    for (const statement of statements('generate_series(1, @count::int) AS n', 'n::bigint', "lpad(n::text, 7, '0')")) {
      const order: unknown[] = [];
      const text = statement
        .replace(/@base/g, '@base::bigint')
        .replace(/'(\[[^']*\])'/g, "'$1'::jsonb")
        .replace(/@([a-z]+)/g, (_, key: string) => {
          order.push(values[key]);
          return `$${order.length}`;
        });
      await client.query(text, order);
    }
    await client.query('COMMIT');
    await client.query(`VACUUM (ANALYZE) ${vacuum.join(', ')}`);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}
