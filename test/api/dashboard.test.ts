/**
 * Dashboard (singleton `websites/{w}/dashboard`, `:reset`) and the `dashboard_widget_types`
 * catalogue: the default layout before any write, the layout rules (grid, sizes, overlap, ids,
 * settings against each type's JSON Schema), etags, rights and tenancy.
 */
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestUser } from '../support/app.js';
import { startTwoTenants } from '../support/tenants.js';
import { addMember } from '../support/access.js';
import { API, expectError, expectInvalid, expectShape, expectStatus, idsOf, list } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let dashboardUrl: string;
let types: Map<string, any>;

const TYPES_URL = `${API}/dashboard_widget_types`;

beforeAll(async () => {
  ({ t, alice, bob } = await startTwoTenants());
  carol = await t.signUpProvisioned();
  dashboardUrl = `${API}/websites/${alice.websiteId}/dashboard`;
  const page = expectStatus(await t.request('GET', `${TYPES_URL}?page_size=100`, { token: alice.token }), 200);
  types = new Map(page.dashboard_widget_types.map((type: any) => [type.id, type]));
});
afterAll(() => t?.close());

const get = (url = dashboardUrl, token = alice.token) => t.request('GET', url, { token });
const patch = (body: unknown, opts: { etag?: string; query?: string; token?: string; url?: string } = {}) =>
  t.request('PATCH', `${opts.url ?? dashboardUrl}${opts.query ?? ''}`, {
    token: opts.token ?? alice.token,
    body,
    headers: opts.etag === undefined ? {} : { 'if-match': `"${opts.etag}"` },
  });
const reset = (body: unknown = {}, opts: { etag?: string; token?: string; url?: string } = {}) =>
  t.request('POST', `${opts.url ?? dashboardUrl}:reset`, {
    token: opts.token ?? alice.token,
    body,
    headers: opts.etag === undefined ? {} : { 'if-match': `"${opts.etag}"` },
  });

/** A widget of `type` at (x, y) with the type's default size unless given. */
const widget = (type: string, x: number, y: number, extra: Record<string, unknown> = {}) => ({
  type,
  position: { x, y },
  size: { ...types.get(type)?.default_size },
  ...extra,
});

/** A fresh website of its own for tests that need the never-written state. */
async function freshDashboard(): Promise<{ user: TestUser; url: string }> {
  const user = await t.signUp();
  return { user, url: `${API}/websites/${user.websiteId}/dashboard` };
}

