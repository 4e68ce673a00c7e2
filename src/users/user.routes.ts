import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { RouteContextFactory } from '../platform/http/route-context.js';
import { Reply, routeSchema } from '../platform/http/components.js';
import { errorResponses } from '../platform/http/openapi-shapes.js';
import type { UserService } from './user.service.js';

const TokenAnswer = Type.Object(
  {
    token: Type.String({ maxLength: 4096, description: 'Bearer JWT for `Authorization: Bearer <token>`.' }),
    expire_time: Type.String({ format: 'date-time', maxLength: 40, description: 'When the token stops working.' }),
  },
  { $id: 'TokenResponse', description: 'A bearer token and when it stops working.' },
);

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
      body: Type.Object(
        {
          email: Type.String({ minLength: 1, maxLength: 254, description: 'Sign-in address.' }),
          password: Type.String({ minLength: 1, maxLength: 256, writeOnly: true, description: 'The password.' }),
        },
        { additionalProperties: false, $id: 'AuthenticateRequest' },
      ),
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
      body: Type.Object(
        { signup_token: Type.String({ minLength: 1, maxLength: 256, writeOnly: true, description: 'The one-time token sign-up answered.' }) },
        { additionalProperties: false, $id: 'ExchangeHandoffRequest' },
      ),
      response: { 200: new Reply('Signed in.', TokenAnswer), ...errorResponses({ authenticated: true }) },
    }),
    handler: async (request) => deps.users.exchangeHandoff((request.body as { signup_token: string }).signup_token, Date.now()),
  });

  app.post(`${deps.prefix}/users::refresh_token`, {
    schema: routeSchema(app, {
      operationId: 'RefreshToken',
      summary: 'Exchange a valid bearer token for a fresh one',
      description: 'The new token has a full lifetime; the old one keeps working until it expires or `users:sign_out_everywhere` is called.',
      tags,
      response: { 200: new Reply('A fresh token.', TokenAnswer), ...errorResponses({ authenticated: true }) },
    }),
    handler: async (request) => {
      const ctx = await deps.context.authenticated(request);
      return deps.users.refresh(ctx.caller.userId, ctx.now);
    },
  });

  app.post(`${deps.prefix}/users::sign_out_everywhere`, {
    schema: routeSchema(app, {
      operationId: 'SignOutEverywhere',
      summary: 'Revoke every token of the signed-in user',
      description: 'Raises the user\'s token version: every token issued before stops working (in other server processes within 5 seconds).',
      tags,
      response: { 200: new Reply('Every earlier token is revoked.', Type.Object({}, { $id: 'Empty', description: 'No fields.' })), ...errorResponses({ authenticated: true }) },
    }),
    handler: async (request) => {
      const ctx = await deps.context.authenticated(request);
      await deps.users.signOutEverywhere(ctx.caller.userId, ctx.now);
      return {};
    },
  });
}
