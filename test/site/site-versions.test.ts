import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestUser } from '../support/app.js';
import { startTwoTenants } from '../support/tenants.js';

/**
 * Issue 15, "Publishing asynchrony": every write to what a rendered site shows bumps the website's
 * content version in the write's own transaction (`site_versions`, triggers); writes of another
 * website leave it alone.
 */
describe('site content versions', () => {
  let t: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  const API = '/tenant-api/v1';

  const versionOf = async (websiteId: string) => {
    const row = await t.platform.deps.database.db.selectFrom('site_versions').select('version').where('website_id', '=', websiteId).executeTakeFirst();
    return Number(row?.version ?? 0);
  };

  beforeAll(async () => {
    ({ t, alice, bob } = await startTwoTenants());
  });
  afterAll(() => t.close());

  const writes: Array<[string, (u: TestUser) => Promise<{ statusCode: number }>]> = [
    ['a page', (u) => t.request('PATCH', `${API}/websites/${u.websiteId}/cms_pages/home?update_mask=title`, { token: u.token, body: { title: 'New title' } })],
    ['a setting', (u) => t.request('PATCH', `${API}/websites/${u.websiteId}/settings/general.site.tagline`, { token: u.token, body: { value: 'Fresh bread' } })],
    ['the theme', (u) => t.request('PATCH', `${API}/websites/${u.websiteId}/theme`, { token: u.token, body: { variables: { '--color-primary': '#123456' } } })],
    ['a block', (u) => t.request('POST', `${API}/websites/${u.websiteId}/cms_blocks`, { token: u.token, body: { identifier: `b${Date.now()}`, title: 'B', content: '<p>x</p>' } })],
    ['a view', (u) => t.request('POST', `${API}/websites/${u.websiteId}/views`, { token: u.token, body: { display_name: 'Deutsch', locale: 'de' } })],
  ];

  for (const [what, write] of writes) {
    it(`writing ${what} bumps that website's content version and no other's`, async () => {
      const [mine, theirs] = [await versionOf(alice.websiteId), await versionOf(bob.websiteId)];
      const res = await write(alice);
      expect(res.statusCode, JSON.stringify((res as any).json?.())).toBeLessThan(300);
      expect(await versionOf(alice.websiteId)).toBeGreaterThan(mine);
      expect(await versionOf(bob.websiteId)).toBe(theirs);
    });
  }

  it('a failed write leaves the version where it was', async () => {
    const before = await versionOf(alice.websiteId);
    const res = await t.request('POST', `${API}/websites/${alice.websiteId}/cms_pages`, { token: alice.token, body: { title: 'x', url_key: 'home' } });
    expect(res.statusCode).toBe(409);
    expect(await versionOf(alice.websiteId)).toBe(before);
  });
});
