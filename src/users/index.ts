// The users area's public surface: what other folders may use (plan rule 4).
export { createUserService, normaliseEmail, toUserResource } from './user.service.js';
export type { AccountAction, UserDeletionPorts, UserService } from './user.service.js';
export { registerUserRoutes } from './user.routes.js';
export { profileResource, userResource } from './user.resource.js';
export { emailOfUser, userByEmail, userIdByEmail, userNames, usersById } from './users.repo.js';
