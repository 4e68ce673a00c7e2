// AI Billing's public surface: what other folders may use.
export { aiBillingArea } from './ai-billing.area.js';
export { costOf, createBillingService, estimateRunCost, monthOf, type BillingService, type CoverageProblem } from './billing.service.js';
export type { ModelPrices, Usage } from './pricing.js';
export { MONEY_SCHEMA, moneyFromNanos, nanosFromDecimal, nanosFromMoney, type Money } from './money.js';