describe('dashboard_widget_types catalogue', () => {
  it('lists every widget type with its query, settings schema, default settings and sizes; each default is valid against its schema', async () => {
    const page = await list(t, alice.token, TYPES_URL, { page_size: 100 });
    const all = page.dashboard_widget_types;
    expect(all.length).toBeGreaterThanOrEqual(10);
    expect(page.total_size).toBe(all.length);
    const ajv = addFormats.default(new Ajv({ strict: false }));
    for (const type of all) {
      expect(type.name).toBe(`dashboard_widget_types/${type.id}`);
      expect(type.query.metrics).toBeDefined();
      expect(type.settings_schema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(ajv.validate(type.settings_schema, type.default_settings), `${type.id}: ${ajv.errorsText()}`).toBe(true);
      for (const [name, schema] of Object.entries<any>(type.settings_schema.properties)) {
        expect(type.default_settings[name], `${type.id}.${name}`).toEqual(schema.default);
      }
      for (const side of ['width', 'height']) {
        expect(type.min_size[side]).toBeLessThanOrEqual(type.default_size[side]);
        expect(type.default_size[side]).toBeLessThanOrEqual(type.max_size[side]);
      }
      expect(type.max_size.width).toBeLessThanOrEqual(12);
    }
    expect(all.map((type: any) => type.id)).toEqual(expect.arrayContaining(['key_metrics', 'visitors_graph', 'top_sources', 'top_pages', 'devices']));
  });

  it('gets one widget type, filters by category, and answers 404 for an unknown type id', async () => {
    const type = expectStatus(await t.request('GET', `${TYPES_URL}/top_pages`, { token: alice.token }), 200);
    await expectShape(t, 'GetDashboardWidgetType', 200, type);
    expect(type).toMatchObject({ id: 'top_pages', category: 'CONTENT', default_settings: { metric: 'visitors', limit: 10, date_range: '30d' } });
    expect(type.query).toEqual({ metrics: ['{{metric}}'], date_range: '{{date_range}}', dimensions: ['page'], order_by: '{{metric}} desc', limit: '{{limit}}' });
    const technology = await list(t, alice.token, TYPES_URL, { filter: 'category = TECHNOLOGY', order_by: 'display_name' });
    expect(idsOf(technology, 'dashboard_widget_types')).toEqual(['browsers', 'devices', 'operating_systems']);
    expectError(await t.request('GET', `${TYPES_URL}/pie_chart`, { token: alice.token }), 404, 'NOT_FOUND');
    expectInvalid(await t.request('GET', `${TYPES_URL}?filter=${encodeURIComponent('query = 1')}`, { token: alice.token }), 'query');
  });

  it('requires a signed-in user', async () => {
    expectError(await t.request('GET', TYPES_URL), 401, 'UNAUTHENTICATED');
    expectError(await t.request('GET', `${TYPES_URL}/top_pages`), 401, 'UNAUTHENTICATED');
  });
});

describe('default layout', () => {
  it('before any write the dashboard answers the default layout at etag 0, without timestamps, every widget valid against its type', async () => {
    const { user, url } = await freshDashboard();
    const body = expectStatus(await get(url, user.token), 200);
    await expectShape(t, 'GetDashboard', 200, body);
    expect(body).toMatchObject({ name: `websites/${user.websiteId}/dashboard`, etag: '0', is_default: true });
    expect(body.id).toBeUndefined();
    expect(body.create_time).toBeUndefined();
    expect(body.widgets.map((w: any) => w.type)).toEqual(expect.arrayContaining(['key_metrics', 'visitors_graph', 'top_sources', 'top_pages', 'devices']));
    const ajv = addFormats.default(new Ajv({ strict: false }));
    const cells = new Set<string>();
    for (const w of body.widgets) {
      const type = types.get(w.type);
      expect(type, w.type).toBeDefined();
      expect(ajv.validate(type.settings_schema, w.settings), `${w.id}: ${ajv.errorsText()}`).toBe(true);
      expect(w.position.x + w.size.width).toBeLessThanOrEqual(12);
      expect(w.size.width).toBeGreaterThanOrEqual(type.min_size.width);
      expect(w.size.height).toBeLessThanOrEqual(type.max_size.height);
      for (let x = w.position.x; x < w.position.x + w.size.width; x++) {
        for (let y = w.position.y; y < w.position.y + w.size.height; y++) {
          expect(cells.has(`${x},${y}`), `${w.id} overlaps at ${x},${y}`).toBe(false);
          cells.add(`${x},${y}`);
        }
      }
    }
    // The default layout is itself accepted as an Update (sent back as read).
    const written = expectStatus(await patch({ widgets: body.widgets }, { etag: '0', token: user.token, url }), 200);
    expect(written.widgets).toEqual(body.widgets);
    expect(written.is_default).toBe(true);
    expect(written.etag).not.toBe('0');
  });

  it("each widget answers its resolved analytics:query body: the type's query with its settings filled in", async () => {
    const { user, url } = await freshDashboard();
    const body = expectStatus(await get(url, user.token), 200);
    const metrics = body.widgets.find((w: any) => w.type === 'key_metrics');
    expect(metrics.query).toEqual({ metrics: metrics.settings.metrics, date_range: '30d', compare: 'previous_period' });
    const written = expectStatus(
      await patch(
        { widgets: [widget('top_sources', 0, 0, { settings: { metric: 'visits', limit: 5 } }), widget('key_metrics', 0, 6, { settings: { compare: null, date_range: '7d' } })] },
        { token: user.token, url },
      ),
      200,
    );
    expect(written.widgets[0].query).toEqual({ metrics: ['visits'], date_range: '30d', dimensions: ['source'], order_by: 'visits desc', limit: 5 });
    expect(written.widgets[1].query).toEqual({ metrics: ['visitors', 'visits', 'pageviews', 'views_per_visit', 'bounce_rate', 'visit_duration'], date_range: '7d' });
    expect(written.widgets[1].settings.compare).toBeNull();
  });
});

describe('widget queries run on analytics:query', () => {
  /** Layouts of `chosen` widgets (their settings), stacked in one column, at most MAX_WIDGETS each. */
  async function writeStacked(user: TestUser, url: string, chosen: Array<{ type: string; settings: Record<string, unknown> }>): Promise<any[]> {
    const answered: any[] = [];
    for (let from = 0; from < chosen.length; from += 50) {
      let y = 0;
      const widgets = chosen.slice(from, from + 50).map(({ type, settings }) => {
        const w = widget(type, 0, y, { settings });
        y += w.size.height;
        return w;
      });
      answered.push(...expectStatus(await patch({ widgets }, { token: user.token, url }), 200).widgets);
    }
    return answered;
  }

  it('every widget type, with its defaults and with each allowed value of each enumerated setting, runs: :query answers 200', async () => {
    const { user, url } = await freshDashboard();
    const chosen: Array<{ type: string; settings: Record<string, unknown> }> = [];
    for (const type of types.values()) {
      chosen.push({ type: type.id, settings: {} });
      for (const [name, schema] of Object.entries<any>(type.settings_schema.properties)) {
        for (const value of schema.enum ?? schema.items?.enum?.map((v: string) => [v]) ?? []) {
          // 12mo by hour is refused when written (next test); its day-by-day sibling is what a widget offers.
          const settings = name === 'interval' && value === 'hour' ? { interval: 'hour', date_range: '30d' } : { [name]: value };
          chosen.push({ type: type.id, settings });
        }
      }
    }
    const widgets = await writeStacked(user, url, chosen);
    expect(widgets.length).toBe(chosen.length);
    for (const w of widgets) {
      const res = await t.request('POST', `${API}/websites/${user.websiteId}/analytics:query`, { token: user.token, body: w.query });
      expect(res.statusCode, `${w.type} ${JSON.stringify(w.query)}: ${res.body}`).toBe(200);
    }
  });

  it('settings valid one by one that analytics:query would refuse together are 400 naming the setting (hour over 12mo)', async () => {
    const { user, url } = await freshDashboard();
    const res = await patch({ widgets: [widget('visitors_graph', 0, 0, { settings: { interval: 'hour', date_range: '12mo' } })] }, { token: user.token, url });
    expectInvalid(res, 'widgets[0].settings.interval');
    expect(expectStatus(await get(url, user.token), 200).is_default).toBe(true);
    // The same rule on :query itself.
    const direct = await t.request('POST', `${API}/websites/${user.websiteId}/analytics:query`, { token: user.token, body: { metrics: ['visitors'], date_range: '12mo', interval: 'hour' } });
    expectInvalid(direct, 'interval');
  });
});

describe('update', () => {
  it('updates the layout with If-Match; missing settings take the type defaults and missing ids are assigned', async () => {
    const before = expectStatus(await get(), 200);
    const sent = [
      widget('top_pages', 0, 0, { id: 'pages', settings: { limit: 20 } }),
      widget('top_pages', 6, 0),
      widget('top_pages', 0, 6),
      widget('visitors_graph', 0, 12, { size: { width: 8, height: 4 } }),
    ];
    const updated = expectStatus(await patch({ widgets: sent }, { etag: before.etag }), 200);
    await expectShape(t, 'UpdateDashboard', 200, updated);
    expect(updated.widgets.map((w: any) => w.id)).toEqual(['pages', 'top_pages', 'top_pages_2', 'visitors_graph']);
    expect(updated.widgets[0].settings).toEqual({ metric: 'visitors', limit: 20, date_range: '30d' });
    expect(updated.widgets[3].size).toEqual({ width: 8, height: 4 });
    expect(updated.is_default).toBe(false);
    expect(updated.create_time).toBeDefined();
    expect(expectStatus(await get(), 200)).toEqual(updated);
    // A read sent back (with output-only `query`, `is_default`, `etag`, ...) changes nothing but the etag.
    const again = expectStatus(await patch(updated, { etag: updated.etag }), 200);
    expect(again.widgets).toEqual(updated.widgets);
    expect(again.etag).not.toBe(updated.etag);
  });

  it('refuses a stale etag with 409 ABORTED, in If-Match and in the body; nothing is written', async () => {
    const current = expectStatus(await get(), 200);
    expectStatus(await patch({ widgets: [widget('devices', 0, 0)] }, { etag: current.etag }), 200);
    expectError(await patch({ widgets: [widget('browsers', 0, 0)] }, { etag: current.etag }), 409, 'ABORTED');
    expectError(await patch({ widgets: [widget('browsers', 0, 0)], etag: current.etag }), 409, 'ABORTED');
    expect(expectStatus(await get(), 200).widgets.map((w: any) => w.type)).toEqual(['devices']);
  });

  it('update_mask=widgets without widgets returns the layout to the default; an empty layout is allowed', async () => {
    const empty = expectStatus(await patch({ widgets: [] }), 200);
    expect(empty.widgets).toEqual([]);
    expect(empty.is_default).toBe(false);
    const cleared = expectStatus(await patch({}, { query: '?update_mask=widgets' }), 200);
    expect(cleared.is_default).toBe(true);
    expect(cleared.widgets.length).toBeGreaterThan(0);
    expectInvalid(await patch({}, { query: '?update_mask=layout' }), 'update_mask');
  });

  it('validate_only checks the layout without writing it', async () => {
    const before = expectStatus(await get(), 200);
    const checked = expectStatus(await patch({ widgets: [widget('events', 0, 0)] }, { query: '?validate_only=true' }), 200);
    expect(checked.widgets.map((w: any) => w.type)).toEqual(['events']);
    expect(expectStatus(await get(), 200)).toEqual(before);
    expectInvalid(await patch({ widgets: [widget('events', 0, 0, { settings: { limit: 0 } })] }, { query: '?validate_only=true' }), 'widgets[0].settings.limit');
  });
});

describe(':reset', () => {
  it(':reset puts the default layout back and answers the dashboard with a new etag; a stale etag is 409 ABORTED', async () => {
    const current = expectStatus(await patch({ widgets: [widget('browsers', 0, 0)] }), 200);
    expectError(await reset({}, { etag: 'stale' }), 409, 'ABORTED');
    expectError(await reset({ etag: 'stale' }), 409, 'ABORTED');
    const done = expectStatus(await reset({ etag: current.etag }), 200);
    await expectShape(t, 'ResetDashboard', 200, done);
    expect(done.is_default).toBe(true);
    expect(done.etag).not.toBe(current.etag);
    const { user, url } = await freshDashboard();
    expect(done.widgets).toEqual(expectStatus(await get(url, user.token), 200).widgets);
    expect(expectStatus(await get(), 200)).toEqual(done);
    expectInvalid(await reset({ layout: 'x' }), 'layout');
  });

  it(':reset works on a never-written dashboard (If-Match "0"), which then has timestamps and a real etag', async () => {
    const { user, url } = await freshDashboard();
    const done = expectStatus(await reset({}, { etag: '0', token: user.token, url }), 200);
    expect(done).toMatchObject({ is_default: true });
    expect(done.etag).not.toBe('0');
    expect(done.create_time).toBeDefined();
  });
});

describe('layout rules', () => {
  it('widget settings are validated against the type: wrong type, out of range, not a member, unknown setting → 400 naming widgets[i].settings.<name>', async () => {
    const before = expectStatus(await get(), 200);
    expectInvalid(await patch({ widgets: [widget('top_pages', 0, 0, { settings: { limit: 'ten' } })] }), 'widgets[0].settings.limit');
    expectInvalid(await patch({ widgets: [widget('devices', 0, 0), widget('top_pages', 0, 6, { settings: { limit: 101 } })] }), 'widgets[1].settings.limit');
    expectInvalid(await patch({ widgets: [widget('top_pages', 0, 0, { settings: { limit: 2.5 } })] }), 'widgets[0].settings.limit');
    expectInvalid(await patch({ widgets: [widget('top_pages', 0, 0, { settings: { metric: 'revenue' } })] }), 'widgets[0].settings.metric');
    expectInvalid(await patch({ widgets: [widget('top_pages', 0, 0, { settings: { colour: 'red' } })] }), 'widgets[0].settings.colour');
    expectInvalid(await patch({ widgets: [widget('key_metrics', 0, 0, { settings: { metrics: ['visitors', 'visitors'] } })] }), 'widgets[0].settings.metrics');
    expectInvalid(await patch({ widgets: [widget('key_metrics', 0, 0, { settings: { metrics: ['visitors', 'sales'] } })] }), 'widgets[0].settings.metrics[1]');
    expectInvalid(await patch({ widgets: [widget('key_metrics', 0, 0, { settings: { metrics: [] } })] }), 'widgets[0].settings.metrics');
    expectInvalid(await patch({ widgets: [widget('visitors_graph', 0, 0, { settings: { interval: 'minute' } })] }), 'widgets[0].settings.interval');
    expectInvalid(await patch({ widgets: [widget('events', 0, 0, { settings: { metric: 'pageviews' } })] }), 'widgets[0].settings.metric');
    expectInvalid(await patch({ widgets: [widget('top_pages', 0, 0, { settings: 'all' })] }), 'widgets[0].settings');
    // Every violation is reported at once.
    const error = expectInvalid(await patch({ widgets: [widget('top_pages', 0, 0, { settings: { limit: 0, date_range: 'forever' } })] }), 'widgets[0].settings.limit');
    expect(error.details.filter((d: any) => d.type === 'FIELD_VIOLATION').map((d: any) => d.field)).toEqual(
      expect.arrayContaining(['widgets[0].settings.limit', 'widgets[0].settings.date_range']),
    );
    expect(expectStatus(await get(), 200)).toEqual(before);
  });

  it('an unknown widget type is 400 naming widgets[i].type', async () => {
    expectInvalid(await patch({ widgets: [widget('devices', 0, 0), widget('pie_chart', 6, 0, { size: { width: 4, height: 4 } })] }), 'widgets[1].type');
    expectInvalid(await patch({ widgets: [{ position: { x: 0, y: 0 }, size: { width: 4, height: 4 } }] }), 'widgets[0].type');
    expectInvalid(await patch({ widgets: [widget('devices', 0, 0, { type: 7 })] }), 'widgets[0].type');
  });

  it('sizes and positions outside the 12-column grid or the type bounds are 400 naming the field', async () => {
    expectInvalid(await patch({ widgets: [widget('top_pages', 8, 0, { size: { width: 6, height: 6 } })] }), 'widgets[0].size.width');
    expectInvalid(await patch({ widgets: [widget('top_pages', 12, 0)] }), 'widgets[0].position.x');
    expectInvalid(await patch({ widgets: [widget('top_pages', -1, 0)] }), 'widgets[0].position.x');
    expectInvalid(await patch({ widgets: [widget('top_pages', 0, -1)] }), 'widgets[0].position.y');
    expectInvalid(await patch({ widgets: [widget('top_pages', 0, 1000)] }), 'widgets[0].position.y');
    expectInvalid(await patch({ widgets: [widget('top_pages', 0, 0, { size: { width: 13, height: 6 } })] }), 'widgets[0].size.width');
    expectInvalid(await patch({ widgets: [widget('devices', 0, 0), widget('top_pages', 0, 6, { size: { width: 2, height: 6 } })] }), 'widgets[1].size.width');
    expectInvalid(await patch({ widgets: [widget('key_metrics', 0, 0, { size: { width: 12, height: 5 } })] }), 'widgets[0].size.height');
    expectInvalid(await patch({ widgets: [widget('top_pages', 0, 0, { size: { width: 6, height: 0 } })] }), 'widgets[0].size.height');
    expectInvalid(await patch({ widgets: [widget('top_pages', 0, 0, { size: { width: 6 } })] }), 'widgets[0].size.height');
    expectInvalid(await patch({ widgets: [widget('top_pages', 0, 0, { position: { x: '0', y: 0 } })] }), 'widgets[0].position.x');
    expectInvalid(await patch({ widgets: [{ type: 'top_pages', size: { width: 6, height: 6 } }] }), 'widgets[0].position');
  });

  it('overlapping widgets are refused, naming the later widget’s position; touching edges are fine', async () => {
    const error = expectInvalid(await patch({ widgets: [widget('top_pages', 0, 0), widget('devices', 5, 5)] }), 'widgets[1].position');
    expect(error.message).toContain('widgets[0]');
    expectInvalid(await patch({ widgets: [widget('top_pages', 0, 0), widget('devices', 6, 0), widget('browsers', 3, 3)] }), 'widgets[2].position');
    const touching = expectStatus(await patch({ widgets: [widget('top_pages', 0, 0), widget('devices', 6, 0), widget('browsers', 0, 6)] }), 200);
    expect(touching.widgets).toHaveLength(3);
  });

  it('duplicate widget ids are refused naming widgets[i].id; a malformed id too', async () => {
    expectInvalid(await patch({ widgets: [widget('top_pages', 0, 0, { id: 'a' }), widget('devices', 6, 0, { id: 'a' })] }), 'widgets[1].id');
    expectInvalid(await patch({ widgets: [widget('top_pages', 0, 0, { id: 'Not An Id' })] }), 'widgets[0].id');
    // A server-assigned id never takes one the client chose.
    const chosen = expectStatus(await patch({ widgets: [widget('devices', 0, 0, { id: 'devices' }), widget('devices', 6, 0)] }), 200);
    expect(chosen.widgets.map((w: any) => w.id)).toEqual(['devices', 'devices_2']);
  });

  it('more than 50 widgets are refused naming widgets', async () => {
    const many = Array.from({ length: 51 }, (_, i) => widget('top_pages', (i % 2) * 6, Math.floor(i / 2) * 6, { id: `w${i}` }));
    expectInvalid(await patch({ widgets: many }), 'widgets');
    const fifty = expectStatus(await patch({ widgets: many.slice(0, 50) }), 200);
    expect(fifty.widgets).toHaveLength(50);
  });

  it('unknown fields are refused, on the dashboard and inside a widget, position or size; widgets must be a list', async () => {
    expectInvalid(await patch({ layout: [] }), 'layout');
    expectInvalid(await patch({ widgets: [widget('top_pages', 0, 0, { colour: 'red' })] }), 'widgets[0].colour');
    expectInvalid(await patch({ widgets: [widget('top_pages', 0, 0, { position: { x: 0, y: 0, z: 1 } })] }), 'widgets[0].position.z');
    expectInvalid(await patch({ widgets: [widget('top_pages', 0, 0, { size: { width: 6, height: 6, depth: 1 } })] }), 'widgets[0].size.depth');
    expectInvalid(await patch({ widgets: { top_pages: {} } }), 'widgets');
    expectInvalid(await patch({ widgets: ['top_pages'] }), 'widgets[0]');
  });
});

describe('access', () => {
  it('requires a signed-in user', async () => {
    expectError(await t.request('GET', dashboardUrl), 401, 'UNAUTHENTICATED');
    expectError(await t.request('PATCH', dashboardUrl, { body: { widgets: [] } }), 401, 'UNAUTHENTICATED');
    expectError(await t.request('POST', `${dashboardUrl}:reset`, { body: {} }), 401, 'UNAUTHENTICATED');
  });

  it("another tenant's website answers 404, as a missing one does; nothing is written", async () => {
    const before = expectStatus(await get(), 200);
    expectError(await get(dashboardUrl, bob.token), 404, 'NOT_FOUND');
    expectError(await patch({ widgets: [] }, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await reset({}, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await get(`${API}/websites/zzzzzzzzzznotthere00/dashboard`), 404, 'NOT_FOUND');
    expect(expectStatus(await get(), 200)).toEqual(before);
  });

  it('a member without the website.analytics right gets 403; READ reads but does not write', async () => {
    await addMember(t, carol, alice.accountId, { role: 'restricted', grants: [{ section: 'website.content', access: 'WRITE' }] });
    expectError(await get(dashboardUrl, carol.token), 403, 'PERMISSION_DENIED');
    expectError(await patch({ widgets: [] }, { token: carol.token }), 403, 'PERMISSION_DENIED');
    expectError(await reset({}, { token: carol.token }), 403, 'PERMISSION_DENIED');
    // The catalogue needs no right in any account.
    expectStatus(await t.request('GET', `${TYPES_URL}/top_pages`, { token: carol.token }), 200);

    const reader = await t.signUp();
    await addMember(t, reader, alice.accountId, { role: 'restricted', grants: [{ section: 'website.analytics', access: 'READ' }] });
    expectStatus(await get(dashboardUrl, reader.token), 200);
    expectError(await patch({ widgets: [] }, { token: reader.token }), 403, 'PERMISSION_DENIED');
    expectError(await reset({}, { token: reader.token }), 403, 'PERMISSION_DENIED');
  });

  it('the dashboard row goes with its website', async () => {
    const { user, url } = await freshDashboard();
    expectStatus(await patch({ widgets: [] }, { token: user.token, url }), 200);
    const { db } = t.platform.deps.database;
    expect(await db.selectFrom('dashboards').select('id').where('id', '=', user.websiteId).execute()).toHaveLength(1);
    // Through the API: the engine's delete runs again if the cascade meets the new website's background jobs in a deadlock.
    expect((await t.request('DELETE', `${API}/websites/${user.websiteId}?force=true`, { token: user.token })).statusCode).toBe(204);
    expect(await db.selectFrom('dashboards').select('id').where('id', '=', user.websiteId).execute()).toHaveLength(0);
  });
});
