/**
 * Short helpers for API tests built on `startTestApp`: canonical error assertions, resource
 * creation through HTTP, and list walking. Everything goes through the front door (`t.request`).
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import type { TestApp } from './app.js';
import { canonicalErrorProblem } from './canonical.js';

export const API = '/tenant-api/v1';

/** A response as `t.request` answers it. */
export type Response = Awaited<ReturnType<TestApp['request']>>;

/** One FIELD_VIOLATION detail. */
export interface Violation {
  type: 'FIELD_VIOLATION';
  field: string;
  description: string;
}

/**
 * Asserts the canonical error body `{error: {code, status, message, details}}`: `code` equals the
 * HTTP status, `details` are typed objects and one REQUEST_INFO carries the `x-request-id` header.
 * Returns the `error` object for further assertions.
 */
export function expectError(res: Response, httpCode: number, status: string): any {
  expect({ statusCode: res.statusCode, body: res.body }).toMatchObject({ statusCode: httpCode });
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(res.body);
  expect(Object.keys(body)).toEqual(['error']);
  const { error } = body;
  expect(error).toMatchObject({ code: httpCode, status });
  expect(typeof error.message).toBe('string');
  expect(error.message.length).toBeGreaterThan(0);
  expect(Array.isArray(error.details)).toBe(true);
  for (const detail of error.details) {
    expect(typeof detail).toBe('object');
    expect(typeof detail.type).toBe('string');
  }
  const requestInfo = error.details.filter((d: any) => d.type === 'REQUEST_INFO');
  expect(requestInfo).toHaveLength(1);
  const requestId = res.headers['x-request-id'];
  expect(typeof requestId).toBe('string');
  expect(requestInfo[0].request_id).toBe(requestId);
  expect(canonicalErrorProblem(res as never), 'a canonical error body').toBeUndefined();
  return error;
}

/** The FIELD_VIOLATION details of an error object. */
export function violations(error: any): Violation[] {
  return error.details.filter((d: any) => d.type === 'FIELD_VIOLATION');
}

/**
 * Asserts a 400 INVALID_ARGUMENT whose FIELD_VIOLATIONs name `field` and whose message names it too.
 * Returns the error object.
 */
export function expectInvalid(res: Response, field: string): any {
  const error = expectError(res, 400, 'INVALID_ARGUMENT');
  expect(violations(error).map((v) => v.field)).toContain(field);
  expect(error.message).toContain(field);
  return error;
}

/** Asserts a response without a body (204, 304, 301). */
export function expectNoBody(res: Response, status: number): void {
  expect({ statusCode: res.statusCode, body: res.body }).toEqual({ statusCode: status, body: '' });
}

/** Asserts a success status, showing the body when it is not. */
export function expectStatus(res: Response, status: number): any {
  expect({ statusCode: res.statusCode, body: res.statusCode === status ? '' : res.body }).toEqual({ statusCode: status, body: '' });
  return res.body ? res.json() : undefined;
}

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Asserts the common fields every resource carries (2.1). */
export function expectCommonFields(resource: any, namePrefix: string): void {
  expect(resource.name).toBe(`${namePrefix}/${resource.id}`);
  expect(typeof resource.id).toBe('string');
  expect(resource.create_time).toMatch(RFC3339_UTC);
  expect(resource.update_time).toMatch(RFC3339_UTC);
  expect(typeof resource.etag).toBe('string');
  expect(resource.etag.length).toBeGreaterThan(0);
}

interface Shapes {
  doc: any;
  validators: Map<string, ValidateFunction>;
  ajv: Ajv;
}
const shapeCache = new WeakMap<TestApp, Promise<Shapes>>();
const DOCUMENT_ID = 'tenant-api.json';

/** A schema of the document with its local references pointing into the document. */
const anchored = (schema: unknown) => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOCUMENT_ID}#/components/`));

/** The served OpenAPI document of the tenant surface (read once per app). */
function shapesOf(t: TestApp): Promise<Shapes> {
  let shapes = shapeCache.get(t);
  if (!shapes) {
    shapes = (async () => {
      const res = await t.request('GET', `${API}/openapi.json`);
      expect(res.statusCode).toBe(200);
      const doc = res.json();
      const ajv = addFormats.default(new Ajv({ strict: false, allErrors: true }));
      // Named schemas are referenced as `#/components/schemas/Name`: the components become one schema resource.
      ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: doc.components?.schemas ?? {} } });
      return { doc, validators: new Map(), ajv };
    })();
    shapeCache.set(t, shapes);
  }
  return shapes;
}

/**
 * Asserts `body` matches the documented response of `operationId` (e.g. `GetProject`) for
 * `status`, and carries no top-level field the document does not list (drift fails loudly).
 */
