import type { FastifyInstance } from 'fastify';
import type { Caller } from '../platform/auth/context.js';
import { passwordProblem } from '../platform/auth/passwords.js';
import { tokenHash } from '../platform/crypto.js';
import { AlreadyExists, FailedPrecondition, InvalidArgument, NotFound, PermissionDenied } from '../platform/errors.js';
import type { SurfaceDeps } from '../platform/area.js';
import { Reply, routeSchema } from '../platform/http/components.js';
import { checkedFirst } from '../platform/http/route-context.js';
import { errorResponses } from '../platform/http/openapi-shapes.js';
import { resourceSchema } from '../platform/resource/schemas.js';
import { emailOfUser, userByEmail } from '../users/index.js';
import { websiteIdsOfAccount } from '../websites/index.js';
import { accountRoleExists, insertMembership, invitationByTokenHash, isMember, markInvitationAccepted } from './access.repo.js';
import { parseRole, roleColumns } from './grants.js';
import { stateOf } from './invitation.resource.js';

const MEMBERS = 'accounts/{account_id}/members';

/**
 * `POST invitations:accept`: the token from the invitation mail joins the signed-in caller (whose
 * email must be the invited address), or, without a bearer token, creates the user of an address
 * that has none and answers a bearer token for it. All of it in one transaction, under a lock of the
 * invitation row, so of two concurrent accepts of one token exactly one wins.
 */
