/**
 * customer_groups (SPEC 2.14, 3.3, 4.6): MANUAL and DYNAMIC groups, rules parsed like the
 * customers List filter, members recomputed in the background and on every customer write.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { expectError, expectInvalid, expectNoBody, expectShape, expectStatus, list } from '../support/fixtures.js';
import { as, customerWorld, unchanged, type CustomerWorld } from '../support/customers.js';

let t: TestApp;
let w: CustomerWorld;
let api: ReturnType<typeof as>;
let url: string;
let customersUrl: string;

beforeAll(async () => {
  t = await startTestApp();
  w = await customerWorld(t);
  api = as(t, w.alice);
  url = `${w.site}/customer_groups`;
  customersUrl = `${w.site}/customers`;
});
afterAll(() => t?.close());

let n = 0;
const customer = (body: Record<string, unknown> = {}) => api.create(customersUrl, { email: `c${++n}@example.com`, password: 'secret-123', ...body });
const group = (body: Record<string, unknown>) => api.create(url, { display_name: `Group ${++n}`, ...body });
const groupIdsOf = async (id: string) => expectStatus(await api.get(`${customersUrl}/${id}`), 200).group_ids;
const refusedUnchanged = (write: () => Promise<unknown>) => unchanged(t, w.alice, url, 'customer_groups', write);
/** Saves a rule and waits for the recompute Operation the answer names. */
const settled = async (res: Promise<any>) => {
  const g = await res;
  expect(g.operation).toMatch(new RegExp(`^websites/${w.alice.websiteId}/operations/`));
  const op = await t.waitForOperation(g.operation, w.alice.token);
  expect(op.error).toBeUndefined();
  return { group: g, op };
};

describe('create and fields', () => {
  it('a group is MANUAL with priority 0 by default', async () => {
    const g = await group({ description: 'By hand' });
    await expectShape(t, 'CreateCustomerGroup', 201, g);
    expect(g).toMatchObject({ type: 'MANUAL', priority: 0, description: 'By hand' });
    expect(g.rule).toBeUndefined();
    expect(g.operation).toBeUndefined();
  });

  it('display_name is required, not blank, at most 255 and unique on the website (ALREADY_EXISTS)', async () => {
    await group({ display_name: 'Wholesale' });
    await refusedUnchanged(async () => {
      expectInvalid(await api.post(url, {}), 'display_name');
      expectInvalid(await api.post(url, { display_name: '  ' }), 'display_name');
      expectInvalid(await api.post(url, { display_name: 'x'.repeat(256) }), 'display_name');
      const error = expectError(await api.post(url, { display_name: 'Wholesale' }), 409, 'ALREADY_EXISTS');
      expect(error.message).toContain('Wholesale');
      expectInvalid(await api.post(url, { display_name: 'D', description: 'x'.repeat(2001) }), 'description');
      expectInvalid(await api.post(url, { display_name: 'D', type: 'SMART' }), 'type');
      expectInvalid(await api.post(url, { display_name: 'D', priority: 1.5 }), 'priority');
      expectInvalid(await api.post(url, { display_name: 'D', priority: '1' }), 'priority');
    });
    expectStatus(await as(t, w.bob).post(`${w.otherSite}/customer_groups`, { display_name: 'Wholesale' }), 201);
    const other = await group({ display_name: 'Retail' });
    expectError(await api.patch(`${url}/${other.id}`, { display_name: 'Wholesale' }), 409, 'ALREADY_EXISTS');
  });

  it('type is fixed at creation: a changed type is refused on update', async () => {
    const g = await group({ type: 'MANUAL' });
    expectInvalid(await api.patch(`${url}/${g.id}`, { type: 'DYNAMIC' }), 'type');
    expect(expectStatus(await api.get(`${url}/${g.id}`), 200)).toEqual(g);
    expectStatus(await api.patch(`${url}/${g.id}`, { type: 'MANUAL', priority: 5 }), 200);
  });

  it('a rule with a value is refused on a MANUAL group, on create and update', async () => {
    await refusedUnchanged(async () => {
      expectInvalid(await api.post(url, { display_name: 'M', rule: 'tags:"vip"' }), 'rule');
      expectInvalid(await api.post(url, { display_name: 'M', type: 'MANUAL', rule: 'email:"x"' }), 'rule');
    });
    const g = await group({});
    expectInvalid(await api.patch(`${url}/${g.id}`, { rule: 'tags:"vip"' }), 'rule');
    expectStatus(await api.patch(`${url}/${g.id}`, { rule: '' }), 200);
  });

  it('an unparsable rule, a foreign field, a mistyped value or over 2000 characters is INVALID_ARGUMENT on rule', async () => {
    await refusedUnchanged(async () => {
      for (const rule of ['tags:', 'email = ', '(tags:"a"', 'display_name:"x"', 'is_active = true', 'attributes.x = 1', 'create_time > "yesterday"', 'tags > "a"', `email:"${'x'.repeat(2000)}"`]) {
        expectInvalid(await api.post(url, { display_name: `R ${++n}`, type: 'DYNAMIC', rule }), 'rule');
      }
      expectInvalid(await api.post(url, { display_name: 'R', type: 'DYNAMIC', rule: 5 }), 'rule');
    });
    const g = await group({ type: 'DYNAMIC' });
    expectInvalid(await api.patch(`${url}/${g.id}`, { rule: 'password = "x"' }), 'rule');
    expect(expectStatus(await api.get(`${url}/${g.id}`), 200)).toEqual(g);
  });
});

