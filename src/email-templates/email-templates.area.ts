import type { Area } from '../platform/area.js';
import { defaultEmailTemplatesStep, emailTemplateResource } from './email-template.resource.js';

/** Email templates (`websites/{w}/email_templates`), one per kind, created at provisioning. */
export const emailTemplatesArea: Area = {
  name: 'email-templates',
  resources: (deps) => [emailTemplateResource(() => deps.services)],
  provisioningSteps: () => [defaultEmailTemplatesStep],
};
