import type { AreaDeps, SiteContext, SiteView } from '../platform/area.js';
import { SEARCH_MARK_END, SEARCH_MARK_START } from '../platform/db/database.js';
import { InvalidArgument } from '../platform/errors.js';
import type { CompanionWorker, OperationHandler } from '../platform/jobs/operations.js';
import { startWorkerLoops, Wakeup } from '../platform/jobs/worker-loops.js';
import { createIndexer, textSearchConfig, type Indexer } from './indexer.js';
import {
  claimPending,
  countSources,
  deleteOrphanDocuments,
  dropPending,
  queueWholeWebsite,
  recordReindex,
  sourceIdsAfter,
  type PendingSource,
  type SourceKind,
} from './search.repo.js';

/** Operation type of `search_index:reindex`. */
export const REINDEX_SEARCH = 'REINDEX_SEARCH';
/** Longest search text (characters) the site accepts. */
export const MAX_QUERY_CHARS = 200;
/** Hits per page when the caller names none, and at most. */
export const DEFAULT_HITS_PER_PAGE = 10;
export const MAX_HITS_PER_PAGE = 50;
/** Deepest hit a search pages to (offset + page size): ranked search is for the first pages. */
export const MAX_HIT_OFFSET = 500;
/** Sources a reindex or the drainer indexes per transaction. */
const BATCH = 100;
/** A drainer's hold on the sources it claimed; another process takes them after this. */
const DRAIN_LEASE_MS = 60_000;

/** One hit as the site's surfaces show it: `*_html` are HTML-escaped text with `<mark>` around the matched words. */
export interface SearchHit {
  kind: SourceKind;
  path: string;
  title: string;
  title_html: string;
  snippet_html: string;
  update_time: string;
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Text with the dialect's match sentinels → escaped HTML with `<mark>`; stray sentinels never survive. */
export function markedToHtml(marked: string): string {
  let open = false;
  let html = '';
  for (const part of marked.split(new RegExp(`([${SEARCH_MARK_START}${SEARCH_MARK_END}])`))) {
    if (part === SEARCH_MARK_START) {
      if (!open) html += '<mark>';
      open = true;
    } else if (part === SEARCH_MARK_END) {
      if (open) html += '</mark>';
      open = false;
    } else {
      html += escapeHtml(part);
    }
  }
  return open ? `${html}</mark>` : html;
}

/**
 * The search text of a request: trimmed; INVALID_ARGUMENT on `q` when it is empty (unless `allowEmpty`,
 * the HTML page's blank form) or longer than MAX_QUERY_CHARS. Control characters are spaces.
 */
export function searchTextOf(raw: unknown, field = 'q'): string {
  if (raw !== undefined && typeof raw !== 'string') throw InvalidArgument.field(field, 'must be text');
  const text = String(raw ?? '').replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  if (text === '') throw InvalidArgument.field(field, 'is required: the words to search for');
  if ([...text].length > MAX_QUERY_CHARS) throw InvalidArgument.field(field, `is longer than ${MAX_QUERY_CHARS} characters`);
  return text;
}

export interface SearchService {
  indexer: Indexer;
  /** One page of ranked hits of `text` in the view (live documents only). `offset + limit` ≤ MAX_HIT_OFFSET + limit. */
  search(ctx: SiteContext, view: SiteView, text: string, page: { limit: number; offset: number }): Promise<{ hits: SearchHit[]; more: boolean }>;
  /** Claims and indexes one batch of pending sources; false when none was due. */
  drainOnce(): Promise<boolean>;
  /** The drainer, started and stopped with the Operations worker. */
  drainer: CompanionWorker;
  /** Nudges this process's drainer to look for queued sources now instead of at its next poll. */
  wake(): void;
  reindexHandler: OperationHandler;
}

export function createSearchService(deps: AreaDeps): SearchService {
  const { database, logger } = deps;
  const { dialect } = database;
  const indexer = createIndexer(deps);
  const wakeup = new Wakeup();

  async function drainOnce(): Promise<boolean> {
    const claimed = await claimPending(database.db, dialect, Date.now(), DRAIN_LEASE_MS, BATCH);
    if (claimed.length === 0) return false;
    const groups = new Map<string, PendingSource[]>();
    for (const row of claimed) {
      if (row.kind === 'website') {
        // A view changed: every source of the website is queued, then drained like any other.
        await database.db.transaction().execute(async (trx) => {
          await queueWholeWebsite(trx, row.website_id);
          await dropPending(trx, row);
        });
        continue;
      }
      const key = `${row.website_id}\u0000${row.kind}`;
      groups.set(key, [...(groups.get(key) ?? []), row]);
    }
    for (const rows of groups.values()) {
      await indexer.indexSources(rows[0].website_id, rows[0].kind as SourceKind, rows.map((r) => r.source_id));
    }
    return true;
  }

  return {
    indexer,
    drainOnce,
    wake: () => wakeup.wake(),
    async search(ctx, view, text, page) {
      const rows = await dialect
        .fullTextSearch({ text, config: textSearchConfig(view.locale), websiteId: ctx.website.id, viewId: view.id, now: ctx.now, limit: page.limit + 1, offset: page.offset })
        .execute(database.read);
      const hits = rows.rows.slice(0, page.limit).map((r) => ({
        kind: r.kind as SourceKind,
        path: r.path,
        title: r.title,
        title_html: markedToHtml(r.title_marked ?? r.title),
        snippet_html: markedToHtml(r.snippet_marked ?? ''),
        update_time: new Date(Number(r.update_time)).toISOString(),
      }));
      return { hits, more: rows.rows.length > page.limit };
    },
    drainer: {
      start(opts) {
        const loops = startWorkerLoops({
          concurrency: 1,
          pollMs: opts.pollMs ?? 500,
          runOne: drainOnce,
          wakeup,
          channel: 'search_pending',
          database,
          logger,
          what: 'search index',
        });
        return {
          async stop() {
            await loops.halt();
            await loops.unsubscribe();
          },
        };
      },
    },
    reindexHandler: {
      async run(op) {
        const websiteId = op.websiteId!;
        const started = Date.now();
        const kinds: SourceKind[] = ['page', 'post'];
        // Counted first, so progress is over the sources the website holds now.
        let total = 0;
        for (const kind of kinds) total += await countSources(database.db, websiteId, kind);
        let done = 0;
        let documents = 0;
        await op.setStep('INDEXING', 0);
        for (const kind of kinds) {
          let after = '';
          for (;;) {
            const ids = await sourceIdsAfter(database.db, websiteId, kind, after, BATCH);
            if (ids.length === 0) break;
            documents += await indexer.indexSources(websiteId, kind, ids);
            done += ids.length;
            after = ids[ids.length - 1];
            await op.setStep('INDEXING', total === 0 ? 100 : Math.min(99, Math.floor((done * 100) / total)));
            await op.checkpoint();
          }
        }
        await deleteOrphanDocuments(database.db, websiteId);
        const durationMs = Date.now() - started;
        await recordReindex(database.db, { websiteId, accountId: op.accountId, operationId: op.id, documents, durationMs, now: Date.now() });
        await op.setStep('DONE', 100);
        return { document_count: documents, source_count: total, duration_ms: durationMs };
      },
    },
  };
}
