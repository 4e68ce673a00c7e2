/**
 * Webhooks (issue 27): subscriptions, signed deliveries verified with `standardwebhooks`, retries,
 * rotation grace, the delivery log, disabling after days of failures, tenancy and input rules. Real
 * HTTP to a loopback receiver (allowed through WEBHOOK_ALLOW_HOSTS); time beyond seconds is driven
 * by the webhooks' delivery clock, never waited for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logSink, startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectError, expectInvalid, expectShape, expectStatus, list } from '../support/fixtures.js';
import { eventually } from '../support/fixtures-auth.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';
import { webhookRuntime } from '../../src/webhooks/webhooks.area.js';
import { startReceiver, verify, type Receiver } from './receiver.js';

const HOUR = 3600_000;
let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let receiver: Receiver;
let smtp: TestSmtp;
const logs = logSink();
/** How far the delivery clock runs ahead of the wall clock; only ever moved forward. */
let offset = 0;

beforeAll(async () => {
  receiver = await startReceiver();
  smtp = await startSmtp();
  t = await startTestApp(
    {
      WEBHOOK_ALLOW_HOSTS: '127.0.0.1,localhost',
      // 1 h, 5 h, 10 h: far apart, so gaps are read off the recorded times and reached by moving the clock.
      WEBHOOK_RETRY_SCHEDULE_MS: `${HOUR},${5 * HOUR},${10 * HOUR}`,
      SMTP_URL: smtp.url,
      LOG_LEVEL: 'debug',
    },
    { logger: { level: 'debug', stream: logs.stream } as never },
  );
  webhookRuntime(t.platform.deps).clock = () => Date.now() + offset;
  alice = await t.signUpProvisioned();
  bob = await t.signUpProvisioned();
}, 60_000);
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  await smtp?.close();
});

const hooksOf = (user: TestUser) => `${API}/websites/${user.websiteId}/webhooks`;
const createHook = (body: unknown, user = alice) => t.request('POST', hooksOf(user), { token: user.token, body });
const call = (name: string, verb: string, body: unknown = {}, user = alice) => t.request('POST', `${API}/${name}:${verb}`, { token: user.token, body });
const get = (name: string, user = alice) => t.request('GET', `${API}/${name}`, { token: user.token });
/** A webhook's delivery log (first page, newest first), checked against its documented shape. */
const deliveriesOf = async (hookName: string) => {
  const page = expectStatus(await t.request('GET', `${API}/${hookName}/deliveries`, { token: alice.token }), 200);
  await expectShape(t, 'ListWebhookDeliveries', 200, page);
  return (page.deliveries as any[]).reverse();
};
const advance = (ms: number) => {
  offset += ms;
  webhookRuntime(t.platform.deps).wake();
};
/** Waits until the delivery's state is one of `states`; answers it. */
const deliveryIn = async (name: string, states: string[]) => {
  let last: unknown;
  return eventually(async () => {
    const d = (await get(name)).json();
    last = d;
    return states.includes(d.state) ? d : undefined;
  }, `${name} in ${states.join('|')}`).catch((err: Error) => {
    throw new Error(`${err.message}; last answer ${JSON.stringify(last)}`);
  });
};
const posts = (user = alice) => `${API}/websites/${user.websiteId}/blog_posts`;

