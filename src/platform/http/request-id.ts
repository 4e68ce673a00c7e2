import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * What a client may choose as its request id (`X-Request-Id`): 1–128 characters of
 * `[A-Za-z0-9._:-]`, the alphabet of the ids proxies and tracing systems generate (UUIDs, W3C trace
 * ids, `req_…`). Anything else (empty, too long, spaces, quotes, control characters) could break a log
 * line or a header and is replaced by one of ours.
 */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A fresh server request id. */
export function newRequestId(): string {
  return `req_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
}

/** The request id of a request: the client's well-formed `X-Request-Id`, else a fresh one. */
export function requestIdOf(request: IncomingMessage): string {
  const sent = request.headers['x-request-id'];
  return typeof sent === 'string' && CLIENT_REQUEST_ID.test(sent) ? sent : newRequestId();
}
