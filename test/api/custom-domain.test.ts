/**
 * Custom domain (SPEC 1, 2.1): the read-only singleton projection of where a website answers,
 * written through the setting `general.web.custom_domain`; `:verify` asks a loopback DNS server
 * (real UDP wire protocol via DNS_RESOLVER) and moves the status; unreachable DNS answers
 * UNAVAILABLE and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestUser } from '../support/app.js';
import { startTwoTenants } from '../support/tenants.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { API, expectError, expectShape, expectStatus } from '../support/fixtures.js';

let t: TestApp;
let dns: TestDnsServer;
let alice: TestUser;
let bob: TestUser;
let domainUrl: string;
let hostname: string;

beforeAll(async () => {
  dns = await startDnsServer();
  ({ t, alice, bob } = await startTwoTenants({ DNS_RESOLVER: dns.address, DNS_TIMEOUT_MS: '2000', PLATFORM_DOMAIN: 'sites.test' }));
  domainUrl = `${API}/websites/${alice.websiteId}/custom_domain`;
  const website = expectStatus(await t.request('GET', `${API}/websites/${alice.websiteId}`, { token: alice.token }), 200);
  hostname = `${website.code}.sites.test`;
});
afterAll(async () => {
  await t?.close();
  await dns?.close();
});

const get = (url = domainUrl, token = alice.token) => t.request('GET', url, { token });
const verify = (url = domainUrl, token = alice.token, headers: Record<string, string> = {}) => t.request('POST', `${url}:verify`, { token, headers });
const setDomain = async (value: string | null, user = alice) =>
  expectStatus(
    await t.request('PATCH', `${API}/websites/${user.websiteId}/settings/general.web.custom_domain${value === null ? '?update_mask=value' : ''}`, { token: user.token, body: { value } }),
    200,
  );

describe('reading', () => {
  it('a website without a custom domain answers the never-written singleton: platform hostname, NOT_CONFIGURED, no id, no timestamps', async () => {
    const res = await get();
    const body = expectStatus(res, 200);
    await expectShape(t, 'GetCustomDomain', 200, body);
    expect(body).toEqual({ name: `websites/${alice.websiteId}/custom_domain`, platform_hostname: hostname, status: 'NOT_CONFIGURED', etag: '0' });
  });

  it('is read-only: no Update, Create or Delete (405, Allow: GET, HEAD)', async () => {
    for (const method of ['PATCH', 'DELETE', 'POST']) {
      const res = await t.request(method, domainUrl, { token: alice.token, body: method === 'DELETE' ? undefined : { domain: 'x.example' } });
      expect(res.statusCode).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD');
    }
  });

  it(':verify without a custom domain is FAILED_PRECONDITION NO_CUSTOM_DOMAIN', async () => {
    const error = expectError(await verify(), 400, 'FAILED_PRECONDITION');
    expect(error.details.find((d: any) => d.type === 'PRECONDITION_FAILURE').reason).toBe('NO_CUSTOM_DOMAIN');
  });
});

describe(':verify', () => {
  it('without the record the status stays PENDING_DNS and says what to create', async () => {
    await setDomain('www.alice.example');
    const body = expectStatus(await verify(), 200);
    await expectShape(t, 'VerifyCustomDomain', 200, body);
    expect(body).toMatchObject({
      domain: 'www.alice.example',
      status: 'PENDING_DNS',
      dns_record: { type: 'CNAME', name: 'www.alice.example', value: hostname },
    });
    expect(body.status_detail).toContain('no CNAME record');
    expect(body.last_verify_time).toBeDefined();
    expect(body.create_time).toBeDefined();
  });

  it('a CNAME to somewhere else is MISCONFIGURED', async () => {
    dns.setCname('www.alice.example', 'elsewhere.example.net');
    const body = expectStatus(await verify(), 200);
    expect(body.status).toBe('MISCONFIGURED');
    expect(body.status_detail).toContain('elsewhere.example.net');
  });

  it('a CNAME to the platform hostname is CONNECTED', async () => {
    dns.setCname('www.alice.example', hostname);
    const body = expectStatus(await verify(), 200);
    expect(body.status).toBe('CONNECTED');
    expect(expectStatus(await get(), 200)).toEqual(body);
  });

  it('a DNS server failure (SERVFAIL) is UNAVAILABLE and changes nothing', async () => {
    const before = expectStatus(await get(), 200);
    dns.fail('www.alice.example');
    expectError(await verify(), 503, 'UNAVAILABLE');
    expect(expectStatus(await get(), 200)).toEqual(before);
  });

  it('a stale If-Match is ABORTED', async () => {
    const error = expectError(await verify(domainUrl, alice.token, { 'if-match': '"0"' }), 409, 'ABORTED');
    expect(error.details.find((d: any) => d.type === 'RESOURCE_INFO').resource.status).toBe('CONNECTED');
  });

  it('changing the domain starts over at PENDING_DNS; clearing it is NOT_CONFIGURED', async () => {
    await setDomain('shop.alice.example');
    expect(expectStatus(await get(), 200)).toMatchObject({ domain: 'shop.alice.example', status: 'PENDING_DNS' });
    expect(expectStatus(await get(), 200).last_verify_time).toBeUndefined();
    await setDomain(null);
    const cleared = expectStatus(await get(), 200);
    expect(cleared.status).toBe('NOT_CONFIGURED');
    expect(cleared.dns_record).toBeUndefined();
  });

  it('when another website connects the same domain, the one connected before goes back to PENDING_DNS', async () => {
    await setDomain('www.shared.example');
    dns.setCname('www.shared.example', hostname);
    expect(expectStatus(await verify(), 200).status).toBe('CONNECTED');
    const bobSite = expectStatus(await t.request('GET', `${API}/websites/${bob.websiteId}`, { token: bob.token }), 200);
    await setDomain('www.shared.example', bob);
    dns.setCname('www.shared.example', `${bobSite.code}.sites.test`);
    expect(expectStatus(await verify(`${API}/websites/${bob.websiteId}/custom_domain`, bob.token), 200).status).toBe('CONNECTED');
    expect(expectStatus(await get(), 200).status).toBe('PENDING_DNS');
  });
});

describe('tenancy', () => {
  it('another tenant’s custom domain is NOT_FOUND for Get and :verify', async () => {
    const bobUrl = `${API}/websites/${bob.websiteId}/custom_domain`;
    const before = expectStatus(await get(bobUrl, bob.token), 200);
    expectError(await get(bobUrl), 404, 'NOT_FOUND');
    expectError(await verify(bobUrl), 404, 'NOT_FOUND');
    expect(expectStatus(await get(bobUrl, bob.token), 200)).toEqual(before);
  });
});

describe('unreachable DNS', () => {
  it('with the DNS server gone, :verify is UNAVAILABLE and nothing changes', async () => {
    await setDomain('www.alice.example');
    const before = expectStatus(await get(), 200);
    await dns.close();
    const error = expectError(await verify(), 503, 'UNAVAILABLE');
    expect(error.message).toContain('nothing changed');
    expect(expectStatus(await get(), 200)).toEqual(before);
  });
});
