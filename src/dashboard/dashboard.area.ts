import type { Area } from '../platform/area.js';
import { dashboardWidgetTypeResource } from './dashboard-widget-type.resource.js';
import { dashboardResource } from './dashboard.resource.js';

/** The analytics dashboard (`websites/{w}/dashboard`, `:reset`) and its catalogue `dashboard_widget_types`. */
export const dashboardArea: Area = {
  name: 'dashboard',
  resources: (deps) => [dashboardWidgetTypeResource, dashboardResource({ dialect: deps.database.dialect })],
};
