// The webhooks area's public surface: what other folders may use.
export { webhooksArea } from './webhooks.area.js';
