import { read, write } from '../platform/auth/rights.js';
import type { SecretBox } from '../platform/crypto.js';
import type { SqlDialect } from '../platform/db/database.js';
import type { Events } from '../platform/events/events.js';
import { FailedPrecondition, InvalidArgument } from '../platform/errors.js';
import type { ResourceDecl, Row } from '../platform/resource/declaration.js';
import type { ResourceService } from '../platform/resource/engine.js';
import type { RequestContext } from '../platform/auth/context.js';
import { checkEventTypes, webhookEventTypes } from './event-types.js';
import { newWebhookSecret } from './signing.js';
import type { WebhookRuntime } from './runtime.js';
import { MAX_URL_LENGTH, UnsafeUrl, checkUrlForm, checkedAddress } from './url-safety.js';
import { countWebhooks } from './webhooks.repo.js';

/** Most webhooks per website: fan-out reads them all on every write of the website. */
export const MAX_WEBHOOKS_PER_WEBSITE = 20;
export const MAX_EVENT_TYPES = 50;

/**
 * Secrets to show once, by request id: set while the write runs, added to that request's answer only
 * (`webhooks.area.ts`). Never part of the presented resource, so neither a Get nor the event of the
 * write (whose `data` is the presented resource) can carry one.
 */
export const secretsToShow = new Map<string, string>();

/** Webhook writes need WRITE on the whole website: a subscription reads every collection's changes. */
export const WEBHOOKS_READ = read('website.settings');
export const WEBHOOKS_WRITE = write('website');

export interface WebhookDeclDeps {
  secrets: SecretBox;
  dialect: SqlDialect;
  events: Events;
  runtime: WebhookRuntime;
  service: () => ResourceService;
  /** `:ping` (delivery.resource.ts): queues a `webhook.ping` delivery and answers it. */
  ping: (ctx: RequestContext, params: Record<string, string>) => Promise<unknown>;
  /** The answer of `:ping`: a delivery. */
  deliverySchema: Record<string, unknown>;
}

/** The state a client's `enabled` leads to (the platform's DISABLED is left only by enabling again). */
const stateOf = (enabled: boolean) => (enabled ? 'ACTIVE' : 'PAUSED');

