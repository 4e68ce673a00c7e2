import type { Area } from '../platform/area.js';
import { aiBillingResource, aiLedgerEntryResource, aiUsageRecordResource } from './billing.resource.js';
import { createBillingService } from './billing.service.js';

/** AI Billing: the account's AI balance and limits, its ledger and per-attempt usage records. */
export const aiBillingArea: Area = {
  name: 'ai-billing',
  resources: () => [aiBillingResource, aiLedgerEntryResource, aiUsageRecordResource],
  async onAccountCreate(ctx, account, deps) {
    // The billing service holds no state: one built here is the same as the AI area's.
    await createBillingService({ db: deps.database.db, dialect: deps.database.dialect }).openAccount(ctx.trx, account.id, deps.config.ai.startingCreditNanos, ctx.now);
  },
};
