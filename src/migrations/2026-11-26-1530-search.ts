import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/**
 * Site search (issue 16; docs/architecture.md, "Site search"): one row per published page or post per
 * view it is visible in (`search_documents`), the sources waiting to be indexed again
 * (`search_pending`), which page embeds which block (`search_block_uses`) and the website's index
 * state (`search_indexes`, the `search_index` singleton).
 *
 * Strictness: in the transaction of every content write, triggers on the source tables first queue
 * the source in `search_pending` (on PostgreSQL that upsert waits for an indexer holding the row, so
 * the delete below sees what it committed) and then delete its documents: a write never leaves a
 * document the site would no longer show; the drainer indexes the source again through the site's own
 * readers. A block write does the same for the pages using it; a view write deletes that view's
 * documents and queues the whole website.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { pg } = columnTypes(db);

  let documents = db.schema
    .createTable('search_documents')
    .addColumn('doc_id', pg ? 'bigint' : 'integer', (c) => (pg ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement()))
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('view_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('source_id', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    // The text search configuration of the view's language (PostgreSQL regconfig name; SQLite keeps it for the record).
    .addColumn('config', 'text', (c) => c.notNull())
    // Not found before this time (a scheduled post's publish_time; else its index time).
    .addColumn('live_from', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull());
  if (pg) documents = documents.addColumn('tsv', sql`tsvector`, (c) => c.notNull());
  await documents.execute();
  await db.schema.createIndex('search_documents_source').on('search_documents').columns(['website_id', 'kind', 'source_id', 'view_id']).unique().execute();
  await db.schema.createIndex('search_documents_view').on('search_documents').columns(['website_id', 'view_id', 'live_from']).execute();

  await db.schema
    .createTable('search_pending')
    .addColumn('website_id', 'text', (c) => c.notNull())
    // `page`, `post`, or `website` (source_id ''): every source of the website.
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('source_id', 'text', (c) => c.notNull())
    // +1 per write: an indexer removes the row only when no write came after its read.
    .addColumn('generation', 'bigint', (c) => c.notNull())
    // A drainer's lease (epoch ms); 0 when free.
    .addColumn('claimed_until', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('search_pending_pk', ['website_id', 'kind', 'source_id'])
    .execute();
  await db.schema.createIndex('search_pending_claim').on('search_pending').columns(['claimed_until']).execute();

  await db.schema
    .createTable('search_block_uses')
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('identifier', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('source_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('search_block_uses_pk', ['website_id', 'identifier', 'kind', 'source_id'])
    .execute();
  await db.schema.createIndex('search_block_uses_source').on('search_block_uses').columns(['website_id', 'kind', 'source_id']).execute();

  await db.schema
    .createTable('search_indexes')
    .addColumn('id', 'text', (c) => c.primaryKey().references('websites.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('last_reindex_time', 'bigint')
    .addColumn('last_reindex_operation_id', 'text')
    .addColumn('last_reindex_documents', 'bigint')
    .addColumn('last_reindex_duration_ms', 'bigint')
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .execute();

  const sources: Array<{ table: string; kind: 'page' | 'post'; column: string }> = [
    { table: 'cms_pages', kind: 'page', column: 'id' },
    { table: 'cms_page_views', kind: 'page', column: 'cms_page_id' },
    { table: 'blog_posts', kind: 'post', column: 'id' },
    { table: 'blog_post_views', kind: 'post', column: 'blog_post_id' },
  ];

  if (pg) {
    await sql`CREATE FUNCTION search_documents_tsv() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.tsv := setweight(to_tsvector(NEW.config::regconfig, NEW.title), 'A') || setweight(to_tsvector(NEW.config::regconfig, NEW.body), 'B');
        RETURN NEW;
      END $$`.execute(db);
    await sql`CREATE TRIGGER search_documents_tsv BEFORE INSERT OR UPDATE OF title, body, config ON search_documents
      FOR EACH ROW EXECUTE FUNCTION search_documents_tsv()`.execute(db);
    await sql`CREATE INDEX search_documents_tsv_gin ON search_documents USING gin (tsv)`.execute(db);

    // Queue first (the upsert waits for an indexer holding the row), then delete: the delete's
    // snapshot, taken after, sees the documents that indexer committed.
    await sql`CREATE FUNCTION search_touch(w text, k text, s text) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO search_pending AS p (website_id, kind, source_id, generation, claimed_until) VALUES (w, k, s, 1, 0)
          ON CONFLICT (website_id, kind, source_id) DO UPDATE SET generation = p.generation + 1, claimed_until = 0;
        DELETE FROM search_documents WHERE website_id = w AND kind = k AND source_id = s;
      END $$`.execute(db);
    await sql`CREATE FUNCTION search_source_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE r jsonb;
      BEGIN
        IF TG_OP = 'DELETE' THEN r := to_jsonb(OLD); ELSE r := to_jsonb(NEW); END IF;
        PERFORM search_touch(r ->> 'website_id', TG_ARGV[0], r ->> TG_ARGV[1]);
        RETURN NULL;
      END $$`.execute(db);
    for (const { table, kind, column } of sources) {
      await sql`CREATE TRIGGER ${sql.id(`${table}_search`)} AFTER INSERT OR UPDATE OR DELETE ON ${sql.table(table)}
        FOR EACH ROW EXECUTE FUNCTION search_source_changed(${sql.lit(kind)}, ${sql.lit(column)})`.execute(db);
    }
    // A block (or its overlay) changed: every page using it by identifier (before and after a rename).
    await sql`CREATE FUNCTION search_block_changed(w text, ident text) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE u record;
      BEGIN
        FOR u IN SELECT kind, source_id FROM search_block_uses WHERE website_id = w AND identifier = ident ORDER BY kind, source_id LOOP
          PERFORM search_touch(w, u.kind, u.source_id);
        END LOOP;
      END $$`.execute(db);
    await sql`CREATE FUNCTION search_blocks_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN PERFORM search_block_changed(OLD.website_id, OLD.identifier); END IF;
        IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW.identifier <> OLD.identifier) THEN PERFORM search_block_changed(NEW.website_id, NEW.identifier); END IF;
        RETURN NULL;
      END $$`.execute(db);
    await sql`CREATE TRIGGER cms_blocks_search AFTER INSERT OR UPDATE OR DELETE ON cms_blocks FOR EACH ROW EXECUTE FUNCTION search_blocks_changed()`.execute(db);
    await sql`CREATE FUNCTION search_block_views_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE r record;
      BEGIN
        IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
        PERFORM search_block_changed(r.website_id, b.identifier) FROM cms_blocks b WHERE b.website_id = r.website_id AND b.id = r.cms_block_id;
        RETURN NULL;
      END $$`.execute(db);
    await sql`CREATE TRIGGER cms_block_views_search AFTER INSERT OR UPDATE OR DELETE ON cms_block_views FOR EACH ROW EXECUTE FUNCTION search_block_views_changed()`.execute(db);
    // A view that changes what it shows (activity, language, prefix, fallback) or goes: its documents
    // go at once, the website is indexed again.
    await sql`CREATE FUNCTION search_views_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE r record;
      BEGIN
        IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
        INSERT INTO search_pending AS p (website_id, kind, source_id, generation, claimed_until) VALUES (r.website_id, 'website', '', 1, 0)
          ON CONFLICT (website_id, kind, source_id) DO UPDATE SET generation = p.generation + 1, claimed_until = 0;
        IF TG_OP <> 'INSERT' THEN DELETE FROM search_documents WHERE website_id = OLD.website_id AND view_id = OLD.id; END IF;
        RETURN NULL;
      END $$`.execute(db);
    await sql`CREATE TRIGGER views_search AFTER INSERT OR DELETE OR UPDATE OF is_active, is_default, locale, url_prefix, fallback_view_id ON views
      FOR EACH ROW EXECUTE FUNCTION search_views_changed()`.execute(db);
    return;
  }

  // SQLite: an FTS5 table over title and body, external content = search_documents by its INTEGER
  // PRIMARY KEY (stable across VACUUM), kept in step by triggers.
  await sql`CREATE VIRTUAL TABLE search_documents_fts USING fts5(title, body, content='search_documents', content_rowid='doc_id', tokenize='unicode61 remove_diacritics 2')`.execute(db);
  await sql`CREATE TRIGGER search_documents_fts_insert AFTER INSERT ON search_documents BEGIN
      INSERT INTO search_documents_fts(rowid, title, body) VALUES (NEW.doc_id, NEW.title, NEW.body);
    END`.execute(db);
  await sql`CREATE TRIGGER search_documents_fts_delete AFTER DELETE ON search_documents BEGIN
      INSERT INTO search_documents_fts(search_documents_fts, rowid, title, body) VALUES ('delete', OLD.doc_id, OLD.title, OLD.body);
    END`.execute(db);
  await sql`CREATE TRIGGER search_documents_fts_update AFTER UPDATE OF title, body ON search_documents BEGIN
      INSERT INTO search_documents_fts(search_documents_fts, rowid, title, body) VALUES ('delete', OLD.doc_id, OLD.title, OLD.body);
      INSERT INTO search_documents_fts(rowid, title, body) VALUES (NEW.doc_id, NEW.title, NEW.body);
    END`.execute(db);

  const touch = (w: string, kind: string, s: string) => `
    INSERT INTO search_pending (website_id, kind, source_id, generation, claimed_until) VALUES (${w}, '${kind}', ${s}, 1, 0)
      ON CONFLICT (website_id, kind, source_id) DO UPDATE SET generation = generation + 1, claimed_until = 0;
    DELETE FROM search_documents WHERE website_id = ${w} AND kind = '${kind}' AND source_id = ${s};`;
  for (const { table, kind, column } of sources) {
    for (const [event, row] of [['insert', 'NEW'], ['update', 'NEW'], ['delete', 'OLD']] as const) {
      await sql`CREATE TRIGGER ${sql.id(`${table}_search_${event}`)} AFTER ${sql.raw(event.toUpperCase())} ON ${sql.table(table)} BEGIN
        ${sql.raw(touch(`${row}.website_id`, kind, `${row}.${column}`))}
      END`.execute(db);
    }
  }
  const blockTouch = (w: string, ident: string) => `
    INSERT INTO search_pending (website_id, kind, source_id, generation, claimed_until)
      SELECT website_id, kind, source_id, 1, 0 FROM search_block_uses WHERE website_id = ${w} AND identifier = ${ident}
      ON CONFLICT (website_id, kind, source_id) DO UPDATE SET generation = generation + 1, claimed_until = 0;
    DELETE FROM search_documents WHERE website_id = ${w} AND kind = 'page' AND source_id IN
      (SELECT source_id FROM search_block_uses WHERE website_id = ${w} AND identifier = ${ident} AND kind = 'page');`;
  await sql`CREATE TRIGGER cms_blocks_search_insert AFTER INSERT ON cms_blocks BEGIN ${sql.raw(blockTouch('NEW.website_id', 'NEW.identifier'))} END`.execute(db);
  await sql`CREATE TRIGGER cms_blocks_search_update AFTER UPDATE ON cms_blocks BEGIN
      ${sql.raw(blockTouch('OLD.website_id', 'OLD.identifier'))}
      ${sql.raw(blockTouch('NEW.website_id', 'NEW.identifier'))}
    END`.execute(db);
  await sql`CREATE TRIGGER cms_blocks_search_delete AFTER DELETE ON cms_blocks BEGIN ${sql.raw(blockTouch('OLD.website_id', 'OLD.identifier'))} END`.execute(db);
  const identifierOf = (row: string) => `(SELECT identifier FROM cms_blocks WHERE website_id = ${row}.website_id AND id = ${row}.cms_block_id)`;
  for (const [event, row] of [['insert', 'NEW'], ['update', 'NEW'], ['delete', 'OLD']] as const) {
    await sql`CREATE TRIGGER ${sql.id(`cms_block_views_search_${event}`)} AFTER ${sql.raw(event.toUpperCase())} ON cms_block_views BEGIN
      ${sql.raw(blockTouch(`${row}.website_id`, identifierOf(row)))}
    END`.execute(db);
  }
  const websiteTouch = (w: string) => `
    INSERT INTO search_pending (website_id, kind, source_id, generation, claimed_until) VALUES (${w}, 'website', '', 1, 0)
      ON CONFLICT (website_id, kind, source_id) DO UPDATE SET generation = generation + 1, claimed_until = 0;`;
  await sql`CREATE TRIGGER views_search_insert AFTER INSERT ON views BEGIN ${sql.raw(websiteTouch('NEW.website_id'))} END`.execute(db);
  await sql`CREATE TRIGGER views_search_update AFTER UPDATE OF is_active, is_default, locale, url_prefix, fallback_view_id ON views BEGIN
      ${sql.raw(websiteTouch('NEW.website_id'))}
      DELETE FROM search_documents WHERE website_id = OLD.website_id AND view_id = OLD.id;
    END`.execute(db);
  await sql`CREATE TRIGGER views_search_delete AFTER DELETE ON views BEGIN
      ${sql.raw(websiteTouch('OLD.website_id'))}
      DELETE FROM search_documents WHERE website_id = OLD.website_id AND view_id = OLD.id;
    END`.execute(db);
}

export async function down(): Promise<void> {
  // Frozen: never rolled back.
}
