import { read, write } from '../platform/auth/rights.js';
import { operationSchema } from '../platform/http/openapi-shapes.js';
import type { Database } from '../platform/db/database.js';
import type { Operations } from '../platform/jobs/operations.js';
import { Aborted } from '../platform/errors.js';
import type { ResourceDecl } from '../platform/resource/declaration.js';
import { etagMatches, type ResourceService } from '../platform/resource/engine.js';
import { countDocuments, countPending } from './search.repo.js';
import { REINDEX_SEARCH } from './search.service.js';

/**
 * The search index of a website (`websites/{w}/search_index`, a read-only singleton) and
 * `:reindex`, which rebuilds it in the background and answers the Operation doing it.
 */
export function searchIndexResource(deps: { database: Database; operations: Operations; services: () => Record<string, ResourceService> }): ResourceDecl {
  return {
    kind: 'singleton',
    collection: 'search_index',
    singular: 'SearchIndex',
    table: 'search_indexes',
    description:
      "The website's site-search index: one document per published page and post per view it shows in. Content writes keep it current by themselves " +
      '(a write removes the documents it touches at once; the background indexer adds them back as the site now shows them, `pending_count` counts the sources waiting); ' +
      '`:reindex` rebuilds every document, for recovery.',
    collectionPath: 'websites/{website_id}/search_index',
    itemPath: 'websites/{website_id}/search_index',
    fields: {
      document_count: { type: 'integer', description: 'Documents in the index (a page or post counts once per view it is found in).', behavior: ['OUTPUT_ONLY'], column: false },
      pending_count: { type: 'integer', description: 'Pages and posts changed since they were last indexed, waiting for the background indexer.', behavior: ['OUTPUT_ONLY'], column: false },
      state: { type: 'enum', values: ['CURRENT', 'UPDATING'], description: '`UPDATING` while changes wait to be indexed (`pending_count` > 0), else `CURRENT`.', behavior: ['OUTPUT_ONLY'], column: false },
      last_reindex_time: { type: 'timestamp', description: 'When the last `:reindex` finished; absent when none ran.', behavior: ['OUTPUT_ONLY'] },
      last_reindex_operation: { type: 'string', description: 'The Operation of the last finished `:reindex` (`websites/{website}/operations/{operation}`).', behavior: ['OUTPUT_ONLY'], column: false },
      last_reindex_documents: { type: 'integer', description: 'Documents the last `:reindex` wrote.', behavior: ['OUTPUT_ONLY'] },
      last_reindex_duration_ms: { type: 'integer', description: 'How long the last `:reindex` took, in milliseconds.', behavior: ['OUTPUT_ONLY'] },
    },
    filterable: [],
    sortable: [],
    defaultOrder: 'create_time desc',
    methods: ['get'],
    rights: { read: read('website.content'), write: write('website.content') },
    customMethods: [
      {
        verb: 'reindex',
        on: 'item',
        summary: 'Rebuild the search index',
        description:
          'Starts an Operation (`REINDEX_SEARCH`) that indexes every page and post of the website again in every view, through the same readers the site serves ' +
          'them with, and removes documents whose source is gone. `metadata.progress_percent` counts the pages and posts done. Safe to run again at any time ' +
          '(after a crash it starts over); content writes meanwhile are indexed by the background indexer as usual. Not needed after ordinary writes.',
        access: 'write',
        response: operationSchema,
        async handle(ctx, call) {
          const websiteId = call.params.website_id;
          const accountId = ctx.access!.accountId;
          if (call.ifMatch) {
            const current = await deps.services()['websites/{website_id}/search_index'].get(ctx, call.params);
            if (!etagMatches(call.ifMatch, String(current.etag))) throw new Aborted('the search index changed since it was read', current);
          }
          const id = await deps.operations.enqueue(deps.database.db, { type: REINDEX_SEARCH, accountId, websiteId, step: 'QUEUED' }, ctx.now);
          deps.operations.wake();
          return deps.operations.get(id, { accountId, websiteId });
        },
      },
    ],
    hooks: {
      async enrich(db, rows) {
        for (const row of rows) {
          row.$document_count = await countDocuments(db, row.id);
          row.$pending_count = await countPending(db, row.id);
        }
      },
      present(row, resource) {
        resource.document_count = row.$document_count ?? 0;
        resource.pending_count = row.$pending_count ?? 0;
        resource.state = (row.$pending_count ?? 0) > 0 ? 'UPDATING' : 'CURRENT';
        if (row.last_reindex_operation_id) resource.last_reindex_operation = `websites/${row.id}/operations/${row.last_reindex_operation_id}`;
      },
    },
  };
}
