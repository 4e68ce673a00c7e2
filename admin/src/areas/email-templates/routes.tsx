/** Email templates of a website (`/w/{w}/r/email_templates`, `…/{kind}`): one per kind the platform mails. */
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { websiteRoute } from '../../routes';

export const emailTemplateRoutes = [
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/email_templates', component: lazyRouteComponent(() => import('./EmailTemplatesPage'), 'EmailTemplatesPage') }),
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/email_templates/$templateId', component: lazyRouteComponent(() => import('./EmailTemplatePage'), 'EmailTemplatePage') }),
] as const;
