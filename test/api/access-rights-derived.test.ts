/**
 * Enforcement for every route, derived (issue 12, point 4): each operation of the served OpenAPI
 * document under an access root is called by members of Alice's account holding each built-in role,
 * the grants-only role with some grants, and a custom account role. A route whose declared right
 * (the route's `config.right`, as `platform.routeRights` lists it) those grants do not reach must answer
 * 403 PERMISSION_DENIED; every other route must not. Writes carry a stale `If-Match`, and child ids
 * are made up, so an allowed call stops at 404/409 instead of changing Alice's data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_ROLE_GRANTS, reaches, type Grant, type Right } from '../../src/platform/auth/rights.js';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { addMember, type MemberTerms } from '../support/access.js';
import { multipart } from '../support/media.js';
import { openApiSampler } from '../support/openapi-sample.js';
import { API, expectError, expectStatus, type Response } from '../support/fixtures.js';

const ROOTED = new RegExp(`^${API}/(accounts|projects|websites)/\\{(account_id|project_id|website_id)\\}`);
const MADE_UP = 'zzzzzzzzzznotthere00';

interface Route {
  method: string;
  template: string;
  operationId: string;
  op: any;
  right: Right;
}

let t: TestApp;
let alice: TestUser;
let routes: Route[];
let sampler: ReturnType<typeof openApiSampler>;
const rootIds: Record<string, string> = {};

const CUSTOM_GRANTS: Grant[] = [
  { section: 'website.media', access: 'WRITE' },
  { section: 'website.content', access: 'READ' },
  { section: 'ai', access: 'READ' },
];
const RESTRICTED_GRANTS: Grant[] = [
  { section: 'website.content', access: 'WRITE' },
  { section: 'account.billing', access: 'READ' },
];

/** The OpenAPI form of a Fastify route url: `:param(^[^:/]+)` → `{param}`, `::verb` → `:verb`. */
const openApiPath = (url: string) =>
  url.replace(/\(\^\[\^:\/\]\+\)/g, '').replace(/::/g, '\u0000').replace(/:([a-z_]+)/g, '{$1}').replace(/\u0000/g, ':');

async function call(route: Route, token: string): Promise<Response> {
  let first = true;
  const url = route.template.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const id = first ? rootIds[name] : MADE_UP;
    first = false;
    return id;
  });
  // A stale etag: an allowed write on a real row (the root itself) stops at 409 ABORTED.
  const headers: Record<string, string> = route.method === 'GET' ? {} : { 'if-match': '"stale-etag"' };
  const content = sampler.deref(route.op.requestBody)?.content ?? {};
  if (content['multipart/form-data']) {
    const schema = sampler.deref(content['multipart/form-data'].schema);
    const parts = (schema.required ?? []).map((name: string) =>
      sampler.deref(schema.properties?.[name])?.format === 'binary'
        ? { name, filename: 'probe.png', data: Buffer.from('not really a png'), contentType: 'image/png' }
        : { name, value: String(sampler.sample(schema.properties?.[name])) },
    );
    const { body, contentType } = multipart(parts);
    return t.app.inject({ method: route.method as never, url, headers: { ...headers, 'content-type': contentType, authorization: `Bearer ${token}` }, payload: body }) as never;
  }
  const body = content['application/json'] ? (sampler.sample(content['application/json'].schema) ?? {}) : undefined;
  return t.request(route.method, url, { token, body, headers });
}

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUp();
  const projects = expectStatus(await t.request('GET', `${API}/accounts/${alice.accountId}/projects`, { token: alice.token }), 200).projects;
  Object.assign(rootIds, { account_id: alice.accountId, project_id: projects[0].id, website_id: alice.websiteId });
  const doc = expectStatus(await t.request('GET', `${API}/openapi.json`), 200);
  sampler = openApiSampler(doc);
  const rights = new Map(t.platform.routeRights.map((r) => [`${r.method} ${openApiPath(r.url)}`, r.right]));
  routes = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const template = `${path.startsWith(API) ? '' : API}${path}`;
      if (!op?.operationId || !ROOTED.test(template)) continue;
      const right = rights.get(`${method.toUpperCase()} ${template}`);
      routes.push({ method: method.toUpperCase(), template, operationId: op.operationId, op, right: right! });
    }
  }
}, 60_000);
afterAll(() => t?.close());

