/**
 * `websites/{w}/analytics` and `:query` (issue 16): ranges and buckets in the website's zone (DST
 * days too), metrics, breakdowns, filters, comparison, roll-ups answering as raw rows did, the
 * retention purge, approximate counts, bad input and tenancy. Events are seeded as the ingest
 * writes them (test/support/analytics.ts); expected values are worked out by hand from the seed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectError, expectInvalid, expectShape, expectStatus } from '../support/fixtures.js';
import { eventually } from '../support/fixtures-auth.js';
import { seedVisits, type SeedVisit } from '../support/analytics.js';
import { rollUpDays } from '../../src/analytics/rollups.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;

const ALL = ['visitors', 'visits', 'pageviews', 'views_per_visit', 'bounce_rate', 'visit_duration', 'events'];

/**
 * Europe/Berlin: 2026-03-29 has 23 hours (local midnight = 28T23:00Z, next = 29T22:00Z),
 * 2026-10-25 has 25 (24T22:00Z → 25T23:00Z).
 */
const VISITS: SeedVisit[] = [
  // V1, 28th 23:30 local: 2 page views, 600 s, google.com.
  { visitor: 'A', source: 'google.com', hits: [{ at: '2026-03-28T22:30:00Z', path: '/a' }, { at: '2026-03-28T22:40:00Z', path: '/b' }] },
  // V2, 29th 12:00 CEST: a bounce, direct.
  { visitor: 'A', hits: [{ at: '2026-03-29T10:00:00Z', path: '/a' }] },
  // V3, 29th 23:30 CEST: a page view and a custom event, 300 s.
  { visitor: 'B', source: 'news.example', device: 'mobile', browser: 'Safari', os: 'iOS', utm_source: 'newsletter', hits: [{ at: '2026-03-29T21:30:00Z', path: '/b' }, { at: '2026-03-29T21:35:00Z', path: '/b', name: 'signup' }] },
  // V4, 30th 00:15 CEST (29th in UTC): 3 page views, 1 800 s.
  { visitor: 'C', source: 'google.com', device: 'mobile', browser: 'Chrome', os: 'Android', hits: [{ at: '2026-03-29T22:15:00Z', path: '/a' }, { at: '2026-03-29T22:20:00Z', path: '/c' }, { at: '2026-03-29T22:45:00Z', path: '/a' }] },
  // V5, 30th 10:00 CEST: a bounce.
  { visitor: 'B', source: 'google.com', browser: 'Firefox', os: 'Windows', hits: [{ at: '2026-03-30T08:00:00Z', path: '/c' }] },
  // V6, 2026-10-25 02:10 CET (the second 02:00 hour of the 25-hour day).
  { visitor: 'D', hits: [{ at: '2026-10-25T01:10:00Z', path: '/a' }] },
];

const query = (body: unknown, user = alice, websiteId = user.websiteId) => t.request('POST', `${API}/websites/${websiteId}/analytics:query`, { token: user.token, body });
const ask = async (body: Record<string, unknown>, user = alice) => expectStatus(await query(body, user), 200);
const custom = (start_date: string, end_date: string) => ({ date_range: 'custom', start_date, end_date });
const zeros = { visitors: 0, visits: 0, pageviews: 0 };

async function setZone(user: TestUser, zone: string) {
  expectStatus(await t.request('PATCH', `${API}/websites/${user.websiteId}`, { token: user.token, body: { time_zone: zone } }), 200);
}

beforeAll(async () => {
  t = await startTestApp();
  [alice, bob, carol] = await Promise.all([t.signUp(), t.signUp(), t.signUp()]);
  await setZone(alice, 'Europe/Berlin');
  await seedVisits(t, alice.websiteId, alice.accountId, VISITS);
  // Bob's website is in UTC and holds the same events.
  await seedVisits(t, bob.websiteId, bob.accountId, VISITS);
}, 60_000);
afterAll(() => t?.close());

