/**
 * customer_attribute_groups (SPEC 2.12, 4.6, 8): sections of the admin customer form.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { expectError, expectInvalid, expectNoBody, expectShape, expectStatus, list } from '../support/fixtures.js';
import { as, customerWorld, unchanged, type CustomerWorld } from '../support/customers.js';

let t: TestApp;
let w: CustomerWorld;
let api: ReturnType<typeof as>;
let groupsUrl: string;

beforeAll(async () => {
  t = await startTestApp();
  w = await customerWorld(t);
  api = as(t, w.alice);
  groupsUrl = `${w.site}/customer_attribute_groups`;
});
afterAll(() => t?.close());

const orderOf = async () => (await list(t, w.alice.token, groupsUrl, { page_size: 100 })).customer_attribute_groups.map((g: any) => [g.id, g.sort_order]);

describe('create', () => {
  it('creates a section with display_name and labels; a new section comes last', async () => {
    const a = await api.create(groupsUrl, { display_name: 'Contact', labels: { de: 'Kontakt', 'pt-BR': 'Contato' } });
    await expectShape(t, 'CreateCustomerAttributeGroup', 201, a);
    expect(a).toMatchObject({ display_name: 'Contact', labels: { de: 'Kontakt', 'pt-BR': 'Contato' } });
    expect(a.name).toBe(`websites/${w.alice.websiteId}/customer_attribute_groups/${a.id}`);
    const b = await api.create(groupsUrl, { display_name: 'Billing' });
    expect(b.sort_order).toBeGreaterThan(a.sort_order);
    const ids = (await orderOf()).map(([id]: any) => id);
    expect(ids.slice(-2)).toEqual([a.id, b.id]);
  });

  it('display_name is required, not blank, at most 255 characters', async () => {
    await unchanged(t, w.alice, groupsUrl, 'customer_attribute_groups', async () => {
      expectInvalid(await api.post(groupsUrl, {}), 'display_name');
      expectInvalid(await api.post(groupsUrl, { display_name: '   ' }), 'display_name');
      expectInvalid(await api.post(groupsUrl, { display_name: 'x'.repeat(256) }), 'display_name');
      expectInvalid(await api.post(groupsUrl, { display_name: 42 }), 'display_name');
      expectInvalid(await api.post(groupsUrl, { display_name: null }), 'display_name');
    });
    expectStatus(await api.post(groupsUrl, { display_name: 'x'.repeat(255) }), 201);
  });

  it('labels: each at most 255 characters, keys are locales, values strings', async () => {
    await unchanged(t, w.alice, groupsUrl, 'customer_attribute_groups', async () => {
      expectInvalid(await api.post(groupsUrl, { display_name: 'L', labels: { de: 'x'.repeat(256) } }), 'labels.de');
      expectInvalid(await api.post(groupsUrl, { display_name: 'L', labels: { de: 5 } }), 'labels.de');
      expectInvalid(await api.post(groupsUrl, { display_name: 'L', labels: { 'not a locale!': 'x' } }), 'labels');
      expectInvalid(await api.post(groupsUrl, { display_name: 'L', labels: 'de' }), 'labels');
      expectInvalid(await api.post(groupsUrl, { display_name: 'L', unknown: 1 }), 'unknown');
    });
  });

  it('sort_order sent on create is ignored (output only)', async () => {
    const g = await api.create(groupsUrl, { display_name: 'Ignored order', sort_order: -5 });
    expect(g.sort_order).not.toBe(-5);
  });
});

describe('update', () => {
  it('labels are replaced whole when sent', async () => {
    const g = await api.create(groupsUrl, { display_name: 'Replace', labels: { de: 'A', fr: 'B' } });
    const updated = expectStatus(await api.patch(`${groupsUrl}/${g.id}`, { labels: { it: 'C' } }), 200);
    expect(updated.labels).toEqual({ it: 'C' });
    expect(updated.display_name).toBe('Replace');
  });

  it('a changed sort_order is refused on PATCH (only :move changes it); the same value is accepted', async () => {
    const g = await api.create(groupsUrl, { display_name: 'No reorder' });
    expectInvalid(await api.patch(`${groupsUrl}/${g.id}`, { sort_order: g.sort_order + 7 }), 'sort_order');
    expect(expectStatus(await api.get(`${groupsUrl}/${g.id}`), 200).etag).toBe(g.etag);
    expectStatus(await api.patch(`${groupsUrl}/${g.id}`, { sort_order: g.sort_order, display_name: 'Same order' }), 200);
  });

  it('blank display_name on update is refused and stores nothing', async () => {
    const g = await api.create(groupsUrl, { display_name: 'Keep' });
    expectInvalid(await api.patch(`${groupsUrl}/${g.id}`, { display_name: ' ' }), 'display_name');
    expectInvalid(await api.patch(`${groupsUrl}/${g.id}?update_mask=display_name`, {}), 'display_name');
    expect(expectStatus(await api.get(`${groupsUrl}/${g.id}`), 200)).toEqual(g);
  });
});

describe(':move', () => {
  it('after_id places the section right after it and renumbers the others; null and {} put it first', async () => {
    const ids = (await orderOf()).map(([id]: any) => id);
    const [first, second, third] = ids;
    const moved = expectStatus(await api.post(`${groupsUrl}/${first}:move`, { after_id: third }), 200);
    await expectShape(t, 'GetCustomerAttributeGroup', 200, moved);
    let order = (await orderOf()).map(([id]: any) => id);
    expect(order.slice(0, 3)).toEqual([second, third, first]);
    const sorts = (await orderOf()).map(([, s]: any) => s);
    expect(new Set(sorts).size).toBe(sorts.length);

    expectStatus(await api.post(`${groupsUrl}/${first}:move`, { after_id: null }), 200);
    order = (await orderOf()).map(([id]: any) => id);
    expect(order[0]).toBe(first);
    expectStatus(await api.post(`${groupsUrl}/${third}:move`, {}), 200);
    order = (await orderOf()).map(([id]: any) => id);
    expect(order[0]).toBe(third);
    expect(order[1]).toBe(first);
  });

  it('after_id that is not a sibling (other website, unknown, itself) is INVALID_ARGUMENT naming after_id', async () => {
    const [[id]] = await orderOf();
    const foreign = await as(t, w.bob).create(`${w.otherSite}/customer_attribute_groups`, { display_name: 'Bob' });
    await unchanged(t, w.alice, groupsUrl, 'customer_attribute_groups', async () => {
      expectInvalid(await api.post(`${groupsUrl}/${id}:move`, { after_id: foreign.id }), 'after_id');
      expectInvalid(await api.post(`${groupsUrl}/${id}:move`, { after_id: 'nope' }), 'after_id');
      expectInvalid(await api.post(`${groupsUrl}/${id}:move`, { after_id: id }), 'after_id');
      expectInvalid(await api.post(`${groupsUrl}/${id}:move`, { after_id: 5 }), 'after_id');
      expectInvalid(await api.post(`${groupsUrl}/${id}:move`, { before_id: id }), 'before_id');
    });
  });

  it(':move on another tenant section is NOT_FOUND', async () => {
    const foreign = await as(t, w.bob).create(`${w.otherSite}/customer_attribute_groups`, { display_name: 'Bob 2' });
    expectError(await api.post(`${w.otherSite}/customer_attribute_groups/${foreign.id}:move`, {}), 404, 'NOT_FOUND');
    expectError(await api.post(`${groupsUrl}/${foreign.id}:move`, {}), 404, 'NOT_FOUND');
  });
});

describe('delete', () => {
  it('Delete moves the section attributes to the default section (group_id cleared), attributes stay', async () => {
    const g = await api.create(groupsUrl, { display_name: 'Doomed' });
    const attr = await api.create(`${w.site}/customer_attributes`, { key: 'doomed_field', display_name: 'F', type: 'TEXT', group_id: g.id });
    expect(attr.group_id).toBe(g.id);
    expectNoBody(await api.del(`${groupsUrl}/${g.id}`), 204);
    const after = expectStatus(await api.get(`${w.site}/customer_attributes/${attr.id}`), 200);
    expect(after.group_id).toBeUndefined();
    expect(after.etag).not.toBe(attr.etag);
    expectError(await api.get(`${groupsUrl}/${g.id}`), 404, 'NOT_FOUND');
  });
});

describe('limits and tenancy', () => {
  it('a 21st section on a website is FAILED_PRECONDITION; another website has its own 20', async () => {
    const existing = (await list(t, w.alice.token, groupsUrl, { page_size: 100 })).total_size;
    for (let i = existing; i < 20; i++) await api.create(groupsUrl, { display_name: `Fill ${i}` });
    await unchanged(t, w.alice, groupsUrl, 'customer_attribute_groups', async () => {
      const error = expectError(await api.post(groupsUrl, { display_name: 'One too many' }), 400, 'FAILED_PRECONDITION');
      expect(error.details.find((d: any) => d.type === 'PRECONDITION_FAILURE').reason).toBe('ATTRIBUTE_GROUP_LIMIT');
    });
    expectStatus(await as(t, w.bob).post(`${w.otherSite}/customer_attribute_groups`, { display_name: 'Fine' }), 201);
  });

  it('filter by display_name and order by sort_order; other fields are refused naming them', async () => {
    const page = await list(t, w.alice.token, groupsUrl, { filter: 'display_name:"fill 1"' });
    expect(page.customer_attribute_groups.length).toBeGreaterThan(0);
    for (const g of page.customer_attribute_groups) expect(g.display_name.toLowerCase()).toContain('fill 1');
    const desc = await list(t, w.alice.token, groupsUrl, { order_by: 'sort_order desc', page_size: 100 });
    const sorts = desc.customer_attribute_groups.map((g: any) => g.sort_order);
    expect(sorts).toEqual([...sorts].sort((a, b) => b - a));
    expectInvalid(await api.get(`${groupsUrl}?order_by=display_name`), 'order_by');
    expectInvalid(await api.get(`${groupsUrl}?filter=${encodeURIComponent('labels:"x"')}`), 'labels');
  });

  it('another tenant sections answer NOT_FOUND on every method; no token is UNAUTHENTICATED', async () => {
    const foreign = await as(t, w.bob).create(`${w.otherSite}/customer_attribute_groups`, { display_name: 'Private' }).catch(async () => {
      // Bob may be at his limit from earlier tests; read one of his instead.
      return (await list(t, w.bob.token, `${w.otherSite}/customer_attribute_groups`)).customer_attribute_groups[0];
    });
    for (const url of [`${w.otherSite}/customer_attribute_groups/${foreign.id}`, `${groupsUrl}/${foreign.id}`]) {
      expectError(await api.get(url), 404, 'NOT_FOUND');
      expectError(await api.patch(url, { display_name: 'x' }), 404, 'NOT_FOUND');
      expectError(await api.del(url), 404, 'NOT_FOUND');
    }
    expectError(await api.get(`${w.otherSite}/customer_attribute_groups`), 404, 'NOT_FOUND');
    expectError(await t.request('GET', groupsUrl), 401, 'UNAUTHENTICATED');
  });
});
