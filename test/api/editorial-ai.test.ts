/**
 * Editorial AI (issue 14): drafting and review runs are `ai_executions` (provider stand-in, real
 * SDKs); generation never overwrites a field a person edited; nothing is published that its verdict
 * did not pass; failed runs leave the entry FAILED with the run's error, and `:retry` is one call;
 * the automation runs from the durable jobs and stops with a reason when the balance runs out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { acct, createAgent, waitForRun } from '../support/ai-fixtures.js';
import { API, expectError, expectStatus } from '../support/fixtures.js';
import { eventually } from '../support/fixtures-auth.js';
import { standinEnv, startProviderStandin, type ProviderStandin } from '../support/provider-standin.js';

let standin: ProviderStandin;
let t: TestApp;
let bob: TestUser;

beforeAll(async () => {
  standin = await startProviderStandin();
  t = await startTestApp(standinEnv(standin));
  bob = await t.signUpProvisioned();
});
afterAll(async () => {
  await t?.close();
  await standin?.close();
});

const site = (u: TestUser) => `${API}/websites/${u.websiteId}`;
const entries = (u: TestUser) => `${site(u)}/editorial_calendar_entries`;
const call = (u: TestUser, entryId: string, verb: string, body: Record<string, unknown> = {}) => t.request('POST', `${entries(u)}/${entryId}:${verb}`, { token: u.token, body });
const getEntry = async (u: TestUser, id: string) => expectStatus(await t.request('GET', `${entries(u)}/${id}`, { token: u.token }), 200);
const getPost = async (u: TestUser, id: string) => expectStatus(await t.request('GET', `${site(u)}/blog_posts/${id}`, { token: u.token }), 200);
const reason = (error: any) => error.details.find((d: any) => d.type === 'PRECONDITION_FAILURE')?.reason;
/** Waits until the entry's run has ended and its follow-up ran. */
const settled = (u: TestUser, id: string) =>
  eventually(async () => {
    const entry = await getEntry(u, id);
    return ['DRAFTING', 'IN_REVIEW'].includes(entry.state) ? undefined : entry;
  }, `entry ${id} to settle`, 20_000);
const copyAgent = async (u: TestUser, system: string, body: Record<string, unknown> = {}) =>
  expectStatus(await t.request('POST', `${acct(u)}/ai_agents`, { token: u.token, body: { source_system_agent: system, max_attempts: 1, ...body } }), 201);
const draft = (fields: Record<string, unknown>) => ({ text: JSON.stringify({ title: 'Generated title', excerpt: 'Generated excerpt.', content: '<p>Generated body</p>', meta_title: 'Meta', meta_description: 'Meta description', ...fields }) });
const verdict = (passed: boolean, reasons: string[]) => ({ text: JSON.stringify({ passed, reasons }) });

/** A provisioned user with a plan (one slot a day, a week ahead), `n` backlog items and the entries of one refill. */
async function calendar(plan: Record<string, unknown> = {}, n = 2): Promise<{ u: TestUser; entries: any[] }> {
  const u = await t.signUpProvisioned();
  const days = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
  expectStatus(await t.request('PATCH', `${site(u)}/editorial_plan`, { token: u.token, body: { slots: days.map((weekday) => ({ weekday, time: '10:00' })), horizon_days: 7, ...plan } }), 200);
  for (let i = 0; i < n; i++) expectStatus(await t.request('POST', `${site(u)}/editorial_backlog_items`, { token: u.token, body: { topic: `Topic ${i}`, brief: 'Brief', keywords: ['bread'], priority: 90 - i } }), 201);
  const refilled = expectStatus(await t.request('POST', `${site(u)}/editorial_plan:refill`, { token: u.token, body: {} }), 200);
  return { u, entries: refilled.editorial_calendar_entries };
}
async function withAgents(u: TestUser, opts: { review?: boolean; plan?: Record<string, unknown> } = {}) {
  const drafter = await copyAgent(u, 'editorial-draft-post');
  const reviewer = opts.review ? await copyAgent(u, 'editorial-review-draft') : undefined;
  expectStatus(await t.request('PATCH', `${site(u)}/editorial_plan`, { token: u.token, body: { drafting_agent_id: drafter.id, ...(reviewer && { review_agent_id: reviewer.id }), ...opts.plan } }), 200);
  return { drafter, reviewer };
}

