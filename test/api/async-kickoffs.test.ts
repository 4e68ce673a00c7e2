/**
 * SPEC 4.1 rule 7 (issue 23 defect 2): a call whose whole result is asynchronous answers 202 with
 * the Operation and a `Location` header pointing at it. Derived from the declarations and the
 * served OpenAPI, so a new custom method answering an Operation is covered when it is declared.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectStatus } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
let doc: any;
/** `POST …:{verb}` operations of the served document whose success answer is an Operation. */
let kickoffs: Array<{ path: string; op: any }>;

const isOperation = (schema: any) => schema?.$ref === '#/components/schemas/Operation';

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUpProvisioned();
  doc = expectStatus(await t.request('GET', `${API}/openapi.json`), 200);
  kickoffs = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    const op = item.post;
    // `operations/{operation}:cancel` acts on an Operation rather than starting one.
    if (!op || !/:[a-z_]+$/.test(path) || op.operationId === 'CancelOperation') continue;
    const success = Object.entries<any>(op.responses).filter(([code]) => code.startsWith('2'));
    if (success.some(([, r]) => isOperation(r.content?.['application/json']?.schema))) kickoffs.push({ path, op });
  }
}, 60_000);
afterAll(() => t?.close());

describe('asynchronous kick-offs answer 202 with Location', () => {
  it('every declared custom method answering an Operation is documented as 202 with Location, never 200', () => {
    const declared = Object.values(t.platform.services).flatMap((s) =>
      (s.decl.customMethods ?? []).filter((m) => m.response?.$id === 'Operation').map((m) => `${m.on === 'item' ? s.decl.itemPath : s.decl.collectionPath}:${m.verb}`),
    );
    expect(declared).toContain('websites/{website_id}/search_index:reindex');
    const documented = kickoffs.map((k) => k.path.replace(`${API}/`, '').replace(/^\//, ''));
    for (const path of new Set(declared)) expect(documented).toContain(path);
    for (const { path, op } of kickoffs) {
      expect(Object.keys(op.responses), path).toContain('202');
      expect(Object.keys(op.responses), path).not.toContain('200');
      expect(isOperation(op.responses['202'].content['application/json'].schema), path).toBe(true);
      expect(op.responses['202'].headers?.Location, path).toBeDefined();
    }
  });

  it('search_index:reindex answers 202 with Location at the Operation, which a Get reads', async () => {
    const res = await t.request('POST', `${API}/websites/${alice.websiteId}/search_index:reindex`, { token: alice.token, body: {} });
    const started = expectStatus(res, 202);
    expect(started.name).toMatch(new RegExp(`^websites/${alice.websiteId}/operations/`));
    expect(res.headers.location).toBe(`${t.config.publicBaseUrl}${API}/${started.name}`);
    const polled = expectStatus(await t.request('GET', new URL(String(res.headers.location)).pathname, { token: alice.token }), 200);
    expect(polled.name).toBe(started.name);
  });

  it('every kick-off under a website answers 202 with Location when called', async () => {
    const callable = kickoffs.filter((k) => /^\/tenant-api\/v1\/websites\/\{website_id\}\/[a-z_]+:[a-z_]+$/.test(k.path));
    expect(callable.length).toBeGreaterThan(0);
    for (const { path } of callable) {
      const res = await t.request('POST', path.replace('{website_id}', alice.websiteId), { token: alice.token, body: {} });
      const started = expectStatus(res, 202);
      expect(res.headers.location, path).toBe(`${t.config.publicBaseUrl}${API}/${started.name}`);
    }
  });
});