/** `websites/{w}/webhooks`: signed HTTP callbacks of a website's events (docs/webhooks.md). */
export function webhookResource(deps: WebhookDeclDeps): ResourceDecl {
  const { runtime } = deps;

  /** URL rules: the form, then what the host resolves to now (again at every delivery). */
  async function checkUrl(raw: unknown): Promise<void> {
    if (typeof raw !== 'string') return;
    try {
      const target = checkUrlForm(raw, runtime.allow);
      await checkedAddress(target, runtime.allow, runtime.resolve).catch((err) => {
        // A name that does not resolve now is accepted: the check at delivery time is the one that counts.
        if (err instanceof UnsafeUrl && /does not resolve|did not answer/.test(err.message)) return;
        throw err;
      });
    } catch (err) {
      if (err instanceof UnsafeUrl) throw InvalidArgument.field('url', err.message);
      throw err;
    }
  }

  const decl: ResourceDecl = {
    collection: 'webhooks',
    singular: 'Webhook',
    table: 'webhooks',
    description:
      'Signed HTTP POSTs of the website\'s events (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`). The `secret` is answered once, by Create ' +
      '(and by `:rotate_secret` for a new one), and never again. Deliveries are at least once (the event id is the idempotency key), retried with backoff for more than ' +
      'a day; order is not promised. A webhook whose deliveries fail for three days is `DISABLED` (`disabled_reason`) and the account\'s administrators get a mail; ' +
      'set `enabled` to true to deliver again.',
    collectionPath: 'websites/{website_id}/webhooks',
    itemPath: 'websites/{website_id}/webhooks/{webhook_id}',
    fields: {
      url: {
        type: 'string',
        description:
          'Where deliveries are POSTed: an absolute `https` URL without user name or password. Hosts resolving to loopback, private, link-local, CGNAT or metadata ' +
          'addresses are refused, here and again at every delivery (plain `http` and such addresses only for hosts the operator lists in `WEBHOOK_ALLOW_HOSTS`).',
        behavior: ['REQUIRED'],
        maxLength: MAX_URL_LENGTH,
        trim: true,
        notBlank: true,
        example: 'https://hooks.example.com/site-platform',
      },
      event_types: {
        type: 'string_list',
        description:
          'Event types to deliver, from `webhook_event_types`: a type (`blog_post.published`), every type of one resource (`blog_post.*`) or `*` (everything).',
        behavior: ['REQUIRED'],
        maxItems: MAX_EVENT_TYPES,
        itemMinLength: 1,
        itemMaxLength: 100,
        example: ['blog_post.published', 'cms_page.*'],
      },
      enabled: { type: 'boolean', description: 'False pauses deliveries (state `PAUSED`); true delivers again, also after the platform disabled the webhook.', default: true },
      description: { type: 'string', description: 'Free text.', maxLength: 500, trim: true },
      state: {
        type: 'enum',
        values: ['ACTIVE', 'PAUSED', 'DISABLED'],
        description: '`ACTIVE` (delivering), `PAUSED` (`enabled` false), `DISABLED` (by the platform after failing deliveries; see `disabled_reason`).',
        behavior: ['OUTPUT_ONLY'],
      },
      disabled_reason: { type: 'string', description: 'Why the platform disabled the webhook; cleared when it is enabled again.', behavior: ['OUTPUT_ONLY'] },
      secret: {
        type: 'string',
        description:
          'The signing secret (`whsec_` + base64), answered ONLY by Create and `:rotate_secret`: keep it then. Stored encrypted; never in Get, List or events.',
        behavior: ['OUTPUT_ONLY'],
        column: false,
        example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      },
      previous_secret_expire_time: {
        type: 'timestamp',
        description: 'After `:rotate_secret`: until when deliveries are signed with the previous secret too (a second signature in `webhook-signature`).',
        behavior: ['OUTPUT_ONLY'],
      },
    },
    filterable: ['create_time', 'state', 'enabled'],
    sortable: ['create_time'],
    defaultOrder: 'create_time desc',
    methods: ['list', 'get', 'create', 'update', 'delete'],
    options: { validateOnly: true },
    rights: { read: WEBHOOKS_READ, write: WEBHOOKS_WRITE },
    hooks: {
      async prepare(_ctx, input, paths) {
        if (paths.includes('url')) await checkUrl(input.url);
      },
      async beforeCreate(ctx, row) {
        checkEventTypes(ctx.input.event_types as string[], webhookEventTypes(deps.events));
        await deps.dialect.lockKey(ctx.trx, `webhooks/${row.website_id}`);
        if ((await countWebhooks(ctx.trx, row.website_id)) >= MAX_WEBHOOKS_PER_WEBSITE) {
          throw new FailedPrecondition('TOO_MANY_WEBHOOKS', `a website has at most ${MAX_WEBHOOKS_PER_WEBSITE} webhooks`);
        }
        const secret = newWebhookSecret();
        row.secret_sealed = deps.secrets.seal(secret);
        row.previous_secret_sealed = null;
        row.previous_secret_expire_time = null;
        row.state = stateOf(row.enabled === true || row.enabled === 1);
        row.disabled_reason = null;
        row.failing_since = null;
        secretsToShow.set(ctx.requestId, secret);
      },
      beforeUpdate(ctx, next, previous) {
        if (ctx.updatedPaths.includes('event_types')) checkEventTypes(ctx.input.event_types as string[], webhookEventTypes(deps.events));
        if (ctx.updatedPaths.includes('enabled')) {
          const enabled = next.enabled === true || next.enabled === 1;
          const wasEnabled = previous.enabled === true || previous.enabled === 1;
          if (enabled !== wasEnabled || previous.state === 'DISABLED') {
            next.state = stateOf(enabled);
            if (enabled) {
              next.disabled_reason = null;
              next.failing_since = null;
            }
          }
        }
      },
      present(row: Row, resource) {
        if (row.state !== 'DISABLED') delete resource.disabled_reason;
        const expire = row.previous_secret_expire_time;
        if (expire === null || expire === undefined || Number(expire) <= runtime.clock()) delete resource.previous_secret_expire_time;
      },
    },
    etagCoversComputed: true,
    customMethods: [
      {
        verb: 'rotate_secret',
        on: 'item',
        summary: 'Replace the signing secret of a webhook',
        description:
          'Makes a new secret and answers it (this once, in `secret`). For a grace period (24 hours by default) deliveries carry two signatures, one per secret, ' +
          'in `webhook-signature`, so receivers can switch without losing deliveries; afterwards only the new secret signs. A second rotation during the grace ' +
          'period ends the first one\'s (the secret replaced then stops signing).',
        access: 'write',
        async handle(ctx, call) {
          const service = deps.service();
          const secret = newWebhookSecret();
          const resource = await service.mutate(
            ctx,
            call.params,
            (_wctx, next, previous) => {
              next.previous_secret_sealed = previous.secret_sealed;
              next.previous_secret_expire_time = runtime.clock() + runtime.settings.secretGraceMs;
              next.secret_sealed = deps.secrets.seal(secret);
            },
            { ifMatch: call.ifMatch },
          );
          // A copy: `resource` is also the data of the write's event, which must never hold the secret.
          return { ...resource, secret };
        },
      },
      {
        verb: 'ping',
        on: 'item',
        summary: 'Send a test delivery to a webhook',
        description:
          'Queues a `webhook.ping` delivery to this webhook (whatever its state and event types) and answers the delivery; follow it in `deliveries`. ' +
          'Signed like every delivery.',
        access: 'write',
        response: deps.deliverySchema,
        handle: (ctx, call) => deps.ping(ctx, call.params),
      },
    ],
  };
  return decl;
}