describe('editorial drafting runs', () => {
  it('a drafting run is an ai_execution of the entry; its JSON becomes the post, sanitised exactly like a person\'s content', async () => {
    const { u, entries: [entry] } = await calendar();
    await withAgents(u);
    standin.script('anthropic', draft({ content: '<p onclick="steal()">Body</p><script>alert(1)</script><a href="javascript:x">link</a>' }));
    const started = expectStatus(await call(u, entry.id, 'materialize'), 200);
    expect(started.state).toBe('DRAFTING');
    const run = await waitForRun(t, u, started.drafting_execution_id);
    expect(run).toMatchObject({ state: 'SUCCEEDED', source_module: 'editorial', source_id: `websites/${u.websiteId}/editorial_calendar_entries/${entry.id}` });
    expect(run.cost).toBeDefined();
    const done = await settled(u, entry.id);
    expect(done).toMatchObject({ state: 'DRAFTED', skipped_fields: [] });
    const post = await getPost(u, done.post_id);
    expect(post).toMatchObject({ state: 'DRAFT', title: 'Generated title', custom_excerpt: 'Generated excerpt.', meta_title: 'Meta', meta_description: 'Meta description' });
    expect(post.content).toContain('Body');
    expect(post.content).not.toMatch(/script|onclick|javascript:/);
    expect(post.field_provenance.title).toBe(`accounts/${u.accountId}/ai_executions/${run.id}`);
    // A person writing the same HTML gets the same stored content.
    const human = expectStatus(await t.request('POST', `${site(u)}/blog_posts`, { token: u.token, body: { title: 'Human', content: '<p onclick="steal()">Body</p><script>alert(1)</script><a href="javascript:x">link</a>' } }), 201);
    expect(human.content).toBe(post.content);
    const listed = expectStatus(await t.request('GET', `${acct(u)}/ai_executions?filter=${encodeURIComponent('source_module = "editorial"')}`, { token: u.token }), 200);
    expect(listed.ai_executions.map((r: any) => r.id)).toContain(run.id);
  });

  it('never overwrites a field a person edited: a title edited between two runs survives and is reported as skipped', async () => {
    const { u, entries: [entry] } = await calendar();
    await withAgents(u);
    standin.script('anthropic', draft({ title: 'First title', content: '<p>First body</p>' }));
    expectStatus(await call(u, entry.id, 'materialize'), 200);
    const first = await settled(u, entry.id);
    const edited = expectStatus(await t.request('PATCH', `${site(u)}/blog_posts/${first.post_id}`, { token: u.token, body: { title: 'A person wrote this' } }), 200);
    expect(edited.field_provenance.title).toBe(`users/${u.userId}`);
    standin.script('anthropic', draft({ title: 'Second title', content: '<p>Second body</p>' }));
    expectStatus(await call(u, entry.id, 'materialize'), 200);
    const second = await settled(u, entry.id);
    expect(second).toMatchObject({ state: 'DRAFTED', post_id: first.post_id, skipped_fields: ['title'] });
    const post = await getPost(u, first.post_id);
    expect(post.title).toBe('A person wrote this');
    expect(post.content).toBe('<p>Second body</p>');
    expect(post.field_provenance.content).toBe(`accounts/${u.accountId}/ai_executions/${second.drafting_execution_id}`);
  });

  it('malformed JSON output leaves the entry FAILED with the run\'s error and no post; :retry is one call', async () => {
    const { u, entries: [entry] } = await calendar();
    await withAgents(u);
    standin.script('anthropic', { text: '{"title": "unterminated' });
    expectStatus(await call(u, entry.id, 'materialize'), 200);
    const failed = await settled(u, entry.id);
    const run = await waitForRun(t, u, failed.drafting_execution_id);
    expect(run.state).toBe('FAILED');
    expect(failed).toMatchObject({ state: 'FAILED', failed_step: 'DRAFTING', last_error: run.error });
    expect(failed.post_id).toBeUndefined();
    expect(reason(expectError(await call(u, entry.id, 'publish'), 400, 'FAILED_PRECONDITION'))).toBe('NO_POST');
    standin.script('anthropic', draft({}));
    const retried = expectStatus(await call(u, entry.id, 'retry'), 200);
    expect(retried.state).toBe('DRAFTING');
    expect(retried.drafting_execution_id).not.toBe(failed.drafting_execution_id);
    expect((await settled(u, entry.id)).state).toBe('DRAFTED');
    expect(reason(expectError(await call(u, entry.id, 'retry'), 400, 'FAILED_PRECONDITION'))).toBe('ENTRY_NOT_FAILED');
  });

  it('output the post refuses (a title too long) leaves the entry FAILED naming the field, nothing half-written', async () => {
    const { u, entries: [entry] } = await calendar();
    const loose = await copyAgent(u, 'editorial-draft-post', { output_schema: { type: 'object' } });
    expectStatus(await t.request('PATCH', `${site(u)}/editorial_plan`, { token: u.token, body: { drafting_agent_id: loose.id } }), 200);
    standin.script('anthropic', draft({ title: 'x'.repeat(300) }));
    expectStatus(await call(u, entry.id, 'materialize'), 200);
    const failed = await settled(u, entry.id);
    expect(failed).toMatchObject({ state: 'FAILED', failed_step: 'DRAFTING', last_error: { status: 'INVALID_ARGUMENT' } });
    expect(JSON.stringify(failed.last_error)).toContain('title');
    expect(failed.post_id).toBeUndefined();
    const posts = expectStatus(await t.request('GET', `${site(u)}/blog_posts`, { token: u.token }), 200);
    expect(posts.total_size).toBe(0);
  });

  it('a cancelled drafting run leaves the entry FAILED with the run\'s CANCELLED error', async () => {
    const { u, entries: [entry] } = await calendar();
    await withAgents(u);
    standin.script('anthropic', { status: 503 }, { status: 503 });
    const drafter = await copyAgent(u, 'editorial-draft-post', { max_attempts: 3 });
    expectStatus(await t.request('PATCH', `${site(u)}/editorial_plan`, { token: u.token, body: { drafting_agent_id: drafter.id } }), 200);
    const started = expectStatus(await call(u, entry.id, 'materialize'), 200);
    await eventually(async () => standin.runs('anthropic').length > 0, 'a first attempt');
    expectStatus(await t.request('POST', `${acct(u)}/ai_executions/${started.drafting_execution_id}:cancel`, { token: u.token, body: {} }), 200);
    const failed = await settled(u, entry.id);
    expect(failed).toMatchObject({ state: 'FAILED', failed_step: 'DRAFTING', last_error: { status: 'CANCELLED' } });
    standin.reset();
  });

  it("a run another tenant creates naming this entry's source_id changes nothing", async () => {
    const { u, entries: [entry] } = await calendar();
    const agent = await createAgent(t, bob);
    standin.script('openai', { text: 'noise' });
    const res = expectStatus(await t.request('POST', `${acct(bob)}/ai_executions`, { token: bob.token, body: { agent_id: agent.id, input: { variables: { topic: 'x' } }, source_module: 'editorial', source_id: `websites/${u.websiteId}/editorial_calendar_entries/${entry.id}` } }), 201);
    await waitForRun(t, bob, res.id);
    await new Promise((r) => setTimeout(r, 200));
    expect((await getEntry(u, entry.id)).state).toBe('PLANNED');
    expect((await getEntry(u, entry.id)).etag).toBe(entry.etag);
  });
});

