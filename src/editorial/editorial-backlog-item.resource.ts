import { FailedPrecondition, InvalidArgument } from '../platform/errors.js';
import type { ResourceDecl } from '../platform/resource/declaration.js';
import { executionExists } from '../ai/index.js';
import { EDITORIAL_RIGHTS } from './editorial-plan.resource.js';
import { detachBacklogItem } from './editorial.repo.js';

/** States a client may write; SCHEDULED and USED belong to the calendar. */
const CLIENT_STATES = ['PROPOSED', 'READY', 'DISCARDED'];

/**
 * `websites/{w}/editorial_backlog_items`: ideas to write about. PROPOSED (an agent's idea waiting for
 * a person) → READY (may be booked) → SCHEDULED (a calendar entry holds it) → USED (its post went
 * out); DISCARDED at any time before it is booked. `:refill` takes READY items, highest priority first.
 */
export function editorialBacklogItemResource(): ResourceDecl {
  return {
    collection: 'editorial_backlog_items',
    singular: 'EditorialBacklogItem',
    table: 'editorial_backlog_items',
    description:
      'An idea to write about. `state` PROPOSED (proposed by an AI run, waiting for a person), READY (default for a person\'s item; `:refill` books ' +
      'these, highest `priority` first, then oldest), SCHEDULED (held by a calendar entry), USED (its post was published or scheduled), DISCARDED.',
    collectionPath: 'websites/{website_id}/editorial_backlog_items',
    itemPath: 'websites/{website_id}/editorial_backlog_items/{editorial_backlog_item_id}',
    fields: {
      topic: { type: 'string', description: 'What to write about.', behavior: ['REQUIRED'], maxLength: 500, trim: true, notBlank: true, example: 'Why sourdough needs three days' },
      brief: { type: 'string', description: 'Notes for the writer: angle, audience, points to make.', maxLength: 5000, trim: true },
      keywords: { type: 'string_list', description: 'Search keywords the post should cover.', maxItems: 50, itemMinLength: 1, itemMaxLength: 100, default: [] },
      category_id: { type: 'string', description: 'Blog category of this website the post goes in.', maxLength: 64, refersTo: { table: 'blog_categories', what: 'a blog category' } },
      priority: { type: 'integer', description: '0 (some day) to 100 (next); `:refill` books higher first.', minimum: 0, maximum: 100, default: 50 },
      state: {
        type: 'enum',
        values: ['PROPOSED', 'READY', 'SCHEDULED', 'USED', 'DISCARDED'],
        description: 'PROPOSED, READY, DISCARDED may be written; SCHEDULED and USED are set by the calendar (writing them, or changing the state of a SCHEDULED or USED item, is refused).',
      },
      source_execution_id: {
        type: 'string',
        description: 'The AI run (an `ai_executions` id of this account) that proposed the item; the item then starts PROPOSED. Fixed.',
        behavior: ['IMMUTABLE'],
        maxLength: 64,
      },
      proposed_by: { type: 'string', description: '`users/{user}` who created it, or the run that proposed it (`accounts/{a}/ai_executions/{e}`).', behavior: ['OUTPUT_ONLY'], notNull: true },
    },
    filterable: ['create_time', 'update_time', 'topic', 'state', 'priority', 'category_id', 'proposed_by'],
    sortable: ['create_time', 'update_time', 'priority', 'topic'],
    defaultOrder: 'create_time desc',
    methods: ['list', 'get', 'create', 'update', 'delete'],
    options: { clientId: true, requestId: true, validateOnly: true },
    rights: EDITORIAL_RIGHTS,
    hooks: {
      async beforeCreate(ctx, row) {
        if (row.source_execution_id) {
          const run = await executionExists(ctx.trx, row.account_id, row.source_execution_id);
          if (!run) throw InvalidArgument.field('source_execution_id', `${row.source_execution_id} is not an AI run of this account`);
          row.proposed_by = `accounts/${row.account_id}/ai_executions/${row.source_execution_id}`;
        } else {
          row.proposed_by = `users/${ctx.caller.userId}`;
        }
        row.state ??= row.source_execution_id ? 'PROPOSED' : 'READY';
        if (!CLIENT_STATES.includes(row.state)) throw InvalidArgument.field('state', `${row.state} is set by the calendar; write one of ${CLIENT_STATES.join(', ')}`);
      },
      beforeUpdate(_ctx, next, previous) {
        if (next.state === previous.state) return;
        if (next.state === null) throw InvalidArgument.field('state', 'cannot be cleared');
        if (previous.state === 'SCHEDULED' || previous.state === 'USED') {
          throw new FailedPrecondition('BACKLOG_ITEM_BOOKED', `the item is ${previous.state} by a calendar entry; delete or re-plan the entry first`);
        }
        if (!CLIENT_STATES.includes(next.state)) throw InvalidArgument.field('state', `${next.state} is set by the calendar; write one of ${CLIENT_STATES.join(', ')}`);
      },
      async beforeDelete(ctx, row) {
        // An entry keeps its slot but no longer names the deleted item.
        await detachBacklogItem(ctx.trx, row.website_id, row.id, ctx.now);
      },
    },
  };
}
