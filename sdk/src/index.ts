/**
 * TypeScript SDK of the Tenant and Sign-up APIs: openapi-fetch clients typed by the types
 * generated from the committed OpenAPI (./tenant-api.d.ts, ./site-api.d.ts; never edited by hand),
 * plus what every client otherwise writes by hand: signing in (with token refresh), errors as
 * typed exceptions, retries on 429/503 honouring Retry-After, a page-token iterator, "my websites",
 * Operation polling with backoff, and the If-Match read-modify-write loop.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, paths as TenantPaths } from './tenant-api.js';
import type { components as SiteComponents, paths as SitePaths } from './site-api.js';

export type { TenantPaths, SitePaths };
export type Schemas = components['schemas'];
/** Schemas of the sign-up surface. */
export type SiteSchemas = SiteComponents['schemas'];
export type ErrorDetail = Schemas['ErrorDetail'];
export type FieldViolation = Schemas['FieldViolation'];
/** The canonical error body every failure answers: `{error: {code, status, message, details}}`. */
export type ErrorBody = Schemas['ErrorResponse'];
export type TenantClient = Client<TenantPaths>;
export type SiteClient = Client<SitePaths>;

/**
 * Any failure answer (or a failed Operation), carrying the canonical error body. `message` is the
 * server's message (for humans); programs branch on `status` and read `details`.
 */
export class ApiError extends Error {
  /** HTTP status of the answer (`error.code`). */
  readonly code: number;
  /** Canonical status to branch on, e.g. `NOT_FOUND`, `ABORTED`. */
  readonly status: Schemas['Error']['status'];
  readonly details: ErrorDetail[];
  /** The reference id of the server's log entry (the `REQUEST_INFO` detail, else `x-request-id`). */
  readonly requestId: string | undefined;
  /** The body as received, `{error: {code, status, message, details}}`. */
  readonly body: ErrorBody;

  constructor(error: Schemas['Error'], requestIdHeader?: string | null) {
    super(error.message);
    this.name = 'ApiError';
    this.code = error.code;
    this.status = error.status;
    this.details = error.details ?? [];
    this.body = { error: { ...error, details: this.details } };
    this.requestId = this.detail('REQUEST_INFO')?.request_id ?? requestIdHeader ?? undefined;
  }

  /** Whether `err` is an ApiError, and (given) one of these statuses: `if (ApiError.is(e, 'NOT_FOUND')) ...`. */
  static is(err: unknown, ...statuses: Schemas['Error']['status'][]): err is ApiError {
    return err instanceof ApiError && (statuses.length === 0 || statuses.includes(err.status));
  }

  /** The first detail of a type, typed as that detail. */
  detail<T extends ErrorDetail['type']>(type: T): Extract<ErrorDetail, { type: T }> | undefined {
    return this.details.find((d): d is Extract<ErrorDetail, { type: T }> => d.type === type);
  }

  /** Every `FIELD_VIOLATION` detail: which field (dotted path, or a parameter or header name) and what is wrong. */
  get fieldViolations(): FieldViolation[] {
    return this.details.filter((d): d is FieldViolation => d.type === 'FIELD_VIOLATION');
  }

  /** What is wrong with one field (its `FIELD_VIOLATION` description), or undefined when it is fine. */
  violation(field: string): string | undefined {
    return this.fieldViolations.find((v) => v.field === field)?.description;
  }

  /** The `PRECONDITION_FAILURE` reason, e.g. `CAPTCHA_FAILED`, `NO_USABLE_CONNECTION`. */
  get reason(): string | undefined {
    return this.detail('PRECONDITION_FAILURE')?.reason;
  }

  /** The current resource an `ABORTED` (stale `If-Match`) carries in its `RESOURCE_INFO` detail. */
  get currentResource(): Record<string, unknown> | undefined {
    return this.detail('RESOURCE_INFO')?.resource as Record<string, unknown> | undefined;
  }

  override toString(): string {
    return `ApiError ${this.status} (${this.code}): ${this.message}${this.requestId ? ` [${this.requestId}]` : ''}`;
  }

