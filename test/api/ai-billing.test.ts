/**
 * AI Billing (designed here; docs/decisions.md): balance, limits, the append-only ledger and usage
 * records; MANAGED attempts priced from the catalogue and charged with recording the attempt;
 * refusals before queueing, routing to an own key under `connection_mode` ANY.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { expectError, expectInvalid, expectShape, expectStatus, list, withQuery } from '../support/fixtures.js';
import { acct, createAgent, createRun, waitForRun } from '../support/ai-fixtures.js';
import { standinEnv, startProviderStandin, type ProviderStandin } from '../support/provider-standin.js';
import { aiContext } from '../../src/ai/ai.area.js';

let t: TestApp;
let standin: ProviderStandin;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  standin = await startProviderStandin();
  t = await startTestApp({ ...standinEnv(standin), AI_STARTING_CREDIT: '2.50' });
  alice = await t.signUp();
  bob = await t.signUp();
});
afterAll(async () => {
  await t?.close();
  await standin?.close();
});

const billing = (u = alice) => t.request('GET', `${acct(u)}/ai_billing`, { token: u.token });
const setLimits = (body: Record<string, unknown>, query = '') => t.request('PATCH', `${acct(alice)}/ai_billing${query}`, { token: alice.token, body });
const usd = (units: string, nanos = 0) => ({ currency_code: 'USD', units, nanos });
/** The ledger list (the shared `list` helper derives `GetAiLedgerEntrie` from the plural). */
async function ledger(query: Record<string, string> = {}) {
  const page = expectStatus(await t.request('GET', withQuery(`${acct(alice)}/ai_ledger_entries`, query), { token: alice.token }), 200);
  await expectShape(t, 'ListAiLedgerEntries', 200, page);
  return page;
}
const reason = (error: any) => error.details.find((d: any) => d.type === 'PRECONDITION_FAILURE')?.reason;

describe('balance and ledger', () => {
  it('a new account receives the configured starting credit, recorded in the ledger', async () => {
    const res = await billing();
    expect(res.statusCode, res.body).toBe(200);
    await expectShape(t, 'GetAiBilling', 200, res.json());
    expect(res.json()).toMatchObject({ name: `accounts/${alice.accountId}/ai_billing`, balance: usd('2', 500_000_000), month_spend: usd('0') });
    expect(res.json().id).toBeUndefined();
    const entries = await ledger();
    expect(entries.ai_ledger_entries).toEqual([expect.objectContaining({ kind: 'CREDIT', amount: usd('2', 500_000_000), balance_after: usd('2', 500_000_000), description: 'Starting credit' })]);
  });

  it('a MANAGED attempt is priced from the catalogue and charged with its recording: cost, debit, usage record', async () => {
    const agent = await createAgent(t, alice, { preferred_model_id: 'gpt-5', connection_mode: 'MANAGED_ONLY' });
    standin.reset();
    standin.script('openai', { usage: { input: 1000, output: 2000, cached: 4000 } });
    const before = (await billing()).json().balance;
    const done = await waitForRun(t, alice, (await createRun(t, alice, { agent_id: agent.id, input: { variables: { topic: 'x' } } })).id);
    // gpt-5: 1000 × $1.25/M + 2000 × $10/M + 4000 cached × $0.125/M = 0.00125 + 0.02 + 0.0005 = $0.02175
    expect(done.cost).toEqual(usd('0', 21_750_000));
    expect(done.usage).toMatchObject({ input_tokens: 1000, output_tokens: 2000, cache_read_input_tokens: 4000 });
    const after = (await billing()).json();
    expect(Number(before.units) * 1e9 + before.nanos - (Number(after.balance.units) * 1e9 + after.balance.nanos)).toBe(21_750_000);
    expect(after.month_spend).toEqual(usd('0', 21_750_000));
    const debits = await ledger({ filter: `kind = DEBIT AND execution_id = "${done.id}"` });
    expect(debits.ai_ledger_entries).toEqual([expect.objectContaining({ amount: usd('0', -21_750_000), attempt_number: 1, balance_after: after.balance })]);
    const usage = await list(t, alice.token, `${acct(alice)}/ai_usage_records`, { filter: `execution_id = "${done.id}"` });
    expect(usage.ai_usage_records).toEqual([expect.objectContaining({ attempt_number: 1, connection_mode: 'MANAGED', model_id: 'gpt-5', input_tokens: 1000, output_tokens: 2000, cost: usd('0', 21_750_000) })]);
  });

  it('every charged attempt is debited: a failed attempt with usage too (malformed JSON)', async () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
    const agent = await createAgent(t, alice, { preferred_model_id: 'claude-haiku-4-5', output_format: 'JSON', output_schema: schema, connection_mode: 'MANAGED_ONLY' });
    standin.reset();
    standin.script('anthropic', { text: 'not json', usage: { input: 100, output: 100 } }, { text: '{"a":"b"}', usage: { input: 100, output: 100 } });
    const done = await waitForRun(t, alice, (await createRun(t, alice, { agent_id: agent.id, input: { variables: { topic: 'x' } } })).id);
    expect(done.state).toBe('SUCCEEDED');
    // claude-haiku-4-5: 100 × $1/M + 100 × $5/M = $0.0006 per attempt, two attempts.
    expect(done.cost).toEqual(usd('0', 1_200_000));
    const debits = await ledger({ filter: `execution_id = "${done.id}"` });
    expect(debits.ai_ledger_entries.map((e: any) => e.attempt_number).sort()).toEqual([1, 2]);
  });

  it('operators grant credit (a CREDIT entry)', async () => {
    const before = (await billing()).json().balance;
    await aiContext(t.platform.deps).billing.grantCredit(alice.accountId, 10_000_000_000, 'Goodwill', Date.now());
    const after = (await billing()).json().balance;
    expect(Number(after.units) - Number(before.units)).toBe(10);
    const credits = await ledger({ filter: 'kind = CREDIT', order_by: 'create_time desc' });
    expect(credits.ai_ledger_entries[0]).toMatchObject({ description: 'Goodwill', amount: usd('10') });
  });
});

