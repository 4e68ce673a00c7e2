// What other folders use of the analytics area (plan rule 4: imports from other folders come through here).
export { analyticsArea } from './analytics.area.js';
export { checkQuery, COMPARES, DATE_RANGES, INTERVALS, METRICS } from './query.js';
