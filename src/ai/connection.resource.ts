import type { Db, Trx } from '../platform/db/schema.js';
import type { SqlDialect } from '../platform/db/database.js';
import type { SecretBox } from '../platform/crypto.js';
import { Aborted, AlreadyExists, FailedPrecondition, InvalidArgument } from '../platform/errors.js';
import type { ResourceDecl, Row } from '../platform/resource/declaration.js';
import { etagMatches, type ResourceService } from '../platform/resource/engine.js';
import { newId } from '../platform/resource/ids.js';
import { PROVIDERS, type Provider } from './catalogue.js';
import { AI_READ, AI_WRITE } from './instruction.resource.js';
import type { Providers } from './providers/index.js';
import { insertConnections } from './ai.repo.js';

export const MANAGED_PRIORITY = 100;
const keyHint = (key: string) => key.slice(-4);

/** The MANAGED connections every account has from creation: one per provider (run in the account-creating transaction). */
export async function createManagedConnections(trx: Db | Trx, dialect: SqlDialect, accountId: string, providers: readonly Provider[], now: number): Promise<void> {
  await insertConnections(
    trx,
    providers.map((provider) => ({
      id: newId(now),
      account_id: accountId,
      display_name: `Platform (${provider})`,
      provider,
      mode: 'MANAGED',
      api_key_sealed: null,
      key_hint: null,
      is_enabled: dialect.bool(true),
      priority: MANAGED_PRIORITY,
      status: 'UNVERIFIED',
      last_verify_time: null,
      revision: 1,
      create_time: now,
      update_time: now,
    })),
  );
}

/**
 * `ai_connections` (SPEC 2.5, 3.2): own provider keys (`BYOK`, sealed with AES-256-GCM under
 * ENCRYPTION_KEY, never returned) and the platform's (`MANAGED`, one per provider, created with the
 * account). `:verify` asks the provider (models list, no tokens).
 */
