import { HTTP_STATUS_OF } from '../errors.js';
import { Reply, type JsonSchema } from './components.js';

// Shapes every surface shares. Each carries an `$id`: it is a named component of the OpenAPI
// document and a shared schema of the serializer and validator (see components.ts).

const detail = (id: string, type: string, description: string, properties: Record<string, JsonSchema>, required: string[]): JsonSchema => ({
  $id: id,
  type: 'object',
  description,
  properties: { type: { type: 'string', const: type, description: 'Discriminator.' }, ...properties },
  required: ['type', ...required],
});

const DETAILS = [
  detail('RequestInfo', 'REQUEST_INFO', 'Reference of the log entry of the failed request; every error carries one.', { request_id: { type: 'string', maxLength: 64, description: 'Quote it when reporting a problem.' } }, ['request_id']),
  detail(
    'PreconditionFailure',
    'PRECONDITION_FAILURE',
    'Why a precondition failed, as a stable reason code to branch on (e.g. `NO_USABLE_CONNECTION`, `CAPTCHA_FAILED`).',
    {
      reason: { type: 'string', maxLength: 128, pattern: '^[A-Z][A-Z0-9_]*$', description: 'UPPER_SNAKE_CASE reason code.' },
      description: { type: 'string', maxLength: 2000, description: 'For humans.' },
    },
    ['reason'],
  ),
  detail(
    'FieldViolation',
    'FIELD_VIOLATION',
    'A field (body field by dotted path, e.g. `attributes.color`, or a parameter or header by name) and what is wrong with it.',
    { field: { type: 'string', maxLength: 512, description: 'Dotted path of the field.' }, description: { type: 'string', maxLength: 2000, description: 'What is wrong.' } },
    ['field', 'description'],
  ),
  detail(
    'ResourceInfo',
    'RESOURCE_INFO',
    'The resource as it is now: on ABORTED (stale `If-Match`), read it, reapply the change and retry with its etag.',
    { resource: { type: 'object', additionalProperties: true, description: 'The current resource.' } },
    ['resource'],
  ),
  detail('RetryInfo', 'RETRY_INFO', 'When to retry (RESOURCE_EXHAUSTED, UNAVAILABLE); the answer also carries `Retry-After`.', { retry_delay: { type: 'string', maxLength: 16, pattern: '^[0-9]+s$', description: 'Seconds with the suffix `s`, e.g. `30s`.' } }, ['retry_delay']),
];

/** One error detail: a union told apart by `type` (the closed list the runtime emits). */
export const ERROR_DETAIL_SCHEMA: JsonSchema = {
  $id: 'ErrorDetail',
  description: 'A typed detail of an error; `type` tells which.',
  oneOf: DETAILS,
  discriminator: {
    propertyName: 'type',
    mapping: Object.fromEntries(DETAILS.map((d) => [(d.properties as { type: { const: string } }).type.const, `#/components/schemas/${d.$id as string}`])),
  },
};

/** The canonical error (SPEC 7): the `error` of every error answer, of a failed Operation and of a failed AI run. */
export const ERROR_SCHEMA: JsonSchema = {
  $id: 'Error',
  type: 'object',
  description: 'A canonical error. Branch on `status`; `details` carry what a program needs (the field, the reason, the current resource, when to retry).',
  required: ['code', 'status', 'message', 'details'],
  properties: {
    code: { type: 'integer', format: 'int32', minimum: 400, maximum: 599, description: 'HTTP status code the status maps to.' },
    status: { type: 'string', enum: Object.keys(HTTP_STATUS_OF), description: 'Canonical status code to branch on.' },
    message: { type: 'string', maxLength: 10_000, description: 'For humans; may change without notice.' },
    details: { type: 'array', maxItems: 1000, items: ERROR_DETAIL_SCHEMA, description: 'Typed details; unknown types may be added and are to be ignored.' },
  },
};

/** The body of every error answer. */
export const ERROR_RESPONSE_SCHEMA: JsonSchema = {
  $id: 'ErrorResponse',
  type: 'object',
  description: 'Body of every error answer on every surface.',
  required: ['error'],
  properties: { error: ERROR_SCHEMA },
};

/** `Retry-After` of 429 and 503 answers. */
export const RETRY_AFTER_HEADER: JsonSchema = { type: 'integer', format: 'int32', minimum: 1, maximum: 86_400, description: 'Seconds to wait before retrying.' };
/** `ETag` of answers that carry a resource. */
export const ETAG_HEADER: JsonSchema = { type: 'string', maxLength: 130, description: 'The resource\'s `etag`, quoted; send it in `If-Match` (writes) or `If-None-Match` (reads).' };
/** `Location` of 201 answers. */
export const LOCATION_HEADER: JsonSchema = { type: 'string', format: 'uri', maxLength: 2048, description: 'Absolute URL of the created resource.' };
export const OPERATION_LOCATION_HEADER: JsonSchema = { type: 'string', format: 'uri', maxLength: 2048, description: 'Absolute URL of the Operation to poll.' };

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'INVALID_ARGUMENT (a FIELD_VIOLATION names each bad field or parameter), FAILED_PRECONDITION (a PRECONDITION_FAILURE gives the reason) or OUT_OF_RANGE.',
  401: 'UNAUTHENTICATED: the bearer token is missing, expired or invalid.',
  403: 'PERMISSION_DENIED: the caller\'s role does not reach this method (a failed bot check on the sign-up surface: reason `CAPTCHA_FAILED`).',
  404: 'NOT_FOUND: the resource or its parent does not exist, or the caller cannot see it.',
  409: 'ALREADY_EXISTS (the id or a unique field is taken), or ABORTED: `If-Match` no longer matches; the current resource is in a RESOURCE_INFO detail.',
  429: 'RESOURCE_EXHAUSTED: too many requests; retry after `Retry-After` seconds.',
  500: 'INTERNAL: quote the REQUEST_INFO detail when reporting it.',
  503: 'UNAVAILABLE: the server is busy or a service it asks is unreachable; nothing changed. Retry after `Retry-After` seconds.',
};

