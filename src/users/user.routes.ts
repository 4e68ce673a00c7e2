import type { FastifyInstance } from 'fastify';
import { checkedFirst, type RouteContextFactory } from '../platform/http/route-context.js';
import { Reply, routeSchema, type JsonSchema } from '../platform/http/components.js';
import { errorResponses } from '../platform/http/openapi-shapes.js';
import { PASSWORD_RESET_LIFETIME_MS, RESET_WINDOW_MS, RESETS_PER_ADDRESS, RESETS_PER_EMAIL, type UserService } from './user.service.js';
import { EMPTY_SCHEMA } from './user.resource.js';

// Plain JSON Schema literals, as in every other route file: a schema builder (typebox) loaded 373 module
// files at start for these two files alone (issue 24, idle memory).
const OneTimeToken: JsonSchema = { type: 'string', minLength: 1, maxLength: 256, writeOnly: true, description: 'The token of the mailed link (after `#token=`).' };
const NewPassword: JsonSchema = { type: 'string', minLength: 1, maxLength: 256, writeOnly: true, description: 'At least 8 characters with a letter and a digit.' };

const TokenAnswer: JsonSchema = {
  type: 'object',
  required: ['token', 'expire_time'],
  properties: {
    token: { type: 'string', maxLength: 4096, description: 'Bearer JWT for `Authorization: Bearer <token>`.' },
    expire_time: { type: 'string', format: 'date-time', maxLength: 40, description: 'When the token stops working.' },
  },
  $id: 'TokenResponse',
  description: 'A bearer token and when it stops working.',
};

