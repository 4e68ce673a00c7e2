import { createHash } from 'node:crypto';
import { read, write } from '../platform/auth/rights.js';
import type { Events } from '../platform/events/events.js';
import { NotFound } from '../platform/errors.js';
import type { ResourceDecl } from '../platform/resource/declaration.js';
import { webhookEventTypes } from './event-types.js';

const out = { behavior: ['OUTPUT_ONLY'] as const };

/** `webhook_event_types`: what a webhook may subscribe to (platform catalogue, read-only). */
export function webhookEventTypeResource(events: Events): ResourceDecl {
  // Built on first read: the engine declares its types while services are built, after this declaration.
  let presented: Record<string, unknown>[] | undefined;
  const all = () =>
    (presented ??= webhookEventTypes(events).map((t) => ({
      name: `webhook_event_types/${t.type}`,
      id: t.type,
      collection: t.collection,
      description: t.description,
      wildcard: `${t.type.slice(0, t.type.lastIndexOf('.'))}.*`,
      etag: createHash('sha256').update(JSON.stringify(t)).digest('base64url').slice(0, 16),
    })));
  return {
    collection: 'webhook_event_types',
    singular: 'WebhookEventType',
    table: 'webhook_event_types',
    catalogue: true,
    description:
      'Platform catalogue (read-only) of the event types a webhook may subscribe to: `{resource}.created|updated|deleted` of every website resource, the named ' +
      'transitions areas declare (`blog_post.published`), and `webhook.ping`. The id is the type; `wildcard` subscribes to every type of the same resource.',
    collectionPath: 'webhook_event_types',
    itemPath: 'webhook_event_types/{webhook_event_type_id}',
    fields: {
      collection: { type: 'string', description: 'Collection id of the resources the events are about (`blog_posts`).', ...out, example: 'blog_posts' },
      description: { type: 'string', description: 'When the event is written.', ...out },
      wildcard: { type: 'string', description: 'The pattern of every type of the same resource (`blog_post.*`).', ...out, example: 'blog_post.*' },
    },
    filterable: ['collection'],
    sortable: ['collection'],
    defaultOrder: 'collection asc',
    methods: ['list', 'get'],
    rights: { read: read(''), write: write('') },
    virtual: {
      all: async () => all(),
      async get(_ctx, params) {
        const found = all().find((t) => t.id === params.webhook_event_type_id);
        if (!found) throw new NotFound(`webhook event type ${params.webhook_event_type_id}`);
        return found;
      },
    },
  };
}
