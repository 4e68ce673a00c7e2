/**
 * AI catalogues (SPEC 2.8, 2.9, 4.2, 4.4; RUNTIME.md catalogue rules): `ai_models` and
 * `ai_system_agents`, shipped as data, read-only List/Get with the 4.2 filters and orders.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectError, expectInvalid, expectShape, list, walk } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUp();
});
afterAll(() => t?.close());

const allModels = async (query: Record<string, string> = {}) => (await walk(t, alice.token, `${API}/ai_models`, query)).flatMap((p) => p.ai_models);

describe('ai_models', () => {
  it('the shipped catalogue covers what RUNTIME.md lists, for both providers', async () => {
    const models = await allModels();
    const available = models.filter((m) => m.state === 'AVAILABLE');
    expect(new Set(models.map((m) => m.provider))).toEqual(new Set(['openai', 'anthropic']));
    expect(available.some((m) => m.capabilities.includes('STRUCTURED_OUTPUT') && m.capabilities.includes('EFFORT'))).toBe(true);
    expect(available.some((m) => m.capabilities.includes('TEXT_GENERATION') && !m.capabilities.includes('EFFORT'))).toBe(true);
    expect(available.some((m) => m.capabilities.includes('IMAGE_GENERATION'))).toBe(true);
    expect(models.some((m) => m.state === 'DEPRECATED')).toBe(true);
    expect(available.some((m) => m.platform_priced === false)).toBe(true);
  });

  it('the operator\'s OpenAI-compatible models join the catalogue', async () => {
    const t2 = await startTestApp({ OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_COMPATIBLE_MODELS: 'llama3.1:8b' });
    try {
      const u = await t2.signUp();
      const res = await t2.request('GET', `${API}/ai_models/compat-llama3-1-8b`, { token: u.token });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ provider: 'openai_compatible', external_id: 'llama3.1:8b', state: 'AVAILABLE', platform_priced: true });
    } finally {
      await t2.close();
    }
  });

  it('each model carries its prices as Money', async () => {
    const res = await t.request('GET', `${API}/ai_models/gpt-5`, { token: alice.token });
    expect(res.statusCode).toBe(200);
    const model = res.json();
    await expectShape(t, 'GetAiModel', 200, model);
    expect(model).toMatchObject({ name: 'ai_models/gpt-5', id: 'gpt-5', provider: 'openai', external_id: 'gpt-5', state: 'AVAILABLE' });
    expect(model.pricing.input_per_million).toEqual({ currency_code: 'USD', units: '1', nanos: 250_000_000 });
    expect(model.pricing.output_per_million).toEqual({ currency_code: 'USD', units: '10', nanos: 0 });
    expect(model.pricing.cached_input_per_million).toEqual({ currency_code: 'USD', units: '0', nanos: 125_000_000 });
    const image = (await t.request('GET', `${API}/ai_models/gpt-image-1`, { token: alice.token })).json();
    expect(image.pricing.image_per_megapixel).toEqual({ currency_code: 'USD', units: '0', nanos: 40_000_000 });
  });

  it('default order is display_name asc', async () => {
    const names = (await allModels()).map((m) => m.display_name);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it('capabilities:"EFFORT" is has-membership', async () => {
    const models = await allModels({ filter: 'capabilities:"EFFORT"' });
    expect(models.length).toBeGreaterThan(0);
    for (const m of models) expect(m.capabilities).toContain('EFFORT');
    const all = await allModels();
    expect(models.length).toBe(all.filter((m) => m.capabilities.includes('EFFORT')).length);
  });

  it('filters on provider, state, tier and external_id; sorts by create_time', async () => {
    const anthropicAvailable = await allModels({ filter: 'provider = "anthropic" AND state = AVAILABLE' });
    expect(anthropicAvailable.length).toBeGreaterThan(0);
    for (const m of anthropicAvailable) expect(m).toMatchObject({ provider: 'anthropic', state: 'AVAILABLE' });
    expect((await allModels({ filter: 'tier = FAST' })).every((m) => m.tier === 'FAST')).toBe(true);
    expect((await allModels({ filter: 'external_id = "gpt-4.1-mini"' })).map((m) => m.id)).toEqual(['gpt-4-1-mini']);
    const byTime = (await allModels({ order_by: 'create_time desc' })).map((m) => m.create_time);
    expect(byTime).toEqual([...byTime].sort().reverse());
  });

  it('a field outside the filterable or sortable list is INVALID_ARGUMENT naming it', async () => {
    expectInvalid(await t.request('GET', `${API}/ai_models?filter=max_output_tokens%20%3E%201`, { token: alice.token }), 'max_output_tokens');
    const res = await t.request('GET', `${API}/ai_models?order_by=tier`, { token: alice.token });
    expect(expectError(res, 400, 'INVALID_ARGUMENT').message).toContain('tier');
  });

  it('is read-only: no Create, Update or Delete', async () => {
    expect((await t.request('POST', `${API}/ai_models`, { token: alice.token, body: { display_name: 'x' } })).statusCode).toBe(405);
    expect((await t.request('PATCH', `${API}/ai_models/gpt-5`, { token: alice.token, body: { display_name: 'x' } })).statusCode).toBe(405);
    expect((await t.request('DELETE', `${API}/ai_models/gpt-5`, { token: alice.token })).statusCode).toBe(405);
  });

  it('an unknown model is NOT_FOUND; an anonymous caller is UNAUTHENTICATED', async () => {
    expectError(await t.request('GET', `${API}/ai_models/nope`, { token: alice.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${API}/ai_models`), 401, 'UNAUTHENTICATED');
  });
});

describe('ai_system_agents', () => {
  it('holds a TEXT, a JSON and an IMAGE agent and a disabled one, ordered by display_name', async () => {
    const page = await list(t, alice.token, `${API}/ai_system_agents`);
    const agents = page.ai_system_agents;
    expect(agents.some((a: any) => a.output_format === 'TEXT' && a.is_enabled)).toBe(true);
    const json = agents.find((a: any) => a.output_format === 'JSON');
    expect(json.output_schema).toMatchObject({ type: 'object' });
    const image = agents.find((a: any) => a.output_format === 'IMAGE');
    expect(image).toMatchObject({ image_width: 1536, image_height: 1024 });
    expect(agents.some((a: any) => a.is_enabled === false)).toBe(true);
    const names = agents.map((a: any) => a.display_name);
    expect(names).toEqual([...names].sort((a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)));
    for (const a of agents) expect(a.allowed_tools).toEqual([]);
  });

  it('Get answers one entry with its instruction text and variables; filters on display_name', async () => {
    const res = await t.request('GET', `${API}/ai_system_agents/blog-post-writer`, { token: alice.token });
    expect(res.statusCode).toBe(200);
    await expectShape(t, 'GetAiSystemAgent', 200, res.json());
    expect(res.json()).toMatchObject({ variables: ['topic', 'tone'], instruction_version: 1, output_format: 'TEXT' });
    expect(res.json().instruction_text).toContain('{{topic}}');
    const filtered = await list(t, alice.token, `${API}/ai_system_agents`, { filter: 'display_name:"hero"' });
    expect(filtered.ai_system_agents.map((a: any) => a.id)).toEqual(['hero-image']);
    expectInvalid(await t.request('GET', `${API}/ai_system_agents?filter=output_format%20%3D%20TEXT`, { token: alice.token }), 'output_format');
  });
});
