import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestApp, type TestApp } from '../support/app.js';

const logLines: any[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
    done();
  },
});

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({}, { logger: { level: 'error', stream: sink } });
});
afterAll(() => t?.close());

describe('internal errors', () => {
  it('a 500 answers INTERNAL with a REQUEST_INFO id that the error log carries too, and leaks no internals', async () => {
    const user = await t.signUp();
    await t.waitForOperation(user.operation, user.token);
    // Break the database under the running app: the next project read fails inside the driver.
    await sql`alter table projects rename column display_name to renamed_display_name`.execute(t.fresh.database.db);
    const res = await t.request('GET', `/tenant-api/v1/accounts/${user.accountId}/projects?order_by=display_name`, { token: user.token });
    expect(res.statusCode).toBe(500);
    const body = res.json();
    expect(body.error).toMatchObject({ code: 500, status: 'INTERNAL', message: 'internal error' });
    const requestId = body.error.details.find((d: any) => d.type === 'REQUEST_INFO').request_id;
    expect(requestId).toBe(res.headers['x-request-id']);
    expect(res.body).not.toMatch(/projects|sql|table/i);
    expect(logLines.some((line) => line.request_id === requestId && line.level >= 50)).toBe(true);
  });
});
