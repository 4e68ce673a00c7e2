import type { Area } from '../platform/area.js';
import { defaultThemeStep, themeReferences, themeResource } from './theme.resource.js';

/** The theme singleton (`websites/{w}/theme`); the default theme is created at provisioning. */
export const themeArea: Area = {
  name: 'theme',
  resources: (deps) => [themeResource({ dialect: deps.database.dialect })],
  provisioningSteps: (deps) => [defaultThemeStep(deps.database.dialect, () => deps.areas.some((area) => area.name === 'navigation'))],
  references: themeReferences,
};