describe('DYNAMIC membership', () => {
  it('members follow a saved rule through a background Operation; a changed rule moves them; no rule means no members', async () => {
    const vip = await customer({ tags: ['vip', 'de'] });
    const plain = await customer({ tags: ['de'] });
    const { group: g, op } = await settled(group({ type: 'DYNAMIC', rule: 'tags:"vip"' }));
    expect(op.metadata.type).toBe('RECOMPUTE_CUSTOMER_GROUP');
    expect(op.response).toMatchObject({ name: g.name, member_count: 1 });
    expect(await groupIdsOf(vip.id)).toContain(g.id);
    expect(await groupIdsOf(plain.id)).not.toContain(g.id);

    const { group: changed } = await settled(api.patch(`${url}/${g.id}`, { rule: 'tags:"de" AND NOT tags:"vip"' }).then((r) => expectStatus(r, 200)));
    expect(changed.operation).not.toBe(g.operation);
    expect(await groupIdsOf(vip.id)).not.toContain(g.id);
    expect(await groupIdsOf(plain.id)).toContain(g.id);

    await settled(api.patch(`${url}/${g.id}?update_mask=rule`, {}).then((r) => expectStatus(r, 200)));
    expect(await groupIdsOf(plain.id)).not.toContain(g.id);
  });

  it('an update that leaves the rule as it is starts no recompute', async () => {
    const { group: g } = await settled(group({ type: 'DYNAMIC', rule: 'email:"example"' }));
    const renamed = expectStatus(await api.patch(`${url}/${g.id}`, { display_name: `Renamed ${++n}`, rule: 'email:"example"' }), 200);
    expect(renamed.operation).toBe(g.operation);
  });

  it('rules over email (case-insensitive) and create_time match like the customers List filter', async () => {
    const c = await customer({ email: `Mixed.Case${++n}@Shop.Example` });
    const { group: byEmail } = await settled(group({ type: 'DYNAMIC', rule: 'email:"SHOP.EXAMPLE"' }));
    const { group: exact } = await settled(group({ type: 'DYNAMIC', rule: `email = "${c.email.toUpperCase()}"` }));
    const { group: recent } = await settled(group({ type: 'DYNAMIC', rule: `create_time >= "${c.create_time}"` }));
    const { group: old } = await settled(group({ type: 'DYNAMIC', rule: 'create_time < "2000-01-01T00:00:00Z"' }));
    const { group: either } = await settled(group({ type: 'DYNAMIC', rule: 'tags:"nobody-has-this" OR email:"shop.example"' }));
    const ids = await groupIdsOf(c.id);
    expect(ids).toEqual(expect.arrayContaining([byEmail.id, exact.id, recent.id, either.id]));
    expect(ids).not.toContain(old.id);
    // The same text as a List filter answers the same customers.
    const listed = await list(t, w.alice.token, customersUrl, { filter: 'email:"SHOP.EXAMPLE"' });
    expect(listed.customers.map((x: any) => x.id)).toEqual([c.id]);
  });

  it('a customer write recomputes that customer at once (no Operation needed)', async () => {
    const { group: g } = await settled(group({ type: 'DYNAMIC', rule: 'tags:"gold"' }));
    const c = await customer({ tags: ['gold'] });
    expect(c.group_ids).toContain(g.id);
    const dropped = expectStatus(await api.patch(`${customersUrl}/${c.id}`, { tags: ['silver'] }), 200);
    expect(dropped.group_ids).not.toContain(g.id);
    const back = expectStatus(await api.patch(`${customersUrl}/${c.id}`, { tags: ['silver', 'gold'] }), 200);
    expect(back.group_ids).toContain(g.id);
    expect(await groupIdsOf(c.id)).toContain(g.id);
  });

  it('a recompute touches only its own website', async () => {
    const bobApi = as(t, w.bob);
    const bobCustomer = await bobApi.create(`${w.otherSite}/customers`, { email: 'bobvip@example.com', password: 'secret-123', tags: ['vip'] });
    await settled(group({ type: 'DYNAMIC', rule: 'tags:"vip"' }));
    expect(expectStatus(await bobApi.get(`${w.otherSite}/customers/${bobCustomer.id}`), 200).group_ids).toEqual([]);
  });
});

