/**
 * Editorial (issue 14): the `editorial_plan` singleton, the backlog, and `:refill` of the rolling
 * calendar (idempotent, priority order, DST, concurrent calls, other tenants).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestUser } from '../support/app.js';
import { startTwoTenants } from '../support/tenants.js';
import { createAgent } from '../support/ai-fixtures.js';
import { API, expectError, expectInvalid, expectShape, expectStatus, idsOf, list } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  ({ t, alice, bob } = await startTwoTenants());
});
afterAll(() => t?.close());

const site = (u: TestUser = alice) => `${API}/websites/${u.websiteId}`;
const plan = (u: TestUser = alice) => `${site(u)}/editorial_plan`;
const backlog = (u: TestUser = alice) => `${site(u)}/editorial_backlog_items`;
const entries = (u: TestUser = alice) => `${site(u)}/editorial_calendar_entries`;
const patchPlan = (body: unknown, u: TestUser = alice, query = '') => t.request('PATCH', `${plan(u)}${query}`, { token: u.token, body });
const refill = (u: TestUser = alice) => t.request('POST', `${plan(u)}:refill`, { token: u.token, body: {} });
const addItem = async (body: Record<string, unknown>, u: TestUser = alice) => expectStatus(await t.request('POST', backlog(u), { token: u.token, body }), 201);
const allEntries = async (u: TestUser = alice) => {
  const out: any[] = [];
  let token: string | undefined;
  do {
    const page = await list(t, u.token, entries(u), { page_size: 100, ...(token && { page_token: token }) });
    out.push(...page.editorial_calendar_entries);
    token = page.next_page_token || undefined;
  } while (token);
  return out;
};
/** A fresh signed-up website for tests that need an empty calendar. */
const freshSite = () => t.signUpProvisioned();

