import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectStatus } from '../support/fixtures.js';
import { Browser, siteHostOf } from '../support/site-browser.js';

/**
 * Issue 15: "a signed-in customer sees the customer-group versions of pages". Needs the CMS page
 * rendering of the site (src/cms/cms.site.ts, built in parallel) to pass: this file states the
 * behaviour the visitor (customers.site.ts: `SiteVisitor.groupIds`) makes possible.
 */
describe('signed-in customers see the customer-group versions of pages', () => {
  let t: TestApp;
  let alice: TestUser;
  let host: string;
  const password = 'garden-gnome-42';
  const api = (method: string, url: string, body?: unknown) => t.request(method, url, { token: alice.token, body });
  const site = () => `${API}/websites/${alice.websiteId}`;

  async function customerIn(groupIds: string[]) {
    const email = `visitor-${randomUUID().slice(0, 8)}@example.com`;
    expectStatus(await api('POST', `${site()}/customers`, { email, password, manual_group_ids: groupIds }), 201);
    const browser = new Browser(t, host);
    expect((await browser.signIn(email, password)).statusCode).toBe(303);
    return browser;
  }

  beforeAll(async () => {
    t = await startTestApp();
    alice = await t.signUpProvisioned();
    host = await siteHostOf(t, alice);
  });
  afterAll(() => t.close());

  it('a member of group G reads the page as G; anonymous visitors and customers of no group read the page itself', async () => {
    const group = expectStatus(await api('POST', `${site()}/customer_groups`, { display_name: 'Wholesale', type: 'MANUAL' }), 201);
    const other = expectStatus(await api('POST', `${site()}/customer_groups`, { display_name: 'Retail', type: 'MANUAL' }), 201);
    const page = expectStatus(await api('POST', `${site()}/cms_pages`, { title: 'Prices', url_key: 'prices', content: '<p>Public prices</p>' }), 201);
    expectStatus(await api('POST', `${site()}/cms_pages/${page.id}/groups`, { customer_group_ids: [group.id], content: '<p>Wholesale prices</p>' }), 201);

    // Anonymous first, so a shared rendering is cached before the member asks.
    const anonymous = await new Browser(t, host).get('/prices');
    expect(anonymous.statusCode).toBe(200);
    expect(anonymous.body).toContain('Public prices');
    expect(anonymous.body).not.toContain('Wholesale prices');

    const member = await customerIn([group.id]);
    const asMember = await member.get('/prices');
    expect(asMember.statusCode).toBe(200);
    expect(asMember.body).toContain('Wholesale prices');
    expect(asMember.body).not.toContain('Public prices');
    expect(asMember.headers['cache-control']).toMatch(/private/);

    const outsider = await customerIn([other.id]);
    const asOutsider = await outsider.get('/prices');
    expect(asOutsider.body).toContain('Public prices');
    expect(asOutsider.body).not.toContain('Wholesale prices');

    // Signed out, the member reads the page itself again.
    await member.signOut();
    const after = await member.get('/prices');
    expect(after.body).toContain('Public prices');
    expect(after.body).not.toContain('Wholesale prices');
  });
});
