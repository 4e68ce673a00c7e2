/**
 * customer_attributes (SPEC 2.13, 4.6, 8): fields a website adds to its customers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { expectError, expectInvalid, expectNoBody, expectShape, expectStatus, list } from '../support/fixtures.js';
import { as, customerWorld, unchanged, type CustomerWorld } from '../support/customers.js';

let t: TestApp;
let w: CustomerWorld;
let api: ReturnType<typeof as>;
let url: string;

beforeAll(async () => {
  t = await startTestApp();
  w = await customerWorld(t);
  api = as(t, w.alice);
  url = `${w.site}/customer_attributes`;
});
afterAll(() => t?.close());

let n = 0;
const key = (prefix = 'f') => `${prefix}_${++n}`;
const attr = (body: Record<string, unknown>) => api.create(url, { key: key(), display_name: 'Field', type: 'TEXT', ...body });
const refusedUnchanged = (write: () => Promise<unknown>) => unchanged(t, w.alice, url, 'customer_attributes', write);

describe('create', () => {
  it('creates an attribute with defaults; new fields come last', async () => {
    const a = await attr({ key: 'nickname', labels: { de: 'Spitzname' }, description: 'How to call you' });
    await expectShape(t, 'CreateCustomerAttribute', 201, a);
    expect(a).toMatchObject({ key: 'nickname', type: 'TEXT', is_required: false, show_in_registration: false, is_active: true, labels: { de: 'Spitzname' } });
    expect(a.options).toBeUndefined();
    expect(a.group_id).toBeUndefined();
    const b = await attr({ type: 'NUMBER', min_value: 0, max_value: 10 });
    expect(b.sort_order).toBeGreaterThan(a.sort_order);
  });

  it('key, display_name and type are required', async () => {
    await refusedUnchanged(async () => {
      expectInvalid(await api.post(url, { display_name: 'F', type: 'TEXT' }), 'key');
      expectInvalid(await api.post(url, { key: key(), type: 'TEXT' }), 'display_name');
      expectInvalid(await api.post(url, { key: key(), display_name: 'F' }), 'type');
    });
  });

  it('key pattern: a lowercase letter then up to 63 lowercase letters, digits, underscores', async () => {
    await refusedUnchanged(async () => {
      for (const bad of ['1abc', 'Abc', 'a-b', '_a', '', 'a'.repeat(65), 'ä', 7]) {
        expectInvalid(await api.post(url, { key: bad, display_name: 'F', type: 'TEXT' }), 'key');
      }
    });
    expectStatus(await api.post(url, { key: 'a'.repeat(64), display_name: 'F', type: 'TEXT' }), 201);
    expectStatus(await api.post(url, { key: 'z9_', display_name: 'F', type: 'TEXT' }), 201);
  });

  it("a customer's own field names are refused as keys", async () => {
    await refusedUnchanged(async () => {
      for (const reserved of ['email', 'display_name', 'tags', 'password', 'is_active', 'attributes', 'group_ids', 'manual_group_ids']) {
        expectInvalid(await api.post(url, { key: reserved, display_name: 'F', type: 'TEXT' }), 'key');
      }
    });
  });

  it('a duplicate key on the website is ALREADY_EXISTS; the same key on another website is fine', async () => {
    await attr({ key: 'dup_key' });
    await refusedUnchanged(async () => {
      const error = expectError(await api.post(url, { key: 'dup_key', display_name: 'Again', type: 'NUMBER' }), 409, 'ALREADY_EXISTS');
      expect(error.message).toContain('dup_key');
    });
    expectStatus(await as(t, w.bob).post(`${w.otherSite}/customer_attributes`, { key: 'dup_key', display_name: 'Bob', type: 'TEXT' }), 201);
  });

  it('display_name not blank and at most 255; description at most 2000; labels at most 255', async () => {
    await refusedUnchanged(async () => {
      expectInvalid(await api.post(url, { key: key(), display_name: ' ', type: 'TEXT' }), 'display_name');
      expectInvalid(await api.post(url, { key: key(), display_name: 'x'.repeat(256), type: 'TEXT' }), 'display_name');
      expectInvalid(await api.post(url, { key: key(), display_name: 'F', type: 'TEXT', description: 'x'.repeat(2001) }), 'description');
      expectInvalid(await api.post(url, { key: key(), display_name: 'F', type: 'TEXT', labels: { fr: 'x'.repeat(256) } }), 'labels.fr');
      expectInvalid(await api.post(url, { key: key(), display_name: 'F', type: 'COLOR' }), 'type');
      expectInvalid(await api.post(url, { key: key(), display_name: 'F', type: 'TEXT', is_required: 'yes' }), 'is_required');
      expectInvalid(await api.post(url, { key: key(), display_name: 'F', type: 'TEXT', group_id: 'no-such-section' }), 'group_id');
    });
  });

  it('group_id must be a section of the same website', async () => {
    const foreign = await as(t, w.bob).create(`${w.otherSite}/customer_attribute_groups`, { display_name: 'Bob section' });
    await refusedUnchanged(async () => {
      expectInvalid(await api.post(url, { key: key(), display_name: 'F', type: 'TEXT', group_id: foreign.id }), 'group_id');
    });
    const own = await api.create(`${w.site}/customer_attribute_groups`, { display_name: 'Own' });
    expect((await attr({ group_id: own.id })).group_id).toBe(own.id);
  });
});

describe('the definition is validated as a whole', () => {
  it('options: required 1..100 on SELECT/MULTISELECT, unique value, none on other types', async () => {
    const option = (value: string) => ({ value, display_name: value.toUpperCase() });
    await refusedUnchanged(async () => {
      expectInvalid(await api.post(url, { key: key(), display_name: 'S', type: 'SELECT' }), 'options');
      expectInvalid(await api.post(url, { key: key(), display_name: 'S', type: 'MULTISELECT', options: [] }), 'options');
      const many = Array.from({ length: 101 }, (_, i) => option(`v${i}`));
      expectInvalid(await api.post(url, { key: key(), display_name: 'S', type: 'SELECT', options: many }), 'options');
      expectInvalid(await api.post(url, { key: key(), display_name: 'S', type: 'SELECT', options: [option('a'), option('a')] }), 'options[1].value');
      expectInvalid(await api.post(url, { key: key(), display_name: 'S', type: 'TEXT', options: [option('a')] }), 'options');
      expectInvalid(await api.post(url, { key: key(), display_name: 'S', type: 'SELECT', options: [{ value: 'a' }] }), 'options[0].display_name');
      expectInvalid(await api.post(url, { key: key(), display_name: 'S', type: 'SELECT', options: [{ value: '', display_name: 'x' }] }), 'options[0].value');
    });
    const select = await attr({ type: 'SELECT', options: Array.from({ length: 100 }, (_, i) => option(`v${i}`)) });
    expect(select.options).toHaveLength(100);
  });

  it('lengths only on TEXT/TEXTAREA, max_length at most 1024 for TEXT and 8192 for TEXTAREA', async () => {
    await refusedUnchanged(async () => {
      expectInvalid(await api.post(url, { key: key(), display_name: 'T', type: 'TEXT', max_length: 1025 }), 'max_length');
      expectInvalid(await api.post(url, { key: key(), display_name: 'T', type: 'TEXTAREA', max_length: 8193 }), 'max_length');
      expectInvalid(await api.post(url, { key: key(), display_name: 'T', type: 'NUMBER', max_length: 5 }), 'max_length');
      expectInvalid(await api.post(url, { key: key(), display_name: 'T', type: 'BOOLEAN', min_length: 1 }), 'min_length');
      expectInvalid(await api.post(url, { key: key(), display_name: 'T', type: 'TEXT', min_length: 10, max_length: 5 }), 'min_length');
      expectInvalid(await api.post(url, { key: key(), display_name: 'T', type: 'TEXT', max_length: 1.5 }), 'max_length');
    });
    expect((await attr({ type: 'TEXT', max_length: 1024 })).max_length).toBe(1024);
    expect((await attr({ type: 'TEXTAREA', max_length: 8192, min_length: 2 })).max_length).toBe(8192);
  });

  it('ranges only on NUMBER, min_value not above max_value', async () => {
    await refusedUnchanged(async () => {
      expectInvalid(await api.post(url, { key: key(), display_name: 'N', type: 'TEXT', min_value: 1 }), 'min_value');
      expectInvalid(await api.post(url, { key: key(), display_name: 'N', type: 'DATE', max_value: 1 }), 'max_value');
      expectInvalid(await api.post(url, { key: key(), display_name: 'N', type: 'NUMBER', min_value: 5, max_value: 1 }), 'min_value');
      expectInvalid(await api.post(url, { key: key(), display_name: 'N', type: 'NUMBER', min_value: 'low' }), 'min_value');
    });
    expect(await attr({ type: 'NUMBER', min_value: -1.5, max_value: 2.5 })).toMatchObject({ min_value: -1.5, max_value: 2.5 });
  });

  it('an update is checked against the whole updated definition', async () => {
    const text = await attr({ type: 'TEXT', max_length: 100 });
    const target = `${url}/${text.id}`;
    expectInvalid(await api.patch(target, { options: [{ value: 'a', display_name: 'A' }] }), 'options');
    expectInvalid(await api.patch(target, { min_value: 1 }), 'min_value');
    expectInvalid(await api.patch(target, { min_length: 101 }), 'min_length');
    expect(expectStatus(await api.get(target), 200)).toEqual(text);
    const select = await attr({ type: 'SELECT', options: [{ value: 'a', display_name: 'A' }] });
    expectInvalid(await api.patch(`${url}/${select.id}?update_mask=options`, {}), 'options');
    const replaced = expectStatus(await api.patch(`${url}/${select.id}`, { options: [{ value: 'b', display_name: 'B', labels: { de: 'Bee' } }] }), 200);
    expect(replaced.options).toEqual([{ value: 'b', display_name: 'B', labels: { de: 'Bee' } }]);
  });
});

describe('update', () => {
  it('key and type are fixed: a changed value is refused, the same value is accepted', async () => {
    const a = await attr({ type: 'TEXT' });
    const target = `${url}/${a.id}`;
    expectInvalid(await api.patch(target, { key: 'renamed' }), 'key');
    expectInvalid(await api.patch(target, { type: 'NUMBER' }), 'type');
    expectInvalid(await api.patch(target, { sort_order: a.sort_order + 3 }), 'sort_order');
    expect(expectStatus(await api.get(target), 200)).toEqual(a);
    const same = expectStatus(await api.patch(target, { key: a.key, type: 'TEXT', display_name: 'Renamed label' }), 200);
    expect(same.display_name).toBe('Renamed label');
  });

  it('labels replaced whole; is_active, is_required, show_in_registration, description writable', async () => {
    const a = await attr({ labels: { de: 'A', fr: 'B' } });
    const updated = expectStatus(
      await api.patch(`${url}/${a.id}`, { labels: { es: 'C' }, is_active: false, is_required: true, show_in_registration: true, description: 'd' }),
      200,
    );
    expect(updated).toMatchObject({ labels: { es: 'C' }, is_active: false, is_required: true, show_in_registration: true, description: 'd' });
  });
});

describe(':move', () => {
  it('moves an attribute after another; null puts it first; others are renumbered', async () => {
    const page = await list(t, w.alice.token, url, { page_size: 100 });
    const [a, b, c] = page.customer_attributes;
    const moved = expectStatus(await api.post(`${url}/${a.id}:move`, { after_id: c.id }), 200);
    await expectShape(t, 'GetCustomerAttribute', 200, moved);
    let order = (await list(t, w.alice.token, url, { page_size: 100 })).customer_attributes.map((x: any) => x.id);
    expect(order.slice(0, 3)).toEqual([b.id, c.id, a.id]);
    expectStatus(await api.post(`${url}/${a.id}:move`, { after_id: null }), 200);
    order = (await list(t, w.alice.token, url, { page_size: 100 })).customer_attributes.map((x: any) => x.id);
    expect(order[0]).toBe(a.id);
    expectInvalid(await api.post(`${url}/${a.id}:move`, { after_id: 'missing' }), 'after_id');
  });
});

describe('delete', () => {
  it('Delete removes the values from every customer', async () => {
    const a = await attr({ key: 'shoe_size', type: 'NUMBER' });
    await attr({ key: 'hat_size', type: 'NUMBER' });
    const c1 = await api.create(`${w.site}/customers`, { email: 'shoe1@example.com', password: 'secret-123', attributes: { shoe_size: 42, hat_size: 7 } });
    const c2 = await api.create(`${w.site}/customers`, { email: 'shoe2@example.com', password: 'secret-123', attributes: { shoe_size: 40 } });
    expectNoBody(await api.del(`${url}/${a.id}`), 204);
    const after1 = expectStatus(await api.get(`${w.site}/customers/${c1.id}`), 200);
    const after2 = expectStatus(await api.get(`${w.site}/customers/${c2.id}`), 200);
    expect(after1.attributes).toEqual({ hat_size: 7 });
    expect(after2.attributes).toBeUndefined();
    expect(after1.etag).not.toBe(c1.etag);
    // The key is free again, and a new field with it starts without values.
    await attr({ key: 'shoe_size', type: 'TEXT' });
    expect(expectStatus(await api.get(`${w.site}/customers/${c2.id}`), 200).attributes).toBeUndefined();
  });
});

describe('list, limits, tenancy', () => {
  it('filters on every filterable field and sorts by key', async () => {
    const page = await list(t, w.alice.token, url, { filter: 'type = NUMBER AND is_active = true', page_size: 100 });
    expect(page.customer_attributes.length).toBeGreaterThan(0);
    for (const a of page.customer_attributes) expect(a).toMatchObject({ type: 'NUMBER', is_active: true });
    for (const filter of ['key = "nickname"', 'display_name:"field"', 'is_required = false', 'show_in_registration = false', 'group_id = null']) {
      expect((await list(t, w.alice.token, url, { filter })).total_size).toBeGreaterThan(0);
    }
    const byKey = (await list(t, w.alice.token, url, { order_by: 'key', page_size: 100 })).customer_attributes.map((a: any) => a.key);
    expect(byKey).toEqual([...byKey].sort());
    expectInvalid(await api.get(`${url}?filter=${encodeURIComponent('description:"x"')}`), 'description');
    expectInvalid(await api.get(`${url}?order_by=type`), 'order_by');
  });

  it('a 101st attribute on a website is FAILED_PRECONDITION', async () => {
    const existing = (await list(t, w.alice.token, url)).total_size;
    for (let i = existing; i < 100; i++) await api.create(url, { key: `fill_${i}`, display_name: 'Fill', type: 'BOOLEAN' });
    await refusedUnchanged(async () => {
      const error = expectError(await api.post(url, { key: 'one_too_many', display_name: 'X', type: 'TEXT' }), 400, 'FAILED_PRECONDITION');
      expect(error.details.find((d: any) => d.type === 'PRECONDITION_FAILURE').reason).toBe('ATTRIBUTE_LIMIT');
    });
  });

  it("another tenant's attributes answer NOT_FOUND", async () => {
    const foreign = await as(t, w.bob).create(`${w.otherSite}/customer_attributes`, { key: 'secret', display_name: 'S', type: 'TEXT' });
    expectError(await api.get(`${w.otherSite}/customer_attributes/${foreign.id}`), 404, 'NOT_FOUND');
    expectError(await api.get(`${url}/${foreign.id}`), 404, 'NOT_FOUND');
    expectError(await api.patch(`${url}/${foreign.id}`, { display_name: 'x' }), 404, 'NOT_FOUND');
    expectError(await api.del(`${url}/${foreign.id}`), 404, 'NOT_FOUND');
    expectError(await api.post(`${url}/${foreign.id}:move`, {}), 404, 'NOT_FOUND');
  });
});
