/**
 * Customer-group versions of a page (SPEC 1: "highest `priority` wins, everybody else reads the
 * page"), read through `cms_pages/{p}:resolve` with `customer_group_id`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestUser } from '../support/app.js';
import { defaultViewIdOf, startTwoTenants } from '../support/tenants.js';
import { API, expectError, expectInvalid, expectNoBody, expectShape, expectStatus, list } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let pagesUrl: string;
let deViewId: string;
let defaultViewId: string;
let wholesale: string;
let vip: string;
let retail: string;
let bobGroup: string;

beforeAll(async () => {
  ({ t, alice, bob } = await startTwoTenants());
  pagesUrl = `${API}/websites/${alice.websiteId}/cms_pages`;
  const views = `${API}/websites/${alice.websiteId}/views`;
  defaultViewId = await defaultViewIdOf(t, alice);
  deViewId = expectStatus(await t.request('POST', views, { token: alice.token, body: { display_name: 'DE', locale: 'de' } }), 201).id;
  const group = async (user: TestUser, name: string) =>
    expectStatus(await t.request('POST', `${API}/websites/${user.websiteId}/customer_groups`, { token: user.token, body: { display_name: name } }), 201).id;
  wholesale = await group(alice, 'Wholesale');
  vip = await group(alice, 'VIP');
  retail = await group(alice, 'Retail');
  bobGroup = await group(bob, 'Bob group');
});
afterAll(() => t?.close());

const post = (url: string, body: unknown, token = alice.token) => t.request('POST', url, { token, body });
const resolve = (page: any, body: unknown) => t.request('POST', `${API}/${page.name}:resolve`, { token: alice.token, body });
let n = 0;
const createPage = async (body: Record<string, unknown> = {}) => {
  n += 1;
  return expectStatus(await post(pagesUrl, { title: `Page ${n}`, url_key: `g-${n}`, content: '<p>Everyone</p>', ...body }), 201);
};
const addVersion = async (page: any, body: Record<string, unknown>) => {
  const version = expectStatus(await post(`${API}/${page.name}/groups`, body), 201);
  await expectShape(t, 'CreateCmsPageGroup', 201, version);
  return version;
};

describe('customer-group versions of a page', () => {
  it('the highest-priority version whose groups contain the customer group wins; everybody else reads the page', async () => {
    const page = await createPage();
    const low = await addVersion(page, { customer_group_ids: [wholesale, vip], priority: 1, content: '<p>Trade prices</p>' });
    const high = await addVersion(page, { customer_group_ids: [vip], priority: 10, content: '<p>VIP lounge</p>', title: 'VIP' });
    expect(high.name).toBe(`${page.name}/groups/${high.id}`);

    const asVip = expectStatus(await resolve(page, { customer_group_id: vip }), 200);
    await expectShape(t, 'ResolveCmsPage', 200, asVip);
    expect(asVip).toMatchObject({ customer_group_id: vip, cms_page_group_id: high.id, content: '<p>VIP lounge</p>', title: 'VIP' });
    const asWholesale = expectStatus(await resolve(page, { customer_group_id: wholesale }), 200);
    expect(asWholesale).toMatchObject({ cms_page_group_id: low.id, content: '<p>Trade prices</p>', title: page.title });
    const asRetail = expectStatus(await resolve(page, { customer_group_id: retail }), 200);
    expect(asRetail.cms_page_group_id).toBeUndefined();
    expect(asRetail.content).toBe('<p>Everyone</p>');
    const anonymous = expectStatus(await resolve(page, {}), 200);
    expect(anonymous.content).toBe('<p>Everyone</p>');
  });

  it('changing priority or switching a version off changes the winner', async () => {
    const page = await createPage();
    const a = await addVersion(page, { customer_group_ids: [vip], priority: 5, content: '<p>A</p>' });
    const b = await addVersion(page, { customer_group_ids: [vip], priority: 1, content: '<p>B</p>' });
    expect(expectStatus(await resolve(page, { customer_group_id: vip }), 200).cms_page_group_id).toBe(a.id);
    expectStatus(await t.request('PATCH', `${API}/${b.name}`, { token: alice.token, body: { priority: 9 } }), 200);
    expect(expectStatus(await resolve(page, { customer_group_id: vip }), 200).cms_page_group_id).toBe(b.id);
    expectStatus(await t.request('PATCH', `${API}/${b.name}`, { token: alice.token, body: { is_active: false } }), 200);
    expect(expectStatus(await resolve(page, { customer_group_id: vip }), 200).cms_page_group_id).toBe(a.id);
    expectNoBody(await t.request('DELETE', `${API}/${a.name}`, { token: alice.token }), 204);
    expect(expectStatus(await resolve(page, { customer_group_id: vip }), 200).cms_page_group_id).toBeUndefined();
  });

  it('a version limited to views wins only there; the view overlay shows through the fields the version leaves empty', async () => {
    const page = await createPage({ meta_description: 'base' });
    expectStatus(await t.request('PATCH', `${API}/${page.name}/views/${deViewId}?allow_missing=true`, { token: alice.token, body: { meta_description: 'DE meta' } }), 201);
    const de = await addVersion(page, { customer_group_ids: [vip], visible_view_ids: [deViewId], content: '<p>VIP DE</p>' });
    const inDe = expectStatus(await resolve(page, { customer_group_id: vip, view_id: deViewId }), 200);
    expect(inDe).toMatchObject({ cms_page_group_id: de.id, content: '<p>VIP DE</p>', meta_description: 'DE meta' });
    const inDefault = expectStatus(await resolve(page, { customer_group_id: vip, view_id: defaultViewId }), 200);
    expect(inDefault.cms_page_group_id).toBeUndefined();
  });

  it('customer_group_ids must be groups of the same website; another website\'s group is INVALID_ARGUMENT and stores nothing', async () => {
    const page = await createPage();
    expectInvalid(await post(`${API}/${page.name}/groups`, { customer_group_ids: [bobGroup], content: '<p>x</p>' }), 'customer_group_ids');
    expectInvalid(await post(`${API}/${page.name}/groups`, { customer_group_ids: [], content: '<p>x</p>' }), 'customer_group_ids');
    expectInvalid(await post(`${API}/${page.name}/groups`, { content: '<p>x</p>' }), 'customer_group_ids');
    expectInvalid(await post(`${API}/${page.name}/groups`, { customer_group_ids: [vip], priority: 'high' }), 'priority');
    expect(expectStatus(await t.request('GET', `${API}/${page.name}/groups`, { token: alice.token }), 200).total_size).toBe(0);
    // Resolving as another website's group is refused too.
    expectInvalid(await resolve(page, { customer_group_id: bobGroup }), 'customer_group_id');
  });

  it('versions are listed highest priority first, content is sanitised, and another tenant cannot reach them', async () => {
    const page = await createPage();
    await addVersion(page, { customer_group_ids: [vip], priority: 1 });
    const top = await addVersion(page, { customer_group_ids: [retail], priority: 7, content: '<p onclick="x()">Hi<script>alert(1)</script></p>' });
    expect(top.content).toBe('<p>Hi</p>');
    const listed = expectStatus(await t.request('GET', `${API}/${page.name}/groups`, { token: alice.token }), 200);
    await expectShape(t, 'ListCmsPageGroups', 200, listed);
    expect(listed.groups.map((g: any) => g.priority)).toEqual([7, 1]);
    expectError(await t.request('GET', `${API}/${top.name}`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${pagesUrl}/missing/groups`, { token: alice.token }), 404, 'NOT_FOUND');
  });

  it('read as a customer: between the customer\'s groups the customer-group priority decides (SPEC 2.14), then the version priority', async () => {
    const groupsUrl = `${API}/websites/${alice.websiteId}/customer_groups`;
    const gold = expectStatus(await post(groupsUrl, { display_name: 'Gold', priority: 10 }), 201).id;
    const silver = expectStatus(await post(groupsUrl, { display_name: 'Silver', priority: 1 }), 201).id;
    const customer = expectStatus(
      await post(`${API}/websites/${alice.websiteId}/customers`, { email: `c${Date.now()}@example.com`, password: 'secret-123', manual_group_ids: [gold, silver] }),
      201,
    );
    const page = await createPage();
    const forSilver = await addVersion(page, { customer_group_ids: [silver], priority: 100, content: '<p>Silver</p>' });
    const goldLow = await addVersion(page, { customer_group_ids: [gold], priority: 1, content: '<p>Gold low</p>' });
    await addVersion(page, { customer_group_ids: [gold], priority: 0, content: '<p>Gold lower</p>' });
    const asCustomer = expectStatus(await resolve(page, { customer_id: customer.id }), 200);
    expect(asCustomer).toMatchObject({ customer_id: customer.id, customer_group_id: gold, cms_page_group_id: goldLow.id, content: '<p>Gold low</p>' });
    // Without a version for Gold, Silver's applies.
    expectNoBody(await t.request('DELETE', `${API}/${goldLow.name}`, { token: alice.token }), 204);
    const other = await createPage();
    await addVersion(other, { customer_group_ids: [silver], content: '<p>Silver only</p>' });
    expect(expectStatus(await resolve(other, { customer_id: customer.id }), 200)).toMatchObject({ customer_group_id: silver, content: '<p>Silver only</p>' });
    expect(forSilver.priority).toBe(100);
    // A customer in no group with a version reads the page; another website's customer is refused.
    const plain = expectStatus(await post(`${API}/websites/${alice.websiteId}/customers`, { email: `p${Date.now()}@example.com`, password: 'secret-123' }), 201);
    expect(expectStatus(await resolve(page, { customer_id: plain.id }), 200).content).toBe('<p>Everyone</p>');
    const bobCustomer = expectStatus(
      await post(`${API}/websites/${bob.websiteId}/customers`, { email: `b${Date.now()}@example.com`, password: 'secret-123' }, bob.token),
      201,
    );
    expectInvalid(await resolve(page, { customer_id: bobCustomer.id }), 'customer_id');
    expectInvalid(await resolve(page, { customer_id: customer.id, customer_group_id: gold }), 'customer_id');
  });

  it('a deleted customer group no longer matches', async () => {
    const page = await createPage();
    const temp = expectStatus(await post(`${API}/websites/${alice.websiteId}/customer_groups`, { display_name: 'Temp' }), 201).id;
    await addVersion(page, { customer_group_ids: [temp], content: '<p>Temp</p>' });
    expect(expectStatus(await resolve(page, { customer_group_id: temp }), 200).content).toBe('<p>Temp</p>');
    expectNoBody(await t.request('DELETE', `${API}/websites/${alice.websiteId}/customer_groups/${temp}`, { token: alice.token }), 204);
    expectInvalid(await resolve(page, { customer_group_id: temp }), 'customer_group_id');
  });
});

describe('deleting a customer group', () => {
  it('removes it from every version’s customer_group_ids in the same Delete; a version that named only it is switched off', async () => {
    const group = async (name: string) =>
      expectStatus(await t.request('POST', `${API}/websites/${alice.websiteId}/customer_groups`, { token: alice.token, body: { display_name: name } }), 201).id;
    const doomed = await group('Doomed');
    const kept = await group('Kept');
    const page = await createPage();
    const shared = await addVersion(page, { customer_group_ids: [doomed, kept], priority: 1, content: '<p>Shared</p>' });
    const only = await addVersion(page, { customer_group_ids: [doomed], priority: 2, content: '<p>Only doomed</p>' });

    expect((await t.request('DELETE', `${API}/websites/${alice.websiteId}/customer_groups/${doomed}`, { token: alice.token })).statusCode).toBe(204);

    const sharedAfter = expectStatus(await t.request('GET', `${API}/${shared.name}`, { token: alice.token }), 200);
    expect(sharedAfter.customer_group_ids).toEqual([kept]);
    expect(sharedAfter.etag).not.toBe(shared.etag);
    const onlyAfter = expectStatus(await t.request('GET', `${API}/${only.name}`, { token: alice.token }), 200);
    expect(onlyAfter.customer_group_ids).toEqual([]);
    expect(onlyAfter.is_active).toBe(false);
    const asKept = expectStatus(await resolve(page, { customer_group_id: kept }), 200);
    expect(asKept.cms_page_group_id).toBe(shared.id);
  });
});