describe('editorial verdicts and publishing', () => {
  it('a failing review stores its verdict with the run id; :publish is refused with FAILED_PRECONDITION and a reason', async () => {
    const { u, entries: [entry] } = await calendar();
    await withAgents(u, { review: true });
    standin.script('anthropic', draft({}));
    standin.script('openai', verdict(false, ['Off topic', 'Placeholder text']));
    expectStatus(await call(u, entry.id, 'materialize'), 200);
    const reviewed = await settled(u, entry.id);
    expect(reviewed).toMatchObject({ state: 'REJECTED', verdict: { passed: false, reasons: ['Off topic', 'Placeholder text'], execution_id: reviewed.review_execution_id } });
    expect((await waitForRun(t, u, reviewed.review_execution_id)).source_module).toBe('editorial');
    const refused = expectError(await call(u, entry.id, 'publish'), 400, 'FAILED_PRECONDITION');
    expect(reason(refused)).toBe('REJECTED');
    expect((await getPost(u, reviewed.post_id)).state).toBe('DRAFT');
  });

  it('a passing review lets :publish schedule the post for its slot; the backlog item becomes USED; an edit since makes the verdict stale', async () => {
    const { u, entries: [first, second] } = await calendar();
    await withAgents(u, { review: true, plan: { allow_person_approval: false } });
    standin.script('anthropic', draft({}), draft({ title: 'Other' }));
    standin.script('openai', verdict(true, ['Good']), verdict(true, ['Good too']));
    expectStatus(await call(u, first.id, 'materialize'), 200);
    const approved = await settled(u, first.id);
    expect(approved).toMatchObject({ state: 'APPROVED', verdict: { passed: true } });
    const published = expectStatus(await call(u, first.id, 'publish'), 200);
    expect(published.state).toBe('SCHEDULED');
    const post = await getPost(u, approved.post_id);
    expect(post).toMatchObject({ state: 'SCHEDULED', publish_time: first.slot_time });
    expect(expectStatus(await t.request('GET', `${site(u)}/editorial_backlog_items/${first.backlog_item_id}`, { token: u.token }), 200).state).toBe('USED');
    expect(expectStatus(await call(u, first.id, 'publish'), 200).state).toBe('SCHEDULED');

    expectStatus(await call(u, second.id, 'materialize'), 200);
    const other = await settled(u, second.id);
    expect(other.state).toBe('APPROVED');
    expectStatus(await t.request('PATCH', `${site(u)}/blog_posts/${other.post_id}`, { token: u.token, body: { content: '<p>Changed after review</p>' } }), 200);
    expect(reason(expectError(await call(u, second.id, 'publish'), 400, 'FAILED_PRECONDITION'))).toBe('VERDICT_STALE');
  });

  it('a SCHEDULED entry becomes PUBLISHED when its post goes live at the slot', async () => {
    const { u, entries: [entry] } = await calendar({ require_passing_verdict: false });
    // Setup only: bring the booked slot to two seconds from now (cadences are whole minutes).
    const slot = Date.now() + 2_000;
    await t.fresh.database.db.updateTable('editorial_calendar_entries').set({ slot_time: slot }).where('website_id', '=', u.websiteId).where('id', '=', entry.id).execute();
    expectStatus(await call(u, entry.id, 'materialize'), 200);
    const scheduled = expectStatus(await call(u, entry.id, 'publish'), 200);
    expect(scheduled.state).toBe('SCHEDULED');
    expect((await getPost(u, scheduled.post_id)).publish_time).toBe(new Date(slot).toISOString());
    const published = await eventually(async () => {
      const current = await getEntry(u, entry.id);
      return current.state === 'PUBLISHED' ? current : undefined;
    }, 'the entry to be PUBLISHED', 20_000);
    expect((await getPost(u, published.post_id)).state).toBe('PUBLISHED');
  });

  it("a person's approval stands in for a verdict only when the plan allows it", async () => {
    const { u, entries: [entry] } = await calendar({ allow_person_approval: false });
    expectStatus(await call(u, entry.id, 'materialize'), 200);
    expect(reason(expectError(await call(u, entry.id, 'publish'), 400, 'FAILED_PRECONDITION'))).toBe('VERDICT_REQUIRED');
    expect(reason(expectError(await call(u, entry.id, 'approve'), 400, 'FAILED_PRECONDITION'))).toBe('PERSON_APPROVAL_NOT_ALLOWED');
    expectStatus(await t.request('PATCH', `${site(u)}/editorial_plan`, { token: u.token, body: { allow_person_approval: true } }), 200);
    const approved = expectStatus(await call(u, entry.id, 'approve'), 200);
    expect(approved).toMatchObject({ state: 'APPROVED', approval: { by: `users/${u.userId}` } });
    expect(expectStatus(await call(u, entry.id, 'publish'), 200).state).toBe('SCHEDULED');
  });

  it('without require_passing_verdict a drafted post publishes; a rejected one never does', async () => {
    const { u, entries: [a, b] } = await calendar({ require_passing_verdict: false });
    expectStatus(await call(u, a.id, 'materialize'), 200);
    expect(expectStatus(await call(u, a.id, 'publish'), 200).state).toBe('SCHEDULED');
    expectStatus(await call(u, b.id, 'materialize'), 200);
    expect(expectStatus(await call(u, b.id, 'reject'), 200).state).toBe('REJECTED');
    expect(reason(expectError(await call(u, b.id, 'publish'), 400, 'FAILED_PRECONDITION'))).toBe('REJECTED');
  });
});

