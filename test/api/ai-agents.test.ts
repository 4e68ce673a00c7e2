/**
 * AI agents (SPEC 2.3, 2.4, 3.3, 4.4): field rules, defaults and ranges, refusals at create and
 * update, copying system agents, versions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { expectError, expectInvalid, expectShape, list } from '../support/fixtures.js';
import { acct, createAgent, createInstruction } from '../support/ai-fixtures.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let instructionId: string;

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUp();
  bob = await t.signUp();
  instructionId = (await createInstruction(t, alice)).id;
});
afterAll(() => t?.close());

const url = (rest = '') => `${acct(alice)}/ai_agents${rest}`;
const create = (body: Record<string, unknown>) => t.request('POST', url(), { token: alice.token, body: { display_name: 'A', instruction_id: instructionId, preferred_model_id: 'gpt-5', ...body } });
const patch = (id: string, body: Record<string, unknown>, query = '', headers: Record<string, string> = {}) => t.request('PATCH', url(`/${id}${query}`), { token: alice.token, body, headers });
const count = async () => Number((await t.fresh.database.db.selectFrom('ai_agents').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

describe('create', () => {
  it('applies the defaults and starts at version 1', async () => {
    const res = await create({});
    expect(res.statusCode, res.body).toBe(201);
    const agent = res.json();
    await expectShape(t, 'CreateAiAgent', 201, agent);
    expect(agent).toMatchObject({ version: 1, max_tokens: 16000, output_format: 'TEXT', connection_mode: 'ANY', max_attempts: 3, timeout: '120s', allowed_tools: [], allowed_model_ids: [], is_enabled: true });
    expect(agent.image_width).toBeUndefined();
    expect(agent.effort).toBeUndefined();
  });

  it('refuses values out of range, naming the field', async () => {
    const before = await count();
    for (const [field, value] of [
      ['max_attempts', 0], ['max_attempts', 11], ['timeout', '0s'], ['timeout', '601s'], ['timeout', '10m'], ['max_tokens', 0], ['effort', 'EXTREME'],
      ['connection_mode', 'SOMETIMES'], ['output_format', 'AUDIO'], ['display_name', 7], ['surprise', true],
    ] as const) {
      expectInvalid(await create({ [field]: value }), field);
    }
    expectInvalid(await create({ output_format: 'IMAGE', preferred_model_id: 'gpt-image-1', image_width: 63 }), 'image_width');
    expectInvalid(await create({ output_format: 'IMAGE', preferred_model_id: 'gpt-image-1', image_height: 4097 }), 'image_height');
    expect(await count()).toBe(before);
  });

  it('refuses a model that is not AVAILABLE or unknown', async () => {
    expectInvalid(await create({ preferred_model_id: 'gpt-4o' }), 'preferred_model_id');
    expectInvalid(await create({ preferred_model_id: 'claude-3-opus' }), 'preferred_model_id');
    expectInvalid(await create({ preferred_model_id: 'no-such-model' }), 'preferred_model_id');
    expectInvalid(await create({ allowed_model_ids: ['gpt-5', 'gpt-4o'] }), 'allowed_model_ids');
  });

  it('refuses effort on a model without EFFORT', async () => {
    expectInvalid(await create({ preferred_model_id: 'claude-haiku-4-5', effort: 'HIGH' }), 'effort');
    expect((await create({ preferred_model_id: 'claude-sonnet-4-5', effort: 'HIGH' })).statusCode).toBe(201);
  });

  it('refuses a JSON agent on a model without STRUCTURED_OUTPUT; JSON needs output_schema, others refuse it', async () => {
    const schema = { type: 'object', properties: { title: { type: 'string' } } };
    expectInvalid(await create({ preferred_model_id: 'gpt-image-1', output_format: 'JSON', output_schema: schema }), 'output_format');
    expectInvalid(await create({ output_format: 'JSON' }), 'output_schema');
    expectInvalid(await create({ output_schema: schema }), 'output_schema');
    expectInvalid(await create({ output_format: 'JSON', output_schema: { type: 'no-such-type' } }), 'output_schema');
    const ok = await create({ output_format: 'JSON', output_schema: schema });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().output_schema).toEqual(schema);
  });

  it('refuses max_tokens above the model limit', async () => {
    expectInvalid(await create({ preferred_model_id: 'gpt-4-1-mini', max_tokens: 32769 }), 'max_tokens');
    expect((await create({ preferred_model_id: 'gpt-4-1-mini', max_tokens: 32768 })).statusCode).toBe(201);
  });

  it('image fields: defaults on IMAGE agents, refused on TEXT/JSON agents; IMAGE needs IMAGE_GENERATION', async () => {
    const image = await create({ preferred_model_id: 'gpt-image-1', output_format: 'IMAGE' });
    expect(image.json()).toMatchObject({ image_width: 1024, image_height: 1024 });
    expectInvalid(await create({ image_width: 512 }), 'image_width');
    expectInvalid(await create({ image_quality: 'HIGH' }), 'image_quality');
    expectInvalid(await create({ output_format: 'IMAGE' }), 'output_format');
  });

  it('allowed_model_ids must include preferred_model_id; allowed_tools must be empty', async () => {
    expectInvalid(await create({ allowed_model_ids: ['gpt-5-mini'] }), 'allowed_model_ids');
    expect((await create({ allowed_model_ids: ['gpt-5-mini', 'gpt-5'] })).statusCode).toBe(201);
    expectInvalid(await create({ allowed_tools: ['web_search'] }), 'allowed_tools');
  });

  it('display_name and instruction_id are required without source_system_agent; the instruction must be the account\'s', async () => {
    expectInvalid(await t.request('POST', url(), { token: alice.token, body: { instruction_id: instructionId } }), 'display_name');
    expectInvalid(await t.request('POST', url(), { token: alice.token, body: { display_name: 'x' } }), 'instruction_id');
    const bobs = await createInstruction(t, bob);
    expectInvalid(await create({ instruction_id: bobs.id }), 'instruction_id');
    expectInvalid(await create({ instruction_version: 5 }), 'instruction_version');
  });
});

describe('source_system_agent', () => {
  it('copies settings and the instruction text into a new instruction of the account; body fields apply over the copy', async () => {
    const res = await t.request('POST', url(), { token: alice.token, body: { source_system_agent: 'blog-post-writer', max_tokens: 4000 } });
    expect(res.statusCode, res.body).toBe(201);
    const agent = res.json();
    expect(agent).toMatchObject({ display_name: 'Blog post writer', preferred_model_id: 'claude-sonnet-4-5', effort: 'MEDIUM', max_tokens: 4000, source_system_agent: 'blog-post-writer', version: 1 });
    const instruction = (await t.request('GET', `${acct(alice)}/ai_instructions/${agent.instruction_id}`, { token: alice.token })).json();
    expect(instruction).toMatchObject({ variables: ['topic', 'tone'], active_version: 1 });
    const version = (await t.request('GET', `${acct(alice)}/ai_instructions/${agent.instruction_id}/versions/1`, { token: alice.token })).json();
    const source = (await t.request('GET', `/tenant-api/v1/ai_system_agents/blog-post-writer`, { token: alice.token })).json();
    expect(version.content).toBe(source.instruction_text);
  });

  it('copies JSON and IMAGE agents with their schema and image size', async () => {
    const json = (await t.request('POST', url(), { token: alice.token, body: { source_system_agent: 'seo-meta' } })).json();
    expect(json).toMatchObject({ output_format: 'JSON', output_schema: { type: 'object' } });
    const image = (await t.request('POST', url(), { token: alice.token, body: { source_system_agent: 'hero-image' } })).json();
    expect(image).toMatchObject({ output_format: 'IMAGE', image_width: 1536, image_height: 1024, image_quality: 'MEDIUM' });
  });

  it('a disabled system agent cannot be copied; an unknown one is refused', async () => {
    const before = await count();
    const res = await t.request('POST', url(), { token: alice.token, body: { source_system_agent: 'legacy-summarizer' } });
    expect(expectError(res, 400, 'FAILED_PRECONDITION').details).toContainEqual(expect.objectContaining({ reason: 'SYSTEM_AGENT_DISABLED' }));
    expectInvalid(await t.request('POST', url(), { token: alice.token, body: { source_system_agent: 'nope' } }), 'source_system_agent');
    expect(await count()).toBe(before);
  });
});

describe('update and versions', () => {
  it('every update raises version by one, even one that changes nothing, and keeps each version', async () => {
    const agent = await createAgent(t, alice, { instruction_id: instructionId });
    const same = await patch(agent.id, {});
    expect(same.statusCode, same.body).toBe(200);
    expect(same.json().version).toBe(2);
    const changed = await patch(agent.id, { max_tokens: 1000, description: 'shorter' });
    expect(changed.json()).toMatchObject({ version: 3, max_tokens: 1000 });
    const versions = await t.request('GET', url(`/${agent.id}/versions`), { token: alice.token });
    expect(versions.statusCode, versions.body).toBe(200);
    await expectShape(t, 'ListAiAgentVersions', 200, versions.json());
    const items = versions.json().versions;
    expect(items.map((v: any) => v.version)).toEqual([3, 2, 1]);
    expect(items[2].snapshot).toMatchObject({ version: 1, max_tokens: 16000, display_name: 'Agent', id: agent.id });
    expect(items[2].snapshot.etag).toBeUndefined();
    expect(items[0].snapshot).toMatchObject({ version: 3, max_tokens: 1000, description: 'shorter' });
    for (const v of items) expect(v).toMatchObject({ created_by: `users/${alice.userId}`, ai_agent_id: agent.id });
    const one = await t.request('GET', url(`/${agent.id}/versions/2`), { token: alice.token });
    expect(one.json()).toMatchObject({ version: 2, name: `accounts/${alice.accountId}/ai_agents/${agent.id}/versions/2` });
    const filtered = await t.request('GET', url(`/${agent.id}/versions?filter=created_by%20%3D%20%22users/${alice.userId}%22`), { token: alice.token });
    expect(filtered.json().total_size).toBe(3);
  });

  it('update refuses what create refuses, and a stale etag; nothing changes', async () => {
    const agent = await createAgent(t, alice, { instruction_id: instructionId });
    expectInvalid(await patch(agent.id, { preferred_model_id: 'gpt-4o' }), 'preferred_model_id');
    expectInvalid(await patch(agent.id, { preferred_model_id: 'claude-haiku-4-5', effort: 'LOW' }), 'effort');
    expectInvalid(await patch(agent.id, { max_tokens: 200000 }), 'max_tokens');
    expectInvalid(await patch(agent.id, { output_format: 'JSON' }), 'output_schema');
    expectInvalid(await patch(agent.id, { display_name: null }, '?update_mask=display_name'), 'display_name');
    expectInvalid(await patch(agent.id, { source_system_agent: 'seo-meta' }), 'source_system_agent');
    expectError(await patch(agent.id, { description: 'x' }, '', { 'if-match': '"stale"' }), 409, 'ABORTED');
    const now = (await t.request('GET', url(`/${agent.id}`), { token: alice.token })).json();
    expect(now.version).toBe(1);
    expect(now.etag).toBe(agent.etag);
  });

  it('switching to IMAGE fills the image defaults; switching back clears them', async () => {
    const agent = await createAgent(t, alice, { instruction_id: instructionId });
    const image = await patch(agent.id, { output_format: 'IMAGE', preferred_model_id: 'gpt-image-1' });
    expect(image.json()).toMatchObject({ image_width: 1024, image_height: 1024 });
    const text = await patch(agent.id, { output_format: 'TEXT', preferred_model_id: 'gpt-5' });
    expect(text.statusCode, text.body).toBe(200);
    expect(text.json().image_width).toBeUndefined();
  });

  it('Delete keeps versions for runs but stops listing them', async () => {
    const agent = await createAgent(t, alice, { instruction_id: instructionId });
    await patch(agent.id, { description: 'v2' });
    expect((await t.request('DELETE', url(`/${agent.id}`), { token: alice.token })).statusCode).toBe(204);
    expectError(await t.request('GET', url(`/${agent.id}/versions`), { token: alice.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', url(`/${agent.id}/versions/1`), { token: alice.token }), 404, 'NOT_FOUND');
    const kept = await t.fresh.database.db.selectFrom('ai_agent_versions').select('version').where('ai_agent_id', '=', agent.id).execute();
    expect(kept.map((r) => Number(r.version)).sort()).toEqual([1, 2]);
    // Its instruction is not deleted.
    expect((await t.request('GET', `${acct(alice)}/ai_instructions/${instructionId}`, { token: alice.token })).statusCode).toBe(200);
  });

  it('lists with the 4.2 filters; other tenants get NOT_FOUND', async () => {
    const agent = await createAgent(t, alice, { instruction_id: instructionId, display_name: 'Filter me', allowed_model_ids: ['gpt-5', 'gpt-5-mini'] });
    const byModel = await list(t, alice.token, url(), { filter: 'allowed_model_ids:"gpt-5-mini" AND display_name:"filter"' });
    expect(byModel.ai_agents.map((a: any) => a.id)).toEqual([agent.id]);
    const byVersion = await list(t, alice.token, url(), { filter: `version = 1 AND instruction_id = "${instructionId}" AND is_enabled = true AND preferred_model_id = "gpt-5"` });
    expect(byVersion.ai_agents.map((a: any) => a.id)).toContain(agent.id);
    expectInvalid(await t.request('GET', url('?filter=max_tokens%20%3D%201'), { token: alice.token }), 'max_tokens');
    expectError(await t.request('GET', url(`/${agent.id}`), { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${acct(bob)}/ai_agents/${agent.id}/versions`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('PATCH', `${acct(bob)}/ai_agents/${agent.id}`, { token: bob.token, body: {} }), 404, 'NOT_FOUND');
  });
});