async function walk(terms: MemberTerms, grants: readonly Grant[]): Promise<{ wrong: string[]; denied: number; allowed: number }> {
  const member = await t.signUp();
  await addMember(t, member, alice.accountId, terms);
  const wrong: string[] = [];
  let denied = 0;
  let allowed = 0;
  // Routes for every member (`members:leave`) last: leaving ends the walk's membership.
  const ordered = [...routes.filter((r) => r.right.section !== ''), ...routes.filter((r) => r.right.section === '')];
  for (const route of ordered) {
    const res = await call(route, member.token);
    // `anyMember` routes (section '': `members:leave`) are for every member.
    const expected = route.right.section === '' || reaches(grants, route.right) ? 'allowed' : 'denied';
    if (expected === 'denied') {
      denied++;
      if (res.statusCode !== 403) wrong.push(`${route.method} ${route.template} (${route.right.access} ${route.right.section}) → ${res.statusCode}, expected 403`);
      else expectError(res, 403, 'PERMISSION_DENIED');
    } else {
      allowed++;
      if (res.statusCode === 403 || res.statusCode === 401 || res.statusCode >= 500) wrong.push(`${route.method} ${route.template} (${route.right.access} ${route.right.section}) → ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
  }
  return { wrong, denied, allowed };
}

describe('every route under an access root answers 403 exactly where the member\'s grants do not reach its right', () => {
  it('every such route declares a right', () => {
    expect(routes.filter((r) => !r.right).map((r) => `${r.method} ${r.template}`)).toEqual([]);
    expect(routes.length).toBeGreaterThan(100);
  });

  it('an editor (reads everything, writes website and beneath)', async () => {
    const { wrong, denied, allowed } = await walk({ role: 'editor' }, BUILT_IN_ROLE_GRANTS.editor);
    expect(wrong).toEqual([]);
    expect(denied).toBeGreaterThan(10);
    expect(allowed).toBeGreaterThan(50);
  }, 120_000);

  it('the grants-only role (roles/restricted) with grants of its membership', async () => {
    const { wrong, denied, allowed } = await walk({ role: 'restricted', grants: RESTRICTED_GRANTS }, RESTRICTED_GRANTS);
    expect(wrong).toEqual([]);
    expect(denied).toBeGreaterThan(50);
    expect(allowed).toBeGreaterThan(5);
  }, 120_000);

  it('roles/restricted without grants reaches nothing but the routes for every member', async () => {
    const { wrong, allowed } = await walk({ role: 'restricted' }, []);
    expect(wrong).toEqual([]);
    expect(allowed).toBe(routes.filter((r) => r.right.section === '').length);
  }, 120_000);

  it('a custom account role', async () => {
    const role = expectStatus(await t.request('POST', `${API}/accounts/${alice.accountId}/account_roles`, { token: alice.token, body: { display_name: 'Media people', grants: CUSTOM_GRANTS } }), 201);
    const { wrong, denied, allowed } = await walk({ role: { accountRole: role.id } }, CUSTOM_GRANTS);
    expect(wrong).toEqual([]);
    expect(denied).toBeGreaterThan(50);
    expect(allowed).toBeGreaterThan(5);
  }, 120_000);

  it('an administrator reaches every route', async () => {
    const { wrong, denied } = await walk({ role: 'administrator' }, BUILT_IN_ROLE_GRANTS.administrator);
    expect(wrong).toEqual([]);
    expect(denied).toBe(0);
  }, 180_000);
});