describe('editorial failures and references', () => {
  it('a failed review run leaves the entry FAILED at REVIEW; :retry repeats the review only', async () => {
    const { u, entries: [entry] } = await calendar();
    await withAgents(u, { review: true });
    standin.script('anthropic', draft({ title: 'Kept draft' }));
    standin.script('openai', { text: 'not json at all' });
    expectStatus(await call(u, entry.id, 'materialize'), 200);
    const failed = await settled(u, entry.id);
    expect(failed).toMatchObject({ state: 'FAILED', failed_step: 'REVIEW', last_error: (await waitForRun(t, u, failed.review_execution_id)).error });
    expect((await getPost(u, failed.post_id)).title).toBe('Kept draft');
    const draftingRun = failed.drafting_execution_id;
    standin.script('openai', verdict(true, ['Fine now']));
    const retried = expectStatus(await call(u, entry.id, 'retry'), 200);
    expect(retried).toMatchObject({ state: 'IN_REVIEW', drafting_execution_id: draftingRun });
    expect(await settled(u, entry.id)).toMatchObject({ state: 'APPROVED', verdict: { passed: true, reasons: ['Fine now'] } });
  });

  it('an item proposed by an AI run starts PROPOSED, proposed_by the run, and is booked only once a person makes it READY', async () => {
    const { u } = await calendar({}, 0);
    const agent = await createAgent(t, u);
    standin.script('openai', { text: 'Ideas' });
    const run = expectStatus(await t.request('POST', `${acct(u)}/ai_executions`, { token: u.token, body: { agent_id: agent.id, input: { variables: { topic: 'ideas' } } } }), 201);
    const item = expectStatus(await t.request('POST', `${site(u)}/editorial_backlog_items`, { token: u.token, body: { topic: 'From the run', source_execution_id: run.id } }), 201);
    expect(item).toMatchObject({ state: 'PROPOSED', proposed_by: `accounts/${u.accountId}/ai_executions/${run.id}` });
    expectError(await t.request('POST', `${site(bob)}/editorial_backlog_items`, { token: bob.token, body: { topic: 'Theirs', source_execution_id: run.id } }), 400, 'INVALID_ARGUMENT');
    expect(expectStatus(await t.request('POST', `${site(u)}/editorial_plan:refill`, { token: u.token, body: {} }), 200).editorial_calendar_entries).toEqual([]);
    expectStatus(await t.request('PATCH', `${site(u)}/editorial_backlog_items/${item.id}`, { token: u.token, body: { state: 'READY' } }), 200);
    const [entry] = expectStatus(await t.request('POST', `${site(u)}/editorial_plan:refill`, { token: u.token, body: {} }), 200).editorial_calendar_entries;
    expect(entry.backlog_item_id).toBe(item.id);
  });

  it('deleting the post sends its entry back to PLANNED; a booked backlog item cannot change state; deleting it clears the entry', async () => {
    const { u, entries: [a, b] } = await calendar();
    const drafted = expectStatus(await call(u, a.id, 'materialize'), 200);
    expect((await t.request('DELETE', `${site(u)}/blog_posts/${drafted.post_id}`, { token: u.token })).statusCode).toBe(204);
    const back = await getEntry(u, a.id);
    expect(back.state).toBe('PLANNED');
    expect(back.post_id).toBeUndefined();
    const item = `${site(u)}/editorial_backlog_items/${b.backlog_item_id}`;
    expect(reason(expectError(await t.request('PATCH', item, { token: u.token, body: { state: 'DISCARDED' } }), 400, 'FAILED_PRECONDITION'))).toBe('BACKLOG_ITEM_BOOKED');
    expect((await t.request('DELETE', item, { token: u.token })).statusCode).toBe(204);
    const orphan = await getEntry(u, b.id);
    expect(orphan.backlog_item_id).toBeUndefined();
    expect(reason(expectError(await call(u, b.id, 'materialize'), 400, 'FAILED_PRECONDITION'))).toBe('NO_BACKLOG_ITEM');
  });
});

