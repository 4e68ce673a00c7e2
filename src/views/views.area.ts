import type { Area } from '../platform/area.js';
import { defaultViewStep, fallbackReference, viewResource } from './view.resource.js';

/** Views: a website's locales (`websites/{w}/views`); the default view is created at provisioning. */
export const viewsArea: Area = {
  name: 'views',
  resources: (deps) => [viewResource({ dialect: deps.database.dialect, references: () => deps.referencesTo('views') })],
  provisioningSteps: (deps) => [defaultViewStep(deps.database.dialect)],
  references: [fallbackReference],
};
