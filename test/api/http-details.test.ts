/**
 * HTTP details of every surface (issue "Contract and developer experience", part 4): the body etag
 * of AIP-154, 405 with Allow, WWW-Authenticate, client request ids, canonical bodies for the errors
 * Fastify and Node raise before our handlers, text no database can store, compression, the tenant
 * rate limit and its RateLimit header fields, and Location on sign-up.
 */
import { connect } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { canonicalErrorProblem } from '../support/canonical.js';
import { createAgent } from '../support/ai-fixtures.js';
import { API, expectError, expectInvalid, expectStatus } from '../support/fixtures.js';
import { jpeg, multipart, publicGet, publicUrl, upload } from '../support/media.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let projects: string;

beforeAll(async () => {
  t = await startTestApp();
  [alice, bob] = await Promise.all([t.signUpProvisioned(), t.signUpProvisioned()]);
  projects = `${API}/accounts/${alice.accountId}/projects`;
});
afterAll(() => t?.close());

const as = (user: TestUser) => ({
  get: (url: string) => t.request('GET', url, { token: user.token }),
  post: (url: string, body?: unknown, headers: Record<string, string> = {}) => t.request('POST', url, { token: user.token, body, headers }),
  patch: (url: string, body: unknown, headers: Record<string, string> = {}) => t.request('PATCH', url, { token: user.token, body, headers }),
  delete: (url: string, body?: unknown, headers: Record<string, string> = {}) => t.request('DELETE', url, { token: user.token, body, headers }),
});
const a = () => as(alice);

async function newProject(name = 'Etag') {
  return expectStatus(await a().post(projects, { display_name: name }), 201);
}

/** An ABORTED answer carrying the resource as it is now. */
function expectAborted(res: Awaited<ReturnType<TestApp['request']>>, current: Record<string, unknown>) {
  const error = expectError(res, 409, 'ABORTED');
  expect(error.details.find((d: any) => d.type === 'RESOURCE_INFO').resource).toMatchObject(current);
}

