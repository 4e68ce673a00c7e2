/**
 * Website provisioning seeds the home page and the main menu (issue 6), each as its own
 * `metadata.step`, and re-running provisioning after a crash duplicates nothing and keeps edits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectStatus, list } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUpProvisioned();
});
afterAll(() => t?.close());

const db = () => t.fresh.database.db;

/** Writes a PROVISION_WEBSITE Operation as a worker that crashed in `step` leaves it (lease expired), and waits for the re-run. */
async function rerunAfterCrash(step: string): Promise<any> {
  const now = Date.now();
  const id = await db()
    .transaction()
    .execute(async (trx) => {
      const id = await t.platform.operations.enqueue(trx, { type: 'PROVISION_WEBSITE', accountId: alice.accountId, websiteId: alice.websiteId, payload: {} }, now);
      await trx.updateTable('operations').set({ state: 'RUNNING', lease_owner: 'dead-worker', lease_expire_time: now - 1_000, attempt: 1, step }).where('id', '=', id).execute();
      return id;
    });
  t.platform.operations.wake();
  return t.waitForOperation(`websites/${alice.websiteId}/operations/${id}`, alice.token);
}

describe('provisioning of content', () => {
  it('re-running provisioning after a crash creates no second home page, menu or item, and keeps edits', async () => {
    const pagesUrl = `${API}/websites/${alice.websiteId}/cms_pages`;
    const edited = expectStatus(await t.request('PATCH', `${pagesUrl}/home`, { token: alice.token, body: { title: 'Start', content: '<p>Mine</p>' } }), 200);
    const op = await rerunAfterCrash('CREATE_HOME_PAGE');
    expect(op.error).toBeUndefined();
    expect((await list(t, alice.token, pagesUrl)).total_size).toBe(1);
    expect(expectStatus(await t.request('GET', `${pagesUrl}/home`, { token: alice.token }), 200)).toEqual(edited);
    const menus = await list(t, alice.token, `${API}/websites/${alice.websiteId}/navigation_menus`);
    expect(menus.navigation_menus.map((m: any) => m.id)).toEqual(['main']);
    const items = expectStatus(await t.request('GET', `${API}/websites/${alice.websiteId}/navigation_menus/main/items`, { token: alice.token }), 200);
    expect(items.total_size).toBe(1);
  });

  it('a re-run after the user deleted the home page seeds it again, with its main-menu item', async () => {
    const pagesUrl = `${API}/websites/${alice.websiteId}/cms_pages`;
    expectStatus(await t.request('DELETE', `${pagesUrl}/home?force=true`, { token: alice.token }), 204);
    expect((await list(t, alice.token, pagesUrl)).total_size).toBe(0);
    await rerunAfterCrash('CREATE_MAIN_MENU');
    expect(expectStatus(await t.request('GET', `${pagesUrl}/home`, { token: alice.token }), 200).url_key).toBe('home');
    const items = expectStatus(await t.request('GET', `${API}/websites/${alice.websiteId}/navigation_menus/main/items`, { token: alice.token }), 200);
    expect(items.items.map((i: any) => i.cms_page_id)).toEqual(['home']);
  });
});
