import type { Area } from '../platform/area.js';
import { aiContext } from '../ai/ai.area.js';
import { aiBillingResource, aiLedgerEntryResource, aiUsageRecordResource } from './billing.resource.js';

/** AI Billing: the account's AI balance and limits, its ledger and per-attempt usage records. */
export const aiBillingArea: Area = {
  name: 'ai-billing',
  resources: () => [aiBillingResource, aiLedgerEntryResource, aiUsageRecordResource],
  async onAccountCreate(ctx, account, deps) {
    await aiContext(deps).billing.openAccount(ctx.trx, account.id, deps.config.ai.startingCreditNanos, ctx.now);
  },
};