describe('editorial automation', () => {
  it('AUTOMATIC refills, drafts and reviews from the durable jobs, and schedules approved posts for their slot', async () => {
    const { u } = await calendar({}, 0);
    for (let i = 0; i < 2; i++) expectStatus(await t.request('POST', `${site(u)}/editorial_backlog_items`, { token: u.token, body: { topic: `Auto ${i}` } }), 201);
    await withAgents(u, { review: true });
    standin.reset();
    standin.script('anthropic', draft({ title: 'Auto one' }), draft({ title: 'Auto two' }));
    standin.script('openai', verdict(true, ['ok']), verdict(true, ['ok']));
    const plan = expectStatus(await t.request('PATCH', `${site(u)}/editorial_plan`, { token: u.token, body: { automation: 'AUTOMATIC', horizon_days: 2, materialize_lead_hours: 72 } }), 200);
    expect(plan).toMatchObject({ automation: 'AUTOMATIC', automation_state: 'ACTIVE' });
    const scheduled = await eventually(async () => {
      const page = expectStatus(await t.request('GET', `${entries(u)}?filter=${encodeURIComponent('state = SCHEDULED')}`, { token: u.token }), 200);
      return page.total_size === 2 ? page : undefined;
    }, 'both entries scheduled', 30_000);
    for (const entry of scheduled.editorial_calendar_entries) expect((await getPost(u, entry.post_id)).state).toBe('SCHEDULED');
  });

  it('running out of AI balance stops the automation with a clear stored reason, not a crash loop', async () => {
    const t2 = await startTestApp({ ...standinEnv(standin), AI_STARTING_CREDIT: '0' });
    try {
      const u = await t2.signUpProvisioned();
      const s = `${API}/websites/${u.websiteId}`;
      const agent = expectStatus(await t2.request('POST', `${acct(u)}/ai_agents`, { token: u.token, body: { source_system_agent: 'editorial-draft-post' } }), 201);
      expectStatus(await t2.request('POST', `${s}/editorial_backlog_items`, { token: u.token, body: { topic: 'Broke' } }), 201);
      expectStatus(await t2.request('PATCH', `${s}/editorial_plan`, { token: u.token, body: { slots: [{ weekday: 'MONDAY', time: '10:00' }, { weekday: 'THURSDAY', time: '10:00' }], horizon_days: 7, materialize_lead_hours: 720, drafting_agent_id: agent.id, automation: 'AUTOMATIC' } }), 200);
      const stopped = await eventually(async () => {
        const plan = expectStatus(await t2.request('GET', `${s}/editorial_plan`, { token: u.token }), 200);
        return plan.automation_state === 'STOPPED' ? plan : undefined;
      }, 'the automation to stop');
      expect(stopped.automation_stop_reason).toMatch(/^INSUFFICIENT_BALANCE: /);
      const all = expectStatus(await t2.request('GET', `${s}/editorial_calendar_entries`, { token: u.token }), 200);
      expect(all.editorial_calendar_entries.map((e: any) => e.state)).toEqual(['PLANNED']);
      // No further tick is waiting: the chain ended instead of retrying (the stopping tick records its end
      // in its own transaction, just after the plan's).
      await eventually(async () => {
        const ticks = await t2.fresh.database.db.selectFrom('operations').select(['state']).where('type', '=', 'EDITORIAL_AUTOMATION_TICK').execute();
        return ticks.every((op) => op.state === 'DONE');
      }, 'every tick to be done');
      const manual = expectError(await t2.request('POST', `${s}/editorial_calendar_entries/${all.editorial_calendar_entries[0].id}:materialize`, { token: u.token, body: {} }), 400, 'FAILED_PRECONDITION');
      expect(reason(manual)).toBe('INSUFFICIENT_BALANCE');
      expect((await t2.fresh.database.db.selectFrom('ai_executions').select('id').execute()).length).toBe(0);
    } finally {
      await t2.close();
    }
  });
});
