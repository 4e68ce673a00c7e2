/** AI billing screens of an account: balance, limits, usage chart and ledger; usage records; the ledger alone. */
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { accountRoute } from '../../routes';
import { stringSearch } from '../ai/common';

export const billingRoutes = [
  createRoute({ getParentRoute: () => accountRoute, path: 'r/ai_billing', validateSearch: stringSearch('page_token'), component: lazyRouteComponent(() => import('./BillingPage'), 'BillingPage') }),
  createRoute({ getParentRoute: () => accountRoute, path: 'r/ai_ledger_entries', validateSearch: stringSearch('page_token'), component: lazyRouteComponent(() => import('./BillingPage'), 'LedgerPage') }),
  createRoute({ getParentRoute: () => accountRoute, path: 'r/ai_usage_records', validateSearch: stringSearch('page_token', 'connection_mode'), component: lazyRouteComponent(() => import('./UsagePage'), 'UsagePage') }),
] as const;
