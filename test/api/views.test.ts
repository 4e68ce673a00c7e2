/**
 * Views (a website's locales): the default view made at provisioning, URL prefixes, fallbacks,
 * deletion guards, and `:make_default` (a custom method through the engine's `mutate`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestUser } from '../support/app.js';
import { startTwoTenants } from '../support/tenants.js';
import { API, expectError, expectInvalid, expectShape, expectStatus, list } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let viewsUrl: string;

beforeAll(async () => {
  ({ t, alice, bob } = await startTwoTenants());
  viewsUrl = `${API}/websites/${alice.websiteId}/views`;
});
afterAll(() => t?.close());

const post = (url: string, body: unknown, token = alice.token, headers: Record<string, string> = {}) => t.request('POST', url, { token, body, headers });
const createView = async (body: Record<string, unknown>) => expectStatus(await post(viewsUrl, { display_name: 'View', ...body }), 201);
const defaultView = async (user: TestUser) =>
  (await list(t, user.token, `${API}/websites/${user.websiteId}/views`, { filter: 'is_default = true' })).views[0];

describe('default view', () => {
  it('provisioning creates the default view from default_language with an empty url_prefix', async () => {
    const page = await list(t, alice.token, viewsUrl);
    await expectShape(t, 'ListViews', 200, page);
    const defaults = page.views.filter((v: any) => v.is_default);
    expect(defaults).toHaveLength(1);
    expect(defaults[0]).toMatchObject({ locale: 'en', url_prefix: '', is_active: true, display_name: 'English' });
    expect(defaults[0].name).toBe(`websites/${alice.websiteId}/views/${defaults[0].id}`);
  });

  it('the default view cannot be deleted (FAILED_PRECONDITION VIEW_IS_DEFAULT)', async () => {
    const view = await defaultView(alice);
    const error = expectError(await t.request('DELETE', `${viewsUrl}/${view.id}`, { token: alice.token }), 400, 'FAILED_PRECONDITION');
    expect(error.details.find((d: any) => d.type === 'PRECONDITION_FAILURE').reason).toBe('VIEW_IS_DEFAULT');
  });

  it('the default view cannot be switched off', async () => {
    const view = await defaultView(alice);
    expectInvalid(await t.request('PATCH', `${viewsUrl}/${view.id}`, { token: alice.token, body: { is_active: false } }), 'is_active');
  });
});

describe('url_prefix', () => {
  it('defaults to the locale in lower case and is unique on the website (ALREADY_EXISTS)', async () => {
    const view = await createView({ locale: 'pt-BR' });
    expect(view.url_prefix).toBe('pt-br');
    const error = expectError(await post(viewsUrl, { display_name: 'Again', locale: 'pt-BR' }), 409, 'ALREADY_EXISTS');
    expect(error.message).toContain('url_prefix');
  });

  it('the same prefix on another website is fine', async () => {
    const res = await post(`${API}/websites/${bob.websiteId}/views`, { display_name: 'BR', locale: 'pt-BR' }, bob.token);
    expectStatus(res, 201);
  });

  it('refuses a prefix that is not one lowercase path segment, and a malformed locale', async () => {
    expectInvalid(await post(viewsUrl, { display_name: 'x', locale: 'fr', url_prefix: 'Fr/x' }), 'url_prefix');
    expectInvalid(await post(viewsUrl, { display_name: 'x', locale: 'not a locale' }), 'locale');
    expectInvalid(await post(viewsUrl, { display_name: 'x' }), 'locale');
    expectInvalid(await post(viewsUrl, { display_name: ' ', locale: 'fr' }), 'display_name');
    expectInvalid(await post(viewsUrl, { display_name: 'x', locale: 'fr', colour: 'red' }), 'colour');
  });
});

describe('fallback_view_id', () => {
  it('must be a view of the same website (another tenant’s view is INVALID_ARGUMENT)', async () => {
    const foreign = await defaultView(bob);
    expectInvalid(await post(viewsUrl, { display_name: 'x', locale: 'it', fallback_view_id: foreign.id }), 'fallback_view_id');
    expectInvalid(await post(viewsUrl, { display_name: 'x', locale: 'it', fallback_view_id: 'nope' }), 'fallback_view_id');
  });

  it('following fallbacks may never come back to the view (cycle refused)', async () => {
    const a = await createView({ locale: 'es' });
    const b = await createView({ locale: 'es-MX', fallback_view_id: a.id });
    expectInvalid(await t.request('PATCH', `${viewsUrl}/${a.id}`, { token: alice.token, body: { fallback_view_id: b.id } }), 'fallback_view_id');
    expectInvalid(await t.request('PATCH', `${viewsUrl}/${a.id}`, { token: alice.token, body: { fallback_view_id: a.id } }), 'fallback_view_id');
    expect(expectStatus(await t.request('GET', `${viewsUrl}/${a.id}`, { token: alice.token }), 200).fallback_view_id).toBeUndefined();
  });

  it('two concurrent updates closing a fallback loop cannot both succeed (fallback changes serialised per website)', async () => {
    // Several rounds: without the lock both transactions can read the chain before either commits.
    for (let round = 0; round < 5; round++) {
      const a = await createView({ locale: 'sv', url_prefix: `sv-a${round}` });
      const b = await createView({ locale: 'sv', url_prefix: `sv-b${round}` });
      const results = await Promise.all([
        t.request('PATCH', `${viewsUrl}/${a.id}`, { token: alice.token, body: { fallback_view_id: b.id } }),
        t.request('PATCH', `${viewsUrl}/${b.id}`, { token: alice.token, body: { fallback_view_id: a.id } }),
      ]);
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, 400]);
      expectInvalid(results.find((r) => r.statusCode === 400)!, 'fallback_view_id');
      const after = await Promise.all([a, b].map(async (v) => expectStatus(await t.request('GET', `${viewsUrl}/${v.id}`, { token: alice.token }), 200)));
      expect(after.filter((v) => v.fallback_view_id !== undefined)).toHaveLength(1);
      for (const v of [a, b]) expect((await t.request('DELETE', `${viewsUrl}/${v.id}?force=true`, { token: alice.token })).statusCode).toBe(204);
    }
  });

  it('a view in use as a fallback is not deleted silently: FAILED_PRECONDITION VIEW_IN_USE, force detaches', async () => {
    const base = await createView({ locale: 'nl' });
    const child = await createView({ locale: 'nl-BE', fallback_view_id: base.id });
    const error = expectError(await t.request('DELETE', `${viewsUrl}/${base.id}`, { token: alice.token }), 400, 'FAILED_PRECONDITION');
    expect(error.details.find((d: any) => d.type === 'PRECONDITION_FAILURE').reason).toBe('VIEW_IN_USE');
    expect(error.message).toContain('views.fallback_view_id');
    expectStatus(await t.request('GET', `${viewsUrl}/${base.id}`, { token: alice.token }), 200);

    expect((await t.request('DELETE', `${viewsUrl}/${base.id}?force=true`, { token: alice.token })).statusCode).toBe(204);
    const after = expectStatus(await t.request('GET', `${viewsUrl}/${child.id}`, { token: alice.token }), 200);
    expect(after.fallback_view_id).toBeUndefined();
    expect(after.etag).not.toBe(child.etag);
  });
});

describe(':make_default (custom method)', () => {
  it('moves the default to the view and answers it with a new etag', async () => {
    const previous = await defaultView(alice);
    const view = await createView({ locale: 'sv' });
    const res = await post(`${viewsUrl}/${view.id}:make_default`, {});
    const moved = expectStatus(res, 200);
    await expectShape(t, 'MakeDefaultView', 200, moved);
    expect(moved.is_default).toBe(true);
    expect(res.headers.etag).toBe(`"${moved.etag}"`);
    const old = expectStatus(await t.request('GET', `${viewsUrl}/${previous.id}`, { token: alice.token }), 200);
    expect(old.is_default).toBe(false);
    // Put it back so the other tests keep their default.
    expectStatus(await post(`${viewsUrl}/${previous.id}:make_default`, undefined), 200);
  });

  it('honours If-Match (stale etag → 409 ABORTED, nothing changed)', async () => {
    const view = await createView({ locale: 'da' });
    expectStatus(await t.request('PATCH', `${viewsUrl}/${view.id}`, { token: alice.token, body: { display_name: 'Dansk' } }), 200);
    expectError(await post(`${viewsUrl}/${view.id}:make_default`, {}, alice.token, { 'if-match': `"${view.etag}"` }), 409, 'ABORTED');
    expect((await defaultView(alice)).id).not.toBe(view.id);
  });

  it('refuses body fields it does not take', async () => {
    const view = await createView({ locale: 'fi' });
    expectInvalid(await post(`${viewsUrl}/${view.id}:make_default`, { force: true }), 'force');
  });

  it('another tenant’s view is NOT_FOUND', async () => {
    const foreign = await defaultView(bob);
    expectError(await post(`${viewsUrl}/${foreign.id}:make_default`, {}), 404, 'NOT_FOUND');
    expectError(await post(`${API}/websites/${bob.websiteId}/views/${foreign.id}:make_default`, {}), 404, 'NOT_FOUND');
  });
});
