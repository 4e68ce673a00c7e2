/**
 * AI executions (SPEC 2.6, 3.1, 4.4, 7; RUNTIME.md provider rules) against the stand-in provider:
 * what the platform sends through the real SDKs, and how it handles 401, 429 with Retry-After, 500,
 * slow answers, truncation and malformed JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { expectError, expectInvalid, expectShape, list } from '../support/fixtures.js';
import { acct, createAgent, createInstruction, createRun, waitForRun } from '../support/ai-fixtures.js';
import { standinEnv, startProviderStandin, type ProviderStandin } from '../support/provider-standin.js';

let t: TestApp;
let standin: ProviderStandin;
let alice: TestUser;
let bob: TestUser;
let textAgent: any;

beforeAll(async () => {
  standin = await startProviderStandin();
  t = await startTestApp(standinEnv(standin));
  alice = await t.signUp();
  bob = await t.signUp();
  textAgent = await createAgent(t, alice, { effort: 'HIGH', max_tokens: 3000 });
});
afterAll(async () => {
  await t?.close();
  await standin?.close();
});

const runs = (u = alice) => `${acct(u)}/ai_executions`;
const post = (body: Record<string, unknown>, u = alice) => t.request('POST', runs(u), { token: u.token, body });
const addKey = async (provider: string, key: string, body: Record<string, unknown> = {}) => {
  const res = await t.request('POST', `${acct(alice)}/ai_connections`, { token: alice.token, body: { provider, api_key: key, ...body } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
};
const errorReason = (error: any) => error.details.find((d: any) => d.type === 'PRECONDITION_FAILURE')?.reason;

describe('create', () => {
  it('answers 201 QUEUED at once with versions resolved; the run succeeds', async () => {
    standin.reset();
    const res = await post({ agent_id: textAgent.id, input: { variables: { topic: 'bread' } }, source_module: 'blog', source_id: 'post-1', metadata: { trace: 'x' } });
    expect(res.statusCode, res.body).toBe(201);
    const run = res.json();
    await expectShape(t, 'CreateAiExecution', 201, run);
    expect(res.headers.location).toBe(`http://api.test/tenant-api/v1/${run.name}`);
    expect(run).toMatchObject({ state: 'QUEUED', agent_version: 1, instruction_version: 1, model_id: 'gpt-5', provider: 'openai', metadata: { trace: 'x' }, attempts: [] });
    const done = await waitForRun(t, alice, run.id);
    await expectShape(t, 'GetAiExecution', 200, done);
    expect(done).toMatchObject({ state: 'SUCCEEDED', output: { text: 'standin answer', output_truncated: false }, connection_mode: 'MANAGED' });
    expect(done.start_time).toBeDefined();
    expect(done.end_time).toBeDefined();
    expect(done.attempts).toEqual([expect.objectContaining({ number: 1, http_status: 200, usage: expect.objectContaining({ input_tokens: 12, output_tokens: 7 }) })]);
  });

  it('sends the rendered instruction with {{variables}} replaced and other braces untouched, the model, max_tokens, effort and the platform key (OpenAI)', async () => {
    standin.reset();
    const run = await createRun(t, alice, { agent_id: textAgent.id, input: { variables: { topic: 'rye {{topic}}' }, text: 'the material' } });
    await waitForRun(t, alice, run.id);
    const [call] = standin.runs('openai');
    expect(call.path).toBe('/chat/completions');
    expect(call.key).toBe('sk-platform-openai');
    expect(call.body).toMatchObject({ model: 'gpt-5', max_completion_tokens: 3000, reasoning_effort: 'high' });
    expect(call.body.messages).toEqual([
      { role: 'system', content: 'Write about rye {{topic}}. Keep {braces} and {{ spaced }} as written.' },
      { role: 'user', content: 'the material' },
    ]);
  });

  it('without input.text the rendered instruction is the user message; Anthropic gets system, max_tokens and effort', async () => {
    const agent = await createAgent(t, alice, { preferred_model_id: 'claude-sonnet-4-5', effort: 'XHIGH', max_tokens: 1234 });
    standin.reset();
    const run = await createRun(t, alice, { agent_id: agent.id, input: { variables: { topic: 42 } } });
    const done = await waitForRun(t, alice, run.id);
    expect(done.state).toBe('SUCCEEDED');
    const [call] = standin.runs('anthropic');
    expect(call.path).toBe('/v1/messages');
    expect(call.key).toBe('sk-platform-anthropic');
    expect(call.body).toMatchObject({ model: 'claude-sonnet-4-5-20250929', max_tokens: 1234, output_config: { effort: 'xhigh' } });
    expect(call.body.system).toBeUndefined();
    expect(call.body.messages).toEqual([{ role: 'user', content: 'Write about 42. Keep {braces} and {{ spaced }} as written.' }]);
    const withText = await createRun(t, alice, { agent_id: agent.id, input: { variables: { topic: true }, text: 'material' } });
    await waitForRun(t, alice, withText.id);
    expect(standin.runs('anthropic')[1].body).toMatchObject({ system: 'Write about true. Keep {braces} and {{ spaced }} as written.', messages: [{ role: 'user', content: 'material' }] });
  });

  it('input must fill exactly the instruction\'s variables', async () => {
    expectInvalid(await post({ agent_id: textAgent.id, input: { variables: {} } }), 'input.variables.topic');
    expectInvalid(await post({ agent_id: textAgent.id, input: { variables: { topic: 'a', extra: 'b' } } }), 'input.variables.extra');
    expectInvalid(await post({ agent_id: textAgent.id, input: { variables: { topic: { nested: 1 } } } }), 'input.variables.topic');
    expectInvalid(await post({ agent_id: textAgent.id, input: { other: 1 } }), 'input.other');
  });

  it('refuses a model the agent cannot run on, an unknown agent, a disabled agent', async () => {
    const restricted = await createAgent(t, alice, { allowed_model_ids: ['gpt-5'] });
    expectInvalid(await post({ agent_id: restricted.id, model_id: 'gpt-5-mini', input: { variables: { topic: 'x' } } }), 'model_id');
    expectInvalid(await post({ agent_id: textAgent.id, model_id: 'gpt-4o', input: { variables: { topic: 'x' } } }), 'model_id');
    expectInvalid(await post({ agent_id: textAgent.id, model_id: 'claude-haiku-4-5', input: { variables: { topic: 'x' } } }), 'model_id');
    expectInvalid(await post({ agent_id: 'nope', input: {} }), 'agent_id');
    expectInvalid(await post({ input: {} }), 'agent_id');
    const disabled = await createAgent(t, alice, { is_enabled: false });
    const res = await post({ agent_id: disabled.id, input: { variables: { topic: 'x' } } });
    expect(errorReason(expectError(res, 400, 'FAILED_PRECONDITION'))).toBe('AGENT_DISABLED');
  });

  it('metadata at most 16 KB, request_id at most 64, source_id needs source_module', async () => {
    expectInvalid(await post({ agent_id: textAgent.id, input: { variables: { topic: 'x' } }, metadata: { blob: 'x'.repeat(16 * 1024) } }), 'metadata');
    expectInvalid(await post({ agent_id: textAgent.id, input: { variables: { topic: 'x' } }, request_id: 'r'.repeat(65) }), 'request_id');
    expectInvalid(await post({ agent_id: textAgent.id, input: { variables: { topic: 'x' } }, source_id: 'x' }), 'source_id');
  });

  it('repeating a request_id returns the first run', async () => {
    const body = { agent_id: textAgent.id, input: { variables: { topic: 'same' } }, request_id: 'once-only-1' };
    const first = (await post(body)).json();
    const again = await post(body);
    expect(again.statusCode).toBe(201);
    expect(again.json().id).toBe(first.id);
    expect((await list(t, alice.token, runs(), { filter: `agent_id = "${textAgent.id}" AND source_module = null` })).ai_executions.filter((r: any) => r.id === first.id)).toHaveLength(1);
  });

  it('NO_USABLE_CONNECTION when the mode allows no enabled connection; MODEL_NOT_PRICED for a platform-key run on an unpriced model', async () => {
    const byokOnly = await createAgent(t, alice, { connection_mode: 'BYOK_ONLY', preferred_model_id: 'claude-opus-4-5' });
    const res = await post({ agent_id: byokOnly.id, input: { variables: { topic: 'x' } } });
    expect(errorReason(expectError(res, 400, 'FAILED_PRECONDITION'))).toBe('NO_USABLE_CONNECTION');
    const unpriced = await createAgent(t, alice, { preferred_model_id: 'gpt-5-pro' });
    const refused = await post({ agent_id: unpriced.id, input: { variables: { topic: 'x' } } });
    expect(errorReason(expectError(refused, 400, 'FAILED_PRECONDITION'))).toBe('MODEL_NOT_PRICED');
    const count = await t.fresh.database.db.selectFrom('ai_executions').select('id').where('agent_id', 'in', [byokOnly.id, unpriced.id]).execute();
    expect(count).toHaveLength(0);
  });

  it('other tenants: NOT_FOUND for runs, INVALID_ARGUMENT for agents they cannot see', async () => {
    const run = await createRun(t, alice, { agent_id: textAgent.id, input: { variables: { topic: 'x' } } });
    expectError(await t.request('GET', `${runs(bob)}/${run.id}`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${runs()}/${run.id}`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('POST', `${runs()}/${run.id}:cancel`, { token: bob.token }), 404, 'NOT_FOUND');
    expectInvalid(await post({ agent_id: textAgent.id, input: { variables: { topic: 'x' } } }, bob), 'agent_id');
  });
});

describe('attempts', () => {
  it('a 401 on an own key marks the connection INVALID and the next connection takes the next attempt', async () => {
    const agent = await createAgent(t, alice, { preferred_model_id: 'gpt-5-mini' });
    const bad = await addKey('openai', 'sk-revoked-key-0001');
    standin.reset();
    const run = await createRun(t, alice, { agent_id: agent.id, input: { variables: { topic: 'x' } } });
    const done = await waitForRun(t, alice, run.id);
    expect(done.state).toBe('SUCCEEDED');
    expect(done.attempts.map((a: any) => [a.http_status, a.connection_id])).toEqual([[401, bad.id], [200, done.connection_id]]);
    expect(done.attempts[0].error_code).toBe('UNAUTHENTICATED');
    expect(done.connection_mode).toBe('MANAGED');
    expect(standin.runs('openai').map((c) => c.key)).toEqual(['sk-revoked-key-0001', 'sk-platform-openai']);
    expect((await t.request('GET', `${acct(alice)}/ai_connections/${bad.id}`, { token: alice.token })).json().status).toBe('INVALID');
  });

  it('a run on an own key is never charged and carries no cost', async () => {
    standin.validKeys.add('sk-own-good-0002');
    const own = await addKey('anthropic', 'sk-own-good-0002');
    const agent = await createAgent(t, alice, { preferred_model_id: 'claude-haiku-4-5', connection_mode: 'BYOK_ONLY' });
    const before = (await t.request('GET', `${acct(alice)}/ai_billing`, { token: alice.token })).json().balance;
    standin.reset();
    const done = await waitForRun(t, alice, (await createRun(t, alice, { agent_id: agent.id, input: { variables: { topic: 'x' } } })).id);
    expect(done).toMatchObject({ state: 'SUCCEEDED', connection_mode: 'BYOK', connection_id: own.id });
    expect(done.cost).toBeUndefined();
    expect(standin.runs('anthropic')[0].key).toBe('sk-own-good-0002');
    expect((await t.request('GET', `${acct(alice)}/ai_billing`, { token: alice.token })).json().balance).toEqual(before);
    await t.request('DELETE', `${acct(alice)}/ai_connections/${own.id}`, { token: alice.token });
  });

  it('429 with Retry-After is retried no sooner than the provider asked; each attempt is recorded', async () => {
    const agent = await createAgent(t, alice, { preferred_model_id: 'claude-opus-4-5', connection_mode: 'MANAGED_ONLY' });
    standin.reset();
    standin.script('anthropic', { status: 429, headers: { 'retry-after': '2' } });
    const done = await waitForRun(t, alice, (await createRun(t, alice, { agent_id: agent.id, input: { variables: { topic: 'x' } } })).id);
    expect(done.state).toBe('SUCCEEDED');
    expect(done.attempts.map((a: any) => a.http_status)).toEqual([429, 200]);
    expect(done.attempts[0].error_code).toBe('RESOURCE_EXHAUSTED');
    const calls = standin.runs('anthropic');
    expect(calls[1].time - calls[0].time).toBeGreaterThanOrEqual(2000);
  });

  it('500 is retried up to max_attempts, then FAILED with the error in the canonical shape', async () => {
    const agent = await createAgent(t, alice, { max_attempts: 2 });
    standin.reset();
    standin.script('openai', { status: 500 }, { status: 503 });
    const done = await waitForRun(t, alice, (await createRun(t, alice, { agent_id: agent.id, input: { variables: { topic: 'x' } } })).id);
    expect(done.state).toBe('FAILED');
    expect(done.attempts.map((a: any) => a.http_status)).toEqual([500, 503]);
    expect(done.error).toMatchObject({ code: 503, status: 'UNAVAILABLE' });
    expect(done.error.details).toContainEqual(expect.objectContaining({ type: 'PRECONDITION_FAILURE', reason: 'ATTEMPTS_EXHAUSTED' }));
    expect(done.error.details).toContainEqual(expect.objectContaining({ type: 'REQUEST_INFO' }));
    expect(standin.runs('openai')).toHaveLength(2);
  });

  it('a slow answer beyond timeout ends the attempt (http_status 0) and is retried', async () => {
    const agent = await createAgent(t, alice, { timeout: '1s', max_attempts: 2 });
    standin.reset();
    standin.script('openai', { delayMs: 2500 });
    const done = await waitForRun(t, alice, (await createRun(t, alice, { agent_id: agent.id, input: { variables: { topic: 'x' } } })).id);
    expect(done.state).toBe('SUCCEEDED');
    expect(done.attempts.map((a: any) => [a.http_status, a.error_code ?? null])).toEqual([[0, 'DEADLINE_EXCEEDED'], [200, null]]);
  });

  it('a non-retryable refusal (400) ends the run at once', async () => {
    const agent = await createAgent(t, alice);
    standin.reset();
    standin.script('openai', { status: 400 });
    const done = await waitForRun(t, alice, (await createRun(t, alice, { agent_id: agent.id, input: { variables: { topic: 'x' } } })).id);
    expect(done).toMatchObject({ state: 'FAILED', error: { code: 400, status: 'INVALID_ARGUMENT' } });
    expect(done.attempts).toHaveLength(1);
  });

  it('a text answer stopped at max_tokens sets output_truncated', async () => {
    standin.reset();
    standin.script('openai', { truncated: true, text: 'half an ans' });
    const done = await waitForRun(t, alice, (await createRun(t, alice, { agent_id: textAgent.id, input: { variables: { topic: 'x' } } })).id);
    expect(done.output).toEqual({ text: 'half an ans', output_truncated: true });
  });

  it('JSON agents send the schema and answer validated json; malformed JSON is retried, truncated JSON fails', async () => {
    const schema = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'], additionalProperties: false };
    const agent = await createAgent(t, alice, { output_format: 'JSON', output_schema: schema, max_attempts: 3 });
    standin.reset();
    standin.script('openai', { text: '{"title": unquoted' }, { text: '{"wrong": 1}' }, { text: '{"title":"Bread"}' });
    const done = await waitForRun(t, alice, (await createRun(t, alice, { agent_id: agent.id, input: { variables: { topic: 'x' } } })).id);
    expect(done).toMatchObject({ state: 'SUCCEEDED', output: { json: { title: 'Bread' }, output_truncated: false } });
    expect(done.attempts.map((a: any) => a.error_code ?? 'OK')).toEqual(['FAILED_PRECONDITION', 'FAILED_PRECONDITION', 'OK']);
    expect(standin.runs('openai')[0].body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'output', schema, strict: false } });

    const claude = await createAgent(t, alice, { preferred_model_id: 'claude-sonnet-4-5', output_format: 'JSON', output_schema: schema });
    standin.reset();
    standin.script('anthropic', { text: '{"title": "Bre', truncated: true });
    const cut = await waitForRun(t, alice, (await createRun(t, alice, { agent_id: claude.id, input: { variables: { topic: 'x' } } })).id);
    expect(cut.state).toBe('FAILED');
    expect(errorReason(cut.error)).toBe('OUTPUT_TRUNCATED');
    expect(standin.runs('anthropic')[0].body.output_config).toEqual({ format: { type: 'json_schema', schema } });
  });

  it('IMAGE agents send size and quality; the artifact is stored in the blob store', async () => {
    const instruction = await createInstruction(t, alice, { variables: ['subject'], content: 'A photo of {{subject}}' });
    const agent = await createAgent(t, alice, { instruction_id: instruction.id, preferred_model_id: 'gpt-image-1', output_format: 'IMAGE', image_width: 96, image_height: 64, image_quality: 'XHIGH' });
    standin.reset();
    const done = await waitForRun(t, alice, (await createRun(t, alice, { agent_id: agent.id, input: { variables: { subject: 'bread' } } })).id);
    expect(done.state, JSON.stringify(done.error)).toBe('SUCCEEDED');
    expect(standin.runs('openai')[0]).toMatchObject({ path: '/images/generations', body: { model: 'gpt-image-1', prompt: 'A photo of bread', size: '96x64', quality: 'high', n: 1 } });
    const [artifact] = done.output.artifacts;
    expect(artifact).toMatchObject({ mime_type: 'image/png', width: 96, height: 64 });
    expect(artifact.storage_key).toBe(`accounts/${alice.accountId}/ai_executions/${done.id}/attempt-1-image-1.png`);
    const stored = await t.platform.deps.blobs.stat(artifact.storage_key);
    expect(stored?.size).toBe(artifact.byte_size);
    expect(done.usage).toMatchObject({ image_count: 1, megapixels_milli: 6 });
  });

  it('the OpenAI-compatible provider runs without any hosted provider', async () => {
    const agent = await createAgent(t, alice, { preferred_model_id: 'compat-llama3-1-8b', max_tokens: 500 });
    standin.reset();
    standin.validKeys.add('none');
    const done = await waitForRun(t, alice, (await createRun(t, alice, { agent_id: agent.id, input: { variables: { topic: 'x' } } })).id);
    expect(done.state, JSON.stringify(done.error)).toBe('SUCCEEDED');
    expect(standin.runs('compat')[0].body).toMatchObject({ model: 'llama3.1:8b', max_completion_tokens: 500 });
  });
});

describe('states', () => {
  it('an expire_time already past is accepted and ends EXPIRED without calling the provider', async () => {
    standin.reset();
    const run = await createRun(t, alice, { agent_id: textAgent.id, input: { variables: { topic: 'x' } }, expire_time: '2020-01-01T00:00:00Z' });
    expect(run.state).toBe('QUEUED');
    const done = await waitForRun(t, alice, run.id);
    expect(done).toMatchObject({ state: 'EXPIRED', error: { code: 504, status: 'DEADLINE_EXCEEDED' }, attempts: [] });
    expect(standin.runs('openai')).toHaveLength(0);
  });

  it(':cancel is honoured at the next checkpoint; a finished run answers FAILED_PRECONDITION', async () => {
    const agent = await createAgent(t, alice, { max_attempts: 3 });
    standin.reset();
    standin.script('openai', { status: 429, headers: { 'retry-after': '30' } });
    const run = await createRun(t, alice, { agent_id: agent.id, input: { variables: { topic: 'x' } } });
    // Wait until the first attempt failed and the run waits to retry.
    for (let i = 0; i < 400; i++) {
      const now = (await t.request('GET', `${runs()}/${run.id}`, { token: alice.token })).json();
      if (now.attempts.length === 1 && now.attempts[0].end_time) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const cancel = await t.request('POST', `${runs()}/${run.id}:cancel`, { token: alice.token });
    expect(cancel.statusCode, cancel.body).toBe(200);
    expect(cancel.json().cancel_requested).toBe(true);
    const done = await waitForRun(t, alice, run.id);
    expect(done).toMatchObject({ state: 'CANCELLED', error: { code: 499, status: 'CANCELLED' } });
    expect(standin.runs('openai')).toHaveLength(1);
    const again = await t.request('POST', `${runs()}/${run.id}:cancel`, { token: alice.token });
    expect(errorReason(expectError(again, 400, 'FAILED_PRECONDITION'))).toBe('EXECUTION_FINISHED');
  });

  it('a worker that died mid-attempt leaves no run stuck in RUNNING: the attempt is closed and the run retried', async () => {
    const db = t.fresh.database.db;
    const run = await createRun(t, alice, { agent_id: textAgent.id, input: { variables: { topic: 'x' } }, expire_time: '2999-01-01T00:00:00Z' });
    const done0 = await waitForRun(t, alice, run.id);
    expect(done0.state).toBe('SUCCEEDED');
    // Put the run back as a dead worker leaves it: RUNNING, an attempt without end, the Operation leased to nobody alive.
    const now = Date.now();
    const row = await db.selectFrom('ai_executions').selectAll().where('id', '=', run.id).executeTakeFirstOrThrow();
    // As every write does (the worker's too), the simulated state is a new revision: a new etag.
    await db.updateTable('ai_executions').set({ revision: row.revision + 1, state: 'RUNNING', output: null, end_time: null, attempts: JSON.stringify([{ number: 1, start_time: new Date(now).toISOString(), connection_id: row.connection_id, connection_mode: 'MANAGED' }]) }).where('id', '=', run.id).execute();
    await db.updateTable('operations').set({ state: 'RUNNING', lease_owner: 'dead-worker', lease_expire_time: now - 1, end_time: null, response: null, attempt: 1 }).where('id', '=', row.operation_id).execute();
    const done = await waitForRun(t, alice, run.id);
    expect(done.state).toBe('SUCCEEDED');
    expect(done.attempts.map((a: any) => [a.number, a.http_status])).toEqual([[1, 0], [2, 200]]);
    expect(done.attempts[0].message).toContain('worker');
  });

  it('lists filter and sort per 4.2', async () => {
    const page = await list(t, alice.token, runs(), { filter: 'state = SUCCEEDED AND provider = "openai" AND connection_mode = MANAGED', order_by: 'create_time desc' });
    expect(page.ai_executions.length).toBeGreaterThan(0);
    for (const r of page.ai_executions) expect(r).toMatchObject({ state: 'SUCCEEDED', provider: 'openai', connection_mode: 'MANAGED' });
    const tagged = await list(t, alice.token, runs(), { filter: 'source_module = "blog" AND source_id = "post-1"' });
    expect(tagged.ai_executions).toHaveLength(1);
    const byExpiry = await list(t, alice.token, runs(), { order_by: 'expire_time asc', filter: 'expire_time != null' });
    expect(byExpiry.ai_executions.length).toBeGreaterThan(0);
    expectInvalid(await t.request('GET', `${runs()}?filter=metadata%20%3D%20%22x%22`, { token: alice.token }), 'metadata');
    expectInvalid(await t.request('GET', `${runs()}?order_by=state`, { token: alice.token }), 'order_by');
  });
});
