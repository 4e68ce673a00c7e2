import type { Insertable } from 'kysely';
import type { DB, Db, Trx } from '../platform/db/schema.js';
import type { SqlDialect } from '../platform/db/database.js';
import { NotFound } from '../platform/errors.js';
import { newId } from '../platform/resource/ids.js';
import { costPerMillion } from './money.js';
import { findBilling, insertBilling, insertLedgerEntry, insertUsageRecord, lockBilling, updateBilling } from './ai-billing.repo.js';
import type { ModelPrices, Usage } from './pricing.js';

/** Calendar month (UTC) that monthly limits count in, e.g. `2026-11`. */
export const monthOf = (now: number) => new Date(now).toISOString().slice(0, 7);

/** What a usage costs at a model's prices, in nano-dollars (each part rounded up to the next nano-dollar). */
export function costOf(usage: Usage, prices: ModelPrices): number {
  return (
    costPerMillion(usage.input_tokens, prices.input_per_million) +
    costPerMillion(usage.output_tokens, prices.output_per_million) +
    costPerMillion(usage.cache_read_input_tokens, prices.cached_input_per_million ?? prices.input_per_million) +
    costPerMillion(usage.cache_creation_input_tokens, prices.cache_write_per_million ?? prices.input_per_million) +
    // megapixels_milli is thousandths of a megapixel: price per megapixel × milli / 1000.
    costPerMillion(usage.megapixels_milli * 1000, prices.image_per_megapixel) +
    usage.image_count * (prices.per_image ?? 0)
  );
}

/** The most a run can cost: its prompt (about four characters a token) plus `max_tokens` of output, or one image. */
export function estimateRunCost(opts: { promptChars: number; maxTokens: number; image?: { width: number; height: number } }, prices: ModelPrices): number {
  const usage: Usage = {
    input_tokens: Math.ceil(opts.promptChars / 4),
    output_tokens: opts.image ? 0 : opts.maxTokens,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    image_count: opts.image ? 1 : 0,
    megapixels_milli: opts.image ? Math.round((opts.image.width * opts.image.height) / 1000) : 0,
  };
  return costOf(usage, prices);
}

/** Why the balance or a limit cannot cover `estimate`, or undefined when it can. */
export type CoverageProblem = 'INSUFFICIENT_BALANCE' | 'RUN_COST_LIMIT_EXCEEDED' | 'MONTHLY_LIMIT_REACHED';

export function createBillingService(deps: { db: Db; dialect: SqlDialect }) {
  const { dialect } = deps;

  async function lockedRow(trx: Db | Trx, accountId: string) {
    const row = await lockBilling(trx, dialect, accountId);
    if (!row) throw new NotFound(`AI balance of account ${accountId}`);
    return row;
  }

  async function appendLedger(
    trx: Db | Trx,
    entry: { accountId: string; kind: 'CREDIT' | 'DEBIT'; amount: number; balanceAfter: number; description: string; executionId?: string; attempt?: number; now: number },
  ): Promise<void> {
    await insertLedgerEntry(trx, {
      id: newId(entry.now),
      account_id: entry.accountId,
      kind: entry.kind,
      amount_nanos: entry.amount,
      balance_after_nanos: entry.balanceAfter,
      description: entry.description,
      execution_id: entry.executionId ?? null,
      attempt_number: entry.attempt ?? null,
      revision: 1,
      create_time: entry.now,
      update_time: entry.now,
    });
  }

  return {
    /** The balance row of a new account with its starting credit (inside the account-creating transaction). */
    async openAccount(trx: Db | Trx, accountId: string, startingCredit: number, now: number): Promise<void> {
      await insertBilling(trx, { id: accountId, account_id: accountId, balance_nanos: startingCredit, monthly_limit_nanos: null, run_limit_nanos: null, month: monthOf(now), month_spend_nanos: 0, revision: 1, create_time: now, update_time: now });
      if (startingCredit > 0) {
        await appendLedger(trx, { accountId, kind: 'CREDIT', amount: startingCredit, balanceAfter: startingCredit, description: 'Starting credit', now });
      }
    },

    /** Adds credit (operators: `npm run ai:grant-credit`); answers the new balance in nano-dollars. */
    async grantCredit(accountId: string, amount: number, description: string, now: number): Promise<number> {
      return deps.db.transaction().execute(async (trx) => {
        const row = await lockedRow(trx, accountId);
        const balance = Number(row.balance_nanos) + amount;
        await updateBilling(trx, accountId, { balance_nanos: balance, revision: Number(row.revision) + 1, update_time: Math.max(now, Number(row.update_time)) });
        await appendLedger(trx, { accountId, kind: 'CREDIT', amount, balanceAfter: balance, description, now });
        return balance;
      });
    },

    /** Whether the balance and the limits cover a run estimated at `estimate` nano-dollars. */
    async coverage(db: Db | Trx, accountId: string, estimate: number, now: number): Promise<CoverageProblem | undefined> {
      const row = await findBilling(db, accountId);
      if (!row) return 'INSUFFICIENT_BALANCE';
      if (row.run_limit_nanos !== null && estimate > Number(row.run_limit_nanos)) return 'RUN_COST_LIMIT_EXCEEDED';
      const spent = row.month === monthOf(now) ? Number(row.month_spend_nanos) : 0;
      if (row.monthly_limit_nanos !== null && spent + estimate > Number(row.monthly_limit_nanos)) return 'MONTHLY_LIMIT_REACHED';
      if (Number(row.balance_nanos) < estimate || Number(row.balance_nanos) <= 0) return 'INSUFFICIENT_BALANCE';
      return undefined;
    },

    /** Debits one charged attempt (inside the transaction that records the attempt). */
    async charge(trx: Db | Trx, charge: { accountId: string; amount: number; executionId: string; attempt: number; modelId: string; now: number }): Promise<void> {
      const row = await lockedRow(trx, charge.accountId);
      const month = monthOf(charge.now);
      const balance = Number(row.balance_nanos) - charge.amount;
      const spent = (row.month === month ? Number(row.month_spend_nanos) : 0) + charge.amount;
      await updateBilling(trx, charge.accountId, { balance_nanos: balance, month, month_spend_nanos: spent, revision: Number(row.revision) + 1, update_time: Math.max(charge.now, Number(row.update_time)) });
      await appendLedger(trx, {
        accountId: charge.accountId,
        kind: 'DEBIT',
        amount: -charge.amount,
        balanceAfter: balance,
        description: `AI run ${charge.executionId}, attempt ${charge.attempt} (${charge.modelId})`,
        executionId: charge.executionId,
        attempt: charge.attempt,
        now: charge.now,
      });
    },

    /** Records the usage of one finished attempt, charged or not (inside the transaction that records the attempt). */
    async recordUsage(trx: Db | Trx, record: Insertable<DB['ai_usage_records']>): Promise<void> {
      await insertUsageRecord(trx, record);
    },
  };
}
export type BillingService = ReturnType<typeof createBillingService>;
