import { sql, type Expression } from 'kysely';
import { countPosts, postIdsAfter, postIdsQuery, postUrlKeys } from '../blog/index.js';
import { countPages, pageContentsWithBlocks, pageIdsAfter, pageIdsQuery, pageUrlKeys } from '../cms/index.js';
import type { SqlDialect } from '../platform/db/database.js';
import type { Db, Trx } from '../platform/db/schema.js';

/** A source of documents: a CMS page or a blog post (by id), or every source of the website. */
export type SourceKind = 'page' | 'post';
export type PendingKind = SourceKind | 'website';

/** One row of `search_documents` as the indexer writes it (one per source per view it shows in). */
export interface SearchDocument {
  website_id: string;
  view_id: string;
  kind: SourceKind;
  source_id: string;
  path: string;
  title: string;
  body: string;
  config: string;
  live_from: number;
  update_time: number;
}

export interface PendingSource {
  website_id: string;
  kind: PendingKind;
  source_id: string;
  generation: number;
}

/** How long an indexer waits for a pending row a content write holds before giving way (then retrying). */
const LOCK_WAIT_MS = 200;

/** Where the sources live: the CMS's pages and the blog's posts, read through their areas. */
const SOURCES: Record<SourceKind, {
  idsAfter(db: Db | Trx, websiteId: string, afterId: string, limit: number): Promise<string[]>;
  count(db: Db | Trx, websiteId: string): Promise<number>;
  urlKeys(db: Db | Trx, websiteId: string, ids: readonly string[]): Promise<Map<string, string>>;
  /** The website's source ids as a subquery; with `idEquals`, the one equal to it (a correlated probe). */
  idsQuery(db: Db | Trx, websiteId: string, idEquals?: Expression<string>): Expression<{ id: string }>;
}> = {
  page: { idsAfter: pageIdsAfter, count: countPages, urlKeys: pageUrlKeys, idsQuery: pageIdsQuery },
  post: { idsAfter: postIdsAfter, count: countPosts, urlKeys: postUrlKeys, idsQuery: postIdsQuery },
};

/** Ids of the website's pages or posts after `afterId`, by id (keyset batches of a reindex). */
export function sourceIdsAfter(db: Db | Trx, websiteId: string, kind: SourceKind, afterId: string, limit: number): Promise<string[]> {
  return SOURCES[kind].idsAfter(db, websiteId, afterId, limit);
}

export function countSources(db: Db | Trx, websiteId: string, kind: SourceKind): Promise<number> {
  return SOURCES[kind].count(db, websiteId);
}

/** `url_key` of each page or post among `ids` that exists. */
export function urlKeysOf(db: Db | Trx, websiteId: string, kind: SourceKind, ids: readonly string[]): Promise<Map<string, string>> {
  return SOURCES[kind].urlKeys(db, websiteId, ids);
}

/** Block placeholders (`data-block="identifier"`) anywhere in a page's content, its own or an overlay's. */
const BLOCK_ATTRIBUTE = /\sdata-block="([a-z0-9][a-z0-9_.-]{0,127})"/g;

/** The block identifiers each page among `ids` names in its content or any overlay's (blocks that do not exist yet included). */
export async function blockIdentifiersOf(db: Db | Trx, websiteId: string, ids: readonly string[]): Promise<Map<string, Set<string>>> {
  const uses = new Map<string, Set<string>>(ids.map((id) => [id, new Set()]));
  if (ids.length === 0) return uses;
  for (const row of await pageContentsWithBlocks(db, websiteId, ids)) {
    for (const m of String(row.content).matchAll(BLOCK_ATTRIBUTE)) uses.get(row.page_id)?.add(m[1]);
  }
  return uses;
}

/** Generation of each pending row among `ids` (absent: not pending). */
export async function pendingGenerations(db: Db | Trx, websiteId: string, kind: SourceKind, ids: readonly string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('search_pending')
    .select(['source_id', 'generation'])
    .where('website_id', '=', websiteId)
    .where('kind', '=', kind)
    .where('source_id', 'in', [...ids])
    .execute();
  return new Map(rows.map((r) => [r.source_id as string, Number(r.generation)]));
}

