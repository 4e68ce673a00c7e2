/**
 * TypeScript SDK of the Tenant and Sign-up APIs: openapi-fetch clients typed by the types
 * generated from the committed OpenAPI (./tenant-api.d.ts, ./site-api.d.ts; never edited by hand),
 * plus what every client otherwise writes by hand: retries on 429/503 honouring Retry-After,
 * errors as typed exceptions, a page-token iterator, Operation polling with backoff, and the
 * If-Match read-modify-write loop.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, paths as TenantPaths } from './tenant-api.js';
import type { paths as SitePaths } from './site-api.js';

export type { TenantPaths, SitePaths };
export type Schemas = components['schemas'];
export type ErrorDetail = Schemas['ErrorDetail'];
export type TenantClient = Client<TenantPaths>;
export type SiteClient = Client<SitePaths>;

/** Any failure answer (or a failed Operation), with what a caller branches on. */
export class ApiError extends Error {
  /** HTTP status of the answer (`error.code`). */
  readonly code: number;
  /** Canonical status to branch on, e.g. `NOT_FOUND`, `ABORTED`. */
  readonly status: Schemas['Error']['status'];
  readonly details: ErrorDetail[];
  /** The reference id of the server's log entry (the `REQUEST_INFO` detail, else `x-request-id`). */
  readonly requestId: string | undefined;

  constructor(error: Schemas['Error'], requestIdHeader?: string | null) {
    super(`${error.status} (${error.code}): ${error.message}`);
    this.name = 'ApiError';
    this.code = error.code;
    this.status = error.status;
    this.details = error.details ?? [];
    this.requestId = this.detail('REQUEST_INFO')?.request_id ?? requestIdHeader ?? undefined;
  }

  /** The first detail of a type, typed as that detail. */
  detail<T extends ErrorDetail['type']>(type: T): Extract<ErrorDetail, { type: T }> | undefined {
    return this.details.find((d): d is Extract<ErrorDetail, { type: T }> => d.type === type);
  }
}

