/**
 * AI instructions (SPEC 2.7; endpoints designed in docs/decisions.md): declared variables, immutable
 * numbered versions, moving active_version, refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { expectError, expectInvalid, expectShape, list } from '../support/fixtures.js';
import { acct, createAgent, createInstruction } from '../support/ai-fixtures.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUp();
  bob = await t.signUp();
});
afterAll(() => t?.close());

const url = (u: TestUser, rest = '') => `${acct(u)}/ai_instructions${rest}`;

describe('ai_instructions', () => {
  it('create makes version 1, active, with created_by', async () => {
    const instruction = await createInstruction(t, alice, { notes: 'first draft' });
    await expectShape(t, 'CreateAiInstruction', 201, instruction);
    expect(instruction).toMatchObject({ display_name: 'Writer', variables: ['topic'], active_version: 1, latest_version: 1 });
    expect(instruction.name).toBe(`accounts/${alice.accountId}/ai_instructions/${instruction.id}`);
    expect(instruction.content).toBeUndefined();
    const versions = await t.request('GET', url(alice, `/${instruction.id}/versions`), { token: alice.token });
    expect(versions.statusCode, versions.body).toBe(200);
    await expectShape(t, 'ListAiInstructionVersions', 200, versions.json());
    expect(versions.json().versions).toEqual([
      expect.objectContaining({ version: 1, id: '1', notes: 'first draft', created_by: `users/${alice.userId}`, ai_instruction_id: instruction.id }),
    ]);
    expect(versions.json().versions[0].content).toContain('{{topic}}');
  });

  it('a version whose content uses an undeclared {{name}} is refused', async () => {
    expectInvalid(await t.request('POST', url(alice), { token: alice.token, body: { display_name: 'x', variables: ['a'], content: 'Hi {{a}} and {{b}}' } }), 'content');
    const instruction = await createInstruction(t, alice);
    const res = await t.request('POST', url(alice, `/${instruction.id}/versions`), { token: alice.token, body: { content: 'About {{subject}}' } });
    expect(expectInvalid(res, 'content').message).toContain('{{subject}}');
    // Other braces are plain text, not variables.
    const ok = await t.request('POST', url(alice, `/${instruction.id}/versions`), { token: alice.token, body: { content: 'Use {x}, {{ y }}, {{1z}} and {{topic}}' } });
    expect(ok.statusCode, ok.body).toBe(201);
  });

  it('malformed or repeated variable names are refused', async () => {
    expectInvalid(await t.request('POST', url(alice), { token: alice.token, body: { display_name: 'x', variables: ['9lives'], content: 'x' } }), 'variables');
    expectInvalid(await t.request('POST', url(alice), { token: alice.token, body: { display_name: 'x', variables: ['a', 'a'], content: 'x' } }), 'variables');
    expectInvalid(await t.request('POST', url(alice), { token: alice.token, body: { display_name: 'x' } }), 'content');
  });

  it('next versions get server-assigned numbers; versions list newest first; versions cannot be edited or deleted', async () => {
    const instruction = await createInstruction(t, alice);
    for (const n of [2, 3]) {
      const res = await t.request('POST', url(alice, `/${instruction.id}/versions`), { token: alice.token, body: { content: `v${n} {{topic}}`, notes: `n${n}` } });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ version: n, id: String(n), created_by: `users/${alice.userId}` });
    }
    const page = (await t.request('GET', url(alice, `/${instruction.id}/versions`), { token: alice.token })).json();
    expect(page.versions.map((v: any) => v.version)).toEqual([3, 2, 1]);
    expect(page.total_size).toBe(3);
    const got = await t.request('GET', url(alice, `/${instruction.id}/versions/2`), { token: alice.token });
    expect(got.json()).toMatchObject({ version: 2, content: 'v2 {{topic}}', notes: 'n2' });
    expect((await t.request('PATCH', url(alice, `/${instruction.id}/versions/2`), { token: alice.token, body: { content: 'x' } })).statusCode).toBe(405);
    expect((await t.request('DELETE', url(alice, `/${instruction.id}/versions/2`), { token: alice.token })).statusCode).toBe(405);
    // The instruction still points at version 1 until active_version is moved.
    const current = (await t.request('GET', url(alice, `/${instruction.id}`), { token: alice.token })).json();
    expect(current).toMatchObject({ active_version: 1, latest_version: 3 });
  });

  it('a new version with activate: true becomes active', async () => {
    const instruction = await createInstruction(t, alice);
    await t.request('POST', url(alice, `/${instruction.id}/versions`), { token: alice.token, body: { content: 'v2 {{topic}}', activate: true } });
    expect((await t.request('GET', url(alice, `/${instruction.id}`), { token: alice.token })).json()).toMatchObject({ active_version: 2, latest_version: 2 });
  });

  it('active_version moves to an existing version only', async () => {
    const instruction = await createInstruction(t, alice);
    await t.request('POST', url(alice, `/${instruction.id}/versions`), { token: alice.token, body: { content: 'v2 {{topic}}' } });
    const moved = await t.request('PATCH', url(alice, `/${instruction.id}`), { token: alice.token, body: { active_version: 2 } });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().active_version).toBe(2);
    const before = (await t.request('GET', url(alice, `/${instruction.id}`), { token: alice.token })).json();
    expectInvalid(await t.request('PATCH', url(alice, `/${instruction.id}`), { token: alice.token, body: { active_version: 3 } }), 'active_version');
    expect((await t.request('GET', url(alice, `/${instruction.id}`), { token: alice.token })).json().etag).toBe(before.etag);
  });

  it('dropping a variable the active version uses is refused; content cannot be changed in place', async () => {
    const instruction = await createInstruction(t, alice);
    expectInvalid(await t.request('PATCH', url(alice, `/${instruction.id}`), { token: alice.token, body: { variables: [] } }), 'variables');
    expectInvalid(await t.request('PATCH', url(alice, `/${instruction.id}`), { token: alice.token, body: { content: 'new text' } }), 'content');
    const widened = await t.request('PATCH', url(alice, `/${instruction.id}`), { token: alice.token, body: { variables: ['topic', 'tone'] } });
    expect(widened.json().variables).toEqual(['topic', 'tone']);
  });

  it('Delete of an instruction an agent uses is FAILED_PRECONDITION; otherwise 204 and gone', async () => {
    const agent = await createAgent(t, alice);
    const used = await t.request('DELETE', url(alice, `/${agent.instruction_id}`), { token: alice.token });
    expect(expectError(used, 400, 'FAILED_PRECONDITION').details).toContainEqual(expect.objectContaining({ reason: 'INSTRUCTION_IN_USE' }));
    const free = await createInstruction(t, alice);
    expect((await t.request('DELETE', url(alice, `/${free.id}`), { token: alice.token })).statusCode).toBe(204);
    expectError(await t.request('GET', url(alice, `/${free.id}`), { token: alice.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', url(alice, `/${free.id}/versions`), { token: alice.token }), 404, 'NOT_FOUND');
    // Versions are never deleted: runs that resolved them can still read them.
    const kept = await t.fresh.database.db.selectFrom('ai_instruction_versions').select('id').where('ai_instruction_id', '=', free.id).execute();
    expect(kept).toHaveLength(1);
  });

  it('lists with filters and order; other tenants see NOT_FOUND', async () => {
    await createInstruction(t, alice, { display_name: 'Zeta notes' });
    const page = await list(t, alice.token, url(alice), { filter: 'display_name:"zeta"', order_by: 'display_name' });
    expect(page.ai_instructions.map((i: any) => i.display_name)).toEqual(['Zeta notes']);
    const mine = await createInstruction(t, alice);
    expectError(await t.request('GET', `${acct(alice)}/ai_instructions/${mine.id}`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${acct(bob)}/ai_instructions/${mine.id}`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${acct(bob)}/ai_instructions/${mine.id}/versions`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('POST', `${acct(bob)}/ai_instructions/${mine.id}/versions`, { token: bob.token, body: { content: 'x' } }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', url(alice)), 401, 'UNAUTHENTICATED');
  });
});
