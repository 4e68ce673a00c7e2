// The accounts area's public surface: what other folders may use (plan rule 4).
export { accountResource } from './account.resource.js';
export { accountDisplayName, accountNames } from './accounts.repo.js';
