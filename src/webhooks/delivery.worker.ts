import { randomUUID } from 'node:crypto';
import type { AreaDeps } from '../platform/area.js';
import type { CompanionWorker } from '../platform/jobs/operations.js';
import { createLeaseQueue, type LeasedRow } from '../platform/jobs/lease.js';
import { startWorkerLoops, Wakeup } from '../platform/jobs/worker-loops.js';
import { SYSTEM_ACTOR } from '../platform/events/events.js';
import { MAX_RECORDED_ATTEMPTS } from './delivery.resource.js';
import { PING_EVENT_TYPE } from './event-types.js';
import { postOnce, type PostResult } from './http-post.js';
import type { WebhookRuntime } from './runtime.js';
import { signedHeaders } from './signing.js';
import { UnsafeUrl, checkUrlForm, checkedAddress } from './url-safety.js';
import {
  belowInFlightBound,
  purgeEndedDeliveries,
  REVISION_BUMP,
  DELIVERY_LEASED,
  DELIVERY_QUEUED,
  WEBHOOK_CHANNEL,
  administratorEmails,
  disableWebhook,
  markWebhookFailing,
  markWebhookSucceeding,
  webhookForDelivery,
  websiteNameOf,
  type DeliveryAttempt,
  type DeliveryWebhook,
} from './webhooks.repo.js';

/** Ended deliveries are kept this long for the delivery log, then purged. */
export const DELIVERY_RETENTION_MS = 30 * 24 * 3600_000;

/** `delay` ±10 %: retries of many deliveries failing together spread out instead of arriving as one herd. */
export function withJitter(delay: number): number {
  return Math.round(delay * (0.9 + Math.random() * 0.2));
}

/**
 * The delivery worker: claims due deliveries through the shared lease primitive
 * (platform/jobs/lease.ts; at most `maxInFlight` in flight per webhook), signs and POSTs each once,
 * records the attempt, and either ends it (2xx: SUCCEEDED; retries exhausted: FAILED) or puts it back
 * with the next delay of `retryScheduleMs`. A worker killed mid-attempt leaves a lease that expires;
 * the next claim records that attempt as interrupted and sends again (the receiver dedupes on
 * `webhook-id`). A webhook failing without a success for `disableAfterMs` is disabled, and the
 * account's administrators are mailed, in one transaction (once, whichever worker sees it first).
 */
