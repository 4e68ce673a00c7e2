import type { Area } from '../area.js';
import { eventResources } from './event.resource.js';

/** How often a worker deletes events past retention. */
const RETENTION_EVERY_MS = 3600_000;

/**
 * Events (recorded by platform/events/): the read Lists, and the retention that deletes events older than
 * `EVENT_RETENTION_MS`, run beside every Operations worker (at start, then hourly; idempotent).
 */
export const eventsArea: Area = {
  name: 'events',
  resources: (deps) => eventResources(() => deps.services),
  jobs: (operations, deps) => {
    operations.runAlongside({
      start() {
        let running: Promise<unknown> = Promise.resolve();
        const purge = () => {
          running = deps.events.purgeExpired(Date.now()).catch((err) => deps.logger.warn({ err }, 'could not delete expired events'));
        };
        const first = setTimeout(purge, 1000);
        const timer = setInterval(purge, RETENTION_EVERY_MS);
        first.unref();
        timer.unref();
        return {
          async stop() {
            clearTimeout(first);
            clearInterval(timer);
            await running;
          },
        };
      },
    });
  },
};
