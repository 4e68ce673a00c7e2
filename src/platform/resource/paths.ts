// Path templates live in platform/paths.ts, below http (route-context.ts reads them too); the
// engine's callers keep importing them from here.
export { fillFromParams, routePath, templateParams } from '../paths.js';
