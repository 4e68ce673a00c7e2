import type { Selectable } from 'kysely';
import type { DB, Db, Trx } from '../platform/db/schema.js';
import type { SqlDialect } from '../platform/db/database.js';
import type { BillingService, CoverageProblem } from '../ai-billing/index.js';
import type { CatalogueModel, Provider } from './catalogue.js';
import type { Providers } from './providers/index.js';
import { enabledConnections } from './ai.repo.js';

export interface Route {
  connection: Selectable<DB['ai_connections']>;
  mode: 'BYOK' | 'MANAGED';
}

export type RoutingProblem = 'NO_USABLE_CONNECTION' | 'MODEL_NOT_PRICED' | CoverageProblem;

/**
 * The connections a run may use, in the order they are tried (lowest `priority` first, then oldest):
 * enabled, of the model's provider, allowed by the agent's `connection_mode`; own keys not known to be
 * refused; the platform key only when configured, the model is priced and the balance and limits cover
 * the run. When none is left, the reason why.
 */
export async function routeRun(
  db: Db | Trx,
  deps: { dialect: SqlDialect; providers: Providers; billing: BillingService },
  run: { accountId: string; model: CatalogueModel; connectionMode: string; byokOnly: boolean; estimate: number; exclude: ReadonlySet<string>; now: number },
): Promise<{ routes: Route[]; problem?: RoutingProblem; managedProblem?: RoutingProblem }> {
  const adapter = deps.providers[run.model.provider as Provider];
  if (!adapter) return { routes: [], problem: 'NO_USABLE_CONNECTION' };
  const modes: Array<'BYOK' | 'MANAGED'> = [];
  if (run.connectionMode === 'BYOK_ONLY' || run.byokOnly) modes.push('BYOK');
  if (run.connectionMode === 'MANAGED_ONLY') modes.push('MANAGED');
  const rows = await enabledConnections(db, deps.dialect, run.accountId, run.model.provider, modes);
  const routes: Route[] = [];
  let managedProblem: RoutingProblem | undefined;
  for (const connection of rows) {
    if (run.exclude.has(connection.id)) continue;
    if (connection.mode === 'BYOK') {
      if (connection.status === 'INVALID' || connection.status === 'EXPIRED') continue;
      routes.push({ connection, mode: 'BYOK' });
      continue;
    }
    if (!adapter.managedAvailable) continue;
    if (!run.model.platform_priced) {
      managedProblem = 'MODEL_NOT_PRICED';
      continue;
    }
    const coverage = await deps.billing.coverage(db, run.accountId, run.estimate, run.now);
    if (coverage) {
      managedProblem = coverage;
      continue;
    }
    routes.push({ connection, mode: 'MANAGED' });
  }
  return { routes, managedProblem, problem: routes.length ? undefined : (managedProblem ?? 'NO_USABLE_CONNECTION') };
}
