/**
 * Executions are work for many workers (issue: scale): on PostgreSQL two workers, each with its own
 * connections as separate `npm run worker` processes have, share the queue and never run a run twice.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp, type Platform } from '../../src/app.js';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { describeOnly } from '../support/databases.js';
import { acct, createAgent, createRun, waitForRun } from '../support/ai-fixtures.js';
import { standinEnv, startProviderStandin, type ProviderStandin } from '../support/provider-standin.js';

let t: TestApp;
let standin: ProviderStandin;
let alice: TestUser;
let otherDb: Database | undefined;
let other: Platform | undefined;

beforeAll(async () => {
  standin = await startProviderStandin();
  t = await startTestApp(standinEnv(standin));
  alice = await t.signUp();
  if (t.fresh.url) {
    otherDb = openDatabase({ databaseUrl: t.fresh.url, dataDir: t.fresh.dataDir });
    other = await buildApp({ config: t.config, database: otherDb });
  }
});
afterAll(async () => {
  await other?.app.close();
  await otherDb?.close();
  await t?.close();
  await standin?.close();
});

describeOnly('postgres')('two workers', () => {
  it('share the execution queue without running a run twice', async () => {
    const agent = await createAgent(t, alice, { max_tokens: 100 });
    standin.reset();
    const count = 16;
    for (let i = 0; i < count; i++) standin.script('openai', { delayMs: 150 });
    // The second worker: claims through the same queue from its own connection pool.
    let claimedByOther = 0;
    let stop = false;
    const loops = [0, 1].map(async () => {
      while (!stop) {
        if (await other!.operations.runOne()) claimedByOther++;
        else await new Promise((r) => setTimeout(r, 10));
      }
    });
    const created = [];
    for (let i = 0; i < count; i++) created.push(await createRun(t, alice, { agent_id: agent.id, input: { variables: { topic: `run-${i}` } } }));
    const done = await Promise.all(created.map((r) => waitForRun(t, alice, r.id, 60_000)));
    stop = true;
    await Promise.all(loops);
    for (const run of done) {
      expect(run.state).toBe('SUCCEEDED');
      expect(run.attempts).toHaveLength(1);
    }
    const prompts = standin.runs('openai').map((c) => c.body.messages[0].content);
    expect(prompts).toHaveLength(count);
    expect(new Set(prompts).size).toBe(count);
    expect(claimedByOther).toBeGreaterThan(0);
    expect(claimedByOther).toBeLessThan(count);
    const ledger = await t.request('GET', `${acct(alice)}/ai_ledger_entries?filter=kind%20%3D%20DEBIT&page_size=100`, { token: alice.token });
    expect(ledger.json().total_size).toBe(count);
  });
});
