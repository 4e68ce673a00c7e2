import type { Area } from '../platform/area.js';
import { registerAcceptInvitationRoute } from './accept.routes.js';
import { accountRoleResource } from './account-role.resource.js';
import { permissionResource, roleResource } from './catalogues.js';
import { invitationResource } from './invitation.resource.js';
import { memberResource } from './member.resource.js';

/** Access (SPEC 5.5, issue 12): the permission tree, roles, account roles, members and invitations. */
export const accessArea: Area = {
  name: 'access',
  resources: (deps) => {
    const { dialect } = deps.database;
    // Invitation mails per account: a fixed window of an hour, shared by every process on PostgreSQL.
    const limiter = deps.limits.limiter('invitation_sends', { limit: deps.config.invitationRateLimit, windowMs: 3600_000 });
    return [permissionResource, roleResource, accountRoleResource(dialect), memberResource(dialect, () => deps.services), invitationResource({ dialect, mail: deps.mail, limiter })];
  },
  tenantRoutes: (app, deps) => registerAcceptInvitationRoute(app, deps),
};