describe('editorial_plan', () => {
  it('always exists: a never-written plan answers its defaults without timestamps', async () => {
    const fresh = await freshSite();
    const body = expectStatus(await t.request('GET', plan(fresh), { token: fresh.token }), 200);
    await expectShape(t, 'GetEditorialPlan', 200, body);
    expect(body).toMatchObject({ name: `websites/${fresh.websiteId}/editorial_plan`, slots: [], horizon_days: 14, automation: 'MANUAL', require_passing_verdict: true, allow_person_approval: true });
    expect(body.create_time).toBeUndefined();
    expect(body.id).toBeUndefined();
  });

  it('updates with an etag and refuses a stale one with ABORTED', async () => {
    const before = expectStatus(await t.request('GET', plan(), { token: alice.token }), 200);
    const updated = expectStatus(await t.request('PATCH', plan(), { token: alice.token, body: { horizon_days: 30 }, headers: { 'if-match': `"${before.etag}"` } }), 200);
    expect(updated.horizon_days).toBe(30);
    expectError(await t.request('PATCH', plan(), { token: alice.token, body: { horizon_days: 31 }, headers: { 'if-match': `"${before.etag}"` } }), 409, 'ABORTED');
  });

  it('refuses impossible cadences naming the field: horizon 0, unknown weekday, invalid time, invalid zone, automatic without a slot', async () => {
    expectInvalid(await patchPlan({ horizon_days: 0 }), 'horizon_days');
    expectInvalid(await patchPlan({ horizon_days: 366 }), 'horizon_days');
    const weekday = expectError(await patchPlan({ slots: [{ weekday: 'FUNDAY', time: '09:00' }] }), 400, 'INVALID_ARGUMENT');
    expect(JSON.stringify(weekday)).toContain('slots');
    expect(weekday.message).toContain('weekday');
    const time = expectError(await patchPlan({ slots: [{ weekday: 'MONDAY', time: '24:00' }] }), 400, 'INVALID_ARGUMENT');
    expect(time.message).toContain('time');
    expectInvalid(await patchPlan({ slots: [{ weekday: 'MONDAY', time: '09:00' }, { weekday: 'MONDAY', time: '09:00' }] }), 'slots[1]');
    expectInvalid(await patchPlan({ time_zone: 'Mars/Olympus_Mons' }), 'time_zone');
    const fresh = await freshSite();
    expectInvalid(await patchPlan({ automation: 'AUTOMATIC' }, fresh), 'automation');
    expectInvalid(await patchPlan({ automation: 'AUTOMATIC', slots: [] }, fresh), 'slots');
  });

  it('refuses hostile input: wrong types, unknown fields, oversize values', async () => {
    expectInvalid(await patchPlan({ horizon_days: 'ten' }), 'horizon_days');
    expectInvalid(await patchPlan({ slots: 'MONDAY' }), 'slots');
    expectError(await patchPlan({ surprise: true }), 400, 'INVALID_ARGUMENT');
    expectInvalid(await patchPlan({ time_zone: 'x'.repeat(65) }), 'time_zone');
    const tooMany = Array.from({ length: 169 }, (_, i) => ({ weekday: 'MONDAY', time: `${String(i % 24).padStart(2, '0')}:00` }));
    expect(JSON.stringify(expectError(await patchPlan({ slots: tooMany }), 400, 'INVALID_ARGUMENT'))).toContain('slots');
  });

  it("refuses agents of another account and references of another website, naming the field", async () => {
    const bobsAgent = await createAgent(t, bob);
    expectInvalid(await patchPlan({ drafting_agent_id: bobsAgent.id }), 'drafting_agent_id');
    expectInvalid(await patchPlan({ review_agent_id: bobsAgent.id }), 'review_agent_id');
    expectInvalid(await patchPlan({ review_agent_id: 'missing' }), 'review_agent_id');
    const bobsCategory = expectStatus(await t.request('POST', `${site(bob)}/blog_categories`, { token: bob.token, body: { display_name: 'Bob' } }), 201);
    expectInvalid(await patchPlan({ default_category_ids: [bobsCategory.id] }), 'default_category_ids');
    const mine = await createAgent(t, alice);
    expect(expectStatus(await patchPlan({ drafting_agent_id: mine.id }), 200).drafting_agent_id).toBe(mine.id);
  });

  it("answers NOT_FOUND to another tenant's plan", async () => {
    expectError(await t.request('GET', plan(alice), { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('PATCH', plan(alice), { token: bob.token, body: { horizon_days: 2 } }), 404, 'NOT_FOUND');
    expectError(await t.request('POST', `${plan(alice)}:refill`, { token: bob.token, body: {} }), 404, 'NOT_FOUND');
  });
});

describe('editorial_backlog_items', () => {
  it('creates items READY by default, proposed_by the person, with filters and orders', async () => {
    const low = await addItem({ topic: 'Rye bread basics', priority: 10, keywords: ['rye'] });
    await expectShape(t, 'CreateEditorialBacklogItem', 201, low);
    expect(low).toMatchObject({ state: 'READY', priority: 10, proposed_by: `users/${alice.userId}`, keywords: ['rye'] });
    const high = await addItem({ topic: 'Sourdough starter care', priority: 90, brief: 'For beginners' });
    expect(idsOf(await list(t, alice.token, backlog(), { filter: 'topic:"sourdough"' }), 'editorial_backlog_items')).toContain(high.id);
    expect(idsOf(await list(t, alice.token, backlog(), { filter: 'topic:"sourdough"' }), 'editorial_backlog_items')).not.toContain(low.id);
    const ordered = idsOf(await list(t, alice.token, backlog(), { order_by: 'priority desc', filter: 'state = READY' }), 'editorial_backlog_items');
    expect(ordered.indexOf(high.id)).toBeLessThan(ordered.indexOf(low.id));
    expectInvalid(await t.request('GET', `${backlog()}?filter=brief%20%3D%20%22x%22`, { token: alice.token }), 'brief');
  });

  it('refuses bad input naming the field, and the states only the calendar sets', async () => {
    expectInvalid(await t.request('POST', backlog(), { token: alice.token, body: {} }), 'topic');
    expectInvalid(await t.request('POST', backlog(), { token: alice.token, body: { topic: '  ' } }), 'topic');
    expectInvalid(await t.request('POST', backlog(), { token: alice.token, body: { topic: 'x', priority: 101 } }), 'priority');
    expectInvalid(await t.request('POST', backlog(), { token: alice.token, body: { topic: 'x', keywords: 'one' } }), 'keywords');
    expectInvalid(await t.request('POST', backlog(), { token: alice.token, body: { topic: 'x'.repeat(501) } }), 'topic');
    expectInvalid(await t.request('POST', backlog(), { token: alice.token, body: { topic: 'x', state: 'SCHEDULED' } }), 'state');
    expectInvalid(await t.request('POST', backlog(), { token: alice.token, body: { topic: 'x', category_id: 'nope' } }), 'category_id');
    expectInvalid(await t.request('POST', backlog(), { token: alice.token, body: { topic: 'x', source_execution_id: 'nope' } }), 'source_execution_id');
  });

  it("answers NOT_FOUND to another tenant's item", async () => {
    const item = await addItem({ topic: 'Private' });
    expectError(await t.request('GET', `${backlog()}/${item.id}`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('PATCH', `${backlog(bob)}/${item.id}`, { token: bob.token, body: { priority: 1 } }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `${backlog()}/${item.id}`, { token: bob.token }), 404, 'NOT_FOUND');
  });
});

describe('editorial_plan:refill', () => {
  it('refuses a refill without a slot, naming slots', async () => {
    const fresh = await freshSite();
    expectInvalid(await refill(fresh), 'slots');
  });

  it('fills every free slot inside the horizon from the backlog, highest priority first, and a second call adds nothing (idempotent)', async () => {
    const u = await freshSite();
    expectStatus(await patchPlan({ slots: [{ weekday: 'MONDAY', time: '09:00' }, { weekday: 'WEDNESDAY', time: '09:00' }, { weekday: 'FRIDAY', time: '09:00' }], horizon_days: 14, time_zone: 'UTC' }, u), 200);
    const items: any[] = [];
    for (let i = 0; i < 8; i++) items.push(await addItem({ topic: `Topic ${i}`, priority: i * 10 }, u));
    const first = expectStatus(await refill(u), 200);
    await expectShape(t, 'RefillEditorialPlan', 200, first);
    const created = first.editorial_calendar_entries;
    // 14 days of 3 weekly slots: 6 slots, each booked once with the 6 highest priorities in slot order.
    expect(created).toHaveLength(6);
    const slots = created.map((e: any) => Date.parse(e.slot_time));
    expect(slots).toEqual([...slots].sort((a, b) => a - b));
    for (const slot of slots) {
      expect(slot).toBeGreaterThan(Date.now() - 60_000);
      expect(slot).toBeLessThanOrEqual(Date.now() + 14 * 86_400_000);
      expect([1, 3, 5]).toContain(new Date(slot).getUTCDay());
      expect(new Date(slot).getUTCHours()).toBe(9);
    }
    expect(created.map((e: any) => e.backlog_item_id)).toEqual([7, 6, 5, 4, 3, 2].map((i) => items[i].id));
    expect(created.every((e: any) => e.state === 'PLANNED')).toBe(true);
    const scheduled = await list(t, u.token, backlog(u), { filter: 'state = SCHEDULED' });
    expect(scheduled.total_size).toBe(6);
    expect(expectStatus(await refill(u), 200).editorial_calendar_entries).toEqual([]);
    expect(await allEntries(u)).toHaveLength(6);
  });

  it('refill is conditional on the plan: a stale If-Match or etag answers 409 ABORTED with the current plan and books nothing', async () => {
    const u = await freshSite();
    const before = expectStatus(await patchPlan({ slots: [{ weekday: 'MONDAY', time: '09:00' }], horizon_days: 14, time_zone: 'UTC' }, u), 200);
    await addItem({ topic: 'Conditional', priority: 50 }, u);
    for (const stale of [{ headers: { 'if-match': '"stale"' } }, { body: { etag: 'stale' } }]) {
      const res = await t.request('POST', `${plan(u)}:refill`, { token: u.token, body: {}, ...stale });
      const error = expectError(res, 409, 'ABORTED');
      const info = error.details.find((d: any) => d.type === 'RESOURCE_INFO');
      expect(info?.resource).toMatchObject({ name: `websites/${u.websiteId}/editorial_plan`, etag: before.etag });
    }
    expect(await allEntries(u)).toEqual([]);
    const fresh = await t.request('POST', `${plan(u)}:refill`, { token: u.token, body: {}, headers: { 'if-match': `"${before.etag}"` } });
    expect(expectStatus(fresh, 200).editorial_calendar_entries).toHaveLength(1);
  });

  it('concurrent refills do not double-book a slot or an item', async () => {
    const u = await freshSite();
    expectStatus(await patchPlan({ slots: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'].map((weekday) => ({ weekday, time: '12:00' })), horizon_days: 20 }, u), 200);
    for (let i = 0; i < 30; i++) await addItem({ topic: `Idea ${i}`, priority: 50 }, u);
    const answers = await Promise.all(Array.from({ length: 4 }, () => refill(u)));
    const created = answers.flatMap((res) => expectStatus(res, 200).editorial_calendar_entries);
    const all = await allEntries(u);
    expect(created).toHaveLength(all.length);
    expect(new Set(all.map((e) => e.slot_time)).size).toBe(all.length);
    expect(new Set(all.map((e) => e.backlog_item_id)).size).toBe(all.length);
    expect(all.length).toBeGreaterThanOrEqual(19);
  });

  it('reads slots in the time zone with DST: 09:00 Berlin is 08:00Z in winter and 07:00Z in summer; a skipped local time moves forward', async () => {
    const { instantOf, slotTimes } = await import('../../src/editorial/slots.js');
    // Sundays around the spring change of 2026-03-29, through the same code :refill uses.
    const times = slotTimes([{ weekday: 'SUNDAY', time: '09:00' }], 'Europe/Berlin', Date.UTC(2026, 2, 20), Date.UTC(2026, 3, 6)).map((t) => new Date(t).toISOString());
    expect(times).toEqual(['2026-03-22T08:00:00.000Z', '2026-03-29T07:00:00.000Z', '2026-04-05T07:00:00.000Z']);
    expect(new Date(instantOf('Europe/Berlin', Date.UTC(2026, 2, 29, 2, 30))).toISOString()).toBe('2026-03-29T01:30:00.000Z');
    expect(new Date(instantOf('America/New_York', Date.UTC(2026, 10, 1, 1, 30))).toISOString()).toBe('2026-11-01T05:30:00.000Z');
    // Through HTTP: every booked slot is 09:00 on the wall clock of the plan's zone, whatever its UTC offset.
    const u = await freshSite();
    expectStatus(await patchPlan({ slots: [{ weekday: 'SUNDAY', time: '09:00' }, { weekday: 'WEDNESDAY', time: '02:30' }], horizon_days: 365, time_zone: 'europe/berlin' }, u), 200);
    expect(expectStatus(await t.request('GET', plan(u), { token: u.token }), 200).time_zone).toBe('Europe/Berlin');
    for (let i = 0; i < 110; i++) await addItem({ topic: `Year ${i}` }, u);
    const created = expectStatus(await refill(u), 200).editorial_calendar_entries;
    expect(created.length).toBeGreaterThan(100);
    const wall = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', weekday: 'long', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    const offsets = new Set<number>();
    for (const e of created) {
      const text = wall.format(new Date(e.slot_time));
      expect(['Sunday 09:00', 'Wednesday 02:30']).toContain(text.replace(' at', '').replace(',', ''));
      if (text.startsWith('Sunday')) offsets.add(new Date(e.slot_time).getUTCHours());
    }
    expect([...offsets].sort()).toEqual([7, 8]);
  });

  it('calendar entries: filters and orders, NOT_FOUND for another tenant, publish without a post refused', async () => {
    const u = await freshSite();
    expectStatus(await patchPlan({ slots: [{ weekday: 'TUESDAY', time: '10:00' }], horizon_days: 21 }, u), 200);
    await addItem({ topic: 'One' }, u);
    await addItem({ topic: 'Two' }, u);
    const [entry] = expectStatus(await refill(u), 200).editorial_calendar_entries;
    await expectShape(t, 'GetEditorialCalendarEntry', 200, expectStatus(await t.request('GET', `${entries(u)}/${entry.id}`, { token: u.token }), 200));
    expect(idsOf(await list(t, u.token, entries(u), { filter: 'state = PLANNED', order_by: 'slot_time desc' }), 'editorial_calendar_entries')).toContain(entry.id);
    expect(expectInvalid(await t.request('GET', `${entries(u)}?order_by=verdict`, { token: u.token }), 'order_by').message).toContain('verdict');
    const refused = expectError(await t.request('POST', `${entries(u)}/${entry.id}:publish`, { token: u.token, body: {} }), 400, 'FAILED_PRECONDITION');
    expect(refused.details.find((d: any) => d.type === 'PRECONDITION_FAILURE').reason).toBe('NO_POST');
    for (const verb of ['materialize', 'publish', 'approve', 'retry']) {
      expectError(await t.request('POST', `${entries(u)}/${entry.id}:${verb}`, { token: bob.token, body: {} }), 404, 'NOT_FOUND');
    }
    expectError(await t.request('GET', `${entries(u)}/${entry.id}`, { token: bob.token }), 404, 'NOT_FOUND');
    // Deleting the entry frees its slot and gives its item back to the backlog.
    expect((await t.request('DELETE', `${entries(u)}/${entry.id}`, { token: u.token })).statusCode).toBe(204);
    expect(expectStatus(await t.request('GET', `${backlog(u)}/${entry.backlog_item_id}`, { token: u.token }), 200).state).toBe('READY');
  });

  it('materialize without a drafting agent makes a DRAFT post from the backlog item, sanitised like a person\'s', async () => {
    const u = await freshSite();
    expectStatus(await patchPlan({ slots: [{ weekday: 'THURSDAY', time: '08:00' }], horizon_days: 8 }, u), 200);
    await addItem({ topic: 'Flour <b>types</b>', brief: '<script>alert(1)</script>Which flour for which bread' }, u);
    const [entry] = expectStatus(await refill(u), 200).editorial_calendar_entries;
    const drafted = expectStatus(await t.request('POST', `${entries(u)}/${entry.id}:materialize`, { token: u.token, body: {} }), 200);
    expect(drafted.state).toBe('DRAFTED');
    const post = expectStatus(await t.request('GET', `${site(u)}/blog_posts/${drafted.post_id}`, { token: u.token }), 200);
    expect(post).toMatchObject({ state: 'DRAFT', title: 'Flour <b>types</b>' });
    expect(post.content).not.toContain('<script');
    expect(post.field_provenance.title).toBe(`websites/${u.websiteId}/editorial_calendar_entries/${entry.id}`);
  });
});