export function registerAcceptInvitationRoute(app: FastifyInstance, deps: SurfaceDeps): void {
  const { database, users } = deps;
  const { dialect } = database;
  const members = () => deps.services[MEMBERS];
  const member = resourceSchema(deps.services[MEMBERS].decl);
  app.post(`${deps.prefix}/invitations::accept`, {
    schema: routeSchema(app, {
      operationId: 'AcceptInvitation',
      summary: 'Accept an invitation',
      description:
        'Takes the one-time `invitation_token` of the invitation mail (formerly `token`, still accepted). With a bearer token: the signed-in user joins, if their email is the invited address ' +
        '(else 403 PERMISSION_DENIED, reason INVITATION_EMAIL_MISMATCH; nothing changes, the invitation stays pending). Without one: when the address has no user yet, ' +
        'the user is created with `password` (same rules as sign-up) and `display_name`, joins, and the answer carries a bearer token; when the address has a user, ' +
        '400 FAILED_PRECONDITION (reason SIGN_IN_REQUIRED): sign in as that user and accept again. An unknown token (tampered, or replaced by `:resend`) answers 404 NOT_FOUND; ' +
        'an accepted, revoked or expired invitation 400 FAILED_PRECONDITION (INVITATION_ACCEPTED, INVITATION_REVOKED, INVITATION_EXPIRED). A token works once: ' +
        'of concurrent accepts exactly one succeeds. A caller who already is a member gets 409 ALREADY_EXISTS.',
      tags: ['invitations'],
      security: [{ bearer: [] as string[] }, {} as Record<string, string[]>],
      body: {
        $id: 'AcceptInvitationRequest',
        type: 'object',
        additionalProperties: false,
        // One of the two names is required (checked by the handler, naming `invitation_token`).
        properties: {
          invitation_token: { type: 'string', minLength: 1, maxLength: 256, writeOnly: true, description: 'The token of the invitation link (after `#token=`).' },
          token: {
            type: 'string',
            minLength: 1,
            maxLength: 256,
            writeOnly: true,
            deprecated: true,
            description: 'Deprecated: use `invitation_token` (same value). Still accepted for the life of v1; sending both with different values is INVALID_ARGUMENT.',
          },
          password: { type: 'string', maxLength: 256, writeOnly: true, description: 'Only without a bearer token, for a new user: at least 8 characters with a letter and a digit.' },
          display_name: { type: 'string', maxLength: 255, description: 'Only without a bearer token, for a new user: their display name.' },
        },
      },
      response: {
        200: new Reply('Joined.', {
          $id: 'AcceptInvitationResponse',
          type: 'object',
          description: 'The new membership; for a user created by the acceptance, also a bearer token.',
          required: ['member'],
          properties: {
            member,
            token: { type: 'string', maxLength: 4096, description: 'Bearer JWT of the user the acceptance created (absent when the caller was signed in).' },
            expire_time: { type: 'string', format: 'date-time', maxLength: 40, description: 'When `token` stops working.' },
          },
        }),
        ...errorResponses({ authenticated: true, roles: true, notFound: true, conflict: true }),
      },
    }),
    // Credentials are optional here, but ones sent must be valid before the body counts.
    ...checkedFirst(async (request) => request.headers.authorization && deps.context.authenticated(request)),
    handler: async (request) => {
      const now = Date.now();
      const body = request.body as { invitation_token?: string; token?: string; password?: string; display_name?: string };
      if (body.invitation_token !== undefined && body.token !== undefined && body.invitation_token !== body.token) {
        throw InvalidArgument.field('invitation_token', 'disagrees with the deprecated `token`; send `invitation_token` only');
      }
      const invitationToken = body.invitation_token ?? body.token;
      if (invitationToken === undefined) {
        // Both names: a client written against the deprecated `token` still finds its field named.
        throw new InvalidArgument('invitation_token: is required (or its deprecated alias token)', [
          { field: 'invitation_token', description: 'is required' },
          { field: 'token', description: 'is required (deprecated alias of invitation_token)' },
        ]);
      }
      const caller: Caller | undefined = request.headers.authorization ? (await deps.context.authenticated(request)).caller : undefined;

      const joined = await database.db
        .transaction()
        .execute(async (trx) => {
          const invitation = await invitationByTokenHash(trx, dialect, tokenHash(invitationToken));
          if (!invitation) throw new NotFound('invitation');
          const state = stateOf(invitation, now);
          if (state !== 'PENDING') throw new FailedPrecondition(`INVITATION_${state}`, `the invitation is ${state.toLowerCase()}`);
          let userId: string;
          let created = false;
          if (caller) {
            if ((await emailOfUser(trx, caller.userId))?.toLowerCase() !== invitation.email) {
              throw new PermissionDenied('the invitation was sent to another address; sign in as the invited user', 'INVITATION_EMAIL_MISMATCH');
            }
            userId = caller.userId;
          } else {
            if (await userByEmail(trx, invitation.email)) {
              throw new FailedPrecondition('SIGN_IN_REQUIRED', 'the invited address already has a user: sign in as that user and accept again with the bearer token');
            }
            if (body.password === undefined) throw InvalidArgument.field('password', 'is required to create the invited user');
            const problem = passwordProblem(body.password);
            if (problem) throw InvalidArgument.field('password', problem);
            // The users area's insert: the user with their profile, sign-up's password rules and hashing.
            const user = await users.insertUser(trx, { email: invitation.email, password: body.password, display_name: body.display_name?.trim() || undefined }, now);
            userId = user.id;
            created = true;
          }
          const accountId = invitation.account_id as string;
          if (await isMember(trx, accountId, userId)) throw new AlreadyExists('you already are a member of this account');
          // What the account still has: a deleted account role leaves roles/restricted, deleted websites drop out.
          let role = roleColumns(parseRole('role', invitation.role, accountId));
          if (role.account_role_id && !(await accountRoleExists(trx, accountId, role.account_role_id))) role = { role: 'restricted', account_role_id: null };
          const wanted = dialect.readJson<string[]>(invitation.website_ids) ?? [];
          const websites = await websiteIdsOfAccount(trx, accountId, wanted);
          if (wanted.length && websites.length === 0) throw new FailedPrecondition('INVITATION_WEBSITES_GONE', 'every website of the invitation was deleted');
          const grants = dialect.readJson(invitation.grants) ?? [];
          await insertMembership(trx, dialect, accountId, { userId, role: role.role, accountRoleId: role.account_role_id, grants, websiteIds: websites }, now);
          await markInvitationAccepted(trx, accountId, { id: invitation.id, revision: invitation.revision }, userId, now);
          return { accountId, userId, created };
        })
        .catch((err) => {
          if (dialect.isUniqueViolation(err)) throw new AlreadyExists('the invited address or membership was taken by a concurrent request');
          throw err;
        });

      const ctx = { requestId: request.id, caller: { userId: joined.userId }, now };
      const resource = await members().get(ctx, { account_id: joined.accountId, member_id: joined.userId });
      if (!joined.created) return { member: resource };
      const session = await users.startSession(joined.userId, now);
      return { member: resource, token: session.token, expire_time: session.expire_time };
    },
  });
}
