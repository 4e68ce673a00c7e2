/**
 * The canonical error body made humane: field violations placed on their controls, everything else
 * one sentence with the reference a person can quote, the current resource of a conflict, and when
 * to retry.
 */

/** One typed detail of the canonical error body. */
export type ErrorDetail =
  | { type: 'FIELD_VIOLATION'; field: string; description: string }
  | { type: 'REQUEST_INFO'; request_id: string }
  | { type: 'RESOURCE_INFO'; resource: Record<string, unknown> }
  | { type: 'RETRY_INFO'; retry_delay: string }
  | { type: 'PRECONDITION_FAILURE'; reason: string; description?: string }
  | { type: string; [key: string]: unknown };

/** The `error` member of the canonical body. */
export interface CanonicalError {
  code: number;
  status: string;
  message: string;
  details?: ErrorDetail[];
}

/** What a screen shows for a failed call. */
export interface MappedError {
  status: string;
  code: number;
  /** The server's message, for the general notice. */
  message: string;
  /** The reference of the server's log entry (REQUEST_INFO), to quote when reporting. */
  requestId?: string;
  /** Violations placed on a control, by the control's path. */
  fieldErrors: Record<string, string>;
  /** Violations that name no control of the form (a parameter, a header, a field not shown). */
  otherViolations: { field: string; description: string }[];
  /** ABORTED: the resource as it is now (RESOURCE_INFO). */
  current?: Record<string, unknown>;
  /** RESOURCE_EXHAUSTED / UNAVAILABLE: seconds to wait (RETRY_INFO). */
  retryAfterSeconds?: number;
  /** FAILED_PRECONDITION reason code (`NO_USABLE_CONNECTION`, ...). */
  reason?: string;
  /** One sentence for the general notice, ending with the reference. */
  summary: string;
}

const PLAIN: Record<string, string> = {
  INVALID_ARGUMENT: 'Some values need fixing.',
  FAILED_PRECONDITION: 'This cannot be done right now.',
  OUT_OF_RANGE: 'A value is out of range.',
  UNAUTHENTICATED: 'Your session has ended; please sign in again.',
  PERMISSION_DENIED: 'Your role does not allow this.',
  NOT_FOUND: 'It no longer exists, or you cannot see it.',
  ALREADY_EXISTS: 'Something with these values already exists.',
  ABORTED: 'Someone else changed this while you were editing.',
  RESOURCE_EXHAUSTED: 'Too many requests or a quota is used up.',
  CANCELLED: 'The work was cancelled.',
  INTERNAL: 'Something went wrong on our side.',
  UNIMPLEMENTED: 'This is not available.',
  UNAVAILABLE: 'The service is briefly unavailable.',
  DEADLINE_EXCEEDED: 'This took too long.',
};

/**
 * The canonical error inside whatever was thrown or answered: an SDK `ApiError` (carries `code`,
 * `status`, `details`, `requestId`), a `{error: {...}}` body, the `error` member itself, or anything
 * else (a network failure), which becomes UNAVAILABLE with its message.
 */
export function canonicalErrorOf(thrown: unknown): { error: CanonicalError; requestId?: string } {
  if (thrown && typeof thrown === 'object') {
    const o = thrown as Record<string, unknown>;
    if (o.error && typeof o.error === 'object' && typeof (o.error as CanonicalError).status === 'string') {
      return { error: o.error as CanonicalError };
    }
    if (typeof o.status === 'string' && typeof o.code === 'number') {
      return {
        error: { code: o.code, status: o.status, message: String(o.message ?? ''), details: (o.details as ErrorDetail[]) ?? [] },
        ...(typeof o.requestId === 'string' && { requestId: o.requestId }),
      };
    }
  }
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  return { error: { code: 503, status: 'UNAVAILABLE', message: `The server could not be reached (${message}).`, details: [] } };
}

/**
 * `widgets[0].settings.interval` and `widgets.0.settings.interval` → `widgets.0.settings.interval`:
 * the server names array items either way; controls are keyed by dotted paths.
 */
export const normalizeFieldPath = (field: string): string => field.replace(/\[(\d+)\]/g, '.$1').replace(/^\./, '');

/**
 * The control a violation belongs on: the control of that exact path, else the nearest enclosing
 * one (`widgets.0.settings.interval` on the `widgets` JSON control, `attributes.color` on
 * `attributes`); undefined when the form has no control for it.
 */
export function placeField(field: string, controlPaths: readonly string[]): string | undefined {
  const parts = normalizeFieldPath(field).split('.');
  for (let n = parts.length; n > 0; n--) {
    const candidate = parts.slice(0, n).join('.');
    if (controlPaths.includes(candidate)) return candidate;
  }
  return undefined;
}

/** `30s` → 30. */
const seconds = (delay: string) => {
  const match = /^(\d+(?:\.\d+)?)s$/.exec(delay.trim());
  return match ? Number(match[1]) : undefined;
};

/** Maps a failure onto a form with these controls (their dotted paths). */
export function mapError(thrown: unknown, controlPaths: readonly string[] = []): MappedError {
  const { error, requestId: fromHeader } = canonicalErrorOf(thrown);
  const details = error.details ?? [];
  const fieldErrors: Record<string, string> = {};
  const otherViolations: { field: string; description: string }[] = [];
  let requestId = fromHeader;
  let current: Record<string, unknown> | undefined;
  let retryAfterSeconds: number | undefined;
  let reason: string | undefined;
  for (const d of details) {
    switch (d.type) {
      case 'FIELD_VIOLATION': {
        const v = d as { field: string; description: string };
        const place = placeField(v.field, controlPaths);
        if (place === undefined) otherViolations.push({ field: v.field, description: v.description });
        else {
          // A violation inside a control (`widgets.0.settings.interval` on `widgets`) says where.
          const text = place === normalizeFieldPath(v.field) ? v.description : `${normalizeFieldPath(v.field).slice(place.length + 1)}: ${v.description}`;
          fieldErrors[place] = fieldErrors[place] ? `${fieldErrors[place]} ${text}` : text;
        }
        break;
      }
      case 'REQUEST_INFO':
        requestId = String((d as { request_id: string }).request_id);
        break;
      case 'RESOURCE_INFO':
        current = (d as { resource: Record<string, unknown> }).resource;
        break;
      case 'RETRY_INFO':
        retryAfterSeconds = seconds(String((d as { retry_delay: string }).retry_delay));
        break;
      case 'PRECONDITION_FAILURE':
        reason = String((d as { reason: string }).reason);
        break;
    }
  }
  const plain = PLAIN[error.status] ?? 'The request failed.';
  const parts = [plain];
  if (error.message && error.message !== plain) parts.push(error.message.endsWith('.') ? error.message : `${error.message}.`);
  for (const v of otherViolations) parts.push(`${v.field}: ${v.description}`);
  if (retryAfterSeconds !== undefined) parts.push(`Try again in ${retryAfterSeconds} s.`);
  if (requestId) parts.push(`Reference: ${requestId}`);
  return {
    status: error.status,
    code: error.code,
    message: error.message,
    fieldErrors,
    otherViolations,
    summary: parts.join(' '),
    ...(requestId && { requestId }),
    ...(current && { current }),
    ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
    ...(reason && { reason }),
  };
}
