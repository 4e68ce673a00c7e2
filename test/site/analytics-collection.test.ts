/**
 * Issue 16, "Collection on the site": the layout's first-party script, `POST /_site/event`,
 * cookieless visitor ids, visits and the batched ingest, driven through HTTP with the site's Host
 * (docs/architecture.md, "Analytics: collection").
 */
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyticsSite, EVENT_BURST, MAX_EVENT_BODY_BYTES, MAX_EVENTS_PER_REQUEST } from '../../src/analytics/analytics.site.js';
import { areas as platformAreas } from '../../src/areas.js';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectError, expectInvalid, expectStatus } from '../support/fixtures.js';
import { eventually } from '../support/fixtures-auth.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

let t: TestApp;
let db: Kysely<any>;
let alice: TestUser;
let bob: TestUser;
let host: string;
let bobHost: string;
let deView: string;
let defaultView: string;
let addressCount = 0;
/** A fresh client address per use (TRUST_PROXY: X-Forwarded-For is the client), so per-address budgets never mix. */
const address = () => `10.${Math.floor(++addressCount / 250)}.${addressCount % 250}.7`;
let pathCount = 0;
const uniquePath = (prefix = '/p') => `${prefix}-${++pathCount}`;

const codeOf = async (user: TestUser) => expectStatus(await t.request('GET', `${API}/websites/${user.websiteId}`, { token: user.token }), 200).code as string;
/** What the home page's layout says about collection: no script, or the script's privacy flag. */
const layoutState = async () => {
  const page = await t.request('GET', '/', { headers: { host } });
  return /insights\.js[^>]*data-respect-privacy="(true|false)"/.exec(page.body)?.[1] ?? 'none';
};
/**
 * Writes a setting through the tenant API and waits until the site reads it (a site process
 * rereads a website's content version at most SITE_VERSION_TTL_MS later).
 */
const setSetting = async (path: 'analytics.enabled' | 'analytics.respect_privacy_signals', value: boolean) => {
  expectStatus(await t.request('PATCH', `${API}/websites/${alice.websiteId}/settings/${path}`, { token: alice.token, body: { value } }), 200);
  const expected = path === 'analytics.enabled' ? (value ? /^(true|false)$/ : /^none$/) : new RegExp(`^${value}$`);
  await eventually(async () => expected.test(await layoutState()), `the site to read ${path} = ${value}`);
};

interface Send {
  ip?: string;
  ua?: string;
  on?: string;
  headers?: Record<string, string>;
}
const sendRaw = (body: string | object, opts: Send = {}) =>
  t.request('POST', '/_site/event', {
    body,
    headers: { host: opts.on ?? host, 'user-agent': opts.ua ?? CHROME, 'x-forwarded-for': opts.ip ?? address(), ...(opts.headers ?? {}) },
  });
const pageview = (path: string, opts: Send & { referrer?: string; query?: string } = {}) =>
  sendRaw({ events: [{ name: 'pageview', url: `http://${opts.on ?? host}${path}${opts.query ?? ''}`, ...(opts.referrer ? { referrer: opts.referrer } : {}) }] }, opts);

const eventsAt = (websiteId: string, path: string) => db.selectFrom('analytics_events').selectAll().where('website_id', '=', websiteId).where('path', '=', path).execute();
const eventsOf = (path: string) => eventsAt(alice.websiteId, path);
const storedEvents = async (path: string, count: number) => eventually(async () => ((await eventsOf(path)).length >= count ? eventsOf(path) : undefined), `${count} events at ${path}`);
const visitsOf = (visitorId: string) => db.selectFrom('analytics_sessions').selectAll().where('website_id', '=', alice.websiteId).where('visitor_id', '=', visitorId).orderBy('start_time').execute();

/**
 * Waits until every hit accepted so far is written: the queue is written in arrival order, all of
 * it in one transaction per flush, so once a marker sent now is stored, everything before it is.
 */
async function settled(): Promise<void> {
  const marker = uniquePath('/marker');
  expect((await pageview(marker)).statusCode).toBe(202);
  await storedEvents(marker, 1);
}

