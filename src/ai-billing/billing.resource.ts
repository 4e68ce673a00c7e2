import { read, write } from '../platform/auth/rights.js';
import { InvalidArgument } from '../platform/errors.js';
import type { ResourceDecl } from '../platform/resource/declaration.js';
import { MONEY_SCHEMA, moneyFromNanos, nanosFromMoney, type Money } from './money.js';
import { monthOf } from './billing.service.js';

const AI_READ = read('ai');
const AI_WRITE = write('ai');
const money = (description: string, behavior?: Array<'OUTPUT_ONLY'>) => ({
  type: 'object' as const,
  description,
  column: false as const,
  schema: MONEY_SCHEMA,
  ...(behavior && { behavior }),
});

/**
 * `accounts/{a}/ai_billing` (designed here; SPEC leaves AI Billing open): the account's AI balance
 * and spending limits. A singleton: Get and Update only, no `id`.
 */
export const aiBillingResource: ResourceDecl = {
  collection: 'ai_billing',
  singular: 'AiBilling',
  table: 'ai_billing',
  description:
    'The account\'s AI balance (Money, USD) and spending limits. Runs on the platform key (`MANAGED`) are charged here per attempt; a run the balance or a limit cannot cover is refused before queueing (FAILED_PRECONDITION `INSUFFICIENT_BALANCE`, `RUN_COST_LIMIT_EXCEEDED` or `MONTHLY_LIMIT_REACHED`), or routed to an own key under `connection_mode` ANY. Limits are cleared with `update_mask` and null.',
  collectionPath: 'accounts/{account_id}/ai_billing',
  itemPath: 'accounts/{account_id}/ai_billing',
  fields: {
    balance: money('What platform-key runs can still spend. Credits (starting credit, operator grants) raise it; charged attempts lower it.', ['OUTPUT_ONLY']),
    monthly_limit: money('Most the account spends on platform-key runs per calendar month (UTC); absent means none.'),
    run_limit: money('Most one run may cost (estimated from its prompt and `max_tokens` before queueing); absent means none.'),
    month: { type: 'string', description: 'The calendar month (UTC, `YYYY-MM`) `month_spend` counts.', behavior: ['OUTPUT_ONLY'], column: false },
    month_spend: money('Charged this month.', ['OUTPUT_ONLY']),
  },
  filterable: [],
  sortable: [],
  defaultOrder: 'create_time desc',
  methods: ['get', 'update'],
  rights: { read: AI_READ, write: AI_WRITE },
  hooks: {
    beforeUpdate(ctx, next) {
      for (const [field, column] of [['monthly_limit', 'monthly_limit_nanos'], ['run_limit', 'run_limit_nanos']] as const) {
        if (!ctx.updatedPaths.includes(field)) continue;
        const value = ctx.input[field] as Money | null | undefined;
        if (value === null || value === undefined) {
          next[column] = null;
          continue;
        }
        const nanos = nanosFromMoney(value, field);
        if (nanos < 0) throw InvalidArgument.field(field, 'must not be negative');
        next[column] = nanos;
      }
    },
    present(row, resource) {
      delete resource.id;
      const now = Date.now();
      resource.balance = moneyFromNanos(row.balance_nanos);
      if (row.monthly_limit_nanos !== null) resource.monthly_limit = moneyFromNanos(row.monthly_limit_nanos);
      if (row.run_limit_nanos !== null) resource.run_limit = moneyFromNanos(row.run_limit_nanos);
      resource.month = monthOf(now);
      resource.month_spend = moneyFromNanos(row.month === monthOf(now) ? row.month_spend_nanos : 0);
    },
  },
};