export interface ClientOptions {
  /** Where the platform answers, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** Bearer token (from `users:authenticate` or `users:exchange_handoff`). */
  token?: string;
  /** Retries of a 429 or 503 answer (default 3); each waits for Retry-After. */
  maxRetries?: number;
  /** Upper bound of one wait, whatever Retry-After says (default 30 s). */
  maxRetryDelayMs?: number;
  /** Called before each retry (for logging). */
  onRetry?: (info: { attempt: number; status: number; delayMs: number; url: string }) => void;
  fetch?: typeof globalThis.fetch;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Retry-After as seconds or an HTTP date; a missing or unreadable one waits 1 s. */
function retryDelayMs(header: string | null, cap: number): number {
  let ms = 1000;
  if (header && /^\d+$/.test(header.trim())) ms = Number(header) * 1000;
  else if (header && !Number.isNaN(Date.parse(header))) ms = Math.max(0, Date.parse(header) - Date.now());
  return Math.min(ms, cap);
}

/**
 * A fetch that retries 429 and 503 after Retry-After. Both answers mean nothing was done (SPEC 7:
 * UNAVAILABLE changes nothing; RESOURCE_EXHAUSTED refuses before acting), so repeating is safe for
 * every method. Lives below openapi-fetch (not in a middleware) because a retry needs the request
 * body again, which only an unconsumed clone of the Request still has.
 */
function retryingFetch(opts: ClientOptions): (request: Request) => Promise<Response> {
  const base = opts.fetch ?? globalThis.fetch;
  const maxRetries = opts.maxRetries ?? 3;
  const cap = opts.maxRetryDelayMs ?? 30_000;
  return async (request) => {
    for (let attempt = 1; ; attempt++) {
      const response = await base(attempt <= maxRetries ? request.clone() : request);
      if ((response.status !== 429 && response.status !== 503) || attempt > maxRetries) return response;
      const delayMs = retryDelayMs(response.headers.get('retry-after'), cap);
      opts.onRetry?.({ attempt, status: response.status, delayMs, url: request.url });
      await response.body?.cancel();
      await sleep(delayMs);
    }
  };
}

/** Turns every failure answer into an ApiError, so a call that returns has succeeded. */
const throwErrors: Middleware = {
  async onResponse({ response }) {
    if (response.ok || response.status === 304) return undefined;
    const requestId = response.headers.get('x-request-id');
    const body = (await response.clone().json().catch(() => undefined)) as Schemas['ErrorResponse'] | undefined;
    throw new ApiError(
      body?.error ?? { code: response.status, status: 'INTERNAL', message: `HTTP ${response.status} without an error body`, details: [] },
      requestId,
    );
  },
};

function configure<P extends {}>(opts: ClientOptions): Client<P> {
  const client = createClient<P>({
    baseUrl: opts.baseUrl,
    fetch: retryingFetch(opts),
    headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
  });
  client.use(throwErrors);
  return client;
}

/** Client of the tenant API (`/tenant-api/v1/...`). */
export const createTenantClient = (opts: ClientOptions): TenantClient => configure<TenantPaths>(opts);
/** Client of the sign-up surface (`/site-api/v1/...`). */
export const createSiteClient = (opts: ClientOptions): SiteClient => configure<SitePaths>(opts);

/**
 * The data of a call. The clients throw ApiError on every failure, so a returned result always
 * has data; this only narrows openapi-fetch's `{data} | {error}` result type.
 */
export async function data<R extends { data?: unknown; response: Response }>(call: Promise<R>): Promise<NonNullable<R['data']>> {
  const result = await call;
  if (result.data === undefined) throw new Error(`no body in the ${result.response.status} answer of ${result.response.url}`);
  return result.data as NonNullable<R['data']>;
}

// ---- Lists ---------------------------------------------------------------------------------------

type Get<P extends keyof TenantPaths> = TenantPaths[P] extends { get: infer O } ? O : never;
type ListPath = {
  [P in keyof TenantPaths]: Get<P> extends { parameters: { query?: { page_token?: string } } } ? P : never;
}[keyof TenantPaths];
type GetParams<P extends keyof TenantPaths> = Get<P> extends { parameters: infer Q } ? Q : never;
type GetBody<P extends keyof TenantPaths> = Get<P> extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;
/** The resource type of a List: the element of its envelope's one array. */
export type ListItem<P extends ListPath> = { [K in keyof GetBody<P>]: GetBody<P>[K] extends (infer I)[] ? I : never }[keyof GetBody<P>];
export type ListParams<P extends ListPath> = Omit<GetParams<P>, 'query'> & {
  query?: Omit<NonNullable<GetParams<P> extends { query?: infer Q } ? Q : never>, 'page_token'>;
};

/**
 * Every resource of a List, page by page, following `next_page_token` until it is empty (SPEC
 * 4.2). `params.query` (filter, order_by, page_size) is sent with every page, as a token is only
 * valid with the filter and order it was minted under.
 */
export async function* paginate<P extends ListPath>(client: TenantClient, path: P, params: ListParams<P>): AsyncGenerator<ListItem<P>> {
  let pageToken: string | undefined;
  do {
    const query = { ...(params.query ?? {}), ...(pageToken ? { page_token: pageToken } : {}) };
    // The path is generic here; its parameters are checked at the call site (ListParams<P>).
    const page = (await data((client.GET as any)(path, { params: { ...params, query } }))) as Record<string, unknown>;
    const items = Object.values(page).find(Array.isArray) as ListItem<P>[] | undefined;
    yield* items ?? [];
    pageToken = typeof page.next_page_token === 'string' && page.next_page_token !== '' ? page.next_page_token : undefined;
  } while (pageToken);
}

// ---- Operations ----------------------------------------------------------------------------------

export interface PollOptions {
  /** First wait between polls (default 100 ms); each wait is 1.5 times the previous. */
  initialDelayMs?: number;
  /** Longest wait between polls (default 5 s). */
  maxDelayMs?: number;
  /** Give up after this long (default 120 s). */
  timeoutMs?: number;
}

/**
 * Polls an Operation (`websites/{website}/operations/{operation}`) until done, with exponential
 * backoff. Answers the done Operation; a failed one throws its error as an ApiError.
 */
export async function waitForOperation(client: TenantClient, name: string, opts: PollOptions = {}): Promise<Schemas['Operation']> {
  const match = /^websites\/([^/]+)\/operations\/([^/]+)$/.exec(name);
  if (!match) throw new Error(`not an Operation name: ${name}`);
  const [, websiteId, operationId] = match as unknown as [string, string, string];
  const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
  let delay = opts.initialDelayMs ?? 100;
  for (;;) {
    const op = await data(
      client.GET('/tenant-api/v1/websites/{website_id}/operations/{operation_id}', { params: { path: { website_id: websiteId, operation_id: operationId } } }),
    );
    if (op.done) {
      if (op.error) throw new ApiError(op.error);
      return op;
    }
    if (Date.now() + delay > deadline) throw new Error(`operation ${name} not done after ${opts.timeoutMs ?? 120_000} ms`);
    await sleep(delay);
    delay = Math.min(delay * 1.5, opts.maxDelayMs ?? 5000);
  }
}

// ---- Read-modify-write ---------------------------------------------------------------------------

type Patch<P extends keyof TenantPaths> = TenantPaths[P] extends { patch: infer O } ? O : never;
type RmwPath = {
  [P in keyof TenantPaths]: Patch<P> extends { requestBody?: unknown } ? (GetBody<P> extends { etag: string } ? P : never) : never;
}[keyof TenantPaths];
type PatchBody<P extends keyof TenantPaths> = Patch<P> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type PathParams<P extends keyof TenantPaths> = GetParams<P> extends { path: infer X } ? X : never;

/**
 * The If-Match loop: read the resource, compute the change from it, write it with `If-Match: etag`;
 * when someone else wrote in between (409 ABORTED) compute again from the current resource the
 * error carries (its RESOURCE_INFO detail) and retry, up to `maxAttempts` (default 5) writes.
 */
export async function readModifyWrite<P extends RmwPath>(
  client: TenantClient,
  path: P,
  pathParams: PathParams<P>,
  modify: (current: GetBody<P>, attempt: number) => PatchBody<P> | Promise<PatchBody<P>>,
  opts: { maxAttempts?: number } = {},
): Promise<GetBody<P>> {
  // Generic path: parameters and bodies are checked at the call site through P.
  const call = client as unknown as Record<'GET' | 'PATCH', (path: string, init: unknown) => Promise<{ data?: unknown; response: Response }>>;
  let current = (await data(call.GET(path, { params: { path: pathParams } }))) as GetBody<P> & { etag: string };
  const maxAttempts = opts.maxAttempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    const body = await modify(current, attempt);
    try {
      return (await data(call.PATCH(path, { params: { path: pathParams, header: { 'If-Match': current.etag } }, body }))) as GetBody<P>;
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 'ABORTED' || attempt >= maxAttempts) throw err;
      const fresh = err.detail('RESOURCE_INFO')?.resource as (GetBody<P> & { etag: string }) | undefined;
      current = fresh ?? ((await data(call.GET(path, { params: { path: pathParams } }))) as GetBody<P> & { etag: string });
    }
  }
}

// ---- Uploads -------------------------------------------------------------------------------------

/**
 * Body serializer of multipart bodies (media upload: the file in part `file`, the other fields
 * plain parts): `client.POST(path, { params, body, bodySerializer: multipart })`.
 */
export function multipart(body: Record<string, string | Blob | null | undefined>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(body)) if (value !== undefined && value !== null) form.append(name, value);
  return form;
}
