import type { RequestContext } from '../platform/auth/context.js';
import type { SqlDialect } from '../platform/db/database.js';
import type { Db } from '../platform/db/schema.js';
import type { ResourceDecl } from '../platform/resource/declaration.js';
import type { ResourceService } from '../platform/resource/engine.js';
import { newId } from '../platform/resource/ids.js';
import { PING_EVENT_TYPE } from './event-types.js';
import type { WebhookRuntime } from './runtime.js';
import { RESPONSE_EXCERPT_BYTES } from './http-post.js';
import { DELIVERY_QUEUED, insertDeliveries } from './webhooks.repo.js';
import { WEBHOOKS_READ, WEBHOOKS_WRITE } from './webhook.resource.js';

const out = { behavior: ['OUTPUT_ONLY'] as const };

export const DELIVERIES_PATH = 'websites/{website_id}/webhooks/{webhook_id}/deliveries';

/** Attempts kept per delivery (the newest; a delivery makes fewer unless its workers keep dying). */
export const MAX_RECORDED_ATTEMPTS = 50;

const ATTEMPT_SCHEMA = {
  type: 'array',
  maxItems: MAX_RECORDED_ATTEMPTS,
  items: {
    type: 'object',
    properties: {
      time: { type: 'string', format: 'date-time', maxLength: 40, description: 'When the attempt started.' },
      status_code: { type: ['integer', 'null'], format: 'int32', minimum: 100, maximum: 599, description: 'HTTP status the receiver answered; null when there was no answer.' },
      duration_ms: { type: 'integer', format: 'int32', minimum: 0, maximum: 3_600_000, description: 'From connecting to the answer (or the failure).' },
      response_excerpt: { type: ['string', 'null'], maxLength: RESPONSE_EXCERPT_BYTES, description: `The first ${RESPONSE_EXCERPT_BYTES} bytes of the answer's body, as text.` },
      error: { type: ['string', 'null'], maxLength: 500, description: 'Why the attempt got no answer: refused address, timeout, connection error, the worker stopped.' },
    },
  },
};

/** The body of a delivery (`{type, timestamp, data}`, Standard Webhooks), fixed when it is queued. */
export function payloadOf(type: string, occurTime: number, data: Record<string, unknown>): string {
  return JSON.stringify({ type, timestamp: new Date(occurTime).toISOString(), data });
}

/** `websites/{w}/webhooks/{h}/deliveries`: the delivery log of a webhook, and `:redeliver`. */
export function deliveryResource(deps: { db: Db; dialect: SqlDialect; runtime: WebhookRuntime; service: () => ResourceService }): ResourceDecl {
  return {
    collection: 'deliveries',
    singular: 'WebhookDelivery',
    pluralNoun: 'WebhookDeliveries',
    table: 'webhook_deliveries',
    parentTable: 'webhooks',
    description:
      'One event sent (or to be sent) to a webhook: its attempts with status code, duration and the start of the answer, and when the next retry is due. ' +
      `Kept ${30} days after it ended. \`:redeliver\` sends the same event again as a new delivery (same \`webhook-id\`).`,
    collectionPath: DELIVERIES_PATH,
    itemPath: `${DELIVERIES_PATH}/{delivery_id}`,
    fields: {
      event_id: { type: 'string', description: 'The event delivered: its id is the `webhook-id` header, the same on every attempt and redelivery (deduplicate on it).', ...out },
      event_type: { type: 'string', description: 'The event\'s type (`blog_post.published`, `webhook.ping`).', ...out, example: 'blog_post.published' },
      state: {
        type: 'enum',
        values: ['PENDING', 'DELIVERING', 'SUCCEEDED', 'FAILED'],
        description: '`PENDING` (waiting for its next attempt), `DELIVERING` (an attempt in flight), `SUCCEEDED` (a 2xx answer), `FAILED` (retries exhausted, or the webhook was disabled).',
        ...out,
      },
      attempt_count: { type: 'integer', description: 'Attempts made so far.', column: 'attempt', ...out },
      attempts: { type: 'json', description: 'Every attempt, oldest first.', schema: ATTEMPT_SCHEMA, ...out, example: [] },
      last_status_code: { type: 'integer', description: 'HTTP status of the latest answer.', ...out },
      next_attempt_time: { type: 'timestamp', description: 'When the next attempt is due (while `PENDING`).', column: 'run_after', ...out },
      redelivery_of: { type: 'string', description: 'Name of the delivery this one repeats (`:redeliver`).', ...out },
    },
    filterable: ['create_time', 'state'],
    sortable: ['create_time'],
    defaultOrder: 'create_time desc',
    methods: ['list', 'get'],
    rights: { read: WEBHOOKS_READ, write: WEBHOOKS_WRITE },
    // The log of the platform's own sending, not a change of the website: no events (a delivery of one would deliver again).
    events: { off: true },
    hooks: {
      present(row, resource) {
        if (row.state !== DELIVERY_QUEUED) delete resource.next_attempt_time;
        if (row.redelivery_of) resource.redelivery_of = `websites/${row.website_id}/webhooks/${row.webhook_id}/deliveries/${row.redelivery_of}`;
      },
    },
    customMethods: [
      {
        verb: 'redeliver',
        on: 'item',
        summary: 'Send a delivery\'s event again',
        description:
          'Queues a new delivery of the same event, with the same body and `webhook-id`, to this webhook (whatever its state), and answers it. The delivery repeated is left as it is.',
        access: 'write',
        async handle(ctx, call) {
          const service = deps.service();
          const original = await service.load(deps.db, ctx, call.params);
          const [row] = await deps.db.transaction().execute((trx) =>
            insertDeliveries(
              trx,
              deps.dialect,
              [
                {
                  websiteId: original.website_id,
                  webhookId: original.webhook_id,
                  accountId: original.account_id,
                  eventId: original.event_id,
                  eventType: original.event_type,
                  payload: original.payload,
                  redeliveryOf: original.id,
                },
              ],
              deps.runtime.clock(),
            ),
          );
          deps.runtime.wake();
          return service.toResource(row);
        },
      },
    ],
  };
}

/** `:ping` of a webhook: a `webhook.ping` delivery to it alone, with an event id of its own. */
export async function queuePing(
  deps: { db: Db; dialect: SqlDialect; runtime: WebhookRuntime; webhooks: () => ResourceService; deliveries: () => ResourceService },
  ctx: RequestContext,
  params: Record<string, string>,
): Promise<unknown> {
  const hook = await deps.webhooks().load(deps.db, ctx, params);
  const now = deps.runtime.clock();
  const name = `websites/${hook.website_id}/webhooks/${hook.id}`;
  const [row] = await deps.db.transaction().execute((trx) =>
    insertDeliveries(
      trx,
      deps.dialect,
      [
        {
          websiteId: hook.website_id,
          webhookId: hook.id,
          accountId: hook.account_id,
          eventId: `ping_${newId(now)}`,
          eventType: PING_EVENT_TYPE,
          payload: payloadOf(PING_EVENT_TYPE, now, { webhook: name, message: 'A test delivery asked for with :ping.' }),
        },
      ],
      now,
    ),
  );
  deps.runtime.wake();
  return deps.deliveries().toResource(row);
}
