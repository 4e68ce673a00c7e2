import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestApp, type TestApp } from '../support/app.js';
import { describeOnly } from '../support/databases.js';

// Each test file runs in its own process: this limit reaches only the read pool opened below.
process.env.PG_READ_TIMEOUT_MS = '5';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => {
  delete process.env.PG_READ_TIMEOUT_MS;
  return t?.close();
});

describeOnly('postgres')('list time limit (PostgreSQL read pool)', () => {
  it('a List cut off by PG_READ_TIMEOUT_MS answers 504 DEADLINE_EXCEEDED, and the next cheap request still works', async () => {
    const user = await t.signUp();
    // 100 000 rows make a count of a two-character contains (shorter than a trigram: no text index
    // can narrow it, every row of the account is read) take far longer than 5 ms.
    await sql`insert into projects (id, account_id, display_name, revision, create_time, update_time)
              select 'p' || n, ${user.accountId}, 'Project ' || n, 1, n, n from generate_series(1, 100000) as n`.execute(t.fresh.database.db);
    const res = await t.request('GET', `/tenant-api/v1/accounts/${user.accountId}/projects?filter=display_name:"99"`, { token: user.token });
    expect(res.statusCode, res.body).toBe(504);
    expect(res.json().error).toMatchObject({ code: 504, status: 'DEADLINE_EXCEEDED' });
    const account = await t.request('GET', `/tenant-api/v1/accounts/${user.accountId}`, { token: user.token });
    expect(account.statusCode).toBe(200);
  });
});