/** Sign-in endpoints of the tenant surface (SPEC 4.3, 5). */
export function registerUserRoutes(app: FastifyInstance, deps: { prefix: string; users: UserService; context: RouteContextFactory }): void {
  const tags = ['users'];
  app.post(`${deps.prefix}/users::authenticate`, {
    schema: routeSchema(app, {
      operationId: 'AuthenticateUser',
      summary: 'Sign in with email and password',
      description: 'Answers a bearer token. Failed attempts are limited per email and per client address (429 RESOURCE_EXHAUSTED with RETRY_INFO).',
      tags,
      security: [],
      body: {
        type: 'object',
        required: ['email', 'password'],
        properties: {
          email: { type: 'string', minLength: 1, maxLength: 254, description: 'Sign-in address.' },
          password: { type: 'string', minLength: 1, maxLength: 256, writeOnly: true, description: 'The password.' },
        },
        additionalProperties: false,
        $id: 'AuthenticateRequest',
      },
      response: { 200: new Reply('Signed in.', TokenAnswer), ...errorResponses({ authenticated: true, limited: true }) },
    }),
    handler: async (request) => {
      const body = request.body as { email: string; password: string };
      return deps.users.authenticate(body.email, body.password, request.ip, Date.now());
    },
  });

  app.post(`${deps.prefix}/users::exchange_handoff`, {
    schema: routeSchema(app, {
      operationId: 'ExchangeHandoff',
      summary: 'Trade the one-time sign-up token for a bearer token',
      description: 'Works once per `signup_token`; a used, unknown or expired token answers 401 UNAUTHENTICATED.',
      tags,
      security: [],
      body: {
        type: 'object',
        required: ['signup_token'],
        properties: { signup_token: { type: 'string', minLength: 1, maxLength: 256, writeOnly: true, description: 'The one-time token sign-up answered.' } },
        additionalProperties: false,
        $id: 'ExchangeHandoffRequest',
      },
      response: { 200: new Reply('Signed in.', TokenAnswer), ...errorResponses({ authenticated: true }) },
    }),
    handler: async (request) => deps.users.exchangeHandoff((request.body as { signup_token: string }).signup_token, Date.now()),
  });

  app.post(`${deps.prefix}/users::refresh_token`, {
    schema: routeSchema(app, {
      operationId: 'RefreshToken',
      summary: 'Exchange a valid bearer token for a fresh one',
      description: 'The new token has a full lifetime and belongs to the same session; the old one keeps working until it expires or the session ends (`users:sign_out_everywhere`, a password change or reset).',
      tags,
      response: { 200: new Reply('A fresh token.', TokenAnswer), ...errorResponses({ authenticated: true }) },
    }),
    ...checkedFirst(deps.context.authenticated),
    handler: async (request) => {
      const ctx = await deps.context.authenticated(request);
      return deps.users.refresh(ctx);
    },
  });

  app.post(`${deps.prefix}/users::sign_out_everywhere`, {
    schema: routeSchema(app, {
      operationId: 'SignOutEverywhere',
      summary: 'Revoke every token of the signed-in user',
      description: 'Ends every session of the user, this one included: every token issued so far answers 401 from the next request on, on every server process.',
      tags,
      response: { 200: new Reply('Every earlier token is revoked.', EMPTY_SCHEMA), ...errorResponses({ authenticated: true }) },
    }),
    ...checkedFirst(deps.context.authenticated),
    handler: async (request) => {
      const ctx = await deps.context.authenticated(request);
      await deps.users.signOutEverywhere(ctx.caller.userId);
      return {};
    },
  });

  app.post(`${deps.prefix}/users::request_password_reset`, {
    schema: routeSchema(app, {
      operationId: 'RequestPasswordReset',
      summary: 'Mail a password reset link',
      description:
        'Answers 200 `{}` whether or not a user signs in with `email`, after the same time either way (no account enumeration). When one does, ' +
        `a link (\`ADMIN_BASE_URL\` + \`/reset-password#token=…\`) valid ${PASSWORD_RESET_LIFETIME_MS / 60_000} minutes and usable once goes to the user's stored address; ` +
        'a newer request replaces the earlier link. Limited to ' +
        `${RESETS_PER_EMAIL} requests per address and ${RESETS_PER_ADDRESS} per client address in ${RESET_WINDOW_MS / 60_000} minutes ` +
        '(429 RESOURCE_EXHAUSTED with RETRY_INFO and Retry-After).',
      tags,
      security: [],
      body: {
        type: 'object',
        required: ['email'],
        properties: { email: { type: 'string', format: 'email', maxLength: 254, description: 'The sign-in address.' } },
        additionalProperties: false,
        $id: 'RequestPasswordResetRequest',
      },
      response: { 200: new Reply('Accepted (whether or not the address is known).', EMPTY_SCHEMA), ...errorResponses({ limited: true }) },
    }),
    handler: async (request) => {
      await deps.users.requestPasswordReset((request.body as { email: string }).email, request.ip, Date.now());
      return {};
    },
  });

  app.post(`${deps.prefix}/users::reset_password`, {
    schema: routeSchema(app, {
      operationId: 'ResetPassword',
      summary: 'Set a new password with a mailed reset token',
      description:
        'Sets the password and ends every session of the user (every token answers 401); a `password_changed` notice is mailed. ' +
        'A token that is unknown, tampered with, expired or already used answers 400 INVALID_ARGUMENT naming `token` (one error for all). ' +
        'Of two concurrent calls with one token exactly one succeeds. The new password follows the sign-up rules (INVALID_ARGUMENT naming `new_password`).',
      tags,
      security: [],
      body: {
        type: 'object',
        required: ['token', 'new_password'],
        properties: { token: OneTimeToken, new_password: NewPassword },
        additionalProperties: false,
        $id: 'ResetPasswordRequest',
      },
      response: { 200: new Reply('The password is set.', EMPTY_SCHEMA), ...errorResponses({}) },
    }),
    handler: async (request) => {
      const body = request.body as { token: string; new_password: string };
      await deps.users.resetPassword(body.token, body.new_password, Date.now());
      return {};
    },
  });

  app.post(`${deps.prefix}/users::confirm_email`, {
    schema: routeSchema(app, {
      operationId: 'ConfirmEmail',
      summary: 'Confirm a new sign-in address with the mailed token',
      description:
        'Switches the user\'s sign-in address to the one `users/{user}:change_email` asked for; sign-in uses the new address from now on. ' +
        'A token that is unknown, tampered with, expired or already used answers 400 INVALID_ARGUMENT naming `token`; an address another user ' +
        'took meanwhile answers 409 ALREADY_EXISTS naming `new_email`. Needs no bearer token: the mailed token is the proof.',
      tags,
      security: [],
      body: { type: 'object', required: ['token'], properties: { token: OneTimeToken }, additionalProperties: false, $id: 'ConfirmEmailRequest' },
      response: { 200: new Reply('The address is changed.', EMPTY_SCHEMA), ...errorResponses({ conflict: true }) },
    }),
    handler: async (request) => {
      await deps.users.confirmEmail((request.body as { token: string }).token, Date.now());
      return {};
    },
  });
}
