import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/**
 * Cross-process cache invalidation (issue 24, src/platform/cache-invalidation.ts): every write to a
 * table that per-process caches answer from announces its topic, from a trigger, so no write path
 * (the engine, a hand-written service, a cascade of an account's delete) can forget to.
 *
 * - `auth`: sessions ended, memberships added/changed/removed, account roles changed/removed (the
 *   session and membership cache of every authenticated request);
 * - `roots`: projects and websites created or deleted (the owner of a project or website, and the
 *   absence of one: a freed id may be created again under another account);
 * - `hosts`: websites and custom domains written (the site's host → website cache).
 *
 * SQLite (one process owns the file; `npm run worker` may share it): the trigger raises the topic's
 * row of `cache_versions`, which a request reads with one point read (microseconds) before trusting
 * a cached entry. PostgreSQL: the statement-level trigger sends `NOTIFY cache_invalidation, '<topic>'`,
 * delivered at commit to every process (no row is written, so writers never queue on a counter).
 */
export const CACHE_TOPICS = { auth: ['user_sessions:delete', 'memberships:insert,update,delete', 'account_roles:update,delete'], roots: ['projects:insert,delete', 'websites:insert,delete'], hosts: ['websites:insert,update,delete', 'custom_domains:insert,update,delete'] } as const;

export async function up(db: Kysely<any>): Promise<void> {
  const pg = columnTypes(db).pg;
  if (pg) {
    await sql`CREATE FUNCTION cache_invalidation_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('cache_invalidation', TG_ARGV[0]);
        RETURN NULL;
      END $$`.execute(db);
  } else {
    await db.schema
      .createTable('cache_versions')
      .addColumn('topic', 'text', (c) => c.primaryKey())
      .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.insertInto('cache_versions').values(Object.keys(CACHE_TOPICS).map((topic) => ({ topic, version: 0 }))).execute();
  }
  for (const [topic, targets] of Object.entries(CACHE_TOPICS)) {
    for (const target of targets) {
      const [table, events] = target.split(':');
      for (const event of events.split(',')) {
        const name = sql.id(`${table}_cache_${topic}_${event}`);
        const when = sql.raw(event.toUpperCase());
        if (pg) {
          await sql`CREATE TRIGGER ${name} AFTER ${when} ON ${sql.table(table)} FOR EACH STATEMENT EXECUTE FUNCTION cache_invalidation_notify(${sql.lit(topic)})`.execute(db);
        } else {
          await sql`CREATE TRIGGER ${name} AFTER ${when} ON ${sql.table(table)} BEGIN UPDATE cache_versions SET version = version + 1 WHERE topic = ${sql.lit(topic)}; END`.execute(db);
        }
      }
    }
  }
}

export async function down(): Promise<void> {
  // Frozen: never rolled back.
}
