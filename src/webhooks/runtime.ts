import type { AreaDeps } from '../platform/area.js';
import type { WebhookSettings } from '../config.js';
import { parseAllowList, type AllowList, type ResolveOptions } from './url-safety.js';

/**
 * What every part of the webhooks area shares in one process (one per database, like the search
 * indexer): the settings, the parsed allow list and the **delivery clock**. The clock decides due
 * times, leases, the rotation grace and the failing streak; tests move it forward to cover days of
 * retries without waiting (the `webhook-timestamp` header stays the wall clock: receivers compare it
 * with theirs).
 */
export interface WebhookRuntime {
  settings: WebhookSettings;
  allow: AllowList;
  resolve: ResolveOptions;
  clock: () => number;
  /** Wakes this process's delivery loops (set by the worker once started). */
  wake(): void;
}

const runtimes = new WeakMap<AreaDeps['database'], WebhookRuntime>();

export function webhookRuntimeOf(deps: Pick<AreaDeps, 'database' | 'config'>): WebhookRuntime {
  let runtime = runtimes.get(deps.database);
  if (!runtime) {
    const settings = deps.config.webhooks;
    runtime = {
      settings,
      allow: parseAllowList(settings.allowHosts),
      resolve: { servers: deps.config.dnsResolver, timeoutMs: deps.config.dnsTimeoutMs },
      clock: () => Date.now(),
      wake: () => undefined,
    };
    runtimes.set(deps.database, runtime);
  }
  return runtime;
}
