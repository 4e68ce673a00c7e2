import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/**
 * Frozen helper for migrations: the triggers that bump a website's content version
 * (`site_versions`, migration 2026-11-26-1410) whenever a row of `table` that the rendered site
 * shows is inserted, updated or deleted, in the writing transaction (docs/architecture.md,
 * "Rendered websites"). The site's page cache is keyed by that version, so a write that committed
 * can never be answered with a page rendered before it once the version is read again.
 *
 * - `column` names the website: `website_id`, or `id` for tables keyed by the website itself
 *   (`themes`, `custom_domains`).
 * - PostgreSQL: statement-level triggers with transition tables calling
 *   `site_versions_bump_by_{column}()` (one bump per website per transaction, in website order).
 *   SQLite: row-level triggers with an upsert. Trigger names are `{table}_site_versions_{event}`.
 *
 * A table the site starts to render from a later migration gets these triggers in that migration.
 */
export async function addSiteVersionTriggers(db: Kysely<any>, table: string, column: 'website_id' | 'id' = 'website_id'): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error(`not a table name: ${table}`);
  const name = (event: string) => sql.id(`${table}_site_versions_${event}`);
  const target = sql.table(table);
  if (columnTypes(db).pg) {
    const bump = sql.raw(`site_versions_bump_by_${column}`);
    await sql`CREATE TRIGGER ${name('insert')} AFTER INSERT ON ${target} REFERENCING NEW TABLE AS site_new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION ${bump}()`.execute(db);
    await sql`CREATE TRIGGER ${name('update')} AFTER UPDATE ON ${target} REFERENCING OLD TABLE AS site_old_rows NEW TABLE AS site_new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION ${bump}()`.execute(db);
    await sql`CREATE TRIGGER ${name('delete')} AFTER DELETE ON ${target} REFERENCING OLD TABLE AS site_old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION ${bump}()`.execute(db);
    return;
  }
  const upsert = (row: 'NEW' | 'OLD') =>
    sql.raw(`INSERT INTO site_versions (website_id, version) VALUES (${row}.${column}, 1)
      ON CONFLICT (website_id) DO UPDATE SET version = version + 1;`);
  await sql`CREATE TRIGGER ${name('insert')} AFTER INSERT ON ${target} BEGIN ${upsert('NEW')} END`.execute(db);
  await sql`CREATE TRIGGER ${name('update')} AFTER UPDATE ON ${target} BEGIN ${upsert('NEW')} END`.execute(db);
  await sql`CREATE TRIGGER ${name('delete')} AFTER DELETE ON ${target} BEGIN ${upsert('OLD')} END`.execute(db);
}
