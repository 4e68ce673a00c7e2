/** Helpers of the AI tests: creating instructions, agents and runs through HTTP, and waiting for runs. */
import { expect } from 'vitest';
import type { TestApp, TestUser } from './app.js';

export const API = '/tenant-api/v1';
export const acct = (u: TestUser) => `${API}/accounts/${u.accountId}`;

export async function createInstruction(t: TestApp, u: TestUser, body: Record<string, unknown> = {}): Promise<any> {
  const res = await t.request('POST', `${acct(u)}/ai_instructions`, {
    token: u.token,
    body: { display_name: 'Writer', variables: ['topic'], content: 'Write about {{topic}}. Keep {braces} and {{ spaced }} as written.', ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

export async function createAgent(t: TestApp, u: TestUser, body: Record<string, unknown> = {}): Promise<any> {
  const instruction = body.instruction_id ? undefined : await createInstruction(t, u);
  const res = await t.request('POST', `${acct(u)}/ai_agents`, {
    token: u.token,
    body: { display_name: 'Agent', instruction_id: instruction?.id, preferred_model_id: 'gpt-5', ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

export async function createRun(t: TestApp, u: TestUser, body: Record<string, unknown>): Promise<any> {
  const res = await t.request('POST', `${acct(u)}/ai_executions`, { token: u.token, body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

const FINAL = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED']);

/** Polls a run until its state is final. */
export async function waitForRun(t: TestApp, u: TestUser, id: string, maxMs = 20_000): Promise<any> {
  const started = Date.now();
  for (;;) {
    const res = await t.request('GET', `${acct(u)}/ai_executions/${id}`, { token: u.token });
    expect(res.statusCode, res.body).toBe(200);
    const run = res.json();
    if (FINAL.has(run.state)) return run;
    if (Date.now() - started > maxMs) throw new Error(`run ${id} still ${run.state} after ${maxMs} ms: ${res.body}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Money as a number of dollars (for readable assertions). */
export const dollars = (m: { units: string; nanos: number }) => Number(m.units) + m.nanos / 1e9;