export function createDeliveryWorker(deps: AreaDeps, runtime: WebhookRuntime): CompanionWorker & { runOne(): Promise<boolean> } {
  const { database, logger } = deps;
  const { db, dialect } = database;
  const settings = runtime.settings;
  const queue = createLeaseQueue({
    database,
    table: 'webhook_deliveries',
    queued: DELIVERY_QUEUED,
    leased: DELIVERY_LEASED,
    leaseMs: settings.leaseMs,
    workerId: `${process.pid}-${randomUUID().slice(0, 8)}`,
  });
  const wakeup = new Wakeup();
  runtime.wake = () => wakeup.wake();

  async function attempt(hook: DeliveryWebhook, row: LeasedRow<'webhook_deliveries'>, now: number): Promise<PostResult> {
    try {
      // Checked again at every attempt: the URL's host may resolve elsewhere by now (DNS rebinding).
      const target = checkUrlForm(hook.url, runtime.allow);
      const address = await checkedAddress(target, runtime.allow, runtime.resolve);
      const secrets = [deps.secrets.open(hook.secret_sealed)];
      if (hook.previous_secret_sealed && Number(hook.previous_secret_expire_time) > now) secrets.push(deps.secrets.open(hook.previous_secret_sealed));
      const headers = signedHeaders(secrets, row.event_id, Math.floor(Date.now() / 1000), row.payload);
      return await postOnce(target, address, headers, row.payload, settings.timeoutMs);
    } catch (err) {
      if (err instanceof UnsafeUrl) return { statusCode: null, durationMs: 0, excerpt: null, error: `refused: the URL ${err.message}`.slice(0, 500) };
      throw err;
    }
  }

  async function deliver(row: LeasedRow<'webhook_deliveries'>, now: number): Promise<void> {
    const attempts = (dialect.readJson<DeliveryAttempt[]>(row.attempts) ?? []).slice();
    const attemptNo = Number(row.attempt);
    // Claims without a recorded outcome: a worker stopped (killed) during them.
    for (let i = attempts.length; i < attemptNo - 1; i++) {
      attempts.push({ time: new Date(now).toISOString(), status_code: null, duration_ms: 0, response_excerpt: null, error: 'interrupted: the worker stopped during this attempt; its outcome is unknown' });
    }
    const log = { delivery: row.id, webhook: row.webhook_id, website: row.website_id, event: row.event_id, attempt: attemptNo };
    const hook = await webhookForDelivery(db, row.website_id, row.webhook_id);
    // Explicit requests (`:ping`, `:redeliver`) are sent whatever the webhook's state; fanned-out events only while ACTIVE.
    const explicit = row.event_type === PING_EVENT_TYPE || row.redelivery_of !== null;
    if (!hook || (hook.state !== 'ACTIVE' && !explicit)) {
      attempts.push({ time: new Date(now).toISOString(), status_code: null, duration_ms: 0, response_excerpt: null, error: `not sent: the webhook is ${hook ? hook.state : 'deleted'}` });
      await queue.settle(row.id, { ...REVISION_BUMP, state: 'FAILED', attempts: dialect.json(attempts), run_after: now });
      return;
    }
    const result = await attempt(hook, row, now);
    attempts.push({ time: new Date(now).toISOString(), status_code: result.statusCode, duration_ms: result.durationMs, response_excerpt: result.excerpt, error: result.error });
    const done = { ...REVISION_BUMP, attempts: dialect.json(attempts.slice(-MAX_RECORDED_ATTEMPTS)), last_status_code: result.statusCode };
    const ended = runtime.clock();
    if (result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300) {
      const settled = await queue.settle(row.id, { ...done, state: 'SUCCEEDED', update_time: ended });
      // Only a failing webhook has a streak to end (the common case costs no write).
      if (settled && hook.failing_since !== null) await markWebhookSucceeding(db, row.website_id, row.webhook_id);
      logger.info({ ...log, status: result.statusCode }, 'webhook delivered');
      return;
    }
    const delay = settings.retryScheduleMs[attemptNo - 1];
    const settled =
      delay === undefined
        ? await queue.settle(row.id, { ...done, state: 'FAILED', run_after: ended, update_time: ended })
        : await queue.settle(row.id, { ...done, state: DELIVERY_QUEUED, run_after: ended + withJitter(delay), update_time: ended });
    logger.warn({ ...log, status: result.statusCode, error: result.error, retry: delay !== undefined }, 'webhook delivery failed');
    if (!settled || explicit) return;
    const since = await markWebhookFailing(db, row.website_id, row.webhook_id, now);
    if (since !== undefined && ended - since >= settings.disableAfterMs) await disable(hook, since, result, ended);
  }

  /** Disables a webhook failing since `since`, ends its pending deliveries and mails the administrators: one transaction. */
  async function disable(hook: DeliveryWebhook, since: number, last: PostResult, now: number): Promise<void> {
    const lastOutcome = last.statusCode !== null ? `HTTP ${last.statusCode}` : (last.error ?? 'no answer');
    const reason = `Every delivery attempt failed since ${new Date(since).toISOString()} (last: ${lastOutcome}); set enabled to true to deliver again.`;
    const afterCommit: Array<() => void | Promise<void>> = [];
    const disabled = await db.transaction().execute(async (trx) => {
      const row = await disableWebhook(trx, dialect, hook.website_id, hook.id, reason, now);
      if (!row) return undefined;
      const service = deps.services['websites/{website_id}/webhooks'];
      const resource = service.toResource(row);
      // A raw write of a resource records its event itself (the engine records the others).
      await deps.events.record(
        trx,
        { type: 'webhook.updated', accountId: row.account_id, websiteId: row.website_id, resource: String(resource.name), collection: 'webhooks', actor: SYSTEM_ACTOR, data: resource, previous: null },
        (fn) => void afterCommit.push(fn),
      );
      const websiteName = await websiteNameOf(trx, row.website_id);
      for (const to of await administratorEmails(trx, row.account_id)) {
        await deps.mail.enqueue(trx, {
          to,
          template: 'webhook_disabled',
          data: {
            website_name: websiteName,
            webhook_url: row.url,
            reason,
            webhooks_url: `${deps.config.adminBaseUrl}/w/${row.website_id}/r/webhooks`,
          },
        });
      }
      return row;
    });
    if (!disabled) return;
    for (const fn of afterCommit) await fn();
    deps.mail.wake();
    logger.warn({ webhook: hook.id, website: hook.website_id }, 'webhook disabled after failing deliveries');
  }

  async function runOne(): Promise<boolean> {
    const now = runtime.clock();
    const [row] = await queue.claim(now, { where: belowInFlightBound(settings.maxInFlight, now), set: REVISION_BUMP });
    if (!row) return false;
    await deliver(row, now);
    return true;
  }

  async function purgeEnded(): Promise<void> {
    await purgeEndedDeliveries(db, runtime.clock() - DELIVERY_RETENTION_MS);
  }

  return {
    runOne,
    start(opts) {
      const loops = startWorkerLoops({
        concurrency: settings.concurrency,
        pollMs: opts.pollMs ?? 1000,
        runOne,
        housekeeping: purgeEnded,
        wakeup,
        channel: WEBHOOK_CHANNEL,
        database,
        logger,
        what: 'webhook deliveries',
      });
      return {
        async stop() {
          await loops.halt();
          await loops.unsubscribe();
        },
      };
    },
  };
}
