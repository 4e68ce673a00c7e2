import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

describe('smoke', () => {
  it('signs up and provisions a website', async () => {
    const u = await t.signUp();
    const op = await t.waitForOperation(u.operation, u.token);
    expect(op.done).toBe(true);
    expect(op.response.website_url).toMatch(/^http:\/\/.+\.localhost$/);
    const res = await t.request('GET', `/tenant-api/v1/websites/${u.websiteId}`, { token: u.token });
    expect(res.statusCode).toBe(200);
    expect(res.json().provisioning_status).toBe('ACTIVE');
    const list = await t.request('GET', `/tenant-api/v1/accounts`, { token: u.token });
    expect(list.json()).toMatchObject({ accounts: [{ id: u.accountId }], total_size: 1 });
  });
});
