import type { Area, AreaDeps } from '../platform/area.js';
import type { PlatformEvent } from '../platform/events/events.js';
import { resourceSchema } from '../platform/resource/schemas.js';
import { DELIVERIES_PATH, deliveryResource, payloadOf, queuePing } from './delivery.resource.js';
import { createDeliveryWorker } from './delivery.worker.js';
import { PING_EVENT_TYPE, matches } from './event-types.js';
import { webhookEventTypeResource } from './event-type.resource.js';
import { webhookRuntimeOf } from './runtime.js';
import { secretsToShow, webhookResource } from './webhook.resource.js';
import { activeWebhooksOf, insertDeliveries } from './webhooks.repo.js';

const WEBHOOKS_PATH = 'websites/{website_id}/webhooks';

/** The event as a delivery's `data`: the fields of the events List's resource. */
function eventData(event: PlatformEvent): Record<string, unknown> {
  return {
    name: `websites/${event.websiteId}/events/${event.id}`,
    id: event.id,
    type: event.type,
    resource: event.resource,
    collection: event.collection,
    occur_time: new Date(event.occurTime).toISOString(),
    actor: event.actor,
    data: event.data,
    ...(event.previous ? { previous: event.previous } : {}),
  };
}

/**
 * Webhooks (issue 27; docs/webhooks.md): `websites/{w}/webhooks` with `:rotate_secret` and `:ping`,
 * their `deliveries` with `:redeliver`, the `webhook_event_types` catalogue, the fan-out (an
 * in-transaction subscriber of the events seam: one delivery row per matching ACTIVE webhook, in the
 * write's own transaction) and the delivery worker beside the Operations worker.
 */
export const webhooksArea: Area = {
  name: 'webhooks',
  resources(deps) {
    const runtime = webhookRuntimeOf(deps);
    const { db, dialect } = deps.database;
    const webhooks = () => deps.services[WEBHOOKS_PATH];
    const deliveries = () => deps.services[DELIVERIES_PATH];
    const delivery = deliveryResource({ db, dialect, runtime, service: deliveries });
    return [
      webhookResource({
        secrets: deps.secrets,
        dialect,
        events: deps.events,
        runtime,
        service: webhooks,
        ping: (ctx, params) => queuePing({ db, dialect, runtime, webhooks, deliveries }, ctx, params),
        deliverySchema: resourceSchema(delivery),
      }),
      delivery,
      webhookEventTypeResource(deps.events),
    ];
  },
  tenantRoutes(app) {
    // The secret of a Create is added to that request's answer only (see `secretsToShow`); a copy,
    // since the answer object is also the data of the write's event.
    app.addHook('preSerialization', async (request, reply, payload) => {
      const secret = secretsToShow.get(request.id);
      if (secret === undefined) return payload;
      secretsToShow.delete(request.id);
      const validateOnly = String((request.query as Record<string, unknown> | undefined)?.validate_only ?? '') === 'true';
      if (reply.statusCode !== 201 || validateOnly || !payload || typeof payload !== 'object') return payload;
      return { ...(payload as Record<string, unknown>), secret };
    });
    // A refused or failed Create never reaches serialization with a resource: forget its secret.
    app.addHook('onResponse', (request, _reply, done) => {
      secretsToShow.delete(request.id);
      done();
    });
  },
  jobs(operations, deps) {
    operations.runAlongside(createDeliveryWorker(deps, webhookRuntimeOf(deps)));
  },
  events(events, deps) {
    const runtime = webhookRuntimeOf(deps);
    const { dialect } = deps.database;
    let queued = false;
    events.onEvent(async (trx, event) => {
      if (!event.websiteId || event.type === PING_EVENT_TYPE) return;
      const hooks = await activeWebhooksOf(trx, dialect, event.websiteId);
      if (hooks.length === 0) return;
      const matching = hooks.filter((h) => (dialect.readJson<string[]>(h.event_types) ?? []).some((p) => matches(p, event.type)));
      if (matching.length === 0) return;
      const payload = payloadOf(event.type, event.occurTime, eventData(event));
      await insertDeliveries(
        trx,
        dialect,
        matching.map((h) => ({ websiteId: event.websiteId!, webhookId: h.id, accountId: event.accountId, eventId: event.id, eventType: event.type, payload })),
        runtime.clock(),
      );
      queued = true;
    });
    // This process's loops look at once (other processes: the NOTIFY sent with the rows).
    events.afterEventCommitted(() => {
      if (!queued) return;
      queued = false;
      runtime.wake();
    });
  },
};

export type { WebhookRuntime } from './runtime.js';
/** The area's shared state of a platform (tests move its delivery clock). */
export const webhookRuntime = (deps: Pick<AreaDeps, 'database' | 'config'>) => webhookRuntimeOf(deps);
