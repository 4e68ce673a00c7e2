/**
 * Calls of the generated screens through the SDK's client. The screens address operations by the
 * model's path templates, known only at run time, so the typed client is used untyped here; the
 * SDK still adds the token, refreshes it, retries 429/503 and throws ApiError on failures.
 */
import { multipart, type SignedInClient } from '@siteplatform/sdk';
import type { Endpoint } from '../lib/openapi-model/types.js';

export interface CallOptions {
  params: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
  body?: Record<string, unknown>;
  /** The etag the write is based on (`If-Match`); a stale one answers 409 ABORTED with the current resource. */
  ifMatch?: string;
  signal?: AbortSignal;
}

type Untyped = Record<'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', (path: string, init: Record<string, unknown>) => Promise<{ data?: unknown; response: Response }>>;

/** Calls one operation and answers its body (undefined for 204). */
export async function call<T = Record<string, unknown>>(api: SignedInClient, endpoint: Endpoint, opts: CallOptions): Promise<T> {
  const pathParams = Object.fromEntries(endpoint.pathParams.map((name) => [name, opts.params[name]]));
  for (const [name, value] of Object.entries(pathParams)) if (value === undefined) throw new Error(`${endpoint.operationId} needs ${name}`);
  const query = Object.fromEntries(Object.entries(opts.query ?? {}).filter(([, v]) => v !== undefined && v !== ''));
  const init: Record<string, unknown> = {
    params: { path: pathParams, query, ...(opts.ifMatch && endpoint.ifMatch && { header: { 'If-Match': quoteEtag(opts.ifMatch) } }) },
    ...(opts.signal && { signal: opts.signal }),
  };
  if (endpoint.requestSchema) {
    const body = opts.body ?? {};
    if (endpoint.requestMediaType === 'multipart/form-data') {
      init.body = body;
      init.bodySerializer = (b: Record<string, unknown>) =>
        multipart(Object.fromEntries(Object.entries(b).map(([k, v]) => [k, v instanceof Blob || v === null || v === undefined ? v : String(v)])) as Record<string, string | Blob>);
    } else init.body = body;
  }
  const method = endpoint.method.toUpperCase() as keyof Untyped;
  const { data } = await (api as unknown as Untyped)[method](endpoint.path, init);
  return data as T;
}

/** Etags go out quoted, as HTTP spells them (the API accepts both). */
const quoteEtag = (etag: string) => (etag.startsWith('"') || etag.startsWith('W/') ? etag : `"${etag}"`);

/** Query-cache keys: everything under a resource key is invalidated after a write to it. */
export const queryKeys = {
  resource: (key: string) => ['generic', key] as const,
  list: (key: string, params: Record<string, string>, query: Record<string, unknown>) => ['generic', key, 'list', params, query] as const,
  item: (key: string, params: Record<string, string>) => ['generic', key, 'item', params] as const,
};
