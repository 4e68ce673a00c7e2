/**
 * Writes made outside the engine's Create/Update/Delete record their events too, in their own
 * transaction: an Operation ending (`operation.done`) and an AI run reaching a final state
 * (`ai_execution.finished`), each exactly once (issue 27).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { acct, createAgent, createRun, waitForRun } from '../support/ai-fixtures.js';
import { API, list } from '../support/fixtures.js';
import { eventually } from '../support/fixtures-auth.js';
import { standinEnv, startProviderStandin, type ProviderStandin } from '../support/provider-standin.js';

let standin: ProviderStandin;
let t: TestApp;
let alice: TestUser;

beforeAll(async () => {
  standin = await startProviderStandin();
  t = await startTestApp(standinEnv(standin));
  alice = await t.signUpProvisioned();
});
afterAll(async () => {
  await t?.close();
  await standin?.close();
});

it('an Operation that ends records operation.done once, with the Operation as data', async () => {
  const events = await list(t, alice.token, `${API}/websites/${alice.websiteId}/events`, { filter: `resource = "${alice.operation}"` });
  expect(events.events.map((e: any) => e.type)).toEqual(['operation.done']);
  expect(events.events[0]).toMatchObject({ collection: 'operations', actor: { type: 'SYSTEM' }, data: { name: alice.operation, done: true } });
});

it('an AI run that reaches a final state records ai_execution.finished once, among its updates', async () => {
  const agent = await createAgent(t, alice);
  // Expired before it starts: the worker ends it EXPIRED without calling any provider.
  const run = await createRun(t, alice, { agent_id: agent.id, input: { variables: { topic: 'x' } }, expire_time: '2020-01-01T00:00:00Z' });
  const ended = await waitForRun(t, alice, run.id);
  expect(ended.state).toBe('EXPIRED');
  const types = await eventually(async () => {
    const page = await list(t, alice.token, `${acct(alice)}/events`, { filter: `resource = "${run.name}"`, order_by: 'occur_time asc' });
    const found = page.events.map((e: any) => e.type);
    return found.includes('ai_execution.finished') ? found : undefined;
  }, 'the run events');
  expect(types.filter((type: string) => type === 'ai_execution.finished')).toHaveLength(1);
  expect(types[0]).toBe('ai_execution.created');
  const [finished] = (await list(t, alice.token, `${acct(alice)}/events`, { filter: `resource = "${run.name}" AND type = "ai_execution.finished"` })).events;
  expect(finished.data).toMatchObject({ name: run.name, state: 'EXPIRED' });
});
