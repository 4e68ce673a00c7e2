import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { CheckedUrl } from './url-safety.js';

/** Bytes of a receiver's answer kept in the delivery log; the rest is not read. */
export const RESPONSE_EXCERPT_BYTES = 1024;

export interface PostResult {
  statusCode: number | null;
  durationMs: number;
  excerpt: string | null;
  error: string | null;
}

/**
 * One POST to an address checked beforehand: the connection goes to `address` (the lookup answers it
 * instead of asking DNS again, so a rebinding between check and connect cannot move it), while the
 * Host header and TLS name stay the URL's. Redirects are not followed (node's client never does; a
 * 3xx is a failed attempt). The whole exchange is bounded by `timeoutMs`; at most
 * RESPONSE_EXCERPT_BYTES of the body are read, then the socket is dropped.
 */
export function postOnce(target: CheckedUrl, address: { address: string; family: 4 | 6 }, headers: Record<string, string>, body: string, timeoutMs: number): Promise<PostResult> {
  const started = performance.now();
  const lookup: LookupFunction = (_host, options, callback) => {
    // With `all`, node expects the list form, which LookupFunction's callback type does not state.
    if ((options as { all?: boolean }).all) (callback as unknown as (err: null, addresses: LookupAddress[]) => void)(null, [{ address: address.address, family: address.family }]);
    else callback(null, address.address, address.family);
  };
  const send = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<PostResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: Math.round(performance.now() - started) });
    };
    const req = send(
      target.url,
      {
        method: 'POST',
        lookup,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'SitePlatform-Webhooks/1' },
        // A fresh connection per attempt: a pooled socket could have been opened to an address checked earlier.
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          const excerpt = Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8');
          finish({ statusCode: res.statusCode ?? null, excerpt: excerpt || null, error: null });
          res.destroy();
        };
        res.on('data', (chunk: Buffer) => {
          if (size < RESPONSE_EXCERPT_BYTES) chunks.push(chunk);
          size += chunk.length;
          if (size >= RESPONSE_EXCERPT_BYTES) done();
        });
        res.on('end', done);
        res.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      finish({ statusCode: null, excerpt: null, error: `no answer within ${timeoutMs} ms` });
      req.destroy();
    }, timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => finish({ statusCode: null, excerpt: null, error: `${err.code ?? 'ERROR'} ${err.message}`.slice(0, 300) }));
    req.end(body);
  });
}
