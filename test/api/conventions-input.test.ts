/**
 * Bad input on every write of accounts, projects and websites, the canonical error body (SPEC 7,
 * RUNTIME "Fixed surface points"), and routing conventions: unknown routes, trailing slashes,
 * CORS preflight. After every refused write the collection is unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, createAccount, createProject, expectError, expectInvalid, expectStatus, snapshot, type Response } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;

/** One write endpoint: how to call it with a raw payload, and the collection that must not change. */
interface Write {
  name: string;
  method: 'POST' | 'PATCH';
  url: string;
  /** Collection URL and its array field, snapshotted before and after each refused write. */
  collection: { url: string; field: string };
  /** A valid body, to which bad fields are added. */
  valid: Record<string, unknown>;
  /** Fields with the wrong JSON type. */
  wrongTypes: Record<string, unknown>;
  create: boolean;
}

let writes: Write[];

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUp();
  const account = await createAccount(t, alice.token, 'Inputs');
  const project = await createProject(t, alice.token, account.id, { display_name: 'Inputs', description: 'desc' });
  const website = alice.websiteId;
  const signupProject = (await t.request('GET', `${API}/websites/${website}`, { token: alice.token })).json().parent as string;
  const accountsCollection = { url: `${API}/accounts`, field: 'accounts' };
  const projectsCollection = { url: `${API}/accounts/${account.id}/projects`, field: 'projects' };
  const websitesCollection = { url: `${API}/${signupProject}/websites`, field: 'websites' };
  writes = [
    { name: 'account create', method: 'POST', url: `${API}/accounts`, collection: accountsCollection, valid: { display_name: 'A' }, wrongTypes: { display_name: 42 }, create: true },
    { name: 'account update', method: 'PATCH', url: `${API}/accounts/${account.id}`, collection: accountsCollection, valid: { display_name: 'A' }, wrongTypes: { display_name: true }, create: false },
    {
      name: 'project create',
      method: 'POST',
      url: projectsCollection.url,
      collection: projectsCollection,
      valid: { display_name: 'P' },
      wrongTypes: { display_name: ['P'], description: 5 },
      create: true,
    },
    {
      name: 'project update',
      method: 'PATCH',
      url: `${API}/projects/${project.id}`,
      collection: projectsCollection,
      valid: { display_name: 'P' },
      wrongTypes: { display_name: { text: 'P' }, description: false },
      create: false,
    },
    {
      name: 'website create',
      method: 'POST',
      url: websitesCollection.url,
      collection: websitesCollection,
      valid: { display_name: 'W' },
      wrongTypes: { display_name: 1.5, default_language: 5, time_zone: ['UTC'], code: true },
      create: true,
    },
    {
      name: 'website update',
      method: 'PATCH',
      url: `${API}/websites/${website}`,
      collection: websitesCollection,
      valid: { display_name: 'W' },
      wrongTypes: { default_language: {}, time_zone: 0 },
      create: false,
    },
  ];
});
afterAll(() => t?.close());

/** Sends a raw payload (string or JSON-able) with the given content type. */
function send(w: Write, payload: unknown, contentType: string | undefined = 'application/json'): Promise<Response> {
  const headers: Record<string, string> = {};
  if (contentType) headers['content-type'] = contentType;
  return t.request(w.method, w.url, { token: alice.token, body: payload, headers });
}

/** Runs `refused` against every write and checks the collection did not change. */
async function eachWrite(refused: (w: Write) => Promise<void>): Promise<void> {
  for (const w of writes) {
    const before = await snapshot(t, alice.token, w.collection.url, w.collection.field);
    try {
      await refused(w);
    } catch (err) {
      (err as Error).message = `${w.name}: ${(err as Error).message}`;
      throw err;
    }
    expect(await snapshot(t, alice.token, w.collection.url, w.collection.field), `${w.name} changed the collection`).toEqual(before);
  }
}