describe('delete', () => {
  it('Delete removes the group from manual_group_ids and group_ids of every customer before answering', async () => {
    const manual = await group({});
    const keep = await group({});
    const { group: dynamic } = await settled(group({ type: 'DYNAMIC', rule: 'tags:"doomed"' }));
    const c = await customer({ tags: ['doomed'], manual_group_ids: [manual.id, keep.id] });
    expect(c.manual_group_ids).toEqual([manual.id, keep.id].sort());
    expect(c.group_ids).toEqual(expect.arrayContaining([manual.id, keep.id, dynamic.id]));
    expectNoBody(await api.del(`${url}/${manual.id}`), 204);
    expectNoBody(await api.del(`${url}/${dynamic.id}`), 204);
    const after = expectStatus(await api.get(`${customersUrl}/${c.id}`), 200);
    expect(after.manual_group_ids).toEqual([keep.id]);
    expect(after.group_ids).not.toContain(manual.id);
    expect(after.group_ids).not.toContain(dynamic.id);
    expectError(await api.get(`${url}/${manual.id}`), 404, 'NOT_FOUND');
  });
});

describe('list and tenancy', () => {
  it('filters on create_time, display_name, priority, type; sorts by create_time and display_name', async () => {
    await group({ display_name: 'Prio Seven', priority: 7 });
    const byPriority = await list(t, w.alice.token, url, { filter: 'priority = 7' });
    expect(byPriority.customer_groups.map((g: any) => g.display_name)).toEqual(['Prio Seven']);
    const dynamic = await list(t, w.alice.token, url, { filter: 'type = DYNAMIC', page_size: 100 });
    for (const g of dynamic.customer_groups) expect(g.type).toBe('DYNAMIC');
    expect((await list(t, w.alice.token, url, { filter: 'display_name:"prio"' })).total_size).toBe(1);
    expect((await list(t, w.alice.token, url, { filter: 'create_time > "2000-01-01T00:00:00Z"' })).total_size).toBeGreaterThan(1);
    const names = (await list(t, w.alice.token, url, { order_by: 'display_name', page_size: 100 })).customer_groups.map((g: any) => g.display_name);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    const times = (await list(t, w.alice.token, url, { page_size: 100 })).customer_groups.map((g: any) => g.create_time);
    expect(times).toEqual([...times].sort().reverse());
    expectInvalid(await api.get(`${url}?filter=${encodeURIComponent('rule:"x"')}`), 'rule');
    expectInvalid(await api.get(`${url}?order_by=priority`), 'order_by');
  });

  it("another tenant's groups answer NOT_FOUND", async () => {
    const foreign = await as(t, w.bob).create(`${w.otherSite}/customer_groups`, { display_name: 'Bob only' });
    expectError(await api.get(`${w.otherSite}/customer_groups/${foreign.id}`), 404, 'NOT_FOUND');
    expectError(await api.get(`${url}/${foreign.id}`), 404, 'NOT_FOUND');
    expectError(await api.patch(`${url}/${foreign.id}`, { priority: 1 }), 404, 'NOT_FOUND');
    expectError(await api.del(`${url}/${foreign.id}`), 404, 'NOT_FOUND');
  });
});
