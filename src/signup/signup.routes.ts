import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { CaptchaVerifier } from '../platform/captcha/captcha.js';
import { errorResponses, operationSchema } from '../platform/http/openapi-shapes.js';
import { applyRateLimit, type RateLimiter } from '../platform/http/rate-limit.js';
import { LANGUAGE_PATTERN } from '../websites/website.resource.js';
import type { SignupService, SignUpInput } from './signup.service.js';

const Email = Type.String({ format: 'email', maxLength: 254, description: 'Sign-in address; stored lowercase.' });
const CaptchaToken = Type.String({ maxLength: 4096, description: 'Proof of the bot check (RUNTIME.md: CAPTCHA_PROVIDER).' });

/**
 * The unauthenticated sign-up surface (`/site-api/v1`). Every call is rate limited per client
 * address and bot-checked: POST bodies carry `captcha_token`, GETs carry it as a query parameter.
 */
export function registerSignupRoutes(
  app: FastifyInstance,
  deps: {
    prefix: string;
    signup: SignupService;
    captcha: CaptchaVerifier;
    rateLimit: RateLimiter;
    /** Absolute URL of the tenant surface, where the created user's name (`users/{id}`) lives. */
    tenantBaseUrl: string;
  },
): void {
  const tags = ['signup'];
  // Counted before anything else runs (parsing, validation, the bot check) on every sign-up route.
  const onRequest = async (request: FastifyRequest, reply: FastifyReply) => applyRateLimit(reply, 'signup', deps.rateLimit, request.ip);

  app.post(`${deps.prefix}/users::check_email_availability`, {
    onRequest,
    schema: {
      operationId: 'CheckEmailAvailability',
      summary: 'Whether an email can still sign up',
      description: 'A question, not a reservation.',
      tags,
      security: [],
      body: Type.Object({ email: Email, captcha_token: Type.Optional(CaptchaToken) }, { additionalProperties: false, title: 'CheckEmailAvailabilityRequest' }),
      response: { 200: Type.Object({ available: Type.Boolean() }, { title: 'CheckEmailAvailabilityResponse' }), ...errorResponses() },
    },
    handler: async (request) => {
      const body = request.body as { email: string; captcha_token?: string };
      await deps.captcha.verify(body.captcha_token, request.ip);
      return deps.signup.checkEmailAvailability(body.email);
    },
  });

  app.post(`${deps.prefix}/users`, {
    onRequest,
    schema: {
      operationId: 'SignUp',
      summary: 'Sign up: user, account, project and website in one step',
      description:
        'Answers 201 with the user plus `account_id`, a one-time `signup_token` (for `users:exchange_handoff` and polling) and `operation` (the provisioning Operation). ' +
        '`Location` is the created user on the tenant surface (`{tenant base}/users/{id}`, its `name`). Idempotent on `request_id`.',
      tags,
      security: [],
      body: Type.Object(
        {
          email: Email,
          password: Type.String({ minLength: 8, maxLength: 256, description: 'At least 8 characters with a letter and a digit.' }),
          website_name: Type.String({ minLength: 1, maxLength: 255 }),
          default_language: Type.String({ pattern: LANGUAGE_PATTERN, maxLength: 35, description: 'BCP 47 tag, e.g. `en`.' }),
          captcha_token: Type.Optional(CaptchaToken),
          request_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Idempotency key.' })),
        },
        { additionalProperties: false, title: 'SignUpRequest' },
      ),
      response: {
        201: Type.Object(
          {
            name: Type.String(),
            id: Type.String(),
            email: Type.String(),
            create_time: Type.String({ format: 'date-time' }),
            update_time: Type.String({ format: 'date-time' }),
            account_id: Type.String(),
            signup_token: Type.String({ description: 'One-time; trade at `users:exchange_handoff`.' }),
            operation: Type.String({ description: 'Name of the provisioning Operation.' }),
          },
          { title: 'SignUpResponse' },
        ),
        ...errorResponses(),
      },
    },
    handler: async (request, reply) => {
      const body = request.body as SignUpInput & { captcha_token?: string };
      await deps.captcha.verify(body.captcha_token, request.ip);
      const created = await deps.signup.signUp(body, request.id, Date.now());
      // The user is a tenant-surface resource: its name resolves there, not on the sign-up surface.
      reply.header('location', `${deps.tenantBaseUrl}/${created.name}`);
      return reply.code(201).send(created);
    },
  });

  app.get(`${deps.prefix}/operations/:signup_token`, {
    onRequest,
    schema: {
      operationId: 'GetSignupOperation',
      summary: 'Poll the provisioning Operation of a sign-up',
      description: '`metadata.step` names the hop; on success `response.website_url` is where the site answers.',
      tags,
      security: [],
      params: Type.Object({ signup_token: Type.String({ maxLength: 256 }) }),
      querystring: Type.Object({ captcha_token: Type.Optional(CaptchaToken) }),
      response: { 200: operationSchema, ...errorResponses() },
    },
    handler: async (request) => {
      await deps.captcha.verify((request.query as { captcha_token?: string }).captcha_token, request.ip);
      return deps.signup.operationOf((request.params as { signup_token: string }).signup_token, Date.now());
    },
  });
}