describe('an etag in the body is a precondition like If-Match (AIP-154)', () => {
  it('Update with a stale body etag is 409 ABORTED with the current resource, and writes nothing', async () => {
    const project = await newProject();
    const changed = expectStatus(await a().patch(`${API}/${project.name}`, { description: 'first' }), 200);
    expectAborted(await a().patch(`${API}/${project.name}`, { description: 'stale write', etag: project.etag }), { etag: changed.etag, description: 'first' });
    expect(expectStatus(await a().get(`${API}/${project.name}`), 200).description).toBe('first');
    const written = expectStatus(await a().patch(`${API}/${project.name}`, { description: 'second', etag: changed.etag }), 200);
    expect(written.description).toBe('second');
  });

  it('header and body both sent: they must agree (INVALID_ARGUMENT on etag otherwise); agreeing, the etag decides', async () => {
    const project = await newProject();
    expectInvalid(await a().patch(`${API}/${project.name}`, { description: 'x', etag: project.etag }, { 'if-match': '"something-else"' }), 'etag');
    // `*` agrees with any etag, so the body's stale etag is the condition.
    const changed = expectStatus(await a().patch(`${API}/${project.name}`, { description: 'y' }), 200);
    expectAborted(await a().patch(`${API}/${project.name}`, { description: 'z', etag: project.etag }, { 'if-match': '*' }), { etag: changed.etag });
    expectStatus(await a().patch(`${API}/${project.name}`, { description: 'z', etag: changed.etag }, { 'if-match': `"${changed.etag}"` }), 200);
    expectInvalid(await a().patch(`${API}/${project.name}`, { description: 'z', etag: 7 }), 'etag');
  });

  it('Delete takes ?etag= (AIP-135) or a body {etag}: stale is 409 ABORTED and deletes nothing, current deletes', async () => {
    const project = await newProject();
    const changed = expectStatus(await a().patch(`${API}/${project.name}`, { description: 'moved on' }), 200);
    expectAborted(await a().delete(`${API}/${project.name}?etag=${encodeURIComponent(project.etag)}`), { etag: changed.etag });
    expectAborted(await a().delete(`${API}/${project.name}`, { etag: project.etag }), { etag: changed.etag });
    expectInvalid(await a().delete(`${API}/${project.name}`, { etag: changed.etag, force: true }), 'force');
    expectInvalid(await a().delete(`${API}/${project.name}?etag=${changed.etag}`, undefined, { 'if-match': `"${project.etag}"` }), 'etag');
    expectStatus(await a().get(`${API}/${project.name}`), 200);
    expect((await a().delete(`${API}/${project.name}?etag=${encodeURIComponent(changed.etag)}`)).statusCode).toBe(204);
    const other = await newProject();
    expect((await a().delete(`${API}/${other.name}`, { etag: other.etag })).statusCode).toBe(204);
  });

  it('custom methods that write take it in the body: a mutate method (:make_default) and a handle method (:verify)', async () => {
    const viewsUrl = `${API}/websites/${alice.websiteId}/views`;
    const view = expectStatus(await a().post(viewsUrl, { display_name: 'Etag view', locale: 'nb' }), 201);
    const renamed = expectStatus(await a().patch(`${API}/${view.name}`, { display_name: 'Renamed' }), 200);
    expectAborted(await a().post(`${API}/${view.name}:make_default`, { etag: view.etag }), { etag: renamed.etag, is_default: false });
    expectInvalid(await a().post(`${API}/${view.name}:make_default`, { etag: renamed.etag, force: true }), 'force');
    const views = expectStatus(await a().get(viewsUrl), 200).views;
    const previousDefault = views.find((v: any) => v.is_default);
    expect(expectStatus(await a().post(`${API}/${view.name}:make_default`, { etag: renamed.etag }), 200).is_default).toBe(true);
    expectStatus(await a().post(`${API}/${previousDefault.name}:make_default`, {}), 200);

    const domain = `${API}/websites/${alice.websiteId}/custom_domain`;
    const current = expectStatus(await a().get(domain), 200);
    expectAborted(await a().post(`${domain}:verify`, { etag: 'stale' }), { etag: current.etag });
    expect(expectError(await a().post(`${domain}:verify`, { etag: current.etag }), 400, 'FAILED_PRECONDITION').message).toMatch(/custom domain/);
  });

  it('read-only custom methods do not take an etag', async () => {
    const page = (await a().get(`${API}/websites/${alice.websiteId}/cms_pages?page_size=1`)).json().cms_pages[0];
    expectInvalid(await a().post(`${API}/${page.name}:resolve`, { etag: page.etag }), 'etag');
  });
});

describe('405 for a method a known path does not serve', () => {
  it('answers 405 UNIMPLEMENTED with Allow listing what the path serves, on every surface', async () => {
    const cases: Array<[string, string, string]> = [
      ['PUT', `${API}/accounts`, 'GET, HEAD, POST'],
      ['POST', `${API}/accounts/${alice.accountId}`, 'DELETE, GET, HEAD, PATCH'],
      ['GET', `${API}/users:authenticate`, 'POST'],
      ['DELETE', '/site-api/v1/users', 'POST'],
      ['PATCH', `/engine-api/v1/websites/${alice.websiteId}/media/x`, 'GET, HEAD'],
      ['POST', '/healthz', 'GET, HEAD'],
    ];
    for (const [method, url, allow] of cases) {
      const res = await t.request(method, url, { token: alice.token });
      const error = expectError(res, 405, 'UNIMPLEMENTED');
      expect(res.headers.allow, `${method} ${url}`).toBe(allow);
      expect(error.message).toContain(method);
    }
  });

  it('a path no route has is still 404', async () => {
    expectError(await t.request('PUT', `${API}/no_such_collection`, { token: alice.token }), 404, 'NOT_FOUND');
  });
});

