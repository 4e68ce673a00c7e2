import { it } from 'vitest';
import { startTestApp } from '../support/app.js';
it('x', async () => {
  const t = await startTestApp({}, { logger: { level: 'error' } as any });
  const a = await t.signUp();
  const r = await t.request('POST', `/tenant-api/v1/accounts/${a.accountId}/invitations`, { token: a.token, body: { email: 'x@example.com', role: 'roles/editor' } });
  console.log(r.statusCode, r.body);
  await t.close();
});