/** Which error answers a route documents: the codes its conditions can produce (SPEC 7, RUNTIME status mapping). */
export interface ErrorCases {
  /** Bearer token required: 401. */
  authenticated?: boolean;
  /** A right of the caller's role is checked: 403. */
  roles?: boolean;
  /** Addresses a resource or its parent by id: 404. */
  notFound?: boolean;
  /** Writes: 409 ALREADY_EXISTS / ABORTED. */
  conflict?: boolean;
  /** Rate limited: 429. */
  limited?: boolean;
}

/**
 * The error answers of a route, each the one `ErrorResponse` body: the explicit codes its
 * conditions produce, and `default` for the rest (413, 415, 499, 501, 504).
 */
export function errorResponses(cases: ErrorCases = {}): Record<string, Reply> {
  const codes = [400];
  if (cases.authenticated) codes.push(401);
  if (cases.roles) codes.push(403);
  if (cases.notFound) codes.push(404);
  if (cases.conflict) codes.push(409);
  if (cases.limited) codes.push(429);
  codes.push(500, 503);
  const replies: Record<string, Reply> = {};
  for (const code of codes) {
    const retry = code === 429 || code === 503;
    replies[code] = new Reply(ERROR_DESCRIPTIONS[code], ERROR_RESPONSE_SCHEMA, retry ? { 'Retry-After': RETRY_AFTER_HEADER } : undefined);
  }
  replies.default = new Reply('Any other error, in the same body: 413 or 415 (INVALID_ARGUMENT: body too large, unsupported Content-Type), 499 CANCELLED, 501 UNIMPLEMENTED, 504 DEADLINE_EXCEEDED.', ERROR_RESPONSE_SCHEMA);
  return replies;
}

/** snake_case → PascalCase, for operationIds. */
export function pascal(snake: string): string {
  return snake.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());
}

/** `metadata` of an Operation. */
export const OPERATION_METADATA_SCHEMA: JsonSchema = {
  $id: 'OperationMetadata',
  type: 'object',
  description: 'Progress of an Operation.',
  required: ['type', 'create_time', 'update_time'],
  properties: {
    type: { type: 'string', maxLength: 64, pattern: '^[A-Z][A-Z0-9_]*$', description: 'Kind of work, e.g. `PROVISION_WEBSITE`.' },
    step: { type: 'string', maxLength: 64, description: 'Named hop of the work in progress, e.g. `DEFAULT_PAGES`.' },
    progress_percent: { type: 'integer', format: 'int32', minimum: 0, maximum: 100, description: 'Only where the work is genuinely counted.' },
    create_time: { type: 'string', format: 'date-time', maxLength: 40, description: 'When the work was asked for.' },
    update_time: { type: 'string', format: 'date-time', maxLength: 40, description: 'When the Operation last changed.' },
    end_time: { type: 'string', format: 'date-time', maxLength: 40, description: 'When it finished; absent while running.' },
    cancel_requested: { type: 'boolean', description: 'Present (true) once `:cancel` was asked.' },
  },
};

/** The Operation resource (SPEC 2.16). */
export const OPERATION_SCHEMA: JsonSchema = {
  $id: 'Operation',
  type: 'object',
  description: 'Long-running work. Poll until `done`; then exactly one of `response` and `error` is present.',
  required: ['name', 'done', 'metadata'],
  properties: {
    name: { type: 'string', maxLength: 256, description: 'e.g. `websites/{website}/operations/{operation}`.', readOnly: true },
    done: { type: 'boolean', description: 'True means finished, not succeeded.' },
    metadata: OPERATION_METADATA_SCHEMA,
    response: { type: 'object', additionalProperties: true, description: 'The result, when done with success (provisioning: the website, with `website_url`).' },
    error: ERROR_SCHEMA,
  },
  example: {
    name: 'websites/0j5r8k2m4n6p8q0s2t4v/operations/0j5r8k2m5a7c9e1g3h5k',
    done: false,
    metadata: { type: 'PROVISION_WEBSITE', step: 'DEFAULT_PAGES', create_time: '2026-01-15T09:30:00.000Z', update_time: '2026-01-15T09:30:01.250Z' },
  },
};

/** Kept for the routes that answer an Operation. */
export const operationSchema = OPERATION_SCHEMA;
