import type { Area, AreaDeps } from '../platform/area.js';
import type { ResourceService } from '../platform/resource/engine.js';
import { createBillingService, type BillingService } from '../ai-billing/index.js';
import { agentResource, agentVersionResource } from './agent.resource.js';
import { aiModelResource, aiSystemAgentResource, loadCatalogue, syncCatalogue, type Catalogue, type Provider } from './catalogue.js';
import { connectionResource, createManagedConnections } from './connection.resource.js';
import { AI_EXECUTION, executionResource } from './execution.resource.js';
import { executionHandler } from './execution.worker.js';
import { instructionResource, instructionVersionResource } from './instruction.resource.js';
import { createProviders, type Providers } from './providers/index.js';

/** What the AI area builds once per platform instance. */
interface AiContext {
  catalogue: Catalogue;
  providers: Providers;
  billing: BillingService;
}

const contexts = new WeakMap<AreaDeps, AiContext>();

/** The catalogue, provider adapters and billing service of one platform instance (built on first use). */
export function aiContext(deps: AreaDeps): AiContext {
  let ctx = contexts.get(deps);
  if (!ctx) {
    const { ai } = deps.config;
    ctx = {
      catalogue: loadCatalogue({ models: ai.openaiCompatible.models, maxOutputTokens: ai.openaiCompatible.maxOutputTokens }),
      providers: createProviders(ai),
      billing: createBillingService({ db: deps.database.db, dialect: deps.database.dialect }),
    };
    contexts.set(deps, ctx);
  }
  return ctx;
}

/** AI (SPEC 2.3–2.9, 3.1–3.3, 4.4): catalogues, instructions, agents, connections, executions. */
export const aiArea: Area = {
  name: 'ai',
  resources(deps) {
    const { catalogue, providers, billing } = aiContext(deps);
    const { dialect } = deps.database;
    const connections = connectionResource({
      db: deps.database.db,
      secrets: deps.secrets,
      providers,
      service: (): ResourceService => deps.services['accounts/{account_id}/ai_connections'],
    });
    return [
      aiModelResource,
      aiSystemAgentResource,
      instructionResource({ dialect }),
      instructionVersionResource({ dialect }),
      agentResource({ dialect, catalogue }),
      agentVersionResource,
      connections,
      executionResource({ dialect, catalogue, providers, billing, operations: deps.operations }),
    ];
  },
  async tenantRoutes(_app, deps) {
    // The catalogue tables back List/Get of ai_models and ai_system_agents; workers read the catalogue from memory.
    await syncCatalogue(deps.database, aiContext(deps).catalogue);
  },
  jobs(operations, deps) {
    const { catalogue, providers, billing } = aiContext(deps);
    operations.register(
      AI_EXECUTION,
      executionHandler({
        database: deps.database,
        catalogue,
        providers,
        billing,
        secrets: deps.secrets,
        blobs: deps.blobs,
        logger: deps.logger,
        retryBaseMs: deps.config.ai.retryBaseMs,
        operations,
        events: deps.events,
        present: (row) => deps.services.ai_executions.toResource(row),
      }),
    );
  },
  async onAccountCreate(ctx, account, deps) {
    const providers = Object.keys(aiContext(deps).providers) as Provider[];
    await createManagedConnections(ctx.trx, deps.database.dialect, account.id, providers, ctx.now);
  },
};