export function connectionResource(deps: { db: Db; secrets: SecretBox; providers: Providers; service: () => ResourceService }): ResourceDecl {
  const { secrets } = deps;
  return {
    collection: 'ai_connections',
    singular: 'AiConnection',
    table: 'ai_connections',
    description:
      'How the account\'s AI runs are authorized with a provider: `BYOK` (own key; the AI balance is untouched) or `MANAGED` (the platform\'s key; charged to the balance). Every account has one `MANAGED` connection per provider from creation (priority 100); it cannot be created again (ALREADY_EXISTS) or deleted (FAILED_PRECONDITION), and takes no `api_key`. Switch `is_enabled` off to stop using a connection.',
    collectionPath: 'accounts/{account_id}/ai_connections',
    itemPath: 'accounts/{account_id}/ai_connections/{ai_connection_id}',
    fields: {
      display_name: { type: 'string', description: 'Free text label.', maxLength: 255, trim: true },
      provider: { type: 'enum', values: PROVIDERS, description: 'Set on create, fixed afterwards.', behavior: ['REQUIRED', 'IMMUTABLE'] },
      mode: { type: 'enum', values: ['BYOK', 'MANAGED'], description: '`BYOK` (default) or `MANAGED`. Fixed after create.', behavior: ['IMMUTABLE'], default: 'BYOK' },
      api_key: {
        type: 'string',
        description: 'Write-only. Required when creating `BYOK`, refused on `MANAGED`; sent on update it replaces the stored key (status back to `UNVERIFIED`). Stored encrypted; never returned.',
        behavior: ['INPUT_ONLY'],
        column: false,
        minLength: 8,
        maxLength: 512,
      },
      key_hint: { type: 'string', description: 'Last four characters of the key; absent on `MANAGED`.', behavior: ['OUTPUT_ONLY'] },
      is_enabled: { type: 'boolean', description: 'Switch off to stop use.', default: true },
      priority: { type: 'integer', description: 'Lower is tried first when an agent may use several. Own keys start at 0, the managed connection at 100.', minimum: 0, maximum: 1000, default: 0 },
      status: {
        type: 'enum',
        values: ['UNVERIFIED', 'VALID', 'INVALID', 'EXPIRED'],
        description: 'Decided by `:verify`, or `INVALID` when a run\'s key was refused by the provider. Always `UNVERIFIED` on `MANAGED`.',
        behavior: ['OUTPUT_ONLY'],
      },
      last_verify_time: { type: 'timestamp', description: 'When status was last decided by asking the provider; cleared when the key is replaced.', behavior: ['OUTPUT_ONLY'] },
    },
    filterable: ['create_time', 'display_name', 'is_enabled', 'mode', 'provider', 'status'],
    sortable: ['create_time', 'display_name', 'last_verify_time'],
    defaultOrder: 'create_time desc',
    methods: ['list', 'get', 'create', 'update', 'delete'],
    options: { requestId: true, validateOnly: true },
    rights: { read: AI_READ, write: AI_WRITE },
    hooks: {
      beforeCreate(ctx, row) {
        if (row.mode === 'MANAGED') throw new AlreadyExists(`the MANAGED connection of ${row.provider} exists from account creation`, 'mode');
        const key = ctx.input.api_key;
        if (typeof key !== 'string') throw InvalidArgument.field('api_key', 'is required for a BYOK connection');
        if (!deps.providers[row.provider as Provider]) throw InvalidArgument.field('provider', `${row.provider} is not configured on this platform`);
        row.api_key_sealed = secrets.seal(key);
        row.key_hint = keyHint(key);
        row.status = 'UNVERIFIED';
      },
      beforeUpdate(ctx, next, previous) {
        const key = ctx.input.api_key;
        if (!ctx.updatedPaths.includes('api_key') || key === undefined || key === null) return;
        if (previous.mode === 'MANAGED') throw InvalidArgument.field('api_key', 'is refused on a MANAGED connection (it uses the platform key)');
        next.api_key_sealed = secrets.seal(String(key));
        next.key_hint = keyHint(String(key));
        next.status = 'UNVERIFIED';
        next.last_verify_time = null;
      },
      beforeDelete(_ctx, row) {
        if (row.mode === 'MANAGED') throw new FailedPrecondition('MANAGED_CONNECTION', 'the MANAGED connection cannot be deleted; set is_enabled false to stop using it');
      },
    },
    customMethods: [
      {
        verb: 'verify',
        on: 'item',
        summary: 'Verify the key of a connection with its provider',
        description:
          'Asks the provider whether the stored key is accepted (lists models: costs no tokens) and sets `status` to `VALID` or `INVALID` and `last_verify_time`. Answers the connection (200) even when `INVALID`. FAILED_PRECONDITION on `MANAGED`; 503 UNAVAILABLE, with nothing changed, when the provider cannot be reached. Safe to repeat.',
        access: 'write',
        handle: async (ctx, call) => {
          const service = deps.service();
          const row: Row = await service.load(deps.db, ctx, call.params);
          // A stale etag is refused before the provider is asked (and again at the write, which takes it too).
          if (call.ifMatch && !etagMatches(call.ifMatch, service.toResource(row).etag as string)) {
            throw new Aborted('the connection changed since the etag sent was read', service.toResource(row));
          }
          if (row.mode === 'MANAGED') throw new FailedPrecondition('MANAGED_CONNECTION', ':verify checks own keys; a MANAGED connection uses the platform key');
          const adapter = deps.providers[row.provider as Provider];
          if (!adapter) throw new FailedPrecondition('PROVIDER_NOT_CONFIGURED', `${row.provider} is not configured on this platform`);
          // The network call happens outside any transaction; the write afterwards is conditional on the same key.
          const status = await adapter.verify(secrets.open(row.api_key_sealed));
          return service.mutate(
            ctx,
            call.params,
            (wctx, next, current) => {
              if (current.api_key_sealed !== row.api_key_sealed) throw new Aborted('the key was replaced while it was being verified; verify again', service.toResource(current));
              next.status = status;
              next.last_verify_time = wctx.now;
            },
            { ifMatch: call.ifMatch },
          );
        },
      },
    ],
  };
}