describe('401', () => {
  it('every 401 carries WWW-Authenticate: Bearer (invalid_token when a token was sent)', async () => {
    const missing = await t.request('GET', `${API}/accounts`);
    expectError(missing, 401, 'UNAUTHENTICATED');
    expect(missing.headers['www-authenticate']).toBe('Bearer');
    const invalid = await t.request('GET', `${API}/websites/${alice.websiteId}`, { headers: { authorization: 'Bearer not-a-jwt' } });
    expectError(invalid, 401, 'UNAUTHENTICATED');
    expect(invalid.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    // Another scheme is no bearer token at all (RFC 6750 §3.1: no error code then).
    const basic = await t.request('GET', `${API}/websites/${alice.websiteId}`, { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expectError(basic, 401, 'UNAUTHENTICATED');
    expect(basic.headers['www-authenticate']).toBe('Bearer');
    const wrongPassword = await t.request('POST', `${API}/users:authenticate`, { body: { email: alice.email, password: 'wrong-password-1' } });
    expectError(wrongPassword, 401, 'UNAUTHENTICATED');
    expect(wrongPassword.headers['www-authenticate']).toMatch(/^Bearer/);
  });
});

describe('request ids', () => {
  it('a well-formed X-Request-Id is echoed and is the REQUEST_INFO; a malformed one is replaced', async () => {
    const ok = await t.request('GET', `${API}/accounts`, { token: alice.token, headers: { 'x-request-id': '4bf92f35-77b3-4da6-a3ce-929d0e0e4736' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['x-request-id']).toBe('4bf92f35-77b3-4da6-a3ce-929d0e0e4736');
    const failed = await t.request('GET', `${API}/projects/nope`, { token: alice.token, headers: { 'x-request-id': 'client:42' } });
    expect(expectError(failed, 404, 'NOT_FOUND').details.at(-1)).toEqual({ type: 'REQUEST_INFO', request_id: 'client:42' });
    const replaced = await t.request('GET', `${API}/accounts`, { token: alice.token, headers: { 'x-request-id': 'a b' } });
    expect(replaced.headers['x-request-id']).toMatch(/^req_[0-9a-f]{20}$/);
  });
});

describe('errors raised before our handlers answer the canonical body', () => {
  it('Fastify: bad JSON, wrong content type, body too large, bad percent-encoding, over-long path segment', async () => {
    const cases: Array<[Awaited<ReturnType<TestApp['request']>>, string]> = [
      [await t.request('POST', projects, { token: alice.token, body: '{"display_name":' }), 'body'],
      [await t.request('POST', projects, { token: alice.token, body: 'display_name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 'content-type'],
      [await t.request('POST', projects, { token: alice.token, body: '{}', headers: { 'content-type': 'text/plain' } }), 'content-type'],
      [await t.request('POST', projects, { token: alice.token, body: JSON.stringify({ display_name: 'x'.repeat(1024 * 1024 + 10) }) }), 'body'],
      [await t.request('GET', `${API}/accounts/%E0%A4%A`, { token: alice.token }), 'path'],
      [await t.request('GET', `${API}/accounts/${'a'.repeat(300)}`, { token: alice.token }), 'path'],
    ];
    for (const [res, field] of cases) {
      expect(canonicalErrorProblem(res), res.body).toBeUndefined();
      expectInvalid(res, field);
    }
  });

  it('Node: oversized headers and a malformed request line, over a real socket', async () => {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = new URL(address);
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1');
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
        socket.write(request);
      });
    const parse = (answer: string) => {
      const [head, body] = answer.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      return { statusCode: Number(statusLine.split(' ')[1]), headers, body };
    };
    const huge = parse(await raw(`GET ${API}/accounts HTTP/1.1\r\nHost: x\r\nX-Pad: ${'p'.repeat(20_000)}\r\n\r\n`));
    expect(canonicalErrorProblem(huge), huge.body).toBeUndefined();
    expect(huge.statusCode).toBe(400);
    expect(JSON.parse(huge.body).error.details[0]).toMatchObject({ type: 'FIELD_VIOLATION', field: 'headers' });
    const garbage = parse(await raw('NOT HTTP AT ALL\r\n\r\n'));
    expect(canonicalErrorProblem(garbage), garbage.body).toBeUndefined();
    expect(garbage.statusCode).toBe(400);
  });
});

describe('text no database can store', () => {
  it('a NUL character anywhere in a JSON body is 400 INVALID_ARGUMENT naming the field, at any depth, keys too', async () => {
    expectInvalid(await a().post(`${API}/accounts`, { display_name: 'x\u0000y' }), 'display_name');
    expectInvalid(await a().post(projects, { display_name: 'ok', description: 'd\u0000' }), 'description');
    // A key of an object stored as JSON (PostgreSQL jsonb: "unsupported Unicode escape sequence").
    expectInvalid(await a().post(`${API}/websites/${alice.websiteId}/customer_attribute_groups`, { display_name: 'a', labels: { 'd\u0000e': 'v' } }), 'labels');
    expectInvalid(await a().post(projects, { display_name: 'ok', nested: { deeper: ['fine', 'bad\u0000'] } }), 'nested.deeper[1]');
  });

  it('in path ids, query parameters and filter values, on authenticated and unauthenticated routes', async () => {
    expectInvalid(await a().get(`${API}/ai_models/%00`), 'ai_model_id');
    expectInvalid(await a().get(`${projects}?filter=${encodeURIComponent('display_name:"a\u0000"')}`), 'filter');
    expectInvalid(await a().get(`${projects}?page_token=%00`), 'page_token');
    expectInvalid(await t.request('POST', `${API}/users:authenticate`, { body: { email: 'a\u0000@example.com', password: 'x' } }), 'email');
    expectInvalid(
      await t.request('POST', '/site-api/v1/users', {
        body: { email: 'nul@example.com', password: 'correct-horse-9', website_name: 'a\u0000b', default_language: 'en', captcha_token: 'dev-captcha' },
      }),
      'website_name',
    );
  });

  it('in the plain parts of a multipart upload too (the one body the JSON parser never sees)', async () => {
    const { body, contentType } = multipart([
      { name: 'alt_text', value: 'a\u0000b' },
      { name: 'file', filename: 'notes.txt', data: Buffer.from('plain text') },
    ]);
    const res = await t.app.inject({ method: 'POST', url: `${API}/websites/${alice.websiteId}/media`, headers: { authorization: `Bearer ${alice.token}`, 'content-type': contentType }, payload: body });
    expectInvalid(res, 'alt_text');
  });

  it('lone surrogates and JSON nested deeper than 32 levels are refused the same way', async () => {
    expectInvalid(await a().post(projects, { display_name: 'x\ud800y' }), 'display_name');
    // A free-form object field (an agent's output_schema): 20 levels are stored, 40 are refused by name.
    const agent = await createAgent(t, alice);
    const nested = (levels: number) => {
      let schema: Record<string, unknown> = { type: 'string' };
      for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { a: schema } };
      return schema;
    };
    expectStatus(await a().patch(`${API}/${agent.name}`, { output_format: 'JSON', output_schema: nested(10) }), 200);
    expectInvalid(await a().patch(`${API}/${agent.name}`, { output_format: 'JSON', output_schema: nested(20) }), 'output_schema' + '.properties.a'.repeat(15) + '.properties');
    // A hostile depth (far beyond the stack) is refused, not a 500.
    const hostile = `{"output_format":"JSON","output_schema":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`;
    expectInvalid(await a().patch(`${API}/${agent.name}`, hostile), 'output_schema' + '.a'.repeat(31));
  });

  it('the same text without the NUL is stored (the guard refuses only what cannot be stored)', async () => {
    const created = expectStatus(await a().post(projects, { display_name: 'tab\there, newline\nthere, emoji 😀' }), 201);
    expect(created.display_name).toBe('tab\there, newline\nthere, emoji 😀');
  });
});

describe('compression', () => {
  it('the OpenAPI document goes out br, gzip or deflate as accepted, and decodes to the same document', async () => {
    const plain = await t.request('GET', `${API}/openapi.json`);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const decode: Record<string, (b: Buffer) => Buffer> = { br: brotliDecompressSync, gzip: gunzipSync, deflate: inflateSync };
    for (const encoding of ['br', 'gzip', 'deflate']) {
      const res = await t.app.inject({ method: 'GET', url: `${API}/openapi.json`, headers: { 'accept-encoding': encoding } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(String(res.headers.vary)).toMatch(/accept-encoding/i);
      expect(res.rawPayload.length).toBeLessThan(plain.rawPayload.length / 4);
      expect(decode[encoding](res.rawPayload).toString()).toBe(plain.body);
    }
  });

  it('small answers are not compressed; media images are never compressed again', async () => {
    const small = await t.app.inject({ method: 'GET', url: `${API}/accounts/${alice.accountId}`, headers: { authorization: `Bearer ${alice.token}`, 'accept-encoding': 'gzip' } });
    expect(small.statusCode).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
    const bytes = await jpeg(600, 400);
    const photo = await upload(t, alice.token, alice.websiteId, 'photo.jpg', bytes);
    const res = await publicGet(t, publicUrl(alice.websiteId, photo.id), { 'accept-encoding': 'gzip, br' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(Buffer.compare(res.bytes, bytes)).toBe(0);
  });
});

describe('sign-up', () => {
  it('answers 201 with Location: the created user on the tenant surface (its name)', async () => {
    const res = await t.request('POST', '/site-api/v1/users', {
      body: { email: `loc-${Date.now()}@example.com`, password: 'correct-horse-9', website_name: 'Located', default_language: 'en', captcha_token: 'dev-captcha' },
    });
    const created = expectStatus(res, 201);
    expect(created.name).toBe(`users/${created.id}`);
    expect(res.headers.location).toBe(`http://api.test/tenant-api/v1/users/${created.id}`);
  });
});

describe('another tenant', () => {
  it("bob's body etag on alice's project is NOT_FOUND, never ABORTED (no etag oracle)", async () => {
    const project = await newProject('Private');
    expectError(await as(bob).patch(`${API}/${project.name}`, { description: 'x', etag: 'stale' }), 404, 'NOT_FOUND');
    expectError(await as(bob).delete(`${API}/${project.name}?etag=stale`), 404, 'NOT_FOUND');
  });
});

describe('tenant rate limit (TENANT_RATE_LIMIT)', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp({ TENANT_RATE_LIMIT: '5' });
  });
  afterAll(() => limited?.close());

  it('is a token bucket per user: RateLimit headers count down, then 429 RESOURCE_EXHAUSTED with RETRY_INFO and Retry-After', async () => {
    const carol = await limited.signUp();
    const dave = await limited.signUp();
    const seen: string[] = [];
    let refused: Awaited<ReturnType<TestApp['request']>> | undefined;
    for (let i = 0; i < 10 && !refused; i++) {
      const res = await limited.request('GET', `${API}/accounts/${carol.accountId}`, { token: carol.token });
      expect(res.headers['ratelimit-policy']).toBe('"tenant";q=5;w=60');
      seen.push(String(res.headers.ratelimit));
      if (res.statusCode === 429) refused = res;
      else expect(res.statusCode).toBe(200);
    }
    // The exchange of the sign-up hand-off took one token of the address, not of the user.
    expect(seen.slice(0, 5).map((s) => Number(/r=(\d+)/.exec(s)![1]))).toEqual([4, 3, 2, 1, 0]);
    expect(refused).toBeDefined();
    const error = expectError(refused!, 429, 'RESOURCE_EXHAUSTED');
    const delay = error.details.find((d: any) => d.type === 'RETRY_INFO').retry_delay;
    expect(delay).toMatch(/^\d+s$/);
    // One token comes back every 12 s at 5 per minute: the client is told to wait at most that.
    expect(parseInt(delay, 10)).toBeGreaterThan(0);
    expect(parseInt(delay, 10)).toBeLessThanOrEqual(12);
    expect(refused!.headers['retry-after']).toBe(String(parseInt(delay, 10)));
    // Another user has a bucket of their own.
    const other = await limited.request('GET', `${API}/accounts/${dave.accountId}`, { token: dave.token });
    expect(other.statusCode).toBe(200);
    expect(other.headers.ratelimit).toMatch(/^"tenant";r=4;t=\d+$/);
  });

  it('calls without a valid token are counted per client address', async () => {
    let last: Awaited<ReturnType<TestApp['request']>> | undefined;
    for (let i = 0; i < 8; i++) last = await limited.request('GET', `${API}/accounts`);
    expectError(last!, 429, 'RESOURCE_EXHAUSTED');
  });

  it('is off by default: no RateLimit header fields without TENANT_RATE_LIMIT', async () => {
    const res = await t.request('GET', `${API}/accounts`, { token: alice.token });
    expect(res.headers.ratelimit).toBeUndefined();
    expect(res.headers['ratelimit-policy']).toBeUndefined();
  });
});
