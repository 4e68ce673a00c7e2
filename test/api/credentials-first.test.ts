/**
 * The order of checks on every tenant route (SPEC 5.3, issue 23 defect 1): credentials (401), then
 * the caller's reach of the path (404 for another tenant's root, 403 for a right the role does not
 * reach), then the body (400). A body the schema refuses must never decide the answer of a caller
 * who is not allowed to send it. Derived from the served OpenAPI document, so a new route is covered
 * the moment it is served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { addMember } from '../support/access.js';
import { API, expectError, expectStatus, type Response } from '../support/fixtures.js';

const GARBAGE = { title: 5, nosuchfield: true };
const ROOTED = new RegExp(`^${API}/(accounts|projects|websites)/\\{(account_id|project_id|website_id)\\}`);
const MADE_UP = 'zzzzzzzzzznotthere00';

interface Route {
  method: string;
  template: string;
  op: any;
}

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
/** Every operation of the tenant surface that needs credentials (not `security: []`). */
let guarded: Route[];
const rootIds: Record<string, string> = {};

/** Alice's ids for the roots, `me` for the user's own resources, made-up ids for children. */
function url(route: Route): string {
  let first = true;
  return route.template.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const id = first ? (rootIds[name] ?? MADE_UP) : MADE_UP;
    first = false;
    return id;
  });
}

/** The route with a body its schema refuses (a wrong type and an unknown field), as JSON. */
const garbage = (route: Route, token?: string, raw = false): Promise<Response> =>
  t.request(route.method, url(route), {
    ...(token !== undefined && { headers: { authorization: token } }),
    ...(route.method !== 'GET' && { body: raw ? '{"title": 5, nosuchfield' : GARBAGE }),
  });

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUp();
  bob = await t.signUp();
  const projects = expectStatus(await t.request('GET', `${API}/accounts/${alice.accountId}/projects`, { token: alice.token }), 200).projects;
  Object.assign(rootIds, { account_id: alice.accountId, project_id: projects[0].id, website_id: alice.websiteId, user_id: 'me' });
  const doc = expectStatus(await t.request('GET', `${API}/openapi.json`), 200);
  guarded = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!op?.operationId) continue;
      if (Array.isArray(op.security) && op.security.length === 0) continue;
      guarded.push({ method: method.toUpperCase(), template: `${path.startsWith(API) ? '' : API}${path}`, op });
    }
  }
}, 60_000);
afterAll(() => t?.close());

describe('credentials are checked before the body', () => {
  it('answers 401 before validating the body', async () => {
    const blogPosts = `${API}/websites/${alice.websiteId}/blog_posts`;
    for (const headers of [{}, { authorization: 'Bearer not.a.jwt' }, { authorization: 'Basic x' }] as Record<string, string>[]) {
      expectError(await t.request('POST', blogPosts, { headers, body: GARBAGE }), 401, 'UNAUTHENTICATED');
    }
    // The same body with valid credentials is what validation refuses.
    expectError(await t.request('POST', blogPosts, { token: alice.token, body: GARBAGE }), 400, 'INVALID_ARGUMENT');
  });

  it('answers 404 for another tenant\'s website before validating the body', async () => {
    const res = await t.request('POST', `${API}/websites/${alice.websiteId}/blog_posts`, { token: bob.token, body: GARBAGE });
    expectError(res, 404, 'NOT_FOUND');
    expect(res.body).not.toContain('nosuchfield');
  });

  it('answers 403 for a right the role does not reach before validating the body', async () => {
    const member = await t.signUp();
    await addMember(t, member, alice.accountId, { role: 'restricted' });
    expectError(await t.request('POST', `${API}/websites/${alice.websiteId}/blog_posts`, { token: member.token, body: GARBAGE }), 403, 'PERMISSION_DENIED');
  });

  it('every route that needs credentials answers 401 without them or with a garbage token, whatever the body', async () => {
    expect(guarded.length).toBeGreaterThan(150);
    const wrong: string[] = [];
    for (const route of guarded) {
      // Optional credentials (`invitations:accept` signs up a new user without them) must still be valid when sent.
      const optional = Array.isArray(route.op.security) && route.op.security.some((s: object) => Object.keys(s).length === 0);
      for (const token of optional ? ['Bearer not.a.jwt'] : [undefined, 'Bearer not.a.jwt']) {
        for (const raw of [false, true]) {
          const res = await garbage(route, token, raw);
          if (res.statusCode !== 401) wrong.push(`${route.method} ${route.template} (${token ?? 'no token'}, ${raw ? 'unparsable' : 'invalid'} body) → ${res.statusCode} ${res.body.slice(0, 120)}`);
          else expectError(res, 401, 'UNAUTHENTICATED');
        }
      }
    }
    expect(wrong).toEqual([]);
  }, 120_000);

  it('every route under an access root answers 404 to another tenant, whatever the body', async () => {
    const rooted = guarded.filter((r) => ROOTED.test(r.template));
    expect(rooted.length).toBeGreaterThan(100);
    const wrong: string[] = [];
    for (const route of rooted) {
      const res = await garbage(route, `Bearer ${bob.token}`);
      if (res.statusCode !== 404) wrong.push(`${route.method} ${route.template} → ${res.statusCode} ${res.body.slice(0, 120)}`);
      else expectError(res, 404, 'NOT_FOUND');
    }
    expect(wrong).toEqual([]);
  }, 120_000);

  it('every route under an access root answers 403 to a member its right does not reach, whatever the body', async () => {
    const openApiPath = (u: string) => u.replace(/\(\^\[\^:\/\]\+\)/g, '').replace(/::/g, '\u0000').replace(/:([a-z_]+)/g, '{$1}').replace(/\u0000/g, ':');
    const rights = new Map(t.platform.routeRights.map((r) => [`${r.method} ${openApiPath(r.url)}`, r.right]));
    const member = await t.signUp();
    await addMember(t, member, alice.accountId, { role: 'restricted' });
    // roles/restricted without grants reaches only the routes for every member (section '').
    const denied = guarded.filter((r) => ROOTED.test(r.template) && rights.get(`${r.method} ${r.template}`)?.section !== '');
    expect(denied.length).toBeGreaterThan(100);
    const wrong: string[] = [];
    for (const route of denied) {
      const res = await garbage(route, `Bearer ${member.token}`);
      if (res.statusCode !== 403) wrong.push(`${route.method} ${route.template} → ${res.statusCode} ${res.body.slice(0, 120)}`);
    }
    expect(wrong).toEqual([]);
  }, 120_000);
});