/** `accounts/{a}/ai_ledger_entries`: the append-only ledger of the AI balance. */
export const aiLedgerEntryResource: ResourceDecl = {
  collection: 'ai_ledger_entries',
  singular: 'AiLedgerEntry',
  table: 'ai_ledger_entries',
  description: 'Append-only ledger of the AI balance: `CREDIT` entries (starting credit, operator grants) and one `DEBIT` per charged attempt. Read-only.',
  collectionPath: 'accounts/{account_id}/ai_ledger_entries',
  itemPath: 'accounts/{account_id}/ai_ledger_entries/{ai_ledger_entry_id}',
  fields: {
    kind: { type: 'enum', values: ['CREDIT', 'DEBIT'], description: 'Credit or debit.', behavior: ['OUTPUT_ONLY'] },
    amount: money('Signed amount: positive for credits, negative for debits.', ['OUTPUT_ONLY']),
    balance_after: money('The balance right after this entry.', ['OUTPUT_ONLY']),
    description: { type: 'string', description: 'What the entry is for.', behavior: ['OUTPUT_ONLY'] },
    execution_id: { type: 'string', description: 'The run a debit charges.', behavior: ['OUTPUT_ONLY'] },
    attempt_number: { type: 'integer', description: 'The attempt of that run a debit charges.', behavior: ['OUTPUT_ONLY'] },
  },
  filterable: ['create_time', 'kind', 'execution_id'],
  sortable: ['create_time'],
  defaultOrder: 'create_time desc',
  methods: ['list', 'get'],
  rights: { read: AI_READ, write: AI_WRITE },
  hooks: {
    present(row, resource) {
      resource.amount = moneyFromNanos(row.amount_nanos);
      resource.balance_after = moneyFromNanos(row.balance_after_nanos);
    },
  },
};

const count = (description: string) => ({ type: 'integer' as const, description, behavior: ['OUTPUT_ONLY' as const] });

/** `accounts/{a}/ai_usage_records`: one record per finished attempt of a run (charged or not). */
export const aiUsageRecordResource: ResourceDecl = {
  collection: 'ai_usage_records',
  singular: 'AiUsageRecord',
  table: 'ai_usage_records',
  description: 'Usage of every attempt that reached a provider, with its `cost` when it ran on the platform key (absent on own keys). Read-only.',
  collectionPath: 'accounts/{account_id}/ai_usage_records',
  itemPath: 'accounts/{account_id}/ai_usage_records/{ai_usage_record_id}',
  fields: {
    execution_id: { type: 'string', description: 'The run.', behavior: ['OUTPUT_ONLY'] },
    attempt_number: count('The attempt of the run.'),
    agent_id: { type: 'string', description: 'Agent of the run.', behavior: ['OUTPUT_ONLY'] },
    model_id: { type: 'string', description: 'Model of the run.', behavior: ['OUTPUT_ONLY'] },
    provider: { type: 'string', description: 'Provider called.', behavior: ['OUTPUT_ONLY'] },
    connection_id: { type: 'string', description: 'Connection used.', behavior: ['OUTPUT_ONLY'] },
    connection_mode: { type: 'enum', values: ['BYOK', 'MANAGED'], description: 'Own key or platform key.', behavior: ['OUTPUT_ONLY'] },
    input_tokens: count('Input tokens not read from cache.'),
    output_tokens: count('Output tokens.'),
    cache_read_input_tokens: count('Input tokens read from the provider cache.'),
    cache_creation_input_tokens: count('Input tokens written to the provider cache.'),
    image_count: count('Images generated.'),
    megapixels_milli: count('Thousandths of a megapixel generated.'),
    cost: money('Charged to the AI balance; absent on own keys.', ['OUTPUT_ONLY']),
  },
  filterable: ['agent_id', 'connection_mode', 'create_time', 'execution_id', 'model_id', 'provider'],
  sortable: ['create_time'],
  defaultOrder: 'create_time desc',
  methods: ['list', 'get'],
  rights: { read: AI_READ, write: AI_WRITE },
  hooks: {
    present(row, resource) {
      if (row.cost_nanos !== null && row.cost_nanos !== undefined) resource.cost = moneyFromNanos(row.cost_nanos);
    },
  },
};