describe('limits', () => {
  it('a per-run limit that cannot cover a run refuses it before queueing; under ANY it routes to an own key', async () => {
    expect((await setLimits({ run_limit: usd('0', 1_000) })).json().run_limit).toEqual(usd('0', 1_000));
    const managedOnly = await createAgent(t, alice, { connection_mode: 'MANAGED_ONLY' });
    const refused = await t.request('POST', `${acct(alice)}/ai_executions`, { token: alice.token, body: { agent_id: managedOnly.id, input: { variables: { topic: 'x' } } } });
    expect(reason(expectError(refused, 400, 'FAILED_PRECONDITION'))).toBe('RUN_COST_LIMIT_EXCEEDED');

    standin.validKeys.add('sk-own-limit-01');
    const own = (await t.request('POST', `${acct(alice)}/ai_connections`, { token: alice.token, body: { provider: 'openai', api_key: 'sk-own-limit-01', priority: 200 } })).json();
    const any = await createAgent(t, alice, { connection_mode: 'ANY' });
    standin.reset();
    const done = await waitForRun(t, alice, (await createRun(t, alice, { agent_id: any.id, input: { variables: { topic: 'x' } } })).id);
    // The own key has a worse priority than the platform key, yet the run goes there: the platform key cannot take it.
    expect(done).toMatchObject({ state: 'SUCCEEDED', connection_mode: 'BYOK', connection_id: own.id });
    expect(done.cost).toBeUndefined();
    expect(standin.runs('openai')[0].key).toBe('sk-own-limit-01');
    await t.request('DELETE', `${acct(alice)}/ai_connections/${own.id}`, { token: alice.token });
    const cleared = await setLimits({ run_limit: null }, '?update_mask=run_limit');
    expect(cleared.json().run_limit).toBeUndefined();
  });

  it('a monthly limit already spent refuses the run (MONTHLY_LIMIT_REACHED)', async () => {
    await setLimits({ monthly_limit: usd('0', 1) });
    const agent = await createAgent(t, alice, { connection_mode: 'MANAGED_ONLY' });
    const refused = await t.request('POST', `${acct(alice)}/ai_executions`, { token: alice.token, body: { agent_id: agent.id, input: { variables: { topic: 'x' } } } });
    expect(reason(expectError(refused, 400, 'FAILED_PRECONDITION'))).toBe('MONTHLY_LIMIT_REACHED');
    await setLimits({ monthly_limit: null }, '?update_mask=monthly_limit');
  });

  it('a balance that cannot cover the run refuses it (INSUFFICIENT_BALANCE)', async () => {
    const t2 = await startTestApp({ ...standinEnv(standin), AI_STARTING_CREDIT: '0' });
    try {
      const u = await t2.signUp();
      expect((await t2.request('GET', `${acct(u)}/ai_billing`, { token: u.token })).json().balance).toEqual(usd('0'));
      const agent = await createAgent(t2, u, {});
      const refused = await t2.request('POST', `${acct(u)}/ai_executions`, { token: u.token, body: { agent_id: agent.id, input: { variables: { topic: 'x' } } } });
      expect(reason(expectError(refused, 400, 'FAILED_PRECONDITION'))).toBe('INSUFFICIENT_BALANCE');
      expect(await t2.fresh.database.db.selectFrom('ai_executions').select('id').execute()).toHaveLength(0);
    } finally {
      await t2.close();
    }
  });

  it('bad limits are refused naming the field; balance cannot be written; other tenants see NOT_FOUND', async () => {
    const before = (await billing()).json();
    expectInvalid(await setLimits({ monthly_limit: { currency_code: 'EUR', units: '1', nanos: 0 } }), 'monthly_limit.currency_code');
    expectInvalid(await setLimits({ monthly_limit: usd('-1') }), 'monthly_limit');
    expectInvalid(await setLimits({ run_limit: { units: '1' } }), 'run_limit.currency_code');
    expectInvalid(await setLimits({ run_limit: usd('1', 1_000_000_000) }), 'run_limit.nanos');
    await setLimits({ balance: usd('1000') });
    expect((await billing()).json().balance).toEqual(before.balance);
    expectError(await t.request('GET', `${acct(alice)}/ai_billing`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${acct(alice)}/ai_ledger_entries`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${acct(alice)}/ai_usage_records`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('POST', `${acct(alice)}/ai_ledger_entries`, { token: alice.token, body: {} }), 405, 'UNIMPLEMENTED');
  });
});
