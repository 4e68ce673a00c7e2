/**
 * The customers List filters by group: `group_ids:"{group id}"` lists the members of a MANUAL group
 * (as chosen) and of a DYNAMIC group (as its rule computed them), on the website only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { as, customerWorld, type CustomerWorld } from '../support/customers.js';
import { expectError, expectStatus } from '../support/fixtures.js';

let t: TestApp;
let w: CustomerWorld;

beforeAll(async () => {
  t = await startTestApp();
  w = await customerWorld(t);
});
afterAll(async () => t?.close());

const emails = (body: { customers: Array<{ email: string }> }) => body.customers.map((c) => c.email).sort();

describe('customers filter group_ids', () => {
  it('lists the members of a MANUAL and of a DYNAMIC group with group_ids:"id"', async () => {
    const api = as(t, w.alice);
    const manual = await api.create(`${w.site}/customer_groups`, { display_name: 'Wholesale' });
    await api.create(`${w.site}/customers`, { email: 'ann@example.com', password: 'secret-pass-1', tags: ['vip'], manual_group_ids: [manual.id] });
    await api.create(`${w.site}/customers`, { email: 'ben@example.com', password: 'secret-pass-1', tags: ['vip'] });
    await api.create(`${w.site}/customers`, { email: 'cid@example.com', password: 'secret-pass-1' });
    const dynamic = await api.create(`${w.site}/customer_groups`, { display_name: 'VIPs', type: 'DYNAMIC', rule: 'tags:"vip"' });
    await t.waitForOperation(dynamic.operation, w.alice.token);

    const inManual = expectStatus(await api.get(`${w.site}/customers?filter=${encodeURIComponent(`group_ids:"${manual.id}"`)}`), 200);
    expect(emails(inManual)).toEqual(['ann@example.com']);
    expect(inManual.total_size).toBe(1);
    const inDynamic = expectStatus(await api.get(`${w.site}/customers?filter=${encodeURIComponent(`group_ids:"${dynamic.id}" AND email:"ben"`)}`), 200);
    expect(emails(inDynamic)).toEqual(['ben@example.com']);
    const all = expectStatus(await api.get(`${w.site}/customers?filter=${encodeURIComponent(`group_ids:"${dynamic.id}"`)}`), 200);
    expect(emails(all)).toEqual(['ann@example.com', 'ben@example.com']);
    expect(all.total_size).toBe(2);
  });

  it('matches nothing for another website’s group and refuses group_ids = value', async () => {
    const bobs = await as(t, w.bob).create(`${w.otherSite}/customer_groups`, { display_name: 'Bob group' });
    const none = expectStatus(await as(t, w.alice).get(`${w.site}/customers?filter=${encodeURIComponent(`group_ids:"${bobs.id}"`)}`), 200);
    expect(none.customers).toEqual([]);
    expectError(await as(t, w.alice).get(`${w.site}/customers?filter=${encodeURIComponent(`group_ids = "${bobs.id}"`)}`), 400, 'INVALID_ARGUMENT');
  });
});
