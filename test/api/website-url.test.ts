/**
 * Links the platform builds for a site carry the port of PUBLIC_BASE_URL (issue 23): the sites are
 * served by the same listener as the API, so `http://{code}.localhost` without `:8080` does not open.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectStatus } from '../support/fixtures.js';

let withPort: TestApp;
let without: TestApp;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  withPort = await startTestApp({ PUBLIC_BASE_URL: 'http://localhost:8080', PLATFORM_DOMAIN: 'localhost' });
  without = await startTestApp({ PUBLIC_BASE_URL: 'https://api.example.com', PLATFORM_DOMAIN: 'sites.example.com' });
  alice = await withPort.signUp();
  bob = await without.signUp();
}, 60_000);
afterAll(async () => {
  await withPort?.close();
  await without?.close();
});

describe('website_url', () => {
  it('carries the port PUBLIC_BASE_URL names, in the website and in the provisioning Operation\'s answer', async () => {
    const website = expectStatus(await withPort.request('GET', `${API}/websites/${alice.websiteId}`, { token: alice.token }), 200);
    expect(website.website_url).toBe(`http://${website.code}.localhost:8080`);
    const done = await withPort.waitForOperation(alice.operation, alice.token);
    expect(done.response.website_url).toBe(`http://${website.code}.localhost:8080`);
    // And the link opens: a request with that Host reaches the rendered site, not the API.
    const host = new URL(website.website_url).host;
    const res = await withPort.app.inject({ method: 'GET', url: '/', headers: { host } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });

  it('has no port when PUBLIC_BASE_URL names none', async () => {
    const website = expectStatus(await without.request('GET', `${API}/websites/${bob.websiteId}`, { token: bob.token }), 200);
    expect(website.website_url).toBe(`https://${website.code}.sites.example.com`);
  });
});