/**
 * Replaces the documents of the sources among `ids` whose pending generation is still `read` (what it
 * was before their content was read), in one transaction: a write that came after the read (its
 * generation moved) leaves its source to the drainer, so a document never outlives the write that
 * hid it. On PostgreSQL every source's pending row is held (inserted as a marker when absent) until
 * commit, so a write's trigger waits for it and then deletes what this committed. Answers the ids
 * written.
 */
export async function replaceDocuments(
  trx: Db | Trx,
  dialect: SqlDialect,
  batch: { websiteId: string; accountId?: string; kind: SourceKind; ids: readonly string[]; read: Map<string, number>; documents: SearchDocument[]; blockUses?: Map<string, Set<string>> },
): Promise<string[]> {
  const { websiteId, kind } = batch;
  if (batch.ids.length === 0) return [];
  // Background work gives way: a content write holding one of these rows wins, this batch is retried.
  await dialect.boundLockWait(trx, LOCK_WAIT_MS);
  // In key order, as the holding SELECT below, so two indexers never wait on each other in a cycle.
  const ids = [...batch.ids].sort();
  await trx
    .insertInto('search_pending')
    .values(ids.map((id) => ({ website_id: websiteId, kind, source_id: id, generation: 0, claimed_until: 0 })))
    .onConflict((oc) => oc.columns(['website_id', 'kind', 'source_id']).doNothing())
    .execute();
  const held = await dialect
    .forUpdate(trx.selectFrom('search_pending').select(['source_id', 'generation']).where('website_id', '=', websiteId).where('kind', '=', kind).where('source_id', 'in', [...ids]).orderBy('source_id'))
    .execute();
  const now = new Map(held.map((r) => [r.source_id as string, Number(r.generation)]));
  const current = ids.filter((id) => (now.get(id) ?? 0) === (batch.read.get(id) ?? 0));
  if (current.length > 0) {
    await trx.deleteFrom('search_documents').where('website_id', '=', websiteId).where('kind', '=', kind).where('source_id', 'in', current).execute();
    const keep = new Set(current);
    const documents = batch.documents.filter((d) => keep.has(d.source_id));
    for (let i = 0; i < documents.length; i += 200) await trx.insertInto('search_documents').values(documents.slice(i, i + 200)).execute();
    if (batch.blockUses) {
      await trx.deleteFrom('search_block_uses').where('website_id', '=', websiteId).where('kind', '=', kind).where('source_id', 'in', current).execute();
      const uses = current.flatMap((id) => [...(batch.blockUses!.get(id) ?? [])].map((identifier) => ({ website_id: websiteId, identifier, kind, source_id: id })));
      for (let i = 0; i < uses.length; i += 200) await trx.insertInto('search_block_uses').values(uses.slice(i, i + 200)).execute();
    }
    await trx.deleteFrom('search_pending').where('website_id', '=', websiteId).where('kind', '=', kind).where('source_id', 'in', current).execute();
  }
  // Markers of sources left to the drainer never stay behind (a marker is generation 0: nothing was pending).
  await trx.deleteFrom('search_pending').where('website_id', '=', websiteId).where('kind', '=', kind).where('source_id', 'in', [...ids]).where('generation', '=', 0).execute();
  return current;
}

/**
 * Claims up to `limit` pending sources no other drainer holds (lease until `now + leaseMs`; PostgreSQL
 * SKIP LOCKED), oldest lease first.
 */
