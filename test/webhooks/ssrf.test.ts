/**
 * Webhook SSRF rules without any WEBHOOK_ALLOW_HOSTS: loopback, private, link-local, metadata, CGNAT
 * and unspecified targets are refused at create (literals and names resolving to them, through a
 * loopback DNS server speaking the real protocol), and again at delivery time, when a name that
 * resolved to a public address at create resolves to loopback by then (DNS rebinding).
 */
import dns2 from 'dns2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectInvalid, expectStatus } from '../support/fixtures.js';
import { eventually } from '../support/fixtures-auth.js';
import { startReceiver, type Receiver } from './receiver.js';

/** A loopback DNS server answering A and AAAA records the test sets. */
async function startAddressDns() {
  const records = new Map<string, { a?: string; aaaa?: string }>();
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const record = records.get(question.name.toLowerCase());
      if (record?.a && question.type === Packet.TYPE.A) {
        response.answers.push({ name: question.name, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 1, address: record.a } as never);
      } else if (record?.aaaa && question.type === Packet.TYPE.AAAA) {
        response.answers.push({ name: question.name, type: Packet.TYPE.AAAA, class: Packet.CLASS.IN, ttl: 1, address: record.aaaa } as never);
      } else if (!record) {
        response.header.rcode = Packet.RCODE.NXDOMAIN;
      }
      send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  return {
    address: `127.0.0.1:${(addresses as any).udp.port}`,
    set: (name: string, record: { a?: string; aaaa?: string }) => records.set(name.toLowerCase(), record),
    close: () => server.close(),
  };
}

let t: TestApp;
let alice: TestUser;
let dns: Awaited<ReturnType<typeof startAddressDns>>;
let receiver: Receiver;

beforeAll(async () => {
  dns = await startAddressDns();
  receiver = await startReceiver();
  t = await startTestApp({ DNS_RESOLVER: dns.address, DNS_TIMEOUT_MS: '2000' });
  alice = await t.signUpProvisioned();
}, 60_000);
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  await dns?.close();
});

const create = (url: string) => t.request('POST', `${API}/websites/${alice.websiteId}/webhooks`, { token: alice.token, body: { url, event_types: ['webhook.ping'] } });

describe('webhook targets without an allow list', () => {
  it('refuses loopback, private, link-local, metadata, CGNAT and unspecified addresses at create, naming url', async () => {
    for (const url of [
      'http://127.0.0.1/hook',
      'https://127.0.0.1/hook',
      'https://10.0.0.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://[fd00:ec2::254]/hook',
      'https://[fe80::1]/hook',
      'https://100.64.0.1/hook',
      'https://0.0.0.0/hook',
      'https://192.168.1.1/hook',
      'https://172.16.0.1/hook',
      'https://2130706433/hook', // 127.0.0.1 as one number: the URL parser normalises it
    ]) {
      expectInvalid(await create(url), 'url');
    }
  });

  it('refuses a name resolving to a private address (or one private address among public ones)', async () => {
    dns.set('intranet.test.example', { a: '10.1.2.3' });
    dns.set('mixed.test.example', { a: '93.184.216.34', aaaa: '::1' });
    expectInvalid(await create('https://intranet.test.example/hook'), 'url');
    expectInvalid(await create('https://mixed.test.example/hook'), 'url');
  });

  it('requires https for every host the operator did not allow', async () => {
    dns.set('public.test.example', { a: '93.184.216.34' });
    expectInvalid(await create('http://public.test.example/hook'), 'url');
    expectStatus(await create('https://public.test.example/hook'), 201);
  });

  it('refuses again at delivery time: a name that resolves to loopback by then is not connected to', async () => {
    dns.set('rebind.test.example', { a: '93.184.216.34' });
    const hook = expectStatus(await create(`https://rebind.test.example:${new URL(receiver.url()).port}/hook`), 201);
    dns.set('rebind.test.example', { a: '127.0.0.1' });
    const ping = expectStatus(await t.request('POST', `${API}/${hook.name}:ping`, { token: alice.token, body: {} }), 200);
    const attempted = await eventually(async () => {
      const d = (await t.request('GET', `${API}/${ping.name}`, { token: alice.token })).json();
      return d.attempt_count >= 1 && d.state !== 'DELIVERING' ? d : undefined;
    }, 'the first attempt');
    expect(attempted.attempts[0].error).toMatch(/^refused: .*127\.0\.0\.1/);
    expect(attempted.attempts[0].status_code).toBeNull();
    expect(receiver.received).toHaveLength(0);
  });
});
