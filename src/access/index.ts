// The access area's public surface: what other folders may use (plan rule 4).
export { accessArea } from './access.area.js';
export { administratorUserIds, insertCreatorMembership, isMember, lockMembershipsOfAccounts, makeAdministrator, membershipsOfUser } from './access.repo.js';