describe('webhooks', () => {
  it('answers the secret only at create; never in Get, List, the events or the logs; stored sealed', async () => {
    const created = expectStatus(await createHook({ url: receiver.url('/secret'), event_types: ['blog_post.*'], description: 'CRM sync' }), 201);
    await expectShape(t, 'CreateWebhook', 201, created);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(created).toMatchObject({ state: 'ACTIVE', enabled: true, event_types: ['blog_post.*'], description: 'CRM sync' });
    const got = expectStatus(await get(created.name), 200);
    expect(got).not.toHaveProperty('secret');
    const listed = await list(t, alice.token, hooksOf(alice));
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    const events = await list(t, alice.token, `${API}/websites/${alice.websiteId}/events`);
    expect(JSON.stringify(events)).not.toContain(created.secret.slice(6));
    const row = await t.fresh.database.db.selectFrom('webhooks').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(created.secret.slice(6));
    // validate_only makes no secret anyone could keep.
    const dry = expectStatus(await t.request('POST', `${hooksOf(alice)}?validate_only=true`, { token: alice.token, body: { url: receiver.url(), event_types: ['*'] } }), 200);
    expect(dry).not.toHaveProperty('secret');
    expect(logs.lines.join('\n')).not.toContain(created.secret.slice(6));
  });

  it('gives one signed POST per publish (Update and :publish); events of other types do not deliver', async () => {
    const hook = expectStatus(await createHook({ url: receiver.url('/published'), event_types: ['blog_post.published'] }), 201);
    const draft = expectStatus(await t.request('POST', posts(), { token: alice.token, body: { title: 'Hello' } }), 201);
    const viaUpdate = expectStatus(await t.request('PATCH', `${API}/${draft.name}`, { token: alice.token, body: { state: 'PUBLISHED' } }), 200);
    expectStatus(await call(draft.name, 'unpublish'), 200);
    expectStatus(await t.request('PATCH', `${API}/${draft.name}`, { token: alice.token, body: { title: 'Hello again' } }), 200);
    expectStatus(await call(draft.name, 'publish'), 200);
    // The fan-out runs in the writes' transactions: the deliveries exist once the writes answered.
    const deliveries = await deliveriesOf(hook.name);
    expect(deliveries.map((d) => d.event_type)).toEqual(['blog_post.published', 'blog_post.published']);
    await eventually(async () => (await deliveriesOf(hook.name)).every((d) => d.state === 'SUCCEEDED'), 'both delivered');
    const received = receiver.on('/published');
    expect(received).toHaveLength(2);
    for (const r of received) {
      const payload = verify(hook.secret, r) as any;
      expect(payload.type).toBe('blog_post.published');
      expect(payload.data).toMatchObject({ type: 'blog_post.published', resource: draft.name, data: { name: draft.name, state: 'PUBLISHED' } });
      expect(Date.parse(payload.timestamp)).not.toBeNaN();
    }
    expect(received[0].json.data.data.title).toBe(viaUpdate.title);
    expect(received[1].json.data.data.title).toBe('Hello again');
    // webhook-id is the event id: distinct events, distinct ids.
    expect(new Set(received.map((r) => r.headers['webhook-id'])).size).toBe(2);
    expect(deliveries.map((d) => d.event_id).sort()).toEqual(received.map((r) => String(r.headers['webhook-id'])).sort());
  });

  it(':redeliver sends the same event again with the same webhook-id, as a new delivery', async () => {
    const hook = expectStatus(await createHook({ url: receiver.url('/again'), event_types: ['blog_post.created'] }), 201);
    expectStatus(await t.request('POST', posts(), { token: alice.token, body: { title: 'Once' } }), 201);
    const [first] = await deliveriesOf(hook.name);
    await deliveryIn(first.name, ['SUCCEEDED']);
    const again = expectStatus(await call(first.name, 'redeliver'), 200);
    await expectShape(t, 'RedeliverWebhookDelivery', 200, again);
    expect(again).toMatchObject({ event_id: first.event_id, redelivery_of: first.name, state: 'PENDING' });
    const delivered = await deliveryIn(again.name, ['SUCCEEDED']);
    // The worker's writes are revisions: the etag follows the state.
    expect(delivered.etag).not.toBe(again.etag);
    const received = receiver.on('/again');
    expect(received.map((r) => r.headers['webhook-id'])).toEqual([first.event_id, first.event_id]);
    expect(received[0].body).toBe(received[1].body);
  });

  it('lists the event types webhooks may subscribe to, derived from the engine and the declared transitions', async () => {
    const page = await list(t, alice.token, `${API}/webhook_event_types`, { page_size: 100 });
    await expectShape(t, 'ListWebhookEventTypes', 200, page);
    const all: string[] = [];
    let token: string | undefined;
    do {
      const p = await list(t, alice.token, `${API}/webhook_event_types`, { page_size: 100, ...(token ? { page_token: token } : {}) });
      all.push(...p.webhook_event_types.map((e: any) => e.id));
      token = p.next_page_token || undefined;
    } while (token);
    expect(all).toEqual(expect.arrayContaining(['blog_post.created', 'blog_post.published', 'cms_page.updated', 'webhook.ping', 'customer.created']));
    // Account-scoped resources have no website: not deliverable to a website's webhook.
    expect(all).not.toContain('ai_agent.created');
    const one = expectStatus(await t.request('GET', `${API}/webhook_event_types/blog_post.published`, { token: alice.token }), 200);
    expect(one).toMatchObject({ collection: 'blog_posts', wildcard: 'blog_post.*' });
  });

  it('a receiver that fails twice then succeeds gets three attempts, with growing gaps', async () => {
    receiver.respond = (r) => {
      if (r.path !== '/flaky') return { status: 204 };
      const n = receiver.on('/flaky').length;
      return n <= 2 ? { status: 500, body: 'x'.repeat(5000) } : { status: 200, body: 'ok' };
    };
    const hook = expectStatus(await createHook({ url: receiver.url('/flaky'), event_types: ['webhook.ping'] }), 201);
    const ping = expectStatus(await call(hook.name, 'ping'), 200);
    await expectShape(t, 'PingWebhook', 200, ping);
    const first = await eventually(async () => {
      const d = (await get(ping.name)).json();
      return d.state === 'PENDING' && d.attempt_count === 1 ? d : undefined;
    }, 'first attempt recorded');
    const gap1 = Date.parse(first.next_attempt_time) - Date.parse(first.attempts[0].time);
    // A bounded excerpt of the answer is kept.
    expect(first.attempts[0]).toMatchObject({ status_code: 500, response_excerpt: 'x'.repeat(1024) });
    advance(gap1 + 1000);
    const second = await eventually(async () => {
      const d = (await get(ping.name)).json();
      return d.state === 'PENDING' && d.attempt_count === 2 ? d : undefined;
    }, 'second attempt recorded');
    const gap2 = Date.parse(second.next_attempt_time) - Date.parse(second.attempts[1].time);
    expect(gap1).toBeGreaterThan(0.8 * HOUR);
    expect(gap2).toBeGreaterThan(gap1);
    advance(gap2 + 1000);
    const done = await deliveryIn(ping.name, ['SUCCEEDED']);
    expect(done.attempt_count).toBe(3);
    expect(done.attempts.map((a: any) => a.status_code)).toEqual([500, 500, 200]);
    expect(done).not.toHaveProperty('next_attempt_time');
    expect(new Set(receiver.on('/flaky').map((r) => r.headers['webhook-id'])).size).toBe(1);
  });

  it('rotation grace: during grace both secrets verify; after it, only the new one', async () => {
    const hook = expectStatus(await createHook({ url: receiver.url('/rotate'), event_types: ['webhook.ping'] }), 201);
    const rotated = expectStatus(await call(hook.name, 'rotate_secret'), 200);
    await expectShape(t, 'RotateSecretWebhook', 200, rotated);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(hook.secret);
    expect(rotated.previous_secret_expire_time).toBeDefined();
    expect(expectStatus(await get(hook.name), 200)).not.toHaveProperty('secret');
    const during = expectStatus(await call(hook.name, 'ping'), 200);
    await deliveryIn(during.name, ['SUCCEEDED']);
    const [graceful] = receiver.on('/rotate');
    expect(String(graceful.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(() => verify(rotated.secret, graceful)).not.toThrow();
    expect(() => verify(hook.secret, graceful)).not.toThrow();
    advance(24 * HOUR + 60_000);
    const after = expectStatus(await call(hook.name, 'ping'), 200);
    await deliveryIn(after.name, ['SUCCEEDED']);
    const late = receiver.on('/rotate')[1];
    expect(String(late.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(() => verify(rotated.secret, late)).not.toThrow();
    expect(() => verify(hook.secret, late)).toThrow();
    expect(expectStatus(await get(hook.name), 200)).not.toHaveProperty('previous_secret_expire_time');
  });

  it("answers 404 to another tenant's webhooks and deliveries", async () => {
    const hook = expectStatus(await createHook({ url: receiver.url('/private'), event_types: ['webhook.ping'] }), 201);
    const ping = expectStatus(await call(hook.name, 'ping'), 200);
    expectError(await get(hook.name, bob), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${API}/${hook.name}/deliveries`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await get(ping.name, bob), 404, 'NOT_FOUND');
    expectError(await t.request('PATCH', `${API}/${hook.name}`, { token: bob.token, body: { enabled: false } }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `${API}/${hook.name}`, { token: bob.token }), 404, 'NOT_FOUND');
    for (const verb of ['ping', 'rotate_secret']) expectError(await call(hook.name, verb, {}, bob), 404, 'NOT_FOUND');
    expectError(await call(ping.name, 'redeliver', {}, bob), 404, 'NOT_FOUND');
    // Bob's own website path with Alice's webhook id: not found either.
    expectError(await get(`websites/${bob.websiteId}/webhooks/${hook.id}`, bob), 404, 'NOT_FOUND');
  });

  it('refuses hostile URLs and bodies with canonical 400s naming the field; unknown event types too', async () => {
    const ok = { event_types: ['webhook.ping'] };
    for (const url of ['ftp://127.0.0.1/x', 'javascript:alert(1)', 'not a url', '/relative', 'https://user:pw@localhost/x', `https://localhost/${'a'.repeat(2100)}`, 'file:///etc/passwd']) {
      expectInvalid(await createHook({ ...ok, url }), 'url');
    }
    expectInvalid(await createHook({ ...ok, url: 42 }), 'url');
    expectInvalid(await createHook({ event_types: ['*'] }), 'url');
    expectInvalid(await createHook({ url: receiver.url(), event_types: ['blog_post.exploded'] }), 'event_types');
    expectInvalid(await createHook({ url: receiver.url(), event_types: ['nothing.*'] }), 'event_types');
    expectInvalid(await createHook({ url: receiver.url(), event_types: [] }), 'event_types');
    expectInvalid(await createHook({ url: receiver.url(), event_types: 'blog_post.created' }), 'event_types');
    expectInvalid(await createHook({ url: receiver.url(), event_types: ['*'], description: 'd'.repeat(501) }), 'description');
    expectInvalid(await createHook({ url: receiver.url(), event_types: ['*'], surprise: true }), 'surprise');
    const hook = expectStatus(await createHook({ url: receiver.url(), ...ok }), 201);
    expectInvalid(await t.request('PATCH', `${API}/${hook.name}`, { token: alice.token, body: { url: 'gopher://127.0.0.1' } }), 'url');
    expectInvalid(await t.request('PATCH', `${API}/${hook.name}`, { token: alice.token, body: { event_types: ['made.up'] } }), 'event_types');
  });

  it('pausing stops deliveries of new events; a stale etag is 409', async () => {
    const hook = expectStatus(await createHook({ url: receiver.url('/paused'), event_types: ['blog_post.created'] }), 201);
    const paused = expectStatus(await t.request('PATCH', `${API}/${hook.name}`, { token: alice.token, body: { enabled: false, etag: hook.etag } }), 200);
    expect(paused.state).toBe('PAUSED');
    expectError(await t.request('PATCH', `${API}/${hook.name}`, { token: alice.token, body: { enabled: true, etag: hook.etag } }), 409, 'ABORTED');
    expectStatus(await t.request('POST', posts(), { token: alice.token, body: { title: 'Unheard' } }), 201);
    expect(await deliveriesOf(hook.name)).toEqual([]);
  });

  it('a webhook whose deliveries failed for three days is disabled with the reason, and the administrators get a mail', async () => {
    receiver.respond = (r) => (r.path === '/down' ? { status: 503, body: 'down for maintenance' } : { status: 204 });
    const hook = expectStatus(await createHook({ url: receiver.url('/down'), event_types: ['blog_post.created'] }), 201);
    expectStatus(await t.request('POST', posts(), { token: alice.token, body: { title: 'Day one' } }), 201);
    const [first] = await deliveriesOf(hook.name);
    await eventually(async () => (await get(first.name)).json().attempt_count === 1, 'first failure');
    // Retries run out (1 h + 5 h + 10 h later): FAILED, the webhook still ACTIVE (not three days yet).
    for (const [i, step] of [2 * HOUR, 6 * HOUR, 11 * HOUR].entries()) {
      advance(step);
      await eventually(async () => {
        const d = (await get(first.name)).json();
        return (d.state === 'FAILED' || d.state === 'PENDING') && d.attempt_count === i + 2;
      }, `retry ${i + 1}`);
    }
    const exhausted = await deliveryIn(first.name, ['FAILED']);
    expect(exhausted.attempt_count).toBe(4);
    expect(expectStatus(await get(hook.name), 200).state).toBe('ACTIVE');
    advance(3 * 24 * HOUR);
    expectStatus(await t.request('POST', posts(), { token: alice.token, body: { title: 'Day four' } }), 201);
    const disabled = await eventually(async () => {
      const h = (await get(hook.name)).json();
      return h.state === 'DISABLED' ? h : undefined;
    }, 'the webhook disabled');
    expect(disabled.enabled).toBe(false);
    expect(disabled.disabled_reason).toMatch(/failed since .* HTTP 503/);
    const mail = await smtp.nextMail(alice.email, { timeoutMs: 15_000 });
    expect(mail.subject).toContain('webhook');
    expect(mail.text).toContain(receiver.url('/down'));
    expect(mail.text).toContain('HTTP 503');
    // Disabled: new events are not queued for it.
    expectStatus(await t.request('POST', posts(), { token: alice.token, body: { title: 'Day five' } }), 201);
    expect(await deliveriesOf(hook.name)).toHaveLength(2);
    const enabled = expectStatus(await t.request('PATCH', `${API}/${hook.name}`, { token: alice.token, body: { enabled: true } }), 200);
    expect(enabled.state).toBe('ACTIVE');
    expect(enabled).not.toHaveProperty('disabled_reason');
  });
});