describe('bad input on every write', () => {
  it('a field of the wrong JSON type is 400 INVALID_ARGUMENT naming the field', async () => {
    await eachWrite(async (w) => {
      for (const [field, value] of Object.entries(w.wrongTypes)) {
        expectInvalid(await send(w, { ...w.valid, [field]: value }), field);
      }
    });
  });

  it('every wrong-typed field is reported at once', async () => {
    await eachWrite(async (w) => {
      const error = expectError(await send(w, { ...w.valid, ...w.wrongTypes }), 400, 'INVALID_ARGUMENT');
      const named = error.details.filter((d: any) => d.type === 'FIELD_VIOLATION').map((d: any) => d.field);
      for (const field of Object.keys(w.wrongTypes)) expect(named).toContain(field);
    });
  });

  it('an unknown field is 400 INVALID_ARGUMENT naming it', async () => {
    await eachWrite(async (w) => {
      const error = expectInvalid(await send(w, { ...w.valid, colour: 'red' }), 'colour');
      expect(error.details.find((d: any) => d.field === 'colour').description).toMatch(/not a known field/);
    });
  });

  it('a display_name of 256 characters is 400 INVALID_ARGUMENT naming display_name; 255 is the limit', async () => {
    await eachWrite(async (w) => {
      expectInvalid(await send(w, { ...w.valid, display_name: 'x'.repeat(256) }), 'display_name');
    });
    const project = writes.find((w) => w.name === 'project update')!;
    expect(expectStatus(await send(project, { display_name: 'y'.repeat(255) }), 200).display_name).toBe('y'.repeat(255));
  });

  it('a missing required field on create is 400 INVALID_ARGUMENT naming it', async () => {
    await eachWrite(async (w) => {
      if (!w.create) return;
      const error = expectInvalid(await send(w, {}), 'display_name');
      expect(error.details.find((d: any) => d.field === 'display_name').description).toMatch(/required/);
    });
  });

  it('a blank display_name is 400 INVALID_ARGUMENT naming display_name', async () => {
    await eachWrite(async (w) => {
      for (const blank of ['', '   ', '\t\n']) expectInvalid(await send(w, { ...w.valid, display_name: blank }), 'display_name');
    });
  });

  it('a missing body is 400 INVALID_ARGUMENT', async () => {
    await eachWrite(async (w) => {
      expectError(await t.request(w.method, w.url, { token: alice.token }), 400, 'INVALID_ARGUMENT');
      expectError(await send(w, ''), 400, 'INVALID_ARGUMENT');
    });
  });

  it('a body that is not a JSON object (array, string, number, null) is 400 INVALID_ARGUMENT on body', async () => {
    await eachWrite(async (w) => {
      for (const payload of ['[]', '[{"display_name":"x"}]', '"display_name"', '42', 'null', 'true']) {
        expectInvalid(await send(w, payload), 'body');
      }
    });
  });

  it('malformed JSON is 400 INVALID_ARGUMENT', async () => {
    await eachWrite(async (w) => {
      for (const payload of ['{', '{"display_name": }', "{'display_name': 'x'}", '{"display_name":"x"}}']) {
        expectInvalid(await send(w, payload), 'body');
      }
    });
  });

  it('a JSON body with __proto__ is refused, not merged', async () => {
    await eachWrite(async (w) => {
      expectError(await send(w, '{"display_name":"x","__proto__":{"admin":true}}'), 400, 'INVALID_ARGUMENT');
    });
  });

  it('a body of the wrong content type (text/plain) is 400 INVALID_ARGUMENT naming content-type', async () => {
    await eachWrite(async (w) => {
      expectInvalid(await send(w, JSON.stringify(w.valid), 'text/plain'), 'content-type');
      expectInvalid(await send(w, JSON.stringify(w.valid), 'application/x-www-form-urlencoded'), 'content-type');
    });
  });

  it('application/json with a charset parameter is accepted', async () => {
    const w = writes.find((x) => x.name === 'project update')!;
    expect(expectStatus(await send(w, { description: 'charset' }, 'application/json; charset=utf-8'), 200).description).toBe('charset');
  });

  it('a body over 1 MiB is 400 INVALID_ARGUMENT naming body', async () => {
    await eachWrite(async (w) => {
      const huge = JSON.stringify({ ...w.valid, padding: 'x'.repeat(1024 * 1024 + 1) });
      expectInvalid(await send(w, huge), 'body');
    });
  });

  it('an oversize optional string is 400 naming it (project description over 2000)', async () => {
    await eachWrite(async (w) => {
      if (!w.name.startsWith('project')) return;
      expectInvalid(await send(w, { ...w.valid, description: 'd'.repeat(2001) }), 'description');
    });
  });

  it('website values outside their pattern are 400 naming the field', async () => {
    await eachWrite(async (w) => {
      if (!w.name.startsWith('website')) return;
      expectInvalid(await send(w, { ...w.valid, default_language: 'not a language' }), 'default_language');
      expectInvalid(await send(w, { ...w.valid, time_zone: 'Mars/Olympus_Mons' }), 'time_zone');
      if (w.create) {
        expectInvalid(await send(w, { ...w.valid, code: 'Not A Label' }), 'code');
        expectInvalid(await send(w, { ...w.valid, code: 'www' }), 'code');
      }
    });
  });
});

