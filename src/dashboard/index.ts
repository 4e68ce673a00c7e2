// What other folders use of the dashboard area (plan rule 4: imports from other folders come through here).
export { dashboardArea } from './dashboard.area.js';
