/**
 * A write the database aborts to break a deadlock is run again (PostgreSQL 40P01): the engine's
 * transaction is rolled back whole, so the retry is the same write, and the caller gets its answer
 * instead of a 500. Made deterministic with a second connection that takes the two rows a page
 * Update locks (the page, then its website's List change counter) in the other order.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { describeOnly } from '../support/databases.js';
import { API, expectStatus } from '../support/fixtures.js';

describeOnly('postgres')('writes aborted by a deadlock', () => {
  let t: TestApp;
  let other: pg.Client;
  beforeAll(async () => {
    t = await startTestApp();
    other = new pg.Client({ connectionString: t.fresh.url });
    await other.connect();
    // This side waits longest before its deadlock check, so the server's transaction is the one aborted.
    await other.query("SET deadlock_timeout = '20s'");
  });
  afterAll(async () => {
    await other?.end();
    await t?.close();
  });

  it('a write the database aborted to break a deadlock is run again and answers 200', async () => {
    const alice = await t.signUp();
    const pages = `${API}/websites/${alice.websiteId}/cms_pages`;
    const page = expectStatus(await t.request('POST', pages, { token: alice.token, body: { title: 'Before' } }), 201);

    await other.query('BEGIN');
    // Holds the website's counter row, which the Update's trigger bumps after it has locked the page.
    await other.query("UPDATE list_versions SET version = version WHERE table_name = 'cms_pages' AND scope_id = $1", [alice.websiteId]);
    const update = t.request('PATCH', `${pages}/${page.id}`, { token: alice.token, body: { title: 'After' } });
    // Until the server's transaction holds the page and waits for the counter row.
    for (let i = 0; ; i++) {
      const { rows } = await other.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()");
      if (rows[0].n > 0) break;
      if (i > 500) throw new Error('the Update never waited for the counter row');
      await new Promise((r) => setTimeout(r, 10));
    }
    // Now the other order: a deadlock, which the server's side detects first (1 s) and is aborted.
    await other.query('SELECT id FROM cms_pages WHERE id = $1 FOR UPDATE', [page.id]);
    await other.query('COMMIT');

    const answer = await update;
    expect(answer.statusCode).toBe(200);
    expect(answer.json().title).toBe('After');
    expect(expectStatus(await t.request('GET', `${pages}/${page.id}`, { token: alice.token }), 200).title).toBe('After');
  });
});