describe('analytics resource', () => {
  it('answers the website time zone, retention and the exactness bounds', async () => {
    const res = expectStatus(await t.request('GET', `${API}/websites/${alice.websiteId}/analytics`, { token: alice.token }), 200);
    expect(res).toMatchObject({ name: `websites/${alice.websiteId}/analytics`, time_zone: 'Europe/Berlin', raw_retention_days: 30, exact_visitors_max_events: 20000, sketch_relative_error: 0.0163 });
    expect(res.rolled_up_until).toBeUndefined();
    await expectShape(t, 'GetAnalytics', 200, res);
  });

  it('requires a signed-in user', async () => {
    expectError(await t.request('POST', `${API}/websites/${alice.websiteId}/analytics:query`, { body: { metrics: ['visits'] } }), 401, 'UNAUTHENTICATED');
  });

  it("answers 404 to another tenant's website", async () => {
    expectError(await query({ metrics: ['visits'] }, bob, alice.websiteId), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${API}/websites/${alice.websiteId}/analytics`, { token: bob.token }), 404, 'NOT_FOUND');
  });
});

describe('totals and ranges in the website time zone', () => {
  it('answers every metric over a custom range, exactly', async () => {
    const res = await ask({ metrics: ALL, ...custom('2026-03-28', '2026-03-30') });
    expect(res).toMatchObject({
      start_date: '2026-03-28',
      end_date: '2026-03-30',
      time_zone: 'Europe/Berlin',
      start_time: '2026-03-27T23:00:00Z',
      end_time: '2026-03-30T22:00:00Z',
      rows: [],
      approximate: false,
      approximate_metrics: [],
    });
    expect(res.totals).toEqual({ visitors: 3, visits: 5, pageviews: 8, views_per_visit: 1.6, bounce_rate: 40, visit_duration: 540, events: 1 });
    await expectShape(t, 'QueryAnalytics', 200, res);
  });

  it('buckets days at local midnights: a 23-hour DST day is one day', async () => {
    const res = await ask({ metrics: ['visitors', 'visits', 'pageviews', 'bounce_rate', 'visit_duration', 'events'], interval: 'day', ...custom('2026-03-28', '2026-03-30') });
    expect(res.interval).toBe('day');
    expect(res.rows).toEqual([
      { start_time: '2026-03-28T00:00:00+01:00', metrics: { visitors: 1, visits: 1, pageviews: 2, bounce_rate: 0, visit_duration: 600, events: 0 } },
      { start_time: '2026-03-29T00:00:00+01:00', metrics: { visitors: 2, visits: 2, pageviews: 2, bounce_rate: 50, visit_duration: 150, events: 1 } },
      { start_time: '2026-03-30T00:00:00+02:00', metrics: { visitors: 2, visits: 2, pageviews: 4, bounce_rate: 50, visit_duration: 900, events: 0 } },
    ]);
  });

  it('gives a UTC website other day buckets for the same events', async () => {
    const res = await ask({ metrics: ['visitors', 'visits', 'pageviews', 'events'], interval: 'day', ...custom('2026-03-28', '2026-03-30') }, bob);
    expect(res).toMatchObject({ time_zone: 'UTC', start_time: '2026-03-28T00:00:00Z', end_time: '2026-03-31T00:00:00Z' });
    expect(res.rows).toEqual([
      { start_time: '2026-03-28T00:00:00+00:00', metrics: { visitors: 1, visits: 1, pageviews: 2, events: 0 } },
      { start_time: '2026-03-29T00:00:00+00:00', metrics: { visitors: 3, visits: 3, pageviews: 5, events: 1 } },
      { start_time: '2026-03-30T00:00:00+00:00', metrics: { visitors: 1, visits: 1, pageviews: 1, events: 0 } },
    ]);
  });

  it('answers 23 hourly buckets on the spring-forward day and 25 on the fall-back day', async () => {
    const spring = await ask({ metrics: ['visits', 'pageviews'], interval: 'hour', ...custom('2026-03-29', '2026-03-29') });
    expect(spring.rows).toHaveLength(23);
    expect(spring.rows.slice(0, 3).map((r: any) => r.start_time)).toEqual(['2026-03-29T00:00:00+01:00', '2026-03-29T01:00:00+01:00', '2026-03-29T03:00:00+02:00']);
    const busy = spring.rows.map((r: any, i: number) => [i, r.start_time, r.metrics.visits]).filter((r: any) => r[2] > 0);
    expect(busy).toEqual([
      [11, '2026-03-29T12:00:00+02:00', 1],
      [22, '2026-03-29T23:00:00+02:00', 1],
    ]);
    const fall = await ask({ metrics: ['visitors', 'pageviews'], interval: 'hour', ...custom('2026-10-25', '2026-10-25') });
    expect(fall.rows).toHaveLength(25);
    expect(fall.rows.slice(2, 4)).toEqual([
      { start_time: '2026-10-25T02:00:00+02:00', metrics: { visitors: 0, pageviews: 0 } },
      { start_time: '2026-10-25T02:00:00+01:00', metrics: { visitors: 1, pageviews: 1 } },
    ]);
  });

  it('buckets ISO weeks from Monday and local months', async () => {
    const weeks = await ask({ metrics: ['visitors', 'visits', 'pageviews'], interval: 'week', ...custom('2026-03-23', '2026-04-05') });
    expect(weeks.rows).toEqual([
      { start_time: '2026-03-23T00:00:00+01:00', metrics: { visitors: 2, visits: 3, pageviews: 4 } },
      { start_time: '2026-03-30T00:00:00+02:00', metrics: { visitors: 2, visits: 2, pageviews: 4 } },
    ]);
    const months = await ask({ metrics: ['visits'], interval: 'month', ...custom('2026-03-01', '2026-10-31') });
    expect(months.rows.map((r: any) => [r.start_time, r.metrics.visits])).toEqual([
      ['2026-03-01T00:00:00+01:00', 5],
      ['2026-04-01T00:00:00+02:00', 0],
      ['2026-05-01T00:00:00+02:00', 0],
      ['2026-06-01T00:00:00+02:00', 0],
      ['2026-07-01T00:00:00+02:00', 0],
      ['2026-08-01T00:00:00+02:00', 0],
      ['2026-09-01T00:00:00+02:00', 0],
      ['2026-10-01T00:00:00+02:00', 1],
    ]);
  });

  it('resolves named ranges to local dates (12mo: 12 months including this one)', async () => {
    const year = await ask({ metrics: ['visits'], date_range: '12mo', interval: 'month' });
    expect(year.rows).toHaveLength(12);
    expect(year.end_date.slice(0, 7)).toBe(new Date().toISOString().slice(0, 7));
    expect(year.start_date).toMatch(/-01$/);
    const week = await ask({ metrics: ['visits'], date_range: '7d', interval: 'day' });
    expect(week.rows).toHaveLength(7);
    const today = await ask({ metrics: ['visits'], date_range: 'today', interval: 'hour' });
    expect(today.start_date).toBe(today.end_date);
  });

  it('compares with the previous period and the same dates a year earlier', async () => {
    const res = await ask({ metrics: ['visits', 'pageviews'], ...custom('2026-03-29', '2026-03-30'), compare: 'previous_period', interval: 'day' });
    expect(res.totals).toEqual({ visits: 4, pageviews: 6 });
    expect(res.comparison).toMatchObject({ compare: 'previous_period', start_date: '2026-03-27', end_date: '2026-03-28', totals: { visits: 1, pageviews: 2 } });
    expect(res.comparison.rows.map((r: any) => r.metrics.visits)).toEqual([0, 1]);
    const yoy = await ask({ metrics: ['visits'], ...custom('2026-03-29', '2026-03-30'), compare: 'year_over_year' });
    expect(yoy.comparison).toMatchObject({ start_date: '2025-03-29', end_date: '2025-03-30', totals: { visits: 0 } });
  });
});

describe('breakdowns and filters', () => {
  const range = custom('2026-03-28', '2026-03-30');

  it('breaks down by a visit dimension, a missing value as null, ordered by visitors then value', async () => {
    const res = await ask({ metrics: ['visitors', 'visits', 'pageviews'], dimensions: ['source'], ...range });
    expect(res.rows).toEqual([
      { dimensions: { source: 'google.com' }, metrics: { visitors: 3, visits: 3, pageviews: 6 } },
      { dimensions: { source: null }, metrics: { visitors: 1, visits: 1, pageviews: 1 } },
      { dimensions: { source: 'news.example' }, metrics: { visitors: 1, visits: 1, pageviews: 1 } },
    ]);
    expect(res.totals).toEqual({ visitors: 3, visits: 5, pageviews: 8 });
  });

  it('breaks down by page with order_by and limit', async () => {
    const res = await ask({ metrics: ['pageviews', 'visitors', 'visits', 'events'], dimensions: ['page'], order_by: 'pageviews desc', limit: 2, ...range });
    expect(res.rows).toEqual([
      { dimensions: { page: '/a' }, metrics: { pageviews: 4, visitors: 2, visits: 3, events: 0 } },
      { dimensions: { page: '/b' }, metrics: { pageviews: 2, visitors: 2, visits: 2, events: 1 } },
    ]);
    const byName = await ask({ metrics: ['pageviews'], dimensions: ['page'], order_by: 'page desc', ...range });
    expect(byName.rows.map((r: any) => r.dimensions.page)).toEqual(['/c', '/b', '/a']);
  });

  it('filters with IS, IS_NOT and CONTAINS (ignoring case)', async () => {
    const is = await ask({ metrics: ['visitors', 'visits', 'pageviews', 'bounce_rate'], filters: [{ dimension: 'source', operator: 'IS', values: ['google.com'] }], ...range });
    expect(is.totals).toEqual({ visitors: 3, visits: 3, pageviews: 6, bounce_rate: 33.3 });
    const isNot = await ask({ metrics: ['visitors', 'visits', 'pageviews', 'events'], filters: [{ dimension: 'source', operator: 'IS_NOT', values: ['google.com'] }], ...range });
    expect(isNot.totals).toEqual({ visitors: 2, visits: 2, pageviews: 2, events: 1 });
    const contains = await ask({ metrics: ['visitors', 'pageviews'], filters: [{ dimension: 'page', operator: 'CONTAINS', values: ['C'] }], ...range });
    expect(contains.totals).toEqual({ visitors: 2, pageviews: 2 });
  });

  it('ANDs filters over different dimensions, and filters a breakdown by another dimension', async () => {
    const both = await ask({
      metrics: ['visitors', 'visits', 'pageviews'],
      filters: [
        { dimension: 'device', operator: 'IS', values: ['mobile'] },
        { dimension: 'source', operator: 'IS', values: ['google.com'] },
      ],
      ...range,
    });
    expect(both.totals).toEqual({ visitors: 1, visits: 1, pageviews: 3 });
    const pages = await ask({ metrics: ['pageviews', 'events'], dimensions: ['page'], order_by: 'page asc', filters: [{ dimension: 'device', operator: 'IS', values: ['mobile'] }], ...range });
    expect(pages.rows).toEqual([
      { dimensions: { page: '/a' }, metrics: { pageviews: 2, events: 0 } },
      { dimensions: { page: '/b' }, metrics: { pageviews: 1, events: 1 } },
      { dimensions: { page: '/c' }, metrics: { pageviews: 1, events: 0 } },
    ]);
    const byName = await ask({ metrics: ['events', 'pageviews'], dimensions: ['event_name'], order_by: 'event_name asc', ...range });
    expect(byName.rows).toEqual([
      { dimensions: { event_name: 'pageview' }, metrics: { events: 0, pageviews: 8 } },
      { dimensions: { event_name: 'signup' }, metrics: { events: 1, pageviews: 0 } },
    ]);
  });
});

describe('a visit counts once in any total (issue 23)', () => {
  // One browser viewing /a, /b and /c in one visit of 600 s (UTC website; June is past the 30-day retention).
  const ONE_VISIT: SeedVisit[] = [{ visitor: 'P', hits: [{ at: '2026-06-01T10:00:00Z', path: '/a' }, { at: '2026-06-01T10:05:00Z', path: '/b' }, { at: '2026-06-01T10:10:00Z', path: '/c' }] }];
  const june = custom('2026-06-01', '2026-06-01');
  const visitTotals = { visitors: 1, visits: 1, pageviews: 3, views_per_visit: 3, bounce_rate: 0, visit_duration: 600, events: 0 };
  const anyPage = { dimension: 'page', operator: 'CONTAINS', values: ['/'] };
  const desktop = { dimension: 'device', operator: 'IS', values: ['desktop'] };
  const pageRow = (page: string) => ({ dimensions: { page }, metrics: { visitors: 1, visits: 1, pageviews: 1, views_per_visit: 1, bounce_rate: 0, visit_duration: 600, events: 0 } });

  it('a filter never multiplies visits, and totals with a page dimension are the unfiltered totals (raw rows)', async () => {
    const user = await t.signUp();
    await seedVisits(t, user.websiteId, user.accountId, ONE_VISIT);
    expect((await ask({ metrics: ALL, ...june }, user)).totals).toEqual(visitTotals);
    expect((await ask({ metrics: ALL, filters: [anyPage], ...june }, user)).totals).toEqual(visitTotals);
    expect((await ask({ metrics: ALL, filters: [anyPage, desktop], ...june }, user)).totals).toEqual(visitTotals);
    const byPage = await ask({ metrics: ALL, dimensions: ['page'], order_by: 'page asc', ...june }, user);
    expect(byPage.rows).toEqual([pageRow('/a'), pageRow('/b'), pageRow('/c')]);
    expect(byPage.totals).toEqual(visitTotals);
    // The same with a filter on the breakdown's dimension, and with one on another dimension.
    expect((await ask({ metrics: ALL, dimensions: ['page'], filters: [anyPage], ...june }, user)).totals).toEqual(visitTotals);
    expect((await ask({ metrics: ALL, dimensions: ['page'], filters: [desktop], ...june }, user)).totals).toEqual(visitTotals);
    const byName = await ask({ metrics: ['visits', 'pageviews'], dimensions: ['event_name'], filters: [{ dimension: 'event_name', operator: 'IS', values: ['pageview'] }], ...june }, user);
    expect(byName.totals).toEqual({ visits: 1, pageviews: 3 });
    // Buckets of a series hold the visit once too.
    const series = await ask({ metrics: ['visits', 'pageviews'], filters: [anyPage], interval: 'day', ...june }, user);
    expect(series.rows).toEqual([{ start_time: '2026-06-01T00:00:00+00:00', metrics: { visits: 1, pageviews: 3 } }]);
    // Two of the three pages: one visit with two of its page views.
    const two = await ask({ metrics: ALL, filters: [{ dimension: 'page', operator: 'IS', values: ['/a', '/b'] }], ...june }, user);
    expect(two.totals).toEqual({ ...visitTotals, pageviews: 2, views_per_visit: 2 });
  });

  it('filter never increases visits; bounce_rate, views_per_visit and visit_duration follow the visits counted', async () => {
    const unfiltered = (await ask({ metrics: ALL, ...custom('2026-03-28', '2026-03-30') })).totals;
    expect(unfiltered.visits).toBe(5);
    const filters = [
      { dimension: 'page', operator: 'CONTAINS', values: ['/'] },
      { dimension: 'page', operator: 'IS_NOT', values: ['/nowhere'] },
      { dimension: 'page', operator: 'IS', values: ['/a', '/b', '/c'] },
      { dimension: 'event_name', operator: 'IS', values: ['pageview', 'signup'] },
      { dimension: 'event_name', operator: 'CONTAINS', values: ['e'] },
    ];
    for (const filter of filters) {
      const totals = (await ask({ metrics: ALL, filters: [filter], ...custom('2026-03-28', '2026-03-30') })).totals;
      // Every visit matches these filters: the filtered visit metrics are the unfiltered ones.
      expect(totals.visits, JSON.stringify(filter)).toBe(unfiltered.visits);
      expect(totals.bounce_rate, JSON.stringify(filter)).toBe(unfiltered.bounce_rate);
      expect(totals.visit_duration, JSON.stringify(filter)).toBe(unfiltered.visit_duration);
      expect(totals.views_per_visit, JSON.stringify(filter)).toBe(Math.round((totals.pageviews / totals.visits) * 100) / 100);
    }
    // Page /a: visits V1, V2 (a bounce) and V4 (two views of /a), 600 + 0 + 1 800 s.
    const a = (await ask({ metrics: ALL, filters: [{ dimension: 'page', operator: 'IS', values: ['/a'] }], ...custom('2026-03-28', '2026-03-30') })).totals;
    expect(a).toEqual({ visitors: 2, visits: 3, pageviews: 4, views_per_visit: 1.33, bounce_rate: 33.3, visit_duration: 800, events: 0 });
    const byPage = await ask({ metrics: ALL, dimensions: ['page'], ...custom('2026-03-28', '2026-03-30') });
    expect(byPage.totals).toEqual(unfiltered);
  });

  it('answers as raw rows did once rolled up, and RAW_EVENTS_PURGED for visits filtered by page once raw rows are gone', async () => {
    const user = await t.signUp();
    await seedVisits(t, user.websiteId, user.accountId, ONE_VISIT);
    const bodies = [
      { metrics: ALL, ...june },
      { metrics: ALL, dimensions: ['page'], order_by: 'page asc', ...june },
      { metrics: ALL, filters: [desktop], ...june },
      { metrics: ALL, dimensions: ['device'], ...june },
      { metrics: ['visitors', 'pageviews', 'events'], filters: [anyPage], ...june },
      { metrics: ['visits', 'pageviews'], interval: 'hour', ...june },
    ];
    const before = [];
    for (const body of bodies) before.push(await ask(body, user));
    expect(before[1].totals).toEqual(visitTotals);
    await seedVisits(t, user.websiteId, user.accountId, [], { arm: true });
    const { db } = t.platform.deps.database;
    await eventually(async () => (await db.selectFrom('analytics_events').select('id').where('website_id', '=', user.websiteId).limit(1).execute()).length === 0, 'the purge');
    for (const [i, body] of bodies.entries()) expect(await ask(body, user), `query ${i}`).toEqual(before[i]);
    // Roll-up rows of page hold the visit under /a, /b and /c: they cannot count it once when summed.
    for (const filters of [[anyPage], [anyPage, desktop]]) {
      const purged = await query({ metrics: ['visits'], filters, ...june }, user);
      expect(expectError(purged, 400, 'FAILED_PRECONDITION').details).toContainEqual({ type: 'PRECONDITION_FAILURE', reason: 'RAW_EVENTS_PURGED' });
    }
    expect(expectError(await query({ metrics: ['bounce_rate'], filters: [anyPage], interval: 'day', ...june }, user), 400, 'FAILED_PRECONDITION').details).toContainEqual({
      type: 'PRECONDITION_FAILURE',
      reason: 'RAW_EVENTS_PURGED',
    });
  });
});

describe('bad input', () => {
  it('refuses unknown, missing, duplicate and inconsistent fields, naming them', async () => {
    expectInvalid(await query({}), 'metrics');
    expectInvalid(await query({ metrics: [] }), 'metrics');
    expectInvalid(await query({ metrics: ['visits', 'clicks'] }), 'metrics[1]');
    expectInvalid(await query({ metrics: ['visits', 'pageviews', 'visits'] }), 'metrics[2]');
    expectInvalid(await query({ metrics: ['visits'], colour: 'red' }), 'colour');
    expectInvalid(await query({ metrics: ['visits'], date_range: 'forever' }), 'date_range');
    expectInvalid(await query({ metrics: ['visits'], interval: 'minute' }), 'interval');
    expectInvalid(await query({ metrics: ['visits'], dimensions: ['colour'] }), 'dimensions[0]');
    expectInvalid(await query({ metrics: ['visits'], filters: [{ dimension: 'source', operator: 'LIKE', values: ['x'] }] }), 'filters[0].operator');
    expectInvalid(await query({ metrics: ['visits'], filters: [{ dimension: 'source', operator: 'IS', values: [] }] }), 'filters[0].values');
    expectInvalid(await query({ metrics: ['visits'], filters: [{ dimension: 'source', operator: 'IS', values: ['x'], extra: 1 }] }), 'filters[0].extra');
    expectInvalid(await query({ metrics: ['visits'], dimensions: ['page'], limit: 0 }), 'limit');
    expectInvalid(await query({ metrics: ['visits'], dimensions: ['page'], limit: 1001 }), 'limit');
    expectInvalid(await query({ metrics: ['visits'], dimensions: ['page'], order_by: 'pageviews desc' }), 'order_by');
    expectInvalid(await query({ metrics: ['visits'], compare: 'last_week' }), 'compare');
    expectInvalid(await query({ metrics: 'visits' }), 'metrics');
  });

  it('refuses bad, reversed and unbounded date ranges', async () => {
    expectInvalid(await query({ metrics: ['visits'], start_date: '2026-01-01' }), 'start_date');
    expectInvalid(await query({ metrics: ['visits'], date_range: 'custom', end_date: '2026-01-01' }), 'start_date');
    expectInvalid(await query({ metrics: ['visits'], ...custom('2026-02-30', '2026-03-01') }), 'start_date');
    expectInvalid(await query({ metrics: ['visits'], ...custom('2026-1-1', '2026-03-01') }), 'start_date');
    expectInvalid(await query({ metrics: ['visits'], ...custom('2026-03-02', '2026-03-01') }), 'end_date');
    expectInvalid(await query({ metrics: ['visits'], ...custom('2024-01-01', '2026-01-01') }), 'end_date');
    expectStatus(await query({ metrics: ['visits'], ...custom('2024-01-01', '2025-12-31') }), 200);
    expectInvalid(await query({ metrics: ['visits'], interval: 'hour', ...custom('2026-01-01', '2026-02-01') }), 'interval');
    expectInvalid(await query({ metrics: ['visits'], interval: 'day', dimensions: ['page'] }), 'interval');
  });
});

describe('roll-ups, retention and approximate counts', () => {
  const bodies = [
    { metrics: ALL, ...custom('2026-03-28', '2026-03-30'), interval: 'day' },
    { metrics: ['visitors', 'visits', 'pageviews', 'events'], ...custom('2026-03-29', '2026-03-29'), interval: 'hour' },
    { metrics: ['visitors', 'visits', 'pageviews'], dimensions: ['source'], ...custom('2026-03-28', '2026-03-30') },
    { metrics: ['visitors', 'pageviews', 'visits', 'events'], dimensions: ['page'], ...custom('2026-03-28', '2026-03-30') },
    { metrics: ['visitors', 'pageviews'], filters: [{ dimension: 'page', operator: 'CONTAINS', values: ['C'] }], ...custom('2026-03-28', '2026-03-30') },
    { metrics: ['visits'], interval: 'month', ...custom('2026-03-01', '2026-10-31') },
  ];

  it('answers the same from roll-ups as from raw rows, and purges raw rows past retention', async () => {
    const recent = new Date(Date.now() - 2 * 86_400_000).toISOString();
    await seedVisits(t, carol.websiteId, carol.accountId, [...VISITS, { visitor: 'E', hits: [{ at: recent, path: '/new' }] }]);
    await setZone(carol, 'Europe/Berlin');
    const before = [];
    for (const body of bodies) before.push(await ask(body, carol));
    // The ingest's flush arms the chain; the tick rolls up every closed hour, then purges.
    await seedVisits(t, carol.websiteId, carol.accountId, [], { arm: true });
    const analytics = await eventually(async () => {
      const res = expectStatus(await t.request('GET', `${API}/websites/${carol.websiteId}/analytics`, { token: carol.token }), 200);
      return res.raw_events_since ? res : undefined;
    }, 'the first roll-up tick');
    expect(Date.parse(analytics.rolled_up_until)).toBeGreaterThan(Date.parse(recent));
    // The tick records purged_before before its batches delete rows: wait for the deletes.
    const rawPaths = () => t.platform.deps.database.db.selectFrom('analytics_events').select('path').where('website_id', '=', carol.websiteId).execute();
    await eventually(async () => (await rawPaths()).length === 1, 'the purge');
    expect(await rawPaths()).toEqual([{ path: '/new' }]);
    for (const [i, body] of bodies.entries()) expect(await ask(body, carol), `query ${i}`).toEqual(before[i]);
    // Those answers came from daily rows: Berlin's days, the 23-hour 29th of March starting at 28T23:00Z.
    const { db } = t.platform.deps.database;
    const days = await db.selectFrom('analytics_daily_rollups').select(['day', 'pageviews', 'events']).where('website_id', '=', carol.websiteId).where('dimension', '=', '').orderBy('day').execute();
    expect(days.map((d) => [new Date(Number(d.day)).toISOString(), Number(d.pageviews), Number(d.events)]).slice(0, 3)).toEqual([
      ['2026-03-27T23:00:00.000Z', 2, 0],
      ['2026-03-28T23:00:00.000Z', 2, 1],
      ['2026-03-29T22:00:00.000Z', 4, 0],
    ]);
    // Dimensions combined need raw rows, which are gone for March.
    const combined = await query({ metrics: ['visits'], filters: [{ dimension: 'device', operator: 'IS', values: ['mobile'] }, { dimension: 'source', operator: 'IS', values: ['google.com'] }], ...custom('2026-03-28', '2026-03-30') }, carol);
    expect(expectError(combined, 400, 'FAILED_PRECONDITION').details).toContainEqual({ type: 'PRECONDITION_FAILURE', reason: 'RAW_EVENTS_PURGED' });
  });

  it('daily rows are cut again when the website time zone changes, and answer as the hours do meanwhile', async () => {
    const gina = await t.signUp();
    await setZone(gina, 'Europe/Berlin');
    await seedVisits(t, gina.websiteId, gina.accountId, [...VISITS, { visitor: 'E', hits: [{ at: new Date(Date.now() - 86_400_000).toISOString(), path: '/new' }] }], { arm: true });
    const { db, dialect } = t.platform.deps.database;
    const dayStarts = async () =>
      (await db.selectFrom('analytics_daily_rollups').select('day').where('website_id', '=', gina.websiteId).where('dimension', '=', '').orderBy('day').execute()).map((d) => new Date(Number(d.day)).toISOString());
    await eventually(async () => (await dayStarts()).includes('2026-03-28T23:00:00.000Z'), "Berlin's daily rows");
    await setZone(gina, 'America/New_York');
    // Until the job cuts New York's days, the Berlin rows are not read: answers come from the hours.
    const fromHours = [];
    for (const body of bodies) fromHours.push(await ask(body, gina));
    expect(fromHours[0].time_zone).toBe('America/New_York');
    await rollUpDays(db, dialect, gina.websiteId, Date.now());
    expect((await dayStarts()).slice(0, 3)).toEqual(['2026-03-28T04:00:00.000Z', '2026-03-29T04:00:00.000Z', '2026-03-30T04:00:00.000Z']);
    for (const [i, body] of bodies.entries()) expect(await ask(body, gina), `query ${i}`).toEqual(fromHours[i]);
  });

  it('counts visitors exactly while raw rows are kept, and from merged sketches (approximate) once rolled up and purged', async () => {
    const dave = await t.signUp();
    const many: SeedVisit[] = [];
    for (let i = 0; i < 700; i++) many.push({ visitor: `x${i}`, hits: [{ at: '2026-05-04T10:10:00Z', path: '/p' }] });
    for (let i = 0; i < 700; i++) many.push({ visitor: `y${i}`, hits: [{ at: '2026-05-04T11:20:00Z', path: '/p' }] });
    await seedVisits(t, dave.websiteId, dave.accountId, many);
    const body = { metrics: ['visitors', 'visits'], ...custom('2026-05-04', '2026-05-04') };
    const exact = await ask(body, dave);
    expect(exact).toMatchObject({ totals: { visitors: 1400, visits: 1400 }, approximate: false, approximate_metrics: [] });
    await seedVisits(t, dave.websiteId, dave.accountId, [], { arm: true });
    await eventually(async () => (await t.platform.deps.database.db.selectFrom('analytics_events').select('id').where('website_id', '=', dave.websiteId).limit(1).execute()).length === 0, 'the purge');
    const merged = await ask(body, dave);
    expect(merged).toMatchObject({ totals: { visits: 1400 }, approximate: true, approximate_metrics: ['visitors'], sketch_relative_error: 0.0163 });
    expect(Math.abs(merged.totals.visitors - 1400) / 1400).toBeLessThan(3 * 0.0163);
    // One hour: its exact count was stored with the sketch.
    const hourly = await ask({ ...body, interval: 'hour' }, dave);
    expect(hourly.rows.slice(10, 12).map((r: any) => r.metrics)).toEqual([
      { visitors: 700, visits: 700 },
      { visitors: 700, visits: 700 },
    ]);
    expect(hourly.approximate).toBe(true);
  });
});

describe('roll-up chain', () => {
  it('keeps one live tick per website however often the ingest arms it, and re-running hours replaces their rows', async () => {
    const erin = await t.signUp();
    // Raw rows kept two years, so the second roll-up below reads the same raw rows again.
    expectStatus(await t.request('PATCH', `${API}/websites/${erin.websiteId}/settings/analytics.raw_retention_days`, { token: erin.token, body: { value: 731 } }), 200);
    const visits: SeedVisit[] = [{ visitor: 'Z', hits: [{ at: '2026-06-01T10:00:00Z', path: '/z' }] }];
    await seedVisits(t, erin.websiteId, erin.accountId, visits, { arm: true });
    await seedVisits(t, erin.websiteId, erin.accountId, [], { arm: true });
    await seedVisits(t, erin.websiteId, erin.accountId, [], { arm: true });
    const { db } = t.platform.deps.database;
    const ticks = await db.selectFrom('operations').select(['id', 'state']).where('website_id', '=', erin.websiteId).where('type', '=', 'analytics.rollup_tick').execute();
    expect(ticks.filter((op) => op.state !== 'DONE').length).toBeLessThanOrEqual(1);
    await eventually(async () => (await db.selectFrom('analytics_rollups').select('hour').where('website_id', '=', erin.websiteId).execute()).length > 0, 'the roll-up');
    const rowsOf = async () => db.selectFrom('analytics_rollups').select(['dimension', 'hour', 'value', 'visits', 'pageviews']).where('website_id', '=', erin.websiteId).orderBy('dimension').orderBy('value').execute();
    const first = await rowsOf();
    // Totals, page, event_name and the twelve visit dimensions of the one hour.
    expect(first).toHaveLength(15);
    expect(first.every((r) => Number(r.hour) === Date.parse('2026-06-01T10:00:00Z') && Number(r.pageviews) === 1)).toBe(true);
    // A later tick that rolls the same hours again (after a kill before its state moved) writes the same rows, not more.
    await db.updateTable('analytics_rollup_state').set({ rolled_up_until: Date.parse('2026-06-01T00:00:00Z'), tick_id: null }).where('website_id', '=', erin.websiteId).execute();
    await seedVisits(t, erin.websiteId, erin.accountId, [], { arm: true });
    await eventually(async () => {
      const state = await db.selectFrom('analytics_rollup_state').select('rolled_up_until').where('website_id', '=', erin.websiteId).executeTakeFirst();
      return Number(state?.rolled_up_until) > Date.parse('2026-06-02T00:00:00Z');
    }, 'the second roll-up');
    expect(await rowsOf()).toEqual(first);
    expect(await db.selectFrom('analytics_events').select('path').where('website_id', '=', erin.websiteId).execute()).toEqual([{ path: '/z' }]);
  });
});

describe('empty website', () => {
  it('answers zeros and every bucket', async () => {
    const res = await ask({ metrics: ['visitors', 'visits', 'pageviews'], interval: 'day', date_range: '7d' }, carol);
    expect(res.rows.length).toBe(7);
    const none = await ask({ metrics: ['visitors', 'visits', 'pageviews'], ...custom('2025-01-01', '2025-01-31') });
    expect(none.totals).toEqual(zeros);
  });
});
