/**
 * A caller's repeated requests are checked and answered from memory (token, session, owner and
 * membership cached; a Get's kept answer; refusals a cache keeps reuse one error): the answers must be
 * exactly those of a first request, and a revocation must still take effect on the next request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../support/access.js';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectError, expectStatus } from '../support/fixtures.js';

let t: TestApp;
let owner: TestUser;
let pageUrl: string;

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.signUp();
  const page = expectStatus(await t.request('POST', `${API}/websites/${owner.websiteId}/cms_pages`, { token: owner.token, body: { title: 'Kept', url_key: 'kept', content: '<p>Kept</p>' } }), 201);
  pageUrl = `${API}/websites/${owner.websiteId}/cms_pages/${page.id}`;
});
afterAll(async () => t?.close());

/** The error body of a refusal without its REQUEST_INFO, after checking that detail names this request's id. */
function refusalBody(res: Awaited<ReturnType<TestApp['request']>>): unknown {
  const { error } = res.json();
  expect(error.details.at(-1)).toEqual({ type: 'REQUEST_INFO', request_id: res.headers['x-request-id'] });
  return { ...error, details: error.details.slice(0, -1) };
}

describe('requests checked from memory', () => {
  it('a repeated Get answers the same body and etag, and 304 for a matching If-None-Match', async () => {
    const first = await t.request('GET', pageUrl, { token: owner.token });
    const second = await t.request('GET', pageUrl, { token: owner.token });
    expect(second.statusCode).toBe(200);
    expect(second.body).toBe(first.body);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    const notModified = await t.request('GET', pageUrl, { token: owner.token, headers: { 'if-none-match': String(first.headers.etag) } });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.body).toBe('');
  });

  it('a removed member is refused on the next request after a cached one', async () => {
    const member = await t.signUp();
    await addMember(t, member, owner.accountId, { role: 'editor' });
    expectStatus(await t.request('GET', pageUrl, { token: member.token }), 200);
    expectStatus(await t.request('GET', pageUrl, { token: member.token }), 200);
    expect((await t.request('DELETE', `${API}/accounts/${owner.accountId}/members/${member.userId}`, { token: owner.token })).statusCode).toBeLessThan(300);
    expectError(await t.request('GET', pageUrl, { token: member.token }), 404, 'NOT_FOUND');
  });

  it('an ended session is refused on the next request after a cached one', async () => {
    const user = await t.signUp();
    const own = `${API}/websites/${user.websiteId}`;
    expectStatus(await t.request('GET', own, { token: user.token }), 200);
    expectStatus(await t.request('GET', own, { token: user.token }), 200);
    expectStatus(await t.request('POST', `${API}/users:sign_out_everywhere`, { token: user.token }), 200);
    expectError(await t.request('GET', own, { token: user.token }), 401, 'UNAUTHENTICATED');
  });

  /** Two requests refused alike: same status and body, each with its own request id. */
  async function refusedTwice(url: string, token: string, status: number, code: string) {
    const first = await t.request('GET', url, { token });
    const second = await t.request('GET', url, { token });
    expectError(first, status, code);
    expectError(second, status, code);
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(refusalBody(second)).toEqual(refusalBody(first));
    return first.json().error;
  }

  it('a repeated NOT_FOUND for a website that does not exist carries each request its own request id', async () => {
    const error = await refusedTwice(`${API}/websites/nosuchwebsite0/cms_pages/x`, owner.token, 404, 'NOT_FOUND');
    expect(error.message).toBe('website nosuchwebsite0 not found');
  });

  it('a repeated PERMISSION_DENIED carries each request its own request id', async () => {
    const member = await t.signUp();
    await addMember(t, member, owner.accountId, { role: 'restricted' });
    await refusedTwice(pageUrl, member.token, 403, 'PERMISSION_DENIED');
  });
});
