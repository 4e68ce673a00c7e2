// Security limits hold per user, not per route, and across processes (issue 24; issue 23 defect 7).
// The two-platform tests run on PostgreSQL only: SQLite is one process (RUNTIME), its limits live in memory.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { describeOnly } from '../support/databases.js';
import { expectError, expectRateLimited } from '../support/fixtures-auth.js';
import { FAILURES_PER_USER, RESETS_PER_EMAIL } from '../../src/users/user.service.js';

const API = '/tenant-api/v1';
const AUTHENTICATE = `${API}/users:authenticate`;
const CHANGE_PASSWORD = `${API}/users/me:change_password`;
const REQUEST_RESET = `${API}/users:request_password_reset`;

type Answer = { statusCode: number; headers: Record<string, unknown>; body: string; json(): any };
let addressCounter = 0;
/** A client address of its own per call, so only the per-user and per-email budgets are in play. */
const nextAddress = () => `10.7.${Math.floor(++addressCounter / 250)}.${addressCounter % 250}`;

function post(t: TestApp, url: string, body: unknown, opts: { token?: string; address?: string } = {}): Promise<Answer> {
  return t.app.inject({
    method: 'POST',
    url,
    remoteAddress: opts.address ?? nextAddress(),
    headers: { 'content-type': 'application/json', ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}) },
    payload: JSON.stringify(body),
  }) as unknown as Promise<Answer>;
}

const wrongSignIn = (t: TestApp, email: string, i: number) => post(t, AUTHENTICATE, { email, password: `wrong-${i}-password` });
const wrongChange = (t: TestApp, token: string, i: number) => post(t, CHANGE_PASSWORD, { current_password: `wrong-${i}-password`, new_password: 'brand-new-pass-2' }, { token });

describe('one budget for password guesses per user (issue 23, defect 7)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it(`answers 429 to users:authenticate after ${FAILURES_PER_USER} wrong current passwords on :change_password`, async () => {
    const user = await t.signUp();
    for (let i = 0; i < FAILURES_PER_USER; i++) expectError(await wrongChange(t, user.token, i), 400, 'INVALID_ARGUMENT');
    expectRateLimited(await wrongSignIn(t, user.email, 99), 15 * 60);
    // The right password waits too: the budget is spent, whoever spent it.
    expectRateLimited(await post(t, AUTHENTICATE, { email: user.email, password: user.password }), 15 * 60);
  });

  it(`answers 429 to :change_password after ${FAILURES_PER_USER} failed users:authenticate`, async () => {
    const user = await t.signUp();
    for (let i = 0; i < FAILURES_PER_USER; i++) expectError(await wrongSignIn(t, user.email, i), 401, 'UNAUTHENTICATED');
    expectRateLimited(await wrongChange(t, user.token, 99), 15 * 60);
  });

  it('counts failed sign-ins under any spelling of the address against the one user', async () => {
    const user = await t.signUp();
    for (let i = 0; i < FAILURES_PER_USER; i++) await wrongSignIn(t, i % 2 ? user.email.toUpperCase() : ` ${user.email}`, i);
    expectRateLimited(await wrongChange(t, user.token, 99), 15 * 60);
  });

  it('gives the budget back whole after a right password', async () => {
    const user = await t.signUp();
    for (let i = 0; i < FAILURES_PER_USER - 1; i++) await wrongSignIn(t, user.email, i);
    expect((await post(t, AUTHENTICATE, { email: user.email, password: user.password })).statusCode).toBe(200);
    for (let i = 0; i < FAILURES_PER_USER; i++) expectError(await wrongChange(t, user.token, i), 400, 'INVALID_ARGUMENT');
    expectRateLimited(await wrongSignIn(t, user.email, 99), 15 * 60);
  });
});

