/**
 * The one error hierarchy. Every failure on every surface is one of these, rendered by
 * `renderError` into the canonical body `{error: {code, status, message, details}}`.
 */

export type ErrorDetail =
  | { type: 'REQUEST_INFO'; request_id: string }
  | { type: 'PRECONDITION_FAILURE'; reason: string; description?: string }
  | { type: 'FIELD_VIOLATION'; field: string; description: string }
  | { type: 'RESOURCE_INFO'; resource: unknown }
  | { type: 'RETRY_INFO'; retry_delay: string };

export interface FieldViolation {
  field: string;
  description: string;
}

/** Canonical status → HTTP code (RUNTIME.md fixes the ones SPEC leaves open). */
export const HTTP_STATUS_OF = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  ABORTED: 409,
  RESOURCE_EXHAUSTED: 429,
  CANCELLED: 499,
  INTERNAL: 500,
  UNIMPLEMENTED: 501,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
} as const;

export type CanonicalStatus = keyof typeof HTTP_STATUS_OF;

/**
 * The HTTP status of an error is the one its canonical status maps to (`HTTP_STATUS_OF`), so `code`
 * and `status` always agree. The one exception is `MethodNotAllowed` (405, see docs/decisions.md).
 */
export class ApiError extends Error {
  readonly httpCode: number;
  constructor(
    readonly status: CanonicalStatus,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    // A refusal (4xx) is an answer, not a fault: no stack trace, whose capture cost more than the rest
    // of a refused request (issue 24: a 401 cost more CPU than a served Get). 5xx keep theirs for the log.
    super((stackless(HTTP_STATUS_OF[status] < 500), message));
    if (savedStackTraceLimit !== undefined) {
      Error.stackTraceLimit = savedStackTraceLimit;
      savedStackTraceLimit = undefined;
    }
    this.httpCode = HTTP_STATUS_OF[status];
  }
}

let savedStackTraceLimit: number | undefined;
function stackless(on: boolean): void {
  if (!on) return;
  savedStackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
}

export class InvalidArgument extends ApiError {
  constructor(message: string, violations: FieldViolation[] = []) {
    super('INVALID_ARGUMENT', message, violations.map((v) => ({ type: 'FIELD_VIOLATION', ...v })));
  }
  /** One bad field: the message names it and the detail carries it. */
  static field(field: string, description: string): InvalidArgument {
    return new InvalidArgument(`${field}: ${description}`, [{ field, description }]);
  }
}

export class FailedPrecondition extends ApiError {
  constructor(reason: string, message: string) {
    super('FAILED_PRECONDITION', message, [{ type: 'PRECONDITION_FAILURE', reason }]);
  }
}

export class OutOfRange extends ApiError {
  constructor(field: string, message: string) {
    super('OUT_OF_RANGE', message, [{ type: 'FIELD_VIOLATION', field, description: message }]);
  }
}

export class Unauthenticated extends ApiError {
  constructor(message = 'missing, expired or invalid credentials') {
    super('UNAUTHENTICATED', message);
  }
}

export class PermissionDenied extends ApiError {
  /** `violations` name the fields a refusal is about (a media transform's missing `sig`). */
  constructor(message: string, reason?: string, violations: FieldViolation[] = []) {
    super('PERMISSION_DENIED', message, [
      ...(reason ? [{ type: 'PRECONDITION_FAILURE' as const, reason }] : []),
      ...violations.map((v) => ({ type: 'FIELD_VIOLATION' as const, ...v })),
    ]);
  }
}

export class NotFound extends ApiError {
  constructor(what: string) {
    super('NOT_FOUND', `${what} not found`);
  }
}

export class AlreadyExists extends ApiError {
  constructor(message: string, field?: string) {
    super('ALREADY_EXISTS', message, field ? [{ type: 'FIELD_VIOLATION', field, description: message }] : []);
  }
}

export class Aborted extends ApiError {
  constructor(message: string, current: unknown) {
    super('ABORTED', message, [{ type: 'RESOURCE_INFO', resource: current }]);
  }
}

export class ResourceExhausted extends ApiError {
  constructor(message: string, retryAfterSeconds: number) {
    super('RESOURCE_EXHAUSTED', message, [{ type: 'RETRY_INFO', retry_delay: `${Math.max(1, Math.ceil(retryAfterSeconds))}s` }]);
  }
  get retryAfterSeconds(): number {
    const d = this.details.find((x) => x.type === 'RETRY_INFO') as { retry_delay: string } | undefined;
    return d ? parseInt(d.retry_delay, 10) : 1;
  }
}

export class Cancelled extends ApiError {
  constructor(message = 'the operation was cancelled') {
    super('CANCELLED', message);
  }
}

export class Unavailable extends ApiError {
  constructor(message: string, reason?: string) {
    super('UNAVAILABLE', message, reason ? [{ type: 'PRECONDITION_FAILURE', reason }] : []);
  }
}

/**
 * A method the path does not serve (`PUT` on a collection): HTTP 405 with `Allow`, status
 * UNIMPLEMENTED. RFC 9110 requires the 405 and its `Allow` header; no canonical status maps to 405,
 * and UNIMPLEMENTED ("not implemented or not supported") is what the method is on this path.
 */
export class MethodNotAllowed extends ApiError {
  override readonly httpCode = 405;
  constructor(
    method: string,
    path: string,
    readonly allow: string[],
  ) {
    super('UNIMPLEMENTED', `${method} is not a method of ${path}; use ${allow.join(', ')}`);
  }
}

export class Internal extends ApiError {
  constructor(message = 'internal error') {
    super('INTERNAL', message);
  }
}

export interface ErrorBody {
  error: { code: number; status: CanonicalStatus; message: string; details: ErrorDetail[] };
}

/** The canonical body; `requestId` becomes the REQUEST_INFO detail every error carries. */
export function renderError(err: ApiError, requestId: string | undefined): ErrorBody {
  const details: ErrorDetail[] = err.details
    .filter((d) => d.type !== 'REQUEST_INFO')
    .map((d) =>
      d.type === 'FIELD_VIOLATION'
        ? { ...d, field: clip(d.field, 512), description: clip(d.description, 2000) }
        : d.type === 'PRECONDITION_FAILURE' && d.description !== undefined
          ? { ...d, description: clip(d.description, 2000) }
          : d,
    );
  if (requestId) details.push({ type: 'REQUEST_INFO', request_id: requestId });
  return { error: { code: err.httpCode, status: err.status, message: clip(err.message, 10_000), details } };
}

const RENDERED = Symbol('renderedWithoutRequestInfo');

/**
 * `JSON.stringify(renderError(err, requestId))`, made from the error's body without its REQUEST_INFO,
 * serialized once per error: a refusal reused for every request that earns it (access.ts) costs one
 * string join, not a render and a stringify.
 */
export function renderErrorJson(err: ApiError, requestId: string): string {
  const held = err as ApiError & { [RENDERED]?: string };
  const rendered = (held[RENDERED] ??= JSON.stringify(renderError(err, undefined)));
  // `…"details":[…]}}`: the request's detail goes last in the list, as renderError puts it.
  const head = rendered.slice(0, -3);
  return `${head}${head.endsWith('[') ? '' : ','}{"type":"REQUEST_INFO","request_id":${JSON.stringify(requestId)}}]}}`;
}

/**
 * Text cut to the bound the error shape documents (openapi-shapes.ts), in code points: a field
 * path built from a client's own huge keys must shorten, not fail serialisation with a 500.
 */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const points = Array.from(text);
  return points.length <= max ? text : `${points.slice(0, max - 1).join('')}…`;
}