export async function claimPending(db: Db | Trx, dialect: SqlDialect, now: number, leaseMs: number, limit: number): Promise<PendingSource[]> {
  return db.transaction().execute(async (trx) => {
    const rows = await dialect
      .skipLocked(
        trx
          .selectFrom('search_pending')
          .select(['website_id', 'kind', 'source_id', 'generation'])
          .where('claimed_until', '<', now)
          .where('generation', '>', 0)
          .orderBy('claimed_until')
          .limit(limit),
      )
      .execute();
    if (rows.length === 0) return [];
    for (const row of rows) {
      await trx
        .updateTable('search_pending')
        .set({ claimed_until: now + leaseMs })
        .where('website_id', '=', row.website_id)
        .where('kind', '=', row.kind)
        .where('source_id', '=', row.source_id)
        .execute();
    }
    // `kind` is one the indexer wrote (PendingKind); the column is plain text.
    return rows.map((r) => ({ website_id: r.website_id, kind: r.kind as PendingKind, source_id: r.source_id, generation: Number(r.generation) }));
  });
}

/** Drops a pending row unless a write bumped it since it was claimed. */
export async function dropPending(db: Db | Trx, row: PendingSource): Promise<void> {
  await db
    .deleteFrom('search_pending')
    .where('website_id', '=', row.website_id)
    .where('kind', '=', row.kind)
    .where('source_id', '=', row.source_id)
    .where('generation', '=', row.generation)
    .execute();
}

/** Queues every page and post of the website (set-based), for a whole-website pass of the drainer. */
export async function queueWholeWebsite(trx: Db | Trx, websiteId: string): Promise<void> {
  for (const [kind, source] of Object.entries(SOURCES)) {
    // The subquery comes parenthesised. `where true`: SQLite reads an upsert after a bare SELECT as a join constraint otherwise.
    await sql`insert into search_pending (website_id, kind, source_id, generation, claimed_until)
      select ${websiteId}, ${kind}, s.id, 1, 0 from ${source.idsQuery(trx, websiteId)} s where true
      on conflict (website_id, kind, source_id) do update set generation = search_pending.generation + 1, claimed_until = 0`.execute(trx);
  }
}

/** Documents whose source is gone (a reindex's clean-up after rows were removed behind the triggers' back). */
export async function deleteOrphanDocuments(db: Db | Trx, websiteId: string): Promise<void> {
  for (const [kind, source] of Object.entries(SOURCES)) {
    // Correlated on the source's primary key (website_id, id), as a probe per document.
    const exists = source.idsQuery(db, websiteId, sql.ref<string>('search_documents.source_id'));
    await sql`delete from search_documents where website_id = ${websiteId} and kind = ${kind}
      and not exists ${exists}`.execute(db);
  }
}

export async function countDocuments(db: Db | Trx, websiteId: string): Promise<number> {
  const row = await db.selectFrom('search_documents').select((eb) => eb.fn.countAll().as('n')).where('website_id', '=', websiteId).executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function countPending(db: Db | Trx, websiteId: string): Promise<number> {
  const row = await db.selectFrom('search_pending').select((eb) => eb.fn.countAll().as('n')).where('website_id', '=', websiteId).where('generation', '>', 0).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Records a finished reindex on the `search_index` singleton row (inserted on first use). */
export async function recordReindex(db: Db | Trx, r: { websiteId: string; accountId: string; operationId: string; documents: number; durationMs: number; now: number }): Promise<void> {
  await db
    .insertInto('search_indexes')
    .values({
      id: r.websiteId,
      account_id: r.accountId,
      last_reindex_time: r.now,
      last_reindex_operation_id: r.operationId,
      last_reindex_documents: r.documents,
      last_reindex_duration_ms: r.durationMs,
      revision: 1,
      create_time: r.now,
      update_time: r.now,
    })
    .onConflict((oc) =>
      oc.column('id').doUpdateSet((eb) => ({
        last_reindex_time: r.now,
        last_reindex_operation_id: r.operationId,
        last_reindex_documents: r.documents,
        last_reindex_duration_ms: r.durationMs,
        revision: eb('search_indexes.revision', '+', 1),
        update_time: r.now,
      })),
    )
    .execute();
}