export async function expectShape(t: TestApp, operationId: string, status: number, body: unknown): Promise<void> {
  const shapes = await shapesOf(t);
  const key = `${operationId} ${status}`;
  let validate = shapes.validators.get(key);
  if (!validate) {
    let schema: any;
    for (const item of Object.values<any>(shapes.doc.paths)) {
      for (const op of Object.values<any>(item)) {
        if (op?.operationId !== operationId) continue;
        let response = op.responses?.[String(status)];
        if (response?.$ref) response = shapes.doc.components.responses[response.$ref.split('/').pop()];
        schema = response?.content?.['application/json']?.schema;
      }
    }
    expect(schema, `${operationId} documents no ${status} JSON response`).toBeDefined();
    validate = shapes.ajv.compile(anchored(schema));
    shapes.validators.set(key, validate);
  }
  const valid = validate(body);
  expect(valid ? [] : validate.errors, `${operationId} ${status} does not match its documented schema`).toEqual([]);
  let schema = validate.schema as any;
  if (typeof schema.$ref === 'string') schema = shapes.doc.components.schemas[schema.$ref.split('/').pop()];
  const documented = Object.keys(schema.properties ?? {});
  expect(Object.keys(body as object).filter((k) => !documented.includes(k)), `${operationId} answered undocumented fields`).toEqual([]);
}

/** PascalCase of a snake_case collection id: `cms_pages` → `CmsPages`. */
const pascal = (snake: string) => snake.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());

/** Creates an account owned by `token`'s user (the creator becomes its administrator). */
export async function createAccount(t: TestApp, token: string, displayName = 'Account'): Promise<any> {
  const account = expectStatus(await t.request('POST', `${API}/accounts`, { token, body: { display_name: displayName } }), 201);
  await expectShape(t, 'CreateAccount', 201, account);
  return account;
}

/** Creates a project in an account. */
export async function createProject(t: TestApp, token: string, accountId: string, body: Record<string, unknown> = {}, query = ''): Promise<any> {
  const res = await t.request('POST', `${API}/accounts/${accountId}/projects${query}`, { token, body: { display_name: 'Project', ...body } });
  const project = expectStatus(res, 201);
  await expectShape(t, 'CreateProject', 201, project);
  return project;
}

/** Creates `count` projects one after another, named by `name(i)`. */
export async function createProjects(t: TestApp, token: string, accountId: string, count: number, name: (i: number) => string): Promise<any[]> {
  const created = [];
  for (let i = 0; i < count; i++) created.push(await createProject(t, token, accountId, { display_name: name(i) }));
  return created;
}

/** Creates a website in a project (its provisioning Operation starts in the background). */
export async function createWebsite(t: TestApp, token: string, projectId: string, body: Record<string, unknown> = {}, query = ''): Promise<any> {
  const res = await t.request('POST', `${API}/projects/${projectId}/websites${query}`, { token, body: { display_name: 'Website', ...body } });
  const website = expectStatus(res, 201);
  await expectShape(t, 'CreateWebsite', 201, website);
  return website;
}

/** Appends query parameters to a URL, skipping undefined ones. */
export function withQuery(url: string, query: Record<string, string | number | boolean | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
  const text = params.toString();
  return text ? `${url}${url.includes('?') ? '&' : '?'}${text}` : url;
}

/** One List call that must succeed; answers the envelope after checking it against the documented List response. */
export async function list(t: TestApp, token: string, url: string, query: Record<string, string | number | undefined> = {}): Promise<any> {
  const page = expectStatus(await t.request('GET', withQuery(url, query), { token }), 200);
  const collection = Object.keys(page).find((k) => Array.isArray(page[k]));
  expect(collection, 'a List envelope holds one array').toBeDefined();
  await expectShape(t, `List${pascal(collection!)}`, 200, page);
  for (const item of page[collection!]) await expectShape(t, `Get${pascal(collection!).replace(/ies$/, 'y').replace(/s$/, '')}`, 200, item);
  return page;
}

/**
 * Walks a List through its `next_page_token` chain; answers every page's envelope. Fails when
 * the chain is longer than `maxPages`, so a token that never ends cannot hang the test.
 */
export async function walk(
  t: TestApp,
  token: string,
  url: string,
  query: Record<string, string | number | undefined> = {},
  maxPages = 200,
): Promise<any[]> {
  const pages = [];
  // A `page_token` in `query` starts the walk in the middle of a chain.
  let pageToken = query.page_token as string | undefined;
  for (let i = 0; i < maxPages; i++) {
    const page = await list(t, token, url, { ...query, page_token: pageToken });
    pages.push(page);
    if (!page.next_page_token) return pages;
    pageToken = page.next_page_token;
  }
  throw new Error(`${url}: more than ${maxPages} pages`);
}

/** Ids of a list page's items under `collection`. */
export const idsOf = (page: any, collection: string): string[] => page[collection].map((r: any) => r.id);

/** A snapshot of a whole collection (ids and etags in server order) to show a refused write changed nothing. */
export async function snapshot(t: TestApp, token: string, url: string, collection: string): Promise<Array<[string, string]>> {
  const pages = await walk(t, token, url, { page_size: 100 });
  return pages.flatMap((p) => p[collection].map((r: any) => [r.id, r.etag] as [string, string]));
}

/**
 * Waits until the clock has moved to a later millisecond, so the next write gets a create_time
 * strictly after the previous one (timestamps have millisecond precision).
 */
export async function nextMillisecond(): Promise<void> {
  const start = Date.now();
  while (Date.now() <= start) await new Promise((resolve) => setTimeout(resolve, 1));
}
