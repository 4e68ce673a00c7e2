/**
 * The calls the content editors make, one shape for pages, blocks and posts (and their overlays):
 * the SDK's client addressed by path template (each a path of the tenant API's types), so one
 * editor serves several collections. The SDK adds the token, retries 429/503 and throws ApiError.
 */
import type { SignedInClient, TenantPaths } from '@siteplatform/sdk';

type Untyped = Record<'GET' | 'POST' | 'PATCH' | 'DELETE', (path: string, init: Record<string, unknown>) => Promise<{ data?: unknown; response: Response }>>;

export interface RestOptions {
  path: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  ifMatch?: string;
}

const quoteEtag = (etag: string) => (etag.startsWith('"') || etag.startsWith('W/') ? etag : `"${etag}"`);

export async function rest<T>(api: SignedInClient, method: keyof Untyped, template: keyof TenantPaths, opts: RestOptions): Promise<T> {
  const query = Object.fromEntries(Object.entries(opts.query ?? {}).filter(([, v]) => v !== undefined && v !== ''));
  const init: Record<string, unknown> = { params: { path: opts.path, query, ...(opts.ifMatch && { header: { 'If-Match': quoteEtag(opts.ifMatch) } }) } };
  if (opts.body !== undefined) init.body = opts.body;
  const { data } = await (api as unknown as Untyped)[method](template, init);
  return data as T;
}
