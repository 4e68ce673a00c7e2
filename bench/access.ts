/**
 * Authorization cost (issue 12): every request reads the caller's membership (and its account role's
 * grants) with one point read. The same Get of a website, as the administrator and as an editor who
 * joined through an invitation and holds a custom account role, measured at the same time (25
 * connections each); the editor's req/s must stay within 10 % of the administrator's.
 *
 *   BENCH_SUITES=access npm run bench      (only this case, both dialects; BENCH_DIALECTS=sqlite for one)
 */
import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { apiClient, TENANT } from './api.js';
import type { BenchSuite, SuiteContext } from './suites.js';

/** The `#token=` of the invitation mail to `email` in the server's outbox (DATA_DIR/outbox, no SMTP_URL). */
async function tokenFromOutbox(ctx: SuiteContext, email: string): Promise<string> {
  const dir = join(ctx.dataDir, 'outbox');
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const files = await readdir(dir).catch(() => [] as string[]);
    for (const file of files.filter((f) => f.endsWith('.eml'))) {
      const mail = await simpleParser(await readFile(join(dir, file)));
      const to = [mail.to].flat().flatMap((a) => a?.value ?? []).map((a) => a.address?.toLowerCase());
      const token = /#token=([A-Za-z0-9_-]+)/.exec(mail.text ?? '')?.[1];
      if (to.includes(email) && token) return token;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no invitation mail to ${email} in ${dir} within 30 s`);
}

export const accessSuite: BenchSuite = {
  id: 'access',
  targets: ["access: authenticated Get as an editor holding a custom account role within 10 % of the administrator's Get (req/s, same run)"],
  setup: [
    'access: an account role (READ on `website`, WRITE on `website.content`) is created, a second user is invited with it and accepts through the link of the invitation mail (read from the outbox); then `GET websites/{w}` is measured as the administrator and as that editor at the same time (25 connections each), so both meet the same load.',
  ],
  async run(ctx) {
    const api = apiClient(ctx.base, ctx.token);
    const account = `${TENANT}/accounts/${ctx.user.accountId}`;
    const role = await api.call('POST', `${account}/account_roles`, {
      display_name: `Bench editors ${randomUUID().slice(0, 6)}`,
      grants: [
        { section: 'website', access: 'READ' },
        { section: 'website.content', access: 'WRITE' },
      ],
    });
    if (role.status !== 201) throw new Error(`account role: ${role.status} ${JSON.stringify(role.body)}`);
    const email = `bench-editor-${randomUUID().slice(0, 8)}@example.com`;
    const invited = await api.call('POST', `${account}/invitations`, { email, role: role.body.name });
    if (invited.status !== 201) throw new Error(`invitation: ${invited.status} ${JSON.stringify(invited.body)}`);
    const token = await tokenFromOutbox(ctx, email);
    const accepted = await apiClient(ctx.base).call('POST', `${TENANT}/invitations:accept`, { token, password: 'correct-horse-battery-9', display_name: 'Bench editor' });
    if (accepted.status !== 200) throw new Error(`accept: ${accepted.status} ${JSON.stringify(accepted.body)}`);
    const editorToken = String(accepted.body.token);
    const url = `${ctx.base}${TENANT}/websites/${ctx.user.websiteId}`;
    // Both at once, 25 connections each, so both meet the same load on the machine (sequential runs
    // on a shared machine differed by 2–3× from one run to the next); the editor's req/s is compared
    // with the administrator's of the same seconds.
    await Promise.all([
      ctx.measure('access-get-admin', 'Get website as the administrator (concurrently with the next row)', url, { connections: 25 }),
      ctx.measure('access-get-editor', 'Get website as an editor with a custom account role (concurrently)', url, {
        connections: 25,
        token: editorToken,
        target: { kind: 'relRate', baseline: 'access-get-admin', min: 0.9 },
        notes: ["the membership and its account role's grants come from one point read per request (view `membership_access`), no cache"],
      }),
    ]);
  },
};