beforeAll(async () => {
  t = await startTestApp({ TRUST_PROXY: 'true' });
  db = t.platform.deps.database.db;
  alice = await t.signUpProvisioned();
  bob = await t.signUpProvisioned();
  host = `${await codeOf(alice)}.localhost`;
  bobHost = `${await codeOf(bob)}.localhost`;
  deView = expectStatus(await t.request('POST', `${API}/websites/${alice.websiteId}/views`, { token: alice.token, body: { display_name: 'Deutsch', locale: 'de', url_prefix: 'de' } }), 201).id;
  defaultView = (await db.selectFrom('views').select('id').where('website_id', '=', alice.websiteId).where('is_default', '=', t.platform.deps.database.dialect.bool(true)).executeTakeFirstOrThrow()).id;
});
afterAll(() => t?.close());

describe('the collection script', () => {
  it('the layout loads the first-party script when analytics.enabled is on, and not when it is off', async () => {
    const on = await t.request('GET', '/', { headers: { host } });
    expect(on.statusCode).toBe(200);
    expect(on.body).toMatch(/<script src="\/_site\/insights\.js\?v=[A-Za-z0-9_-]+" defer data-respect-privacy="true"><\/script>/);
    // Same-origin only: the CSP allows no other script source, and the page names no other host's script.
    expect(on.headers['content-security-policy']).toContain("script-src 'self'");

    await setSetting('analytics.enabled', false);
    try {
      const off = await t.request('GET', '/', { headers: { host } });
      expect(off.statusCode).toBe(200);
      expect(off.body).not.toContain('insights.js');
      // No script runs: the only <script> elements left are JSON-LD data blocks (structured data).
      expect(off.body).not.toMatch(/<script(?![^>]*type="application\/ld\+json")/);
    } finally {
      await setSetting('analytics.enabled', true);
    }
  });

  it('the layout tells the script whether privacy signals are respected', async () => {
    await setSetting('analytics.respect_privacy_signals', false);
    try {
      const page = await t.request('GET', '/', { headers: { host } });
      expect(page.body).toContain('data-respect-privacy="false"');
    } finally {
      await setSetting('analytics.respect_privacy_signals', true);
    }
  });

  it('the script is served from the site host as JavaScript, cached for long with an ETag, and sets no cookie', async () => {
    const page = await t.request('GET', '/', { headers: { host } });
    const src = /<script src="([^"]+insights\.js[^"]*)"/.exec(page.body)![1];
    const res = await t.request('GET', src, { headers: { host } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(res.headers['set-cookie']).toBeUndefined();
    // It talks to its own host only and stores nothing in the browser.
    expect(res.body).toContain("'/_site/event'");
    expect(res.body).toContain('sendBeacon');
    expect(res.body).toContain('keepalive: true');
    expect(res.body).toContain('window.siteInsights');
    expect(res.body).toContain('pushState');
    expect(res.body).toContain('popstate');
    expect(res.body).toContain('navigator.doNotTrack');
    expect(res.body).toContain('globalPrivacyControl');
    expect(res.body).not.toMatch(/https?:\/\/|document\.cookie|localStorage|sessionStorage/);

    const again = await t.request('GET', src, { headers: { host, 'if-none-match': res.headers.etag as string } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });
});

describe('POST /_site/event', () => {
  it('a page view is stored with device, browser, OS, source, UTM and view, and no address or user agent anywhere', async () => {
    const ip = address();
    const path = uniquePath('/de/landing');
    const res = await pageview(path, { ip, ua: IPHONE, referrer: 'https://www.google.com/search?q=x', query: '?utm_source=news&utm_medium=email&utm_campaign=launch&utm_term=cake&utm_content=top#section' });
    expect(res.statusCode).toBe(202);
    expect(res.body).toBe('');
    expect(res.headers['set-cookie']).toBeUndefined();
    const [event] = await storedEvents(path, 1);
    expect(event).toMatchObject({
      name: 'pageview',
      path,
      device: 'mobile',
      browser: 'Safari',
      os: 'iOS',
      view_id: deView,
      referrer_source: 'google.com',
      utm_source: 'news',
      utm_medium: 'email',
      utm_campaign: 'launch',
      utm_term: 'cake',
      utm_content: 'top',
    });
    expect(event.visitor_id).toMatch(/^[0-9a-f]{32}$/);
    const [visit] = await visitsOf(event.visitor_id);
    expect(visit).toMatchObject({ id: event.session_id, pageviews: 1, events: 0, entry_page: path, exit_page: path, device: 'mobile', referrer_source: 'google.com', view_id: deView });
    for (const row of [event, visit]) {
      const text = JSON.stringify(row);
      expect(text).not.toContain(ip);
      expect(text).not.toContain('iPhone');
      expect(text).not.toContain('Mozilla');
    }
  });

  it('the path is stored as the visitor saw it, without query string or fragment; a page outside any view prefix is the default view', async () => {
    const path = uniquePath('/about');
    expect((await pageview(path, { query: '?page=2&x=1#top' })).statusCode).toBe(202);
    const [event] = await storedEvents(path, 1);
    expect(event.view_id).toBe(defaultView);
    expect(event.utm_source).toBeNull();
    expect(event.referrer_source).toBeNull();
  });

  it('control characters in the path or UTM values (NUL included) are stored harmlessly and never fail the flush for other hits', async () => {
    const path = uniquePath('/ctl');
    const res = await sendRaw({ events: [{ name: 'pageview', url: `http://${host}${path}%00x%0A?utm_source=a%00b%07c` }] });
    expect(res.statusCode).toBe(202);
    const [event] = await eventually(async () => {
      const rows = await db.selectFrom('analytics_events').selectAll().where('website_id', '=', alice.websiteId).where('path', 'like', `${path}%`).execute();
      return rows.length ? rows : undefined;
    }, 'the hit with control characters');
    expect(event.path).toBe(`${path}%00x%0A`);
    expect(event.utm_source).toBe('abc');
    await settled();
  });

  it('a path with quotes, backslashes, braces, commas and NULL-looking text is stored exactly as decoded (bulk insert arrays)', async () => {
    const path = `${uniquePath('/odd')}/"a",{b}\\c NULL,'d'`;
    const res = await sendRaw({ events: [{ name: 'pageview', url: `http://${host}${encodeURI(path)}` }] });
    expect(res.statusCode).toBe(202);
    const [event] = await storedEvents(path, 1);
    expect(event.path).toBe(path);
    const [visit] = await visitsOf(event.visitor_id);
    expect(visit.entry_page).toBe(path);
  });

  it('a referrer on the same site is no source', async () => {
    const path = uniquePath();
    expect((await pageview(path, { referrer: `http://${host}/elsewhere` })).statusCode).toBe(202);
    const [event] = await storedEvents(path, 1);
    expect(event.referrer_source).toBeNull();
  });

  it('two hits from the same address and user agent on one day are one visitor and one visit: page views 2, entry and exit pages', async () => {
    const ip = address();
    const first = uniquePath('/entry');
    const second = uniquePath('/exit');
    expect((await pageview(first, { ip })).statusCode).toBe(202);
    const [a] = await storedEvents(first, 1);
    expect((await pageview(second, { ip })).statusCode).toBe(202);
    const [b] = await storedEvents(second, 1);
    expect(b.visitor_id).toBe(a.visitor_id);
    expect(b.session_id).toBe(a.session_id);
    const visits = await visitsOf(a.visitor_id);
    expect(visits).toHaveLength(1);
    expect(visits[0]).toMatchObject({ pageviews: 2, events: 0, entry_page: first, exit_page: second });
    expect(Number(visits[0].end_time)).toBeGreaterThanOrEqual(Number(visits[0].start_time));
  });

  it('hits of one visitor in one batch make one visit; a named event counts as an event, not a page view', async () => {
    const ip = address();
    const path = uniquePath('/batch');
    const res = await sendRaw({ events: [{ name: 'pageview', url: `http://${host}${path}` }, { name: 'Signup', url: `http://${host}${path}` }, { name: 'pageview', url: `http://${host}${path}/next` }] }, { ip });
    expect(res.statusCode).toBe(202);
    const [event] = await storedEvents(path, 2);
    const visits = await visitsOf(event.visitor_id);
    expect(visits).toHaveLength(1);
    expect(visits[0]).toMatchObject({ pageviews: 2, events: 1, entry_page: path, exit_page: `${path}/next` });
    expect((await eventsOf(path)).map((e) => e.name).sort()).toEqual(['Signup', 'pageview']);
  });

  it('a visit whose last event is 30 minutes old or more is not continued: the next hit starts a new visit', async () => {
    const ip = address();
    const first = uniquePath('/old');
    expect((await pageview(first, { ip })).statusCode).toBe(202);
    const [a] = await storedEvents(first, 1);
    await db
      .updateTable('analytics_sessions')
      .set({ start_time: Number(a.time) - 31 * 60_000, end_time: Number(a.time) - 31 * 60_000 })
      .where('website_id', '=', alice.websiteId)
      .where('id', '=', a.session_id)
      .execute();
    const second = uniquePath('/new');
    expect((await pageview(second, { ip })).statusCode).toBe(202);
    const [b] = await storedEvents(second, 1);
    expect(b.visitor_id).toBe(a.visitor_id);
    expect(b.session_id).not.toBe(a.session_id);
    const visits = await visitsOf(a.visitor_id);
    expect(visits.map((v) => [v.entry_page, v.pageviews])).toEqual([
      [first, 1],
      [second, 1],
    ]);
  });

  it('another user agent from the same address is another visitor', async () => {
    const ip = address();
    const path = uniquePath('/ua');
    expect((await pageview(path, { ip, ua: CHROME })).statusCode).toBe(202);
    expect((await pageview(path, { ip, ua: IPHONE })).statusCode).toBe(202);
    const events = await storedEvents(path, 2);
    expect(new Set(events.map((e) => e.visitor_id)).size).toBe(2);
    expect(new Set(events.map((e) => e.session_id)).size).toBe(2);
  });

  it('the same address and user agent on another website is another visitor', async () => {
    const ip = address();
    const path = uniquePath('/cross');
    expect((await pageview(path, { ip })).statusCode).toBe(202);
    expect((await pageview(path, { ip, on: bobHost })).statusCode).toBe(202);
    const [mine] = await storedEvents(path, 1);
    const [theirs] = await eventually(async () => ((await eventsAt(bob.websiteId, path)).length ? eventsAt(bob.websiteId, path) : undefined), 'bob event');
    expect(theirs.visitor_id).not.toBe(mine.visitor_id);
  });

  it('Do Not Track and Global Privacy Control hits are dropped while respect_privacy_signals is on, counted when it is off', async () => {
    const dnt = uniquePath('/dnt');
    const gpc = uniquePath('/gpc');
    expect((await pageview(dnt, { headers: { dnt: '1' } })).statusCode).toBe(204);
    expect((await pageview(gpc, { headers: { 'sec-gpc': '1' } })).statusCode).toBe(204);
    await settled();
    expect(await eventsOf(dnt)).toEqual([]);
    expect(await eventsOf(gpc)).toEqual([]);

    await setSetting('analytics.respect_privacy_signals', false);
    try {
      expect((await pageview(dnt, { headers: { dnt: '1' } })).statusCode).toBe(202);
      expect((await pageview(gpc, { headers: { 'sec-gpc': '1' } })).statusCode).toBe(202);
      await storedEvents(dnt, 1);
      await storedEvents(gpc, 1);
    } finally {
      await setSetting('analytics.respect_privacy_signals', true);
    }
  });

  it('with analytics.enabled off a hit is answered 204 and nothing is stored', async () => {
    const path = uniquePath('/disabled');
    await setSetting('analytics.enabled', false);
    try {
      const res = await pageview(path);
      expect(res.statusCode).toBe(204);
    } finally {
      await setSetting('analytics.enabled', true);
    }
    await settled();
    expect(await eventsOf(path)).toEqual([]);
  });

  it('bots (by user agent) and hits without a user agent are answered 202 and not stored', async () => {
    const path = uniquePath('/bot');
    expect((await pageview(path, { ua: GOOGLEBOT })).statusCode).toBe(202);
    expect((await pageview(path, { ua: 'curl/8.4.0' })).statusCode).toBe(202);
    expect((await pageview(path, { ua: '' })).statusCode).toBe(202);
    await settled();
    expect(await eventsOf(path)).toEqual([]);
  });

  it('a url naming another host is refused as forged (400 on events[i].url) and nothing of the request is stored', async () => {
    const path = uniquePath('/forged');
    const res = await sendRaw({ events: [{ name: 'pageview', url: `http://${host}${path}` }, { name: 'pageview', url: `http://evil.example${path}` }] });
    expect(expectInvalid(res, 'events[1].url').message).toContain('forged');
    await settled();
    expect(await eventsOf(path)).toEqual([]);
  });

  it("another website's host cannot write into this website: the url's host must be the host the hit was sent to", async () => {
    const path = uniquePath('/tenant');
    // Bob's own hit on Bob's site, then one sent to Bob's site naming Alice's pages.
    expect((await pageview(path, { on: bobHost })).statusCode).toBe(202);
    expectInvalid(await sendRaw({ events: [{ name: 'pageview', url: `http://${host}${path}` }] }, { on: bobHost }), 'events[0].url');
    // Sent to Alice's site, naming Bob's pages.
    expectInvalid(await sendRaw({ events: [{ name: 'pageview', url: `http://${bobHost}${path}` }] }, { on: host }), 'events[0].url');
    await settled();
    expect(await eventsOf(path)).toEqual([]);
    // Bob's own (valid) hit went to Bob only.
    await eventually(async () => ((await eventsAt(bob.websiteId, path)).length === 1 ? true : undefined), 'bob own hit');
  });

  it('bad bodies get 400 INVALID_ARGUMENT naming the field, and nothing is stored', async () => {
    const path = uniquePath('/bad');
    const url = `http://${host}${path}`;
    const cases: Array<[string | object, string]> = [
      ['{"events": [', 'body'],
      ['', 'body'],
      [[], 'body'],
      [{}, 'events'],
      [{ events: [] }, 'events'],
      [{ events: {} }, 'events'],
      [{ events: [{ name: 'pageview', url }], extra: 1 }, 'extra'],
      [{ events: [{ name: 'pageview', url, props: { a: 1 } }] }, 'events[0].props'],
      [{ events: [{ url }] }, 'events[0].name'],
      [{ events: [{ name: 'pageview' }] }, 'events[0].url'],
      [{ events: [{ name: 7, url }] }, 'events[0].name'],
      [{ events: [{ name: 'pageview', url: 42 }] }, 'events[0].url'],
      [{ events: [{ name: 'pageview', url, referrer: false }] }, 'events[0].referrer'],
      [{ events: [{ name: '', url }] }, 'events[0].name'],
      [{ events: [{ name: 'x'.repeat(121), url }] }, 'events[0].name'],
      [{ events: [{ name: 'bad\nname', url }] }, 'events[0].name'],
      [{ events: [{ name: 'pageview', url: `${url}?${'q'.repeat(2100)}` }] }, 'events[0].url'],
      [{ events: [{ name: 'pageview', url: 'not a url' }] }, 'events[0].url'],
      [{ events: [{ name: 'pageview', url: `ftp://${host}${path}` }] }, 'events[0].url'],
      [{ events: [{ name: 'pageview', url, referrer: 'r'.repeat(2049) }] }, 'events[0].referrer'],
      [{ events: Array.from({ length: MAX_EVENTS_PER_REQUEST + 1 }, () => ({ name: 'pageview', url })) }, 'events'],
    ];
    for (const [body, field] of cases) expectInvalid(await sendRaw(body), field);
    // text/plain (what sendBeacon sends) is parsed and checked the same way.
    expectInvalid(await sendRaw('{"events": 5}', { headers: { 'content-type': 'text/plain;charset=UTF-8' } }), 'events');
    // Only JSON and text/plain bodies.
    expectInvalid(await sendRaw('events=1', { headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 'content-type');
    // A body over the limit is refused whole.
    const oversize = JSON.stringify({ events: [{ name: 'pageview', url, referrer: `http://x.example/${'r'.repeat(MAX_EVENT_BODY_BYTES)}` }] });
    expectInvalid(await sendRaw(oversize), 'body');
    await settled();
    expect(await eventsOf(path)).toEqual([]);
  });

  it('a valid hit sent as text/plain (as sendBeacon does) is accepted', async () => {
    const path = uniquePath('/beacon');
    const res = await sendRaw(JSON.stringify({ events: [{ name: 'pageview', url: `http://${host}${path}` }] }), { headers: { 'content-type': 'text/plain;charset=UTF-8' } });
    expect(res.statusCode).toBe(202);
    await storedEvents(path, 1);
  });

  it('a flood from one address gets 429 RESOURCE_EXHAUSTED with Retry-After, while other addresses go on', async () => {
    const ip = address();
    const path = uniquePath('/flood');
    let accepted = 0;
    let refused: Awaited<ReturnType<typeof sendRaw>> | undefined;
    for (let i = 0; i < EVENT_BURST * 3 && !refused; i++) {
      const res = await pageview(path, { ip });
      if (res.statusCode === 202) accepted++;
      else refused = res;
    }
    expect(refused, 'a refusal').toBeDefined();
    expectError(refused!, 429, 'RESOURCE_EXHAUSTED');
    expect(Number(refused!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(accepted).toBeGreaterThanOrEqual(EVENT_BURST);
    // The budget is the address's: another address is served.
    expect((await pageview(uniquePath(), { ip: address() })).statusCode).toBe(202);
  });

  it('an unknown site host answers 404', async () => {
    const res = await sendRaw({ events: [{ name: 'pageview', url: 'http://no-such-site.localhost/' }] }, { on: 'no-such-site.localhost' });
    expect(res.statusCode).toBe(404);
    const script = await t.request('GET', '/_site/insights.js', { headers: { host: 'no-such-site.localhost' } });
    expect(script.statusCode).toBe(404);
  });

  it('the platform host has no collection endpoint', async () => {
    const res = await t.request('POST', '/_site/event', { body: { events: [{ name: 'pageview', url: 'http://api.test/' }] }, headers: { host: 'api.test' } });
    expectError(res, 404, 'NOT_FOUND');
  });
});

describe('the ingest queue', () => {
  it('a full queue answers 429 with Retry-After; a graceful stop writes everything queued', async () => {
    // The real area with a tiny queue and a flush interval longer than the test.
    const small = platformAreas.map((area) => (area.name === 'analytics' ? { ...area, site: (deps: never) => analyticsSite(deps, { ingest: { maxQueued: 3, flushMs: 60_000 } }) } : area));
    const s = await startTestApp({ TRUST_PROXY: 'true' }, { areas: small, mailWorker: false });
    try {
      const user = await s.signUpProvisioned();
      const code = expectStatus(await s.request('GET', `${API}/websites/${user.websiteId}`, { token: user.token }), 200).code;
      const on = `${code}.localhost`;
      const send = (n: number) =>
        s.request('POST', '/_site/event', {
          body: { events: Array.from({ length: n }, (_, i) => ({ name: 'pageview', url: `http://${on}/queued-${i}` })) },
          headers: { host: on, 'user-agent': CHROME, 'x-forwarded-for': address() },
        });
      expect((await send(3)).statusCode).toBe(202);
      const full = await send(1);
      expectError(full, 429, 'RESOURCE_EXHAUSTED');
      expect(Number(full.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      const count = async () => Number((await s.fresh.database.db.selectFrom('analytics_events').select((eb) => eb.fn.countAll().as('n')).where('website_id', '=', user.websiteId).executeTakeFirstOrThrow()).n);
      expect(await count()).toBe(0);
      await s.stopWorker();
      await s.app.close();
      expect(await count()).toBe(3);
    } finally {
      await s.fresh.cleanup();
    }
  });
});

describe('from the site to analytics:query', () => {
  it('hits collected on the site arm the roll-up chain and are answered by :query: totals, pages, views, devices, sources, events', async () => {
    const campaign = uniquePath('journey').slice(1);
    const base = uniquePath('/journey');
    const desktop = address();
    const phone = address();
    const tagged = `?utm_campaign=${campaign}`;
    // A desktop visit from Google: two pages and a sign-up; a phone visit to the German view that bounces.
    expect((await pageview(`${base}/a`, { ip: desktop, referrer: 'https://www.google.com/', query: tagged })).statusCode).toBe(202);
    expect((await pageview(`${base}/b`, { ip: desktop })).statusCode).toBe(202);
    expect((await sendRaw({ events: [{ name: 'Signup', url: `http://${host}${base}/b` }] }, { ip: desktop })).statusCode).toBe(202);
    expect((await pageview(`/de${base}/a`, { ip: phone, ua: IPHONE, query: tagged })).statusCode).toBe(202);
    await settled();

    // The flush armed the website's roll-up chain: a live tick is recorded.
    const state = await db.selectFrom('analytics_rollup_state').select('tick_id').where('website_id', '=', alice.websiteId).executeTakeFirst();
    expect(state?.tick_id).toBeTruthy();
    const tick = await db.selectFrom('operations').select(['type', 'state']).where('id', '=', state!.tick_id).executeTakeFirstOrThrow();
    expect(tick.type).toBe('analytics.rollup_tick');

    const ask = async (extra: Record<string, unknown>) =>
      expectStatus(
        await t.request('POST', `${API}/websites/${alice.websiteId}/analytics:query`, {
          token: alice.token,
          body: { date_range: '7d', filters: [{ dimension: 'utm_campaign', operator: 'IS', values: [campaign] }], ...extra },
        }),
        200,
      );
    const byValue = (dimension: string) => (a: any, b: any) => String(a.dimensions[dimension]).localeCompare(String(b.dimensions[dimension]));

    const totals = await ask({ metrics: ['visitors', 'visits', 'pageviews', 'views_per_visit', 'bounce_rate', 'events'] });
    expect(totals).toMatchObject({ totals: { visitors: 2, visits: 2, pageviews: 3, views_per_visit: 1.5, bounce_rate: 50, events: 1 }, approximate: false });

    const pages = await ask({ metrics: ['pageviews'], dimensions: ['page'] });
    expect(pages.rows.sort(byValue('page'))).toEqual(
      [`/de${base}/a`, `${base}/a`, `${base}/b`].sort().map((page) => ({ dimensions: { page }, metrics: { pageviews: 1 } })),
    );
    const entries = await ask({ metrics: ['visits'], dimensions: ['exit_page'] });
    expect(entries.rows.sort(byValue('exit_page'))).toEqual(
      [`/de${base}/a`, `${base}/b`].sort().map((exit_page) => ({ dimensions: { exit_page }, metrics: { visits: 1 } })),
    );
    const views = await ask({ metrics: ['visitors'], dimensions: ['view'] });
    expect(views.rows.sort(byValue('view'))).toEqual([deView, defaultView].sort().map((view) => ({ dimensions: { view }, metrics: { visitors: 1 } })));
    const devices = await ask({ metrics: ['visitors'], dimensions: ['device'] });
    expect(devices.rows.sort(byValue('device'))).toEqual([
      { dimensions: { device: 'desktop' }, metrics: { visitors: 1 } },
      { dimensions: { device: 'mobile' }, metrics: { visitors: 1 } },
    ]);
    const sources = await ask({ metrics: ['visits'], dimensions: ['source'] });
    expect(sources.rows.sort(byValue('source'))).toEqual([
      { dimensions: { source: 'google.com' }, metrics: { visits: 1 } },
      { dimensions: { source: null }, metrics: { visits: 1 } },
    ]);
    const events = await ask({ metrics: ['events'], dimensions: ['event_name'], filters: [{ dimension: 'utm_campaign', operator: 'IS', values: [campaign] }, { dimension: 'event_name', operator: 'IS_NOT', values: ['pageview'] }] });
    expect(events.rows).toEqual([{ dimensions: { event_name: 'Signup' }, metrics: { events: 1 } }]);
  });

  it('a filter never multiplies visits: one browser viewing /a, /b and /c is one visit in every total, and one per page row (issue 23)', async () => {
    const carol = await t.signUpProvisioned();
    const carolHost = `${await codeOf(carol)}.localhost`;
    const ip = address();
    for (const path of ['/a', '/b', '/c']) expect((await pageview(path, { ip, on: carolHost })).statusCode).toBe(202);
    // Written in arrival order, one transaction per flush: once /c is stored, so are /a and /b.
    await eventually(async () => (await eventsAt(carol.websiteId, '/c')).length === 1, 'the three page views');
    const ask = async (extra: Record<string, unknown>) =>
      expectStatus(await t.request('POST', `${API}/websites/${carol.websiteId}/analytics:query`, { token: carol.token, body: { date_range: 'today', metrics: ['visitors', 'visits', 'pageviews', 'views_per_visit', 'bounce_rate', 'visit_duration'], ...extra } }), 200);
    const whole = (await ask({})).totals;
    expect(whole).toMatchObject({ visitors: 1, visits: 1, pageviews: 3, views_per_visit: 3, bounce_rate: 0 });
    const anyPage = { dimension: 'page', operator: 'CONTAINS', values: ['/'] };
    expect((await ask({ filters: [anyPage] })).totals).toEqual(whole);
    expect((await ask({ filters: [anyPage, { dimension: 'device', operator: 'IS', values: ['desktop'] }] })).totals).toEqual(whole);
    const pages = await ask({ dimensions: ['page'] });
    expect(pages.totals).toEqual(whole);
    expect(pages.rows.map((r: any) => [r.dimensions.page, r.metrics.visits, r.metrics.pageviews]).sort()).toEqual([
      ['/a', 1, 1],
      ['/b', 1, 1],
      ['/c', 1, 1],
    ]);
  });
});