describeOnly('postgres')('limits shared by two platforms on one PostgreSQL database', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startTestApp();
    b = await startTestApp({}, { sharedWith: a });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it(`shares the sign-in failure budget: ${FAILURES_PER_USER} failures spread over two processes, then 429 on both`, async () => {
    const user = await a.signUp();
    for (let i = 0; i < FAILURES_PER_USER; i++) expectError(await wrongSignIn(i % 2 ? a : b, user.email, i), 401, 'UNAUTHENTICATED');
    expectRateLimited(await wrongSignIn(a, user.email, 99), 15 * 60);
    expectRateLimited(await wrongSignIn(b, user.email, 99), 15 * 60);
    // And the wrong current password on the other process belongs to the same budget.
    expectRateLimited(await wrongChange(b, user.token, 99), 15 * 60);
  });

  it('shares the per-address sign-in failure budget across processes', async () => {
    const address = nextAddress();
    // 100 failures per client address: half on each process, each for an address nobody signs in with.
    for (let i = 0; i < 100; i++) {
      const res = await post(i % 2 ? a : b, AUTHENTICATE, { email: `nobody-${i}-${Date.now()}@example.com`, password: 'wrong-password-1' }, { address });
      expect(res.statusCode, res.body).toBe(401);
    }
    expectRateLimited(await post(a, AUTHENTICATE, { email: `one-more-${Date.now()}@example.com`, password: 'wrong-password-1' }, { address }), 15 * 60);
  });

  it(`shares the password-reset sends: ${RESETS_PER_EMAIL} requests for one address over two processes, then 429 on both`, async () => {
    const user = await a.signUp();
    for (let i = 0; i < RESETS_PER_EMAIL; i++) expect((await post(i % 2 ? a : b, REQUEST_RESET, { email: user.email })).statusCode).toBe(200);
    expectRateLimited(await post(a, REQUEST_RESET, { email: user.email }), 15 * 60);
    expectRateLimited(await post(b, REQUEST_RESET, { email: user.email }), 15 * 60);
  });

  it('shares the invitation mail budget of an account (INVITATION_RATE_LIMIT, 30 an hour) across processes', async () => {
    const owner = await a.signUp();
    const invite = (t: TestApp, i: number) =>
      t.request('POST', `${API}/accounts/${owner.accountId}/invitations`, { token: owner.token, body: { email: `invitee-${i}-${Date.now()}@example.com`, role: 'roles/editor' } });
    for (let i = 0; i < 30; i++) {
      const res = await invite(i % 2 ? a : b, i);
      expect(res.statusCode, res.body).toBe(201);
    }
    for (const t of [a, b]) expectRateLimited(await invite(t, 99), 3600);
  });

  it('purges expired counters in bounded batches, and keeps live ones', async () => {
    const user = await a.signUp();
    await wrongSignIn(a, user.email, 1);
    const limits = a.platform.deps.limits;
    const rows = () => a.fresh.database.db.selectFrom('limit_counters').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    expect(Number((await rows()).n)).toBeGreaterThan(0);
    expect(await limits.purge(Date.now())).toBe(0);
    // Past every window of the tests above (the longest: invitations, an hour).
    expect(await limits.purge(Date.now() + 2 * 3600_000)).toBeGreaterThan(0);
    expect(Number((await rows()).n)).toBe(0);
  });

  it('stores no client address or typed email address in the counters', async () => {
    const email = `stored-${Date.now()}@example.com`;
    await post(a, AUTHENTICATE, { email, password: 'wrong-password-1' }, { address: '10.99.1.2' });
    const stored = await a.fresh.database.db.selectFrom('limit_counters').select('key_hash').execute();
    expect(stored.length).toBeGreaterThan(0);
    for (const row of stored) {
      expect(row.key_hash).not.toContain(email);
      expect(row.key_hash).not.toContain('10.99.1.2');
    }
  });
});

describeOnly('postgres')('the tenant request limit shared by two platforms on one PostgreSQL database', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startTestApp({ TENANT_RATE_LIMIT: '5' });
    b = await startTestApp({ TENANT_RATE_LIMIT: '5' }, { sharedWith: a });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('shares the tenant request limit: 5 requests a minute spent over two processes, then 429 with RateLimit fields on both', async () => {
    // The sign-up's hand-off exchange spent from the address's budget (no token yet), not the user's.
    const user = await a.signUp();
    const get = (t: TestApp) => t.request('GET', `${API}/users/me`, { token: user.token });
    const answers = [] as Answer[];
    for (let i = 0; answers.length < 5; i++) answers.push(await get(i % 2 ? a : b));
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.map((r) => r.headers['ratelimit'])).toEqual(['"tenant";r=4;t=12', '"tenant";r=3;t=24', '"tenant";r=2;t=36', '"tenant";r=1;t=48', '"tenant";r=0;t=60']);
    for (const t of [a, b]) {
      const refused = await get(t);
      expectRateLimited(refused, 60);
      expect(refused.headers['ratelimit-policy']).toBe('"tenant";q=5;w=60');
    }
  });

  it('admits exactly the limit when requests of one user arrive at once on both processes', async () => {
    const user = await a.signUp();
    const get = (t: TestApp) => t.request('GET', `${API}/users/me`, { token: user.token });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => get(i % 2 ? a : b)));
    const statuses = answers.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([...Array(5).fill(200), ...Array(7).fill(429)]);
    for (const refused of answers.filter((r) => r.statusCode === 429)) expectRateLimited(refused, 60);
    // Each admitted request was told what it left: 4, 3, 2, 1, 0 tokens, once each.
    const left = answers.filter((r) => r.statusCode === 200).map((r) => Number(/;r=(\d+);/.exec(String(r.headers['ratelimit']))?.[1]));
    expect(left.sort()).toEqual([0, 1, 2, 3, 4]);
  });
});
