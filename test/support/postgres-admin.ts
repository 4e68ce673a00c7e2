/**
 * CREATE/DROP DATABASE for the test harness, run over a short-lived connection to a maintenance database.
 */
import pg from 'pg';

/** The URL of database `name` on the same server (and with the same credentials) as `adminUrl`. */
export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs `work` with a fresh connection to the maintenance database, always closing it. */
export async function withAdminClient<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** SQLSTATE 55006 object_in_use: "source database ... is being accessed by other users". */
function templateBusy(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e.code === '55006' || /being accessed by other users/.test(e.message ?? '');
}

/**
 * Creates `name`, cloned from `template` when given. Cloning fails while any session is connected to the
 * template (a worker that has just built it, an autovacuum worker on a shared server), so that case is retried.
 */
export async function createDatabase(adminUrl: string, name: string, template?: string): Promise<void> {
  const statement = `CREATE DATABASE ${quoteIdent(name)}${template ? ` TEMPLATE ${quoteIdent(template)}` : ''}`;
  const deadline = Date.now() + 30_000;
  for (let attempt = 1; ; attempt++) {
    try {
      await withAdminClient(adminUrl, (client) => client.query(statement));
      return;
    } catch (error) {
      if (!templateBusy(error) || Date.now() > deadline) throw error;
      // Jittered backoff so forks retrying together do not collide in lockstep.
      await new Promise((r) => setTimeout(r, Math.min(1000, 25 * attempt) + Math.random() * 50));
    }
  }
}

/** Drops `name` if it exists, disconnecting leftover sessions first (PostgreSQL 13+ FORCE, else plain DROP). */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await withAdminClient(adminUrl, async (client) => {
    const { rows } = await client.query<{ v: string }>('SELECT current_setting($1) AS v', ['server_version_num']);
    const force = Number(rows[0]?.v) >= 130000 ? ' WITH (FORCE)' : '';
    await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)}${force}`);
  });
}

/** Names of the databases whose name starts with `prefix`. */
export async function databasesWithPrefix(adminUrl: string, prefix: string): Promise<string[]> {
  return withAdminClient(adminUrl, async (client) => {
    const { rows } = await client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE left(datname, length($1)) = $1 ORDER BY datname`,
      [prefix],
    );
    return rows.map((r) => r.datname);
  });
}