  /** `JSON.stringify(error)` is the canonical error body. */
  toJSON(): ErrorBody {
    return this.body;
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

function configure<P extends {}>(opts: ClientOptions, session?: TokenSession): Client<P> {
  const client = createClient<P>({
    baseUrl: opts.baseUrl,
    fetch: retryingFetch(opts),
    headers: opts.token && !session ? { authorization: `Bearer ${opts.token}` } : {},
  });
  if (session) client.use(session.middleware);
  client.use(throwErrors);
  return client;
}

/** Client of the tenant API (`/tenant-api/v1/...`), with a fixed token or none; `signIn` gives one that refreshes its token. */
export const createTenantClient = (opts: ClientOptions): TenantClient => configure<TenantPaths>(opts);
/** Client of the sign-up surface (`/site-api/v1/...`). */
export const createSiteClient = (opts: ClientOptions): SiteClient => configure<SitePaths>(opts);

// ---- Signing in ----------------------------------------------------------------------------------

/** A bearer token and when it stops working, as `users:authenticate` answers it. */
export interface Token {
  token: string;
  expireTime: Date;
}

/** The token a signed-in client sends, renewed through `users:refresh_token` before it expires. */
export interface Session {
  /** The token sent now. */
  readonly token: string;
  readonly expireTime: Date;
  /** Trades the current (still valid) token for a fresh one with a full lifetime, in the same session. */
  refresh(): Promise<Token>;
}

/** A tenant client that signs its calls with a session's token and refreshes it on its own. */
export type SignedInClient = TenantClient & { readonly session: Session };

export interface SessionOptions extends Omit<ClientOptions, 'token'> {
  /**
   * Refresh the token when less than this is left of its life (default 60 s, at most half the
   * lifetime). A token that expired anyway (a sleeping laptop) cannot be refreshed: sign in again.
   */
  refreshBeforeMs?: number;
  /** Called with every new token (to keep it, e.g. in a browser's session storage). */
  onToken?: (token: Token) => void;
}

const tokenOf = (answer: { token: string; expire_time: string }): Token => ({ token: answer.token, expireTime: new Date(answer.expire_time) });

class TokenSession implements Session {
  private current: Token;
  /** The lifetime the server gives tokens, learnt from one it issued to us (unknown for a token handed in). */
  private lifetimeMs: number | undefined;
  private refreshing: Promise<Token> | undefined;
  private readonly bare: TenantClient;

  constructor(
    private readonly opts: SessionOptions,
    first: Token,
    fresh: boolean,
  ) {
    this.current = first;
    if (fresh) this.lifetimeMs = first.expireTime.getTime() - Date.now();
    // Refresh calls go through a client without this session, so they never wait on themselves.
    this.bare = configure<TenantPaths>({ ...opts, token: undefined });
  }

  get token() {
    return this.current.token;
  }
  get expireTime() {
    return this.current.expireTime;
  }

  refresh(): Promise<Token> {
    // One refresh at a time: concurrent calls near expiry share it.
    this.refreshing ??= (async () => {
      try {
        const answer = await data(this.bare.POST('/tenant-api/v1/users:refresh_token', { headers: { authorization: `Bearer ${this.current.token}` } }));
        this.current = tokenOf(answer);
        this.lifetimeMs = this.current.expireTime.getTime() - Date.now();
        this.opts.onToken?.(this.current);
        return this.current;
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  /** Sets `Authorization` on every request, refreshing first when the token is close to its end. */
  readonly middleware: Middleware = {
    onRequest: async ({ request }) => {
      // At most half a lifetime early, so short-lived tokens are not refreshed on every call.
      const wanted = this.opts.refreshBeforeMs ?? 60_000;
      const margin = this.lifetimeMs === undefined ? wanted : Math.min(wanted, this.lifetimeMs / 2);
      if (this.current.expireTime.getTime() - Date.now() < margin) await this.refresh();
      request.headers.set('authorization', `Bearer ${this.current.token}`);
      return request;
    },
  };
}

function sessionClient(opts: SessionOptions, first: Token, fresh: boolean): SignedInClient {
  const session = new TokenSession(opts, first, fresh);
  return Object.assign(configure<TenantPaths>(opts, session), { session });
}

/** A signed-in client from a token you already hold (e.g. kept from `onToken`); it refreshes like `signIn`'s. */
export function clientWithToken(opts: SessionOptions & Token): SignedInClient {
  const { token, expireTime, ...rest } = opts;
  return sessionClient(rest, { token, expireTime }, false);
}

/**
 * Signs in with email and password (`users:authenticate`) and answers a tenant client that sends
 * the token and refreshes it before it expires. A wrong password throws ApiError `UNAUTHENTICATED`;
 * too many wrong ones `RESOURCE_EXHAUSTED`.
 */
export async function signIn(opts: SessionOptions & { email: string; password: string }): Promise<SignedInClient> {
  const { email, password, ...rest } = opts;
  const anonymous = configure<TenantPaths>({ ...rest, token: undefined });
  const first = tokenOf(await data(anonymous.POST('/tenant-api/v1/users:authenticate', { body: { email, password } })));
  rest.onToken?.(first);
  return sessionClient(rest, first, true);
}

/** Trades sign-up's one-time `signup_token` for a signed-in client (`users:exchange_handoff`), without the password. */
export async function exchangeHandoff(opts: SessionOptions & { signupToken: string }): Promise<SignedInClient> {
  const { signupToken, ...rest } = opts;
  const anonymous = configure<TenantPaths>({ ...rest, token: undefined });
  const first = tokenOf(await data(anonymous.POST('/tenant-api/v1/users:exchange_handoff', { body: { signup_token: signupToken } })));
  rest.onToken?.(first);
  return sessionClient(rest, first, true);
}

export interface SignUpOptions extends SessionOptions {
  /** Where the sign-up surface answers, when not at `baseUrl` (`SIGNUP_BASE_URL`). */
  signupBaseUrl?: string;
  email: string;
  password: string;
  websiteName: string;
  /** BCP 47 tag of the website's default view (default `en`). */
  defaultLanguage?: string;
  /** The bot-check proof (`dev-captcha` on a server with the default static check). */
  captchaToken: string;
  /** Makes a retried sign-up return the first one's answer instead of failing. */
  requestId?: string;
}

/**
 * Signs up (user, account, project and website in one step) and hands off to a signed-in client.
 * The website is being provisioned: `await waitForOperation(client, operation)` before using it.
 */
export async function signUp(opts: SignUpOptions): Promise<{
  client: SignedInClient;
  user: SiteSchemas['SignUpResponse'];
  accountId: string;
  websiteId: string;
  /** The provisioning Operation, `websites/{website}/operations/{operation}`. */
  operation: string;
}> {
  const { signupBaseUrl, email, password, websiteName, defaultLanguage, captchaToken, requestId, ...rest } = opts;
  const site = configure<SitePaths>({ ...rest, baseUrl: signupBaseUrl ?? rest.baseUrl, token: undefined });
  const user = await data(
    site.POST('/site-api/v1/users', {
      body: {
        email,
        password,
        website_name: websiteName,
        default_language: defaultLanguage ?? 'en',
        captcha_token: captchaToken,
        ...(requestId ? { request_id: requestId } : {}),
      },
    }),
  );
  const client = await exchangeHandoff({ ...rest, signupToken: user.signup_token });
  const websiteId = user.operation.split('/')[1] ?? '';
  return { client, user, accountId: user.account_id, websiteId, operation: user.operation };
}

/**
 * The data of a call. The clients throw ApiError on every failure, so a returned result always
 * has data; this only narrows openapi-fetch's `{data} | {error}` result type. A call answering 204
 * (most Deletes) has no data: await the call itself, which throws on failure all the same.
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

/** One website the signed-in user reaches, with the account and project it belongs to. */
export interface MyWebsite {
  account: Schemas['Account'];
  project: Schemas['Project'];
  website: Schemas['Website'];
}

/**
 * Every website the signed-in user reaches: their accounts, each account's projects, each
 * project's websites, every List followed through its page tokens. Accounts and projects in the
 * order the server lists them; `websiteQuery` (filter, order_by, page_size) is sent with each
 * project's websites List.
 */
export async function* myWebsites(client: TenantClient, opts: { websiteQuery?: ListParams<'/tenant-api/v1/projects/{project_id}/websites'>['query'] } = {}): AsyncGenerator<MyWebsite> {
  for await (const account of paginate(client, '/tenant-api/v1/accounts', {})) {
    for await (const project of paginate(client, '/tenant-api/v1/accounts/{account_id}/projects', { path: { account_id: account.id } })) {
      for await (const website of paginate(client, '/tenant-api/v1/projects/{project_id}/websites', { path: { project_id: project.id }, query: opts.websiteQuery })) {
        yield { account, project, website };
      }
    }
  }
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
