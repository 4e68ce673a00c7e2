import type { RequestContext } from '../auth/context.js';
import { anyMember, reaches, read, type Right } from '../auth/rights.js';
import type { FieldDecl, ResourceDecl, Row } from '../resource/declaration.js';
import type { ResourceService } from '../resource/engine.js';
import { EVENT_RETENTION_MS } from '../events/events.js';

const DAYS = EVENT_RETENTION_MS / (24 * 3600_000);

/** Collections written outside the engine whose events need a right of their own. */
const EXTRA_RIGHTS: Record<string, Right> = { operations: read('website') };

const fields: Record<string, FieldDecl> = {
  type: {
    type: 'string',
    description:
      'What happened: `{resource}.created`, `.updated`, `.deleted`, or a named transition such as `blog_post.published`. ' +
      'Filter `type = "blog_post.published"`, or `type:"blog_post."` for every type starting so (all of one resource).',
    behavior: ['OUTPUT_ONLY'],
    hasMatchesPrefix: true,
    example: 'blog_post.published',
  },
  resource: {
    type: 'string',
    description: 'Full name of the resource the event is about. Filter `resource = "…"`, or `resource:"…"` for it and everything beneath it.',
    behavior: ['OUTPUT_ONLY'],
    hasMatchesPrefix: true,
    example: 'websites/w1/blog_posts/p1',
  },
  collection: { type: 'string', description: 'Collection id of the resource (`blog_posts`).', behavior: ['OUTPUT_ONLY'], example: 'blog_posts' },
  occur_time: {
    type: 'timestamp',
    description: 'When the change was committed (its write\'s clock). Lists are newest first; filter ranges such as `occur_time > "2026-11-01T00:00:00Z"`.',
    behavior: ['OUTPUT_ONLY'],
    column: 'create_time',
    notNull: true,
  },
  actor: {
    type: 'object',
    description: 'Who made the change: `type` USER (`user`, `role`) or SYSTEM (a scheduled publish, a worker); `agent` when written on behalf of an AI run.',
    behavior: ['OUTPUT_ONLY'],
    schema: {
      type: 'object',
      properties: {
        type: { type: 'string', enum: ['USER', 'SYSTEM'] },
        user: { type: 'string', maxLength: 200 },
        role: { type: 'string', maxLength: 300 },
        agent: { type: 'string', maxLength: 300 },
      },
    },
    example: { type: 'USER', user: 'users/u1', role: 'roles/editor' },
  },
  data: {
    type: 'object',
    description: 'The resource as Get answered it right after the change; for `.deleted`, as it was before.',
    behavior: ['OUTPUT_ONLY'],
    example: { name: 'websites/w1/blog_posts/p1', state: 'PUBLISHED' },
  },
  previous: {
    type: 'object',
    description: 'The resource before the change, on transitions (`blog_post.published`: the post as it was); absent otherwise.',
    behavior: ['OUTPUT_ONLY'],
  },
};

/**
 * Which collections' events the caller may read: those whose resources its role may read (the read
 * right of the collection's declaration; every declaration sharing a collection id must be readable).
 * Undefined: all of them (administrators).
 */
function readableCollections(ctx: RequestContext, services: () => Record<string, ResourceService>): string[] | undefined {
  const access = ctx.access;
  // A membership limited to some websites does not see the events of the account's websites themselves.
  const limited = Boolean(access?.websiteIds?.length);
  if (!access || ((access.administrator || !access.grants) && !limited)) return undefined;
  const rights = new Map<string, Right[]>();
  for (const [collection, right] of Object.entries(EXTRA_RIGHTS)) rights.set(collection, [right]);
  for (const { decl } of new Set(Object.values(services()))) {
    rights.set(decl.collection, [...(rights.get(decl.collection) ?? []), decl.rights.read]);
  }
  const grants = access.grants;
  const readable = (list: Right[]) => !grants || access.administrator || list.every((right) => reaches(grants, right));
  return [...rights].filter(([collection, list]) => readable(list) && !(limited && collection === 'websites')).map(([collection]) => collection).sort();
}

/**
 * The events Lists: `websites/{w}/events` (website-scoped resources) and `accounts/{a}/events`
 * (account-scoped ones). Read-only; any member may list, and sees the events of the collections its
 * role may read.
 */
export function eventResources(services: () => Record<string, ResourceService>): ResourceDecl[] {
  const hooks = {
    listVisible: (ctx: RequestContext) => {
      const collections = readableCollections(ctx, services);
      return collections ? { column: 'collection', values: collections } : undefined;
    },
    readable: (ctx: RequestContext, row: Row) => {
      const collections = readableCollections(ctx, services);
      return !collections || collections.includes(row.collection);
    },
  };
  const common = {
    collection: 'events',
    table: 'events',
    fields,
    filterable: ['type', 'resource', 'occur_time'],
    sortable: ['occur_time'],
    defaultOrder: 'occur_time desc',
    methods: ['list', 'get'] as const,
    rights: { read: anyMember, write: anyMember },
    events: { off: true },
    hooks,
  };
  return [
    {
      ...common,
      singular: 'Event',
      description:
        `Changes committed to the website's resources, newest first, kept ${DAYS} days. One event per write (and per named transition), ` +
        'recorded in the write\'s own transaction; the caller sees the events of the sections its role may read.',
      collectionPath: 'websites/{website_id}/events',
      itemPath: 'websites/{website_id}/events/{event_id}',
    },
    {
      ...common,
      table: 'account_events',
      singular: 'AccountEvent',
      pluralNoun: 'AccountEvents',
      description:
        `Changes committed to the account's own resources (projects, websites, members, AI, billing), newest first, kept ${DAYS} days; ` +
        'the caller sees the events of the sections its role may read.',
      collectionPath: 'accounts/{account_id}/events',
      itemPath: 'accounts/{account_id}/events/{event_id}',
    },
  ];
}
