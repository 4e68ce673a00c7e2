/**
 * The setup most API tests share: the real platform on a fresh database and two tenants, each a
 * user with a provisioned website (default view, home page, main menu). Alice is the caller; Bob is
 * the other tenant whose ids must answer NOT_FOUND. One per test file:
 *
 *   let t: TestApp, alice: TestUser, bob: TestUser;
 *   beforeAll(async () => ({ t, alice, bob } = await startTwoTenants()));
 *   afterAll(() => t?.close());
 */
import { API, list } from './fixtures.js';
import { startTestApp, type TestApp, type TestUser } from './app.js';

export interface TwoTenants {
  t: TestApp;
  alice: TestUser;
  bob: TestUser;
}

/** Boots the app (with `env` over the test defaults, `opts` as `startTestApp`'s) and provisions Alice's and Bob's websites side by side. */
export async function startTwoTenants(env: Record<string, string> = {}, opts?: Parameters<typeof startTestApp>[1]): Promise<TwoTenants> {
  const t = await startTestApp(env, opts);
  try {
    const [alice, bob] = await Promise.all([t.signUpProvisioned(), t.signUpProvisioned()]);
    return { t, alice, bob };
  } catch (err) {
    await t.close();
    throw err;
  }
}

/** The id of the view provisioning created as the website's default. */
export async function defaultViewIdOf(t: TestApp, user: TestUser): Promise<string> {
  return (await list(t, user.token, `${API}/websites/${user.websiteId}/views`, { filter: 'is_default = true' })).views[0].id;
}
