import { createResourceCore } from './core.js';
import type { ResourceDecl } from './declaration.js';
import { createListMethods } from './list.js';
import type { EngineDeps, ResourceService } from './service.js';
import { createVirtualService } from './virtual.js';
import { createWriteMethods } from './write.js';
import { NotFound } from '../errors.js';

/*
 * The resource service of a declaration, assembled: what List plans and counts (list.ts), what the
 * writes do (write.ts), Get, over what both share (core.ts). A virtual declaration's service
 * answers from its source instead (virtual.ts).
 */

export { bareEtag, etagMatches } from './core.js';
export { eventPrefixOf, uniqueKeyLock } from './write.js';
export type {
  CreateOptions,
  DeleteOptions,
  EngineDeps,
  ListQueries,
  ListQuery,
  ListQueryContext,
  ListResult,
  MutateOptions,
  Resource,
  ResourceService,
  RowChange,
  TransactionScope,
  UpdateOptions,
} from './service.js';

/** Creates the standard methods for a declaration. Hooks add the rules the declaration cannot express. */
export function createResourceService(decl: ResourceDecl, deps: EngineDeps): ResourceService {
  if (decl.virtual) return createVirtualService(decl, decl.virtual, deps.pageTokens);
  const core = createResourceCore(decl, deps);
  const { database, singleton, ownIdParam, hooks, load, defaultRow, presentOne } = core;
  return {
    decl,
    load,
    toResource: core.present,
    ...createListMethods(core),
    ...createWriteMethods(core),

    async get(ctx, params) {
      if (singleton) {
        const row = await load(database.db, ctx, params).catch((err) => {
          if (err instanceof NotFound) return defaultRow(ctx, params);
          throw err;
        });
        return presentOne(database.db, row);
      }
      const row = await load(database.db, ctx, params);
      if (hooks.readable && !hooks.readable(ctx, row)) throw new NotFound(`${decl.singular} ${params[ownIdParam]}`);
      return presentOne(database.db, row);
    },
  };
}
