/** Webhooks of a website (`/w/{w}/r/webhooks`, `/w/{w}/r/webhooks/{id}`): purpose-built, since the secret is shown only once. */
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { websiteRoute } from '../../routes';

export const webhookRoutes = [
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/webhooks', component: lazyRouteComponent(() => import('./WebhooksPage'), 'WebhooksPage') }),
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/webhooks/$webhookId', component: lazyRouteComponent(() => import('./WebhookPage'), 'WebhookPage') }),
] as const;
