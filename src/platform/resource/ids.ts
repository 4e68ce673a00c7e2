// Ids live in platform/ids.ts, below http, jobs, mail and events, which use them too; the engine's
// callers keep importing them from here.
export { checkClientId, CLIENT_ID_PATTERN, newId, PATH_ID_PATTERN } from '../ids.js';
