/**
 * The canonical error contract (SPEC 7, RUNTIME.md), checked the same way everywhere: the body is
 * exactly `{error: {code, status, message, details}}`, `code` is the HTTP status, `code` and `status`
 * agree (`HTTP_STATUS_OF`; a 405 is UNIMPLEMENTED, docs/decisions.md), and one REQUEST_INFO carries
 * the request id the `x-request-id` header carries.
 */
import { HTTP_STATUS_OF } from '../../src/platform/errors.js';

interface Answer {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

/** Whether `status` is the canonical status of HTTP `code`. */
export function statusAgrees(code: number, status: string): boolean {
  if (code === 405) return status === 'UNIMPLEMENTED';
  return (HTTP_STATUS_OF as Record<string, number>)[status] === code;
}

/** What is wrong with an error answer, or undefined when it is canonical. */
export function canonicalErrorProblem(res: Answer): string | undefined {
  if (res.statusCode < 400) return `status ${res.statusCode} is not an error`;
  if (!String(res.headers['content-type'] ?? '').startsWith('application/json')) return `content-type ${String(res.headers['content-type'])}`;
  let body: any;
  try {
    body = JSON.parse(res.body);
  } catch {
    return `body is not JSON: ${res.body.slice(0, 200)}`;
  }
  if (!body || typeof body !== 'object' || Object.keys(body).join() !== 'error') return `body is not {error}: ${res.body.slice(0, 200)}`;
  const { error } = body;
  if (Object.keys(error).sort().join() !== 'code,details,message,status') return `error has keys ${Object.keys(error).join()}`;
  if (error.code !== res.statusCode) return `code ${error.code} is not the HTTP status ${res.statusCode}`;
  if (!statusAgrees(error.code, error.status)) return `code ${error.code} disagrees with status ${error.status}`;
  if (typeof error.message !== 'string' || error.message === '') return 'message is not a non-empty string';
  if (!Array.isArray(error.details) || error.details.some((d: any) => !d || typeof d.type !== 'string')) return 'details are not typed objects';
  const info = error.details.filter((d: any) => d.type === 'REQUEST_INFO');
  if (info.length !== 1) return `${info.length} REQUEST_INFO details`;
  if (info[0].request_id !== res.headers['x-request-id']) return `REQUEST_INFO ${info[0].request_id} is not x-request-id ${String(res.headers['x-request-id'])}`;
  return undefined;
}