describe('canonical error body', () => {
  it('every error carries {code == HTTP status, status, message, details} with REQUEST_INFO equal to x-request-id', async () => {
    const cases: Array<[Promise<Response>, number, string]> = [
      [t.request('GET', `${API}/accounts`), 401, 'UNAUTHENTICATED'],
      [t.request('GET', `${API}/accounts`, { token: 'not-a-jwt' }), 401, 'UNAUTHENTICATED'],
      [t.request('GET', `${API}/projects/nope`, { token: alice.token }), 404, 'NOT_FOUND'],
      [t.request('GET', `${API}/accounts?page_size=-3`, { token: alice.token }), 400, 'INVALID_ARGUMENT'],
      [t.request('GET', `${API}/accounts?skip=20000`, { token: alice.token }), 400, 'OUT_OF_RANGE'],
      [t.request('GET', `${API}/no-such-route`, { token: alice.token }), 404, 'NOT_FOUND'],
      [t.request('POST', `${API}/accounts`, { token: alice.token, body: '{' }), 400, 'INVALID_ARGUMENT'],
    ];
    for (const [pending, code, status] of cases) expectError(await pending, code, status);
  });

  it('each response carries its own request id', async () => {
    const a = await t.request('GET', `${API}/projects/nope`, { token: alice.token });
    const b = await t.request('GET', `${API}/projects/nope`, { token: alice.token });
    expect(expectError(a, 404, 'NOT_FOUND').details).not.toEqual(expectError(b, 404, 'NOT_FOUND').details);
  });

  it('a successful response carries an x-request-id header too', async () => {
    const res = await t.request('GET', `${API}/accounts`, { token: alice.token });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-request-id']).toMatch(/\S+/);
  });

  it('a well-formed client x-request-id is kept as the request id; a malformed one is replaced', async () => {
    const kept = await t.request('GET', `${API}/projects/nope`, { token: alice.token, headers: { 'x-request-id': 'trace-4bf92f3577b34da6:a3ce929d.0e' } });
    expect(expectError(kept, 404, 'NOT_FOUND').details.find((d: any) => d.type === 'REQUEST_INFO').request_id).toBe('trace-4bf92f3577b34da6:a3ce929d.0e');
    for (const bad of ['has space', 'x'.repeat(129), 'quote"d', 'semi;colon']) {
      const res = await t.request('GET', `${API}/projects/nope`, { token: alice.token, headers: { 'x-request-id': bad } });
      const id = expectError(res, 404, 'NOT_FOUND').details.find((d: any) => d.type === 'REQUEST_INFO').request_id;
      expect(id).not.toBe(bad);
      expect(id).toMatch(/^req_[0-9a-f]{20}$/);
    }
  });
});

describe('routing', () => {
  it('an unknown route is 404 NOT_FOUND in the canonical body', async () => {
    for (const [method, url] of [
      ['GET', `${API}/nothing-here`],
      ['GET', '/nowhere'],
      ['POST', `${API}/accounts/x/nothing`],
      ['PUT', `${API}/nothing-here`],
    ] as const) {
      expectError(await t.request(method, url, { token: alice.token }), 404, 'NOT_FOUND');
    }
  });

  it('a method a known path does not serve is 405 UNIMPLEMENTED with an Allow header', async () => {
    const res = await t.request('PUT', `${API}/accounts`, { token: alice.token });
    expectError(res, 405, 'UNIMPLEMENTED');
    expect(res.headers.allow).toBe('GET, HEAD, POST');
  });

  it('a trailing slash is 301 to the canonical path, query kept', async () => {
    const res = await t.request('GET', `${API}/accounts/`, { token: alice.token });
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe(`${API}/accounts`);
    const withQuery = await t.request('GET', `${API}/accounts/${alice.accountId}/projects/?page_size=5&filter=display_name%3A%22x%22`, { token: alice.token });
    expect(withQuery.statusCode).toBe(301);
    expect(withQuery.headers.location).toBe(`${API}/accounts/${alice.accountId}/projects?page_size=5&filter=display_name%3A%22x%22`);
    // The canonical form answers.
    expectStatus(await t.request('GET', String(withQuery.headers.location), { token: alice.token }), 200);
  });

  it('the CORS preflight admits PATCH, If-Match and Authorization', async () => {
    const res = await t.request('OPTIONS', `${API}/projects/anything`, {
      headers: {
        origin: 'https://admin.example',
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'if-match,authorization,content-type',
      },
    });
    expect(res.statusCode).toBeGreaterThanOrEqual(200);
    expect(res.statusCode).toBeLessThan(300);
    expect(res.headers['access-control-allow-origin']).toMatch(/^(\*|https:\/\/admin\.example)$/);
    const methods = String(res.headers['access-control-allow-methods']).toUpperCase().split(/\s*,\s*/);
    expect(methods).toContain('PATCH');
    const allowed = String(res.headers['access-control-allow-headers']).toLowerCase().split(/\s*,\s*/);
    for (const header of ['if-match', 'authorization', 'content-type']) expect(allowed).toContain(header);
  });

  it('cross-origin responses expose ETag, Location and X-Request-Id', async () => {
    const res = await t.request('GET', `${API}/accounts/${alice.accountId}`, { token: alice.token, headers: { origin: 'https://admin.example' } });
    expect(res.statusCode).toBe(200);
    const exposed = String(res.headers['access-control-expose-headers']).toLowerCase().split(/\s*,\s*/);
    for (const header of ['etag', 'location', 'x-request-id']) expect(exposed).toContain(header);
  });
});
