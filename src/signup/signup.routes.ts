import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CaptchaVerifier } from '../platform/captcha/captcha.js';
import { Reply, routeSchema, type JsonSchema } from '../platform/http/components.js';
import { errorResponses, operationSchema } from '../platform/http/openapi-shapes.js';
import { applyRateLimit } from '../platform/http/rate-limit.js';
import type { Limiter } from '../platform/limits/limits.js';
import { LANGUAGE_PATTERN } from '../websites/index.js';
import type { SignupService, SignUpInput } from './signup.service.js';

// Plain JSON Schema literals, as in every other route file: a schema builder (typebox) loaded 373 module
// files at start for these two files alone (issue 24, idle memory).
const Email: JsonSchema = { type: 'string', format: 'email', maxLength: 254, description: 'Sign-in address; stored lowercase.' };
const CaptchaToken: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 4096,
  description: 'Proof of the bot check, from the widget of the configured bot-check provider. Missing: 400 naming it; failed: 403 `CAPTCHA_FAILED`.',
};

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
    /** SIGNUP_RATE_LIMIT per client address and minute (shared by every process on PostgreSQL). */
    rateLimit: Limiter;
    /** Absolute URL of the tenant surface, where the created user's name (`users/{id}`) lives. */
    tenantBaseUrl: string;
    /** What a sign-up form renders as its bot check: the provider and its public site key (never the secret). */
    captchaWidget: { provider: 'static' | 'turnstile' | 'hcaptcha' | 'recaptcha'; siteKey: string | undefined };
  },
): void {
  const tags = ['signup'];
  // Counted before anything else runs (parsing, validation, the bot check) on every sign-up route.
  const onRequest = async (request: FastifyRequest, reply: FastifyReply) => applyRateLimit(reply, 'signup', deps.rateLimit, request.ip);

  app.get(`${deps.prefix}/captcha`, {
    onRequest,
    schema: routeSchema(app, {
      operationId: 'GetCaptcha',
      summary: 'The bot check a sign-up form renders',
      description:
        'Which bot-check provider this deployment verifies `captcha_token` with (CAPTCHA_PROVIDER) and the public site key its widget takes (CAPTCHA_SITE_KEY; absent for `static`, the embedded check of development and tests, whose token is the configured code). Needs no bot check itself.',
      tags,
      security: [],
      response: {
        200: new Reply(
          'The provider and its site key.',
          {
            type: 'object',
            required: ['provider'],
            properties: {
              provider: {
                anyOf: ['static', 'turnstile', 'hcaptcha', 'recaptcha'].map((provider) => ({ type: 'string', const: provider })),
                description: '`turnstile` (Cloudflare), `hcaptcha`, `recaptcha` (Google, v2) or `static`.',
              },
              site_key: { type: 'string', maxLength: 256, description: "The hosted provider's public site key, for its widget." },
            },
            $id: 'CaptchaSettings',
            additionalProperties: false,
          },
        ),
        ...errorResponses({ limited: true }),
      },
    }),
    handler: async () => ({ provider: deps.captchaWidget.provider, ...(deps.captchaWidget.siteKey && deps.captchaWidget.provider !== 'static' ? { site_key: deps.captchaWidget.siteKey } : {}) }),
  });

  app.post(`${deps.prefix}/users::check_email_availability`, {
    onRequest,
    schema: routeSchema(app, {
      operationId: 'CheckEmailAvailability',
      summary: 'Whether an email can still sign up',
      description: 'A question, not a reservation.',
      tags,
      security: [],
      body: {
        type: 'object',
        required: ['email', 'captcha_token'],
        properties: { email: Email, captcha_token: CaptchaToken },
        additionalProperties: false,
        $id: 'CheckEmailAvailabilityRequest',
      },
      response: {
        200: new Reply(
          'Whether the address is free.',
          {
            type: 'object',
            required: ['available'],
            properties: { available: { type: 'boolean', description: 'True when no user has the address yet.' } },
            $id: 'CheckEmailAvailabilityResponse',
          },
        ),
        ...errorResponses({ roles: true, limited: true }),
      },
    }),
    handler: async (request) => {
      const body = request.body as { email: string; captcha_token: string };
      await deps.captcha.verify(body.captcha_token, request.ip);
      return deps.signup.checkEmailAvailability(body.email);
    },
  });

  app.post(`${deps.prefix}/users`, {
    onRequest,
    schema: routeSchema(app, {
      operationId: 'SignUp',
      summary: 'Sign up: user, account, project and website in one step',
      description:
        'Answers 201 with the user plus `account_id`, a one-time `signup_token` (for `users:exchange_handoff` and polling) and `operation` (the provisioning Operation). ' +
        '`Location` is the created user on the tenant surface (`{tenant base}/users/{id}`, its `name`). Idempotent on `request_id`.',
      tags,
      security: [],
      body: {
        type: 'object',
        required: ['email', 'password', 'website_name', 'default_language', 'captcha_token'],
        properties: {
          email: Email,
          password: { type: 'string', minLength: 8, maxLength: 256, writeOnly: true, description: 'At least 8 characters with a letter and a digit.' },
          website_name: { type: 'string', minLength: 1, maxLength: 255, description: 'Name of the first website (and of the account and project).' },
          default_language: { type: 'string', pattern: LANGUAGE_PATTERN, maxLength: 35, description: 'BCP 47 tag, e.g. `en`.' },
          captcha_token: CaptchaToken,
          request_id: { type: 'string', minLength: 1, maxLength: 64, description: 'Idempotency key.' },
        },
        additionalProperties: false,
        $id: 'SignUpRequest',
        example: { email: 'ada@example.com', password: 'correct-horse-9', website_name: "Ada's Bakery", default_language: 'en', captcha_token: 'dev-captcha', request_id: 'b6f1c2d4-signup-1' },
      },
      response: {
        201: new Reply(
          'The user, the account it administers, and how to continue.',
          {
            type: 'object',
            required: ['name', 'id', 'email', 'create_time', 'update_time', 'account_id', 'signup_token', 'operation'],
            properties: {
              name: { type: 'string', maxLength: 256, description: 'e.g. `users/{user}`.' },
              id: { type: 'string', maxLength: 64, description: 'Id of the user.' },
              email: { type: 'string', maxLength: 254, description: 'Sign-in address, lowercase.' },
              create_time: { type: 'string', format: 'date-time', maxLength: 40, description: 'When the user was created.' },
              update_time: { type: 'string', format: 'date-time', maxLength: 40, description: 'When the user last changed.' },
              account_id: { type: 'string', maxLength: 64, description: 'The new account.' },
              signup_token: { type: 'string', maxLength: 256, description: 'One-time; trade at `users:exchange_handoff`, and poll `operations/{signup_token}`.' },
              operation: { type: 'string', maxLength: 256, description: 'Name of the provisioning Operation (`websites/{website}/operations/{operation}`).' },
            },
            $id: 'SignUpResponse',
          },
        ),
        ...errorResponses({ roles: true, conflict: true, limited: true }),
      },
    }),
    handler: async (request, reply) => {
      const body = request.body as SignUpInput & { captcha_token: string };
      await deps.captcha.verify(body.captcha_token, request.ip);
      const created = await deps.signup.signUp(body, request.id, Date.now());
      // The user is a tenant-surface resource: its name resolves there, not on the sign-up surface.
      reply.header('location', `${deps.tenantBaseUrl}/${created.name}`);
      return reply.code(201).send(created);
    },
  });

  app.get(`${deps.prefix}/operations/:signup_token`, {
    onRequest,
    schema: routeSchema(app, {
      operationId: 'GetSignupOperation',
      summary: 'Poll the provisioning Operation of a sign-up',
      description: '`metadata.step` names the hop; on success `response.website_url` is where the site answers.',
      tags,
      security: [],
      params: { type: 'object', required: ['signup_token'], properties: { signup_token: { type: 'string', maxLength: 256, description: 'The `signup_token` sign-up answered.' } } },
      querystring: { type: 'object', required: ['captcha_token'], properties: { captcha_token: CaptchaToken } },
      response: { 200: new Reply('The provisioning Operation.', operationSchema), ...errorResponses({ roles: true, notFound: true, limited: true }) },
    }),
    handler: async (request) => {
      await deps.captcha.verify((request.query as { captcha_token: string }).captcha_token, request.ip);
      return deps.signup.operationOf((request.params as { signup_token: string }).signup_token, Date.now());
    },
  });
}
