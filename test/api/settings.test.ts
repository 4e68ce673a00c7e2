/**
 * Website settings (SPEC 2.1, 4.1 rule 10): a collection keyed by dotted path over the
 * `setting_descriptors` registry; never-written settings answer their defaults; atomic
 * `:batch_update`; per-view overrides; the custom domain written through its setting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectError, expectInvalid, expectShape, expectStatus, list, violations, walk } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let settingsUrl: string;

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUp({ website_name: 'Alice Bakes' });
  bob = await t.signUp();
  await t.waitForOperation(alice.operation, alice.token);
  await t.waitForOperation(bob.operation, bob.token);
  settingsUrl = `${API}/websites/${alice.websiteId}/settings`;
});
afterAll(() => t?.close());

const get = (url: string, token = alice.token, headers: Record<string, string> = {}) => t.request('GET', url, { token, headers });
const patch = (url: string, body: unknown, token = alice.token, headers: Record<string, string> = {}) => t.request('PATCH', url, { token, body, headers });
const post = (url: string, body: unknown, token = alice.token) => t.request('POST', url, { token, body });
const setting = async (path: string, token = alice.token, url = settingsUrl) => expectStatus(await get(`${url}/${path}`, token), 200);

describe('setting_descriptors catalogue', () => {
  it('lists every descriptor with path, type, default and view_overridable, read-only', async () => {
    const pages = await walk(t, alice.token, `${API}/setting_descriptors`, { page_size: 5 });
    const all = pages.flatMap((p) => p.setting_descriptors);
    expect(all.length).toBe(pages[0].total_size);
    expect(all.map((d: any) => d.path)).toEqual([...all.map((d: any) => d.path)].sort());
    const domain = all.find((d: any) => d.path === 'general.web.custom_domain');
    expect(domain).toMatchObject({ name: 'setting_descriptors/general.web.custom_domain', id: 'general.web.custom_domain', type: 'STRING', format: 'HOSTNAME', default_value: null, view_overridable: false });
    const status = all.find((d: any) => d.path === 'general.site.status');
    expect(status).toMatchObject({ type: 'ENUM', default_value: 'LIVE', allowed_values: ['LIVE', 'MAINTENANCE', 'PASSWORD_PROTECTED'] });
    expect((await t.request('POST', `${API}/setting_descriptors`, { token: alice.token, body: {} })).statusCode).toBe(405);
  });

  it('filters by view_overridable and by path prefix', async () => {
    const page = await list(t, alice.token, `${API}/setting_descriptors`, { filter: 'view_overridable = true AND path:"general."' });
    expect(page.setting_descriptors.length).toBeGreaterThan(0);
    for (const d of page.setting_descriptors) {
      expect(d.view_overridable).toBe(true);
      expect(d.path.startsWith('general.')).toBe(true);
    }
  });

  it('Get of an unknown path is NOT_FOUND; the catalogue needs a signed-in user', async () => {
    expectError(await get(`${API}/setting_descriptors/no.such.path`), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${API}/setting_descriptors`), 401, 'UNAUTHENTICATED');
  });
});

describe('reading settings', () => {
  it('a never-written setting answers its default: source DEFAULT, etag "0", no timestamps', async () => {
    const res = await get(`${settingsUrl}/customer.password.min_length`);
    const body = expectStatus(res, 200);
    await expectShape(t, 'GetSetting', 200, body);
    expect(body).toEqual({
      name: `websites/${alice.websiteId}/settings/customer.password.min_length`,
      id: 'customer.password.min_length',
      path: 'customer.password.min_length',
      value: 8,
      type: 'INTEGER',
      source: 'DEFAULT',
      view_overridable: false,
      etag: '0',
    });
    expect(res.headers.etag).toBe('"0"');
  });

  it('provisioning stores the website name as general.site.name', async () => {
    const body = await setting('general.site.name');
    expect(body).toMatchObject({ value: 'Alice Bakes', source: 'WEBSITE' });
    expect(body.create_time).toBeDefined();
  });

  it('re-running the DEFAULT_SETTINGS provisioning step keeps a name the user changed', async () => {
    const bobUrl = `${API}/websites/${bob.websiteId}/settings`;
    expectStatus(await patch(`${bobUrl}/general.site.name`, { value: 'Renamed' }, bob.token), 200);
    const { settingsArea } = await import('../../src/settings/settings.area.js');
    const website = await t.platform.deps.database.db.selectFrom('websites').selectAll().where('id', '=', bob.websiteId).executeTakeFirstOrThrow();
    for (const step of settingsArea.provisioningSteps!(t.platform.deps)) await step.run(t.platform.deps.database.db, website, undefined as never);
    expect((await setting('general.site.name', bob.token, bobUrl)).value).toBe('Renamed');
  });

  it('a path outside the registry is NOT_FOUND', async () => {
    expectError(await get(`${settingsUrl}/general.nope`), 404, 'NOT_FOUND');
    expectError(await patch(`${settingsUrl}/general.nope`, { value: 'x' }), 404, 'NOT_FOUND');
  });

  it('List shows every descriptor, defaults merged with stored values, in path order', async () => {
    const catalogue = await list(t, alice.token, `${API}/setting_descriptors`, { page_size: 100 });
    const pages = await walk(t, alice.token, settingsUrl, { page_size: 4 });
    const all = pages.flatMap((p) => p.settings);
    expect(all.map((s: any) => s.path)).toEqual(catalogue.setting_descriptors.map((d: any) => d.path));
    expect(pages[pages.length - 1].total_size).toBe(all.length);
    expect(all.find((s: any) => s.path === 'general.site.name').value).toBe('Alice Bakes');
  });

  it('filter path:"<prefix>" lists the settings under a prefix (AIP-160 has as prefix match)', async () => {
    const page = await list(t, alice.token, settingsUrl, { filter: 'path:"general.web"' });
    expect(page.settings.map((s: any) => s.path)).toEqual(['general.web.custom_domain']);
    expect(page.total_size).toBe(1);
    const seo = await list(t, alice.token, settingsUrl, { filter: 'path:"seo." AND source = DEFAULT', order_by: 'path desc' });
    expect(seo.settings.map((s: any) => s.path)).toEqual([
      'seo.robots.disallow_paths',
      'seo.robots.allow_indexing',
      'seo.default_title_suffix',
      'seo.content_signals.search',
      'seo.content_signals.ai_train',
      'seo.content_signals.ai_input',
    ]);
  });

  it('a filter or order on an undeclared field is INVALID_ARGUMENT naming it; a token of another filter is refused', async () => {
    expectInvalid(await get(`${settingsUrl}?filter=${encodeURIComponent('value = 3')}`), 'value');
    expectInvalid(await get(`${settingsUrl}?order_by=type`), 'order_by');
    const first = await list(t, alice.token, settingsUrl, { page_size: 2 });
    expectInvalid(await get(`${settingsUrl}?page_size=2&filter=${encodeURIComponent('source = DEFAULT')}&page_token=${first.next_page_token}`), 'page_token');
  });
});

describe('writing one setting', () => {
  it('PATCH writes value; etag and timestamps appear; Get answers it', async () => {
    const res = await patch(`${settingsUrl}/general.site.tagline`, { value: '  Fresh bread daily ' });
    const body = expectStatus(res, 200);
    await expectShape(t, 'UpdateSetting', 200, body);
    expect(body).toMatchObject({ value: 'Fresh bread daily', source: 'WEBSITE' });
    expect(body.etag).not.toBe('0');
    expect(res.headers.etag).toBe(`"${body.etag}"`);
    expect(await setting('general.site.tagline')).toEqual(body);
  });

  it('If-Match with a stale etag is ABORTED with the current setting; If-None-Match answers 304', async () => {
    const first = expectStatus(await patch(`${settingsUrl}/design.pagination.page_size`, { value: 20 }), 200);
    const second = expectStatus(await patch(`${settingsUrl}/design.pagination.page_size`, { value: 30 }, alice.token, { 'if-match': `"${first.etag}"` }), 200);
    const error = expectError(await patch(`${settingsUrl}/design.pagination.page_size`, { value: 40 }, alice.token, { 'if-match': `"${first.etag}"` }), 409, 'ABORTED');
    expect(error.details.find((d: any) => d.type === 'RESOURCE_INFO').resource).toEqual(second);
    expect((await setting('design.pagination.page_size')).value).toBe(30);
    expect((await get(`${settingsUrl}/design.pagination.page_size`, alice.token, { 'if-none-match': `"${second.etag}"` })).statusCode).toBe(304);
  });

  it('a value of the wrong type, out of range or not allowed is INVALID_ARGUMENT on value and writes nothing', async () => {
    const before = await setting('customer.password.min_length');
    for (const value of ['12', 7, 129, 8.5, true, [8]]) {
      expectInvalid(await patch(`${settingsUrl}/customer.password.min_length`, { value }), 'value');
    }
    expectInvalid(await patch(`${settingsUrl}/general.site.status`, { value: 'CLOSED' }), 'value');
    expectInvalid(await patch(`${settingsUrl}/general.contact.email`, { value: 'not-an-address' }), 'value');
    expectInvalid(await patch(`${settingsUrl}/seo.robots.disallow_paths`, { value: ['/ok', 'no-slash'] }), 'value');
    expectInvalid(await patch(`${settingsUrl}/general.site.tagline`, { value: 'x'.repeat(256) }), 'value');
    expect(await setting('customer.password.min_length')).toEqual(before);
  });

  it('an unknown body field or update_mask path is INVALID_ARGUMENT naming it', async () => {
    expectInvalid(await patch(`${settingsUrl}/general.site.tagline`, { value: 'a', colour: 'red' }), 'colour');
    expectInvalid(await patch(`${settingsUrl}/general.site.tagline?update_mask=colour`, { value: 'a' }), 'update_mask');
  });

  it('null with update_mask=value returns the setting to its default; null without a mask changes nothing', async () => {
    expectStatus(await patch(`${settingsUrl}/analytics.enabled`, { value: false }), 200);
    const unchanged = expectStatus(await patch(`${settingsUrl}/analytics.enabled`, { value: null }), 200);
    expect(unchanged).toMatchObject({ value: false, source: 'WEBSITE' });
    const reset = expectStatus(await patch(`${settingsUrl}/analytics.enabled?update_mask=value`, { value: null }), 200);
    expect(reset).toMatchObject({ value: true, source: 'DEFAULT' });
    expect(reset.etag).not.toBe(unchanged.etag);
  });

  it('validate_only checks and answers the would-be setting without writing', async () => {
    const before = await setting('general.contact.phone');
    const would = expectStatus(await patch(`${settingsUrl}/general.contact.phone?validate_only=true`, { value: '+49 30 1234' }), 200);
    expect(would.value).toBe('+49 30 1234');
    expect(await setting('general.contact.phone')).toEqual(before);
  });

  it('output-only fields sent back are ignored (a read can be written back)', async () => {
    const current = await setting('general.site.tagline');
    const res = expectStatus(await patch(`${settingsUrl}/general.site.tagline`, { ...current, value: 'Again' }), 200);
    expect(res).toMatchObject({ path: 'general.site.tagline', value: 'Again', type: 'STRING' });
  });
});

describe(':batch_update', () => {
  const batch = (requests: unknown[], extra: Record<string, unknown> = {}) => post(`${settingsUrl}:batch_update`, { requests, ...extra });

  it('writes every request atomically and answers the settings in request order', async () => {
    const res = await batch([
      { path: 'seo.robots.allow_indexing', value: false },
      { path: 'general.contact.email', value: 'hello@alice.example' },
      { path: 'seo.robots.disallow_paths', value: ['/cart', '/cart', '/checkout'] },
    ]);
    const body = expectStatus(res, 200);
    await expectShape(t, 'BatchUpdateSettings', 200, body);
    expect(body.settings.map((s: any) => [s.path, s.value])).toEqual([
      ['seo.robots.allow_indexing', false],
      ['general.contact.email', 'hello@alice.example'],
      ['seo.robots.disallow_paths', ['/cart', '/checkout']],
    ]);
    expect((await setting('general.contact.email')).value).toBe('hello@alice.example');
  });

  it('one bad value writes nothing, and every bad request is named', async () => {
    const before = (await walk(t, alice.token, settingsUrl, { page_size: 100 })).flatMap((p) => p.settings);
    const error = expectError(
      await batch([
        { path: 'general.site.tagline', value: 'Would be written' },
        { path: 'customer.password.min_length', value: 3 },
        { path: 'general.missing', value: 1 },
        { path: 'general.site.tagline', value: 'twice' },
        { path: 'general.site.status', value: 'OPEN' },
      ]),
      400,
      'INVALID_ARGUMENT',
    );
    expect(violations(error).map((v) => v.field).sort()).toEqual(['requests[1].value', 'requests[2].path', 'requests[3].path', 'requests[4].value']);
    const after = (await walk(t, alice.token, settingsUrl, { page_size: 100 })).flatMap((p) => p.settings);
    expect(after).toEqual(before);
  });

  it('a stale etag on one request is ABORTED and nothing is written', async () => {
    const tagline = await setting('general.site.tagline');
    expectStatus(await patch(`${settingsUrl}/general.site.tagline`, { value: 'Moved on' }), 200);
    expectError(
      await batch([
        { path: 'general.contact.phone', value: '+1 555 0100' },
        { path: 'general.site.tagline', value: 'Mine', etag: tagline.etag },
      ]),
      409,
      'ABORTED',
    );
    expect((await setting('general.contact.phone')).value).not.toBe('+1 555 0100');
    expect((await setting('general.site.tagline')).value).toBe('Moved on');
  });

  it('null returns a setting to its default; validate_only writes nothing', async () => {
    const body = expectStatus(await batch([{ path: 'seo.robots.allow_indexing', value: null }], { validate_only: true }), 200);
    expect(body.settings[0]).toMatchObject({ value: true, source: 'DEFAULT' });
    expect((await setting('seo.robots.allow_indexing')).value).toBe(false);
    expectStatus(await batch([{ path: 'seo.robots.allow_indexing', value: null }]), 200);
    expect((await setting('seo.robots.allow_indexing')).source).toBe('DEFAULT');
  });

  it('an empty or oversized batch and unknown fields are INVALID_ARGUMENT', async () => {
    expectInvalid(await batch([]), 'requests');
    const many = Array.from({ length: 101 }, () => ({ path: 'general.site.tagline', value: 'x' }));
    expectInvalid(await batch(many), 'requests');
    expectError(await batch([{ path: 'general.site.tagline', value: 'x', colour: 'red' }]), 400, 'INVALID_ARGUMENT');
  });
});

describe('custom domain through its setting', () => {
  it('writing general.web.custom_domain sets the website custom_domain (PENDING_DNS, the CNAME to create)', async () => {
    const written = expectStatus(await patch(`${settingsUrl}/general.web.custom_domain`, { value: 'WWW.Alice-Bakes.example.' }), 200);
    expect(written.value).toBe('www.alice-bakes.example');
    const domain = expectStatus(await get(`${API}/websites/${alice.websiteId}/custom_domain`), 200);
    const website = expectStatus(await get(`${API}/websites/${alice.websiteId}`), 200);
    expect(domain).toMatchObject({
      domain: 'www.alice-bakes.example',
      status: 'PENDING_DNS',
      platform_hostname: `${website.code}.localhost`,
      dns_record: { type: 'CNAME', name: 'www.alice-bakes.example', value: `${website.code}.localhost` },
    });
  });

  it('a host name that is not one, or one under the platform domain, is refused on value', async () => {
    for (const value of ['https://example.com', 'example', 'a..b.example', 'shop.example.com/path', 'x.localhost', 'bad_label.example.com']) {
      expectInvalid(await patch(`${settingsUrl}/general.web.custom_domain`, { value }), 'value');
    }
    expect((await setting('general.web.custom_domain')).value).toBe('www.alice-bakes.example');
  });

  it('clearing the setting leaves the custom domain NOT_CONFIGURED', async () => {
    expectStatus(await patch(`${settingsUrl}/general.web.custom_domain?update_mask=value`, { value: null }), 200);
    const domain = expectStatus(await get(`${API}/websites/${alice.websiteId}/custom_domain`), 200);
    expect(domain.status).toBe('NOT_CONFIGURED');
    expect(domain.domain).toBeUndefined();
  });
});

describe('per-view overrides', () => {
  let viewId: string;
  let viewSettings: string;
  beforeAll(async () => {
    const view = expectStatus(await post(`${API}/websites/${alice.websiteId}/views`, { display_name: 'Deutsch', locale: 'de' }), 201);
    viewId = view.id;
    viewSettings = `${API}/websites/${alice.websiteId}/views/${viewId}/settings`;
  });

  it('a view answers the website value until it overrides a view-overridable setting', async () => {
    const inherited = expectStatus(await get(`${viewSettings}/general.site.name`), 200);
    await expectShape(t, 'GetViewSetting', 200, inherited);
    expect(inherited).toMatchObject({ name: `websites/${alice.websiteId}/views/${viewId}/settings/general.site.name`, value: 'Alice Bakes', source: 'WEBSITE' });
    const overridden = expectStatus(await patch(`${viewSettings}/general.site.name`, { value: 'Alice backt' }), 200);
    expect(overridden).toMatchObject({ value: 'Alice backt', source: 'VIEW' });
    expect((await setting('general.site.name')).value).toBe('Alice Bakes');
    const page = expectStatus(await get(`${viewSettings}?filter=${encodeURIComponent('source = VIEW')}`), 200);
    await expectShape(t, 'ListViewSettings', 200, page);
    expect(page.settings.map((s: any) => s.path)).toEqual(['general.site.name']);
  });

  it('the website value changing changes the etag of a view setting that inherits it', async () => {
    const before = expectStatus(await get(`${viewSettings}/general.site.tagline`), 200);
    expectStatus(await patch(`${settingsUrl}/general.site.tagline`, { value: 'Changed on the website' }), 200);
    const after = expectStatus(await get(`${viewSettings}/general.site.tagline`), 200);
    expect(after.value).toBe('Changed on the website');
    expect(after.etag).not.toBe(before.etag);
  });

  it('a setting that is not view-overridable is refused (FAILED_PRECONDITION SETTING_NOT_VIEW_OVERRIDABLE)', async () => {
    const error = expectError(await patch(`${viewSettings}/general.web.custom_domain`, { value: 'de.alice.example' }), 400, 'FAILED_PRECONDITION');
    expect(error.details.find((d: any) => d.type === 'PRECONDITION_FAILURE').reason).toBe('SETTING_NOT_VIEW_OVERRIDABLE');
    const batchError = expectError(await post(`${viewSettings}:batch_update`, { requests: [{ path: 'analytics.enabled', value: false }] }), 400, 'INVALID_ARGUMENT');
    expect(violations(batchError).map((v) => v.field)).toEqual(['requests[0].path']);
  });

  it('null with update_mask removes the override; batch_update works per view', async () => {
    const batch = expectStatus(await post(`${viewSettings}:batch_update`, { requests: [{ path: 'seo.default_title_suffix', value: '| Alice DE' }] }), 200);
    await expectShape(t, 'BatchUpdateViewSettings', 200, batch);
    expect(batch.settings[0]).toMatchObject({ value: '| Alice DE', source: 'VIEW' });
    const removed = expectStatus(await patch(`${viewSettings}/seo.default_title_suffix?update_mask=value`, { value: null }), 200);
    expect(removed).toMatchObject({ value: '', source: 'DEFAULT' });
  });

  it('a view of another website, or a missing view, is NOT_FOUND', async () => {
    const bobViews = await list(t, bob.token, `${API}/websites/${bob.websiteId}/views`);
    const bobView = bobViews.views[0].id;
    expectError(await get(`${API}/websites/${alice.websiteId}/views/${bobView}/settings/general.site.name`), 404, 'NOT_FOUND');
    expectError(await patch(`${API}/websites/${alice.websiteId}/views/${bobView}/settings/general.site.name`, { value: 'x' }), 404, 'NOT_FOUND');
    expectError(await get(`${API}/websites/${alice.websiteId}/views/nope/settings`), 404, 'NOT_FOUND');
  });

  it('deleting a view with overrides is refused unless force, which removes them', async () => {
    expectError(await t.request('DELETE', `${API}/websites/${alice.websiteId}/views/${viewId}`, { token: alice.token }), 400, 'FAILED_PRECONDITION');
    expect(expectStatus(await get(`${viewSettings}/general.site.name`), 200).source).toBe('VIEW');
    expect((await t.request('DELETE', `${API}/websites/${alice.websiteId}/views/${viewId}?force=true`, { token: alice.token })).statusCode).toBe(204);
    const left = await t.platform.deps.database.db.selectFrom('settings').select('path').where('scope_id', '=', viewId).execute();
    expect(left).toEqual([]);
  });
});

describe('tenancy', () => {
  it('another tenant’s website settings are NOT_FOUND for reads, writes and batches, and stay unchanged', async () => {
    const before = await setting('general.site.name', bob.token, `${API}/websites/${bob.websiteId}/settings`);
    expectError(await get(`${API}/websites/${bob.websiteId}/settings`), 404, 'NOT_FOUND');
    expectError(await get(`${API}/websites/${bob.websiteId}/settings/general.site.name`), 404, 'NOT_FOUND');
    expectError(await patch(`${API}/websites/${bob.websiteId}/settings/general.site.name`, { value: 'pwned' }), 404, 'NOT_FOUND');
    expectError(await post(`${API}/websites/${bob.websiteId}/settings:batch_update`, { requests: [{ path: 'general.site.name', value: 'pwned' }] }), 404, 'NOT_FOUND');
    expect(await setting('general.site.name', bob.token, `${API}/websites/${bob.websiteId}/settings`)).toEqual(before);
  });

  it('settings need a signed-in user', async () => {
    expectError(await t.request('GET', settingsUrl), 401, 'UNAUTHENTICATED');
  });
});
