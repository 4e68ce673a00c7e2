/**
 * At-least-once delivery across a killed worker: `npm run worker`'s entry (the real build, a child
 * process) is killed with SIGKILL while its attempts hang at the receiver; with one live worker
 * afterwards, every event is delivered, and only the attempts that were in flight are repeated
 * (once, with the same `webhook-id`), recorded as interrupted in the delivery log.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { testDialect } from '../support/databases.js';
import { API, expectStatus } from '../support/fixtures.js';
import { eventually } from '../support/fixtures-auth.js';
import { startReceiver, type Receiver } from './receiver.js';

const ROOT = resolve(import.meta.dirname, '../..');
const ENV = {
  WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
  // A killed worker's lease runs out within seconds; an attempt is bounded below it.
  WEBHOOK_LEASE_MS: '3000',
  WEBHOOK_TIMEOUT_MS: '2500',
};

let t: TestApp;
let alice: TestUser;
let receiver: Receiver;
let child: ChildProcess | undefined;

/** Compiles the project into a directory of this test's own (incremental: fast when unchanged). */
function build(outDir: string): Promise<void> {
  return new Promise((done, fail) => {
    const tsc = spawn(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', outDir, '--tsBuildInfoFile', join(outDir, '.tsbuildinfo')], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    tsc.stdout!.on('data', (d) => (output += d));
    tsc.stderr!.on('data', (d) => (output += d));
    tsc.on('close', (code) => (code === 0 ? done() : fail(new Error(`tsc failed:\n${output}`))));
  });
}

/** Starts the worker entry on the test's database; resolves once it said it started. */
function startWorkerProcess(entry: string): Promise<ChildProcess> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? ROOT,
    DATA_DIR: t.fresh.dataDir,
    LOG_LEVEL: 'info',
    WORKER_CONCURRENCY: '1',
    ...ENV,
    ...(t.fresh.url ? { DATABASE_URL: t.fresh.url } : {}),
  };
  const proc = spawn(process.execPath, [entry], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((done, fail) => {
    let out = '';
    proc.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('worker started')) done(proc);
    });
    proc.stderr!.on('data', (d) => (out += d));
    proc.on('exit', (code) => fail(new Error(`worker exited ${code} before it started:\n${out}`)));
  });
}

beforeAll(async () => {
  const outDir = join(ROOT, '.test-build', `webhooks-${testDialect()}`);
  const built = build(outDir);
  receiver = await startReceiver();
  t = await startTestApp(ENV);
  alice = await t.signUpProvisioned();
  await built;
  // The child is the only live worker until it is killed.
  await t.stopWorker();
  receiver.respond = () => 'hang';
  const hook = expectStatus(
    await t.request('POST', `${API}/websites/${alice.websiteId}/webhooks`, { token: alice.token, body: { url: receiver.url('/slow'), event_types: ['blog_post.created'] } }),
    201,
  );
  hookName = hook.name;
  for (const title of ['One', 'Two', 'Three', 'Four', 'Five', 'Six']) {
    expectStatus(await t.request('POST', `${API}/websites/${alice.websiteId}/blog_posts`, { token: alice.token, body: { title } }), 201);
  }
  child = await startWorkerProcess(join(outDir, 'src/worker-main.js'));
}, 240_000);
afterAll(async () => {
  child?.kill('SIGKILL');
  await t?.close();
  await receiver?.close();
});

let hookName: string;

describe('a worker killed during delivery', () => {
  it('loses nothing, and with one live worker repeats at most the attempts in flight', async () => {
    const deliveries = (await t.request('GET', `${API}/${hookName}/deliveries`, { token: alice.token })).json().deliveries as any[];
    expect(deliveries).toHaveLength(6);
    // Some attempts reach the receiver and hang there; then the worker dies without a word.
    await eventually(async () => receiver.received.length >= 1, 'an attempt in flight', 30_000);
    const exited = new Promise((done) => child!.once('exit', done));
    child!.kill('SIGKILL');
    await exited;
    child = undefined;
    // The attempts the killed worker had made (answered with a hang: nothing else was delivering then).
    const inFlight = receiver.received.filter((r) => r.answer === 'hang').map((r) => String(r.headers['webhook-id']));
    receiver.release();
    receiver.respond = () => ({ status: 204 });
    // One live worker: this process's again.
    t.startWorker();
    const done = await eventually(
      async () => {
        const page = (await t.request('GET', `${API}/${hookName}/deliveries`, { token: alice.token })).json().deliveries as any[];
        return page.every((d) => d.state === 'SUCCEEDED') ? page : undefined;
      },
      'every delivery succeeded',
      60_000,
    );
    const counts = new Map<string, number>();
    for (const r of receiver.received) counts.set(String(r.headers['webhook-id']), (counts.get(String(r.headers['webhook-id'])) ?? 0) + 1);
    for (const d of done) {
      // In flight when the worker died: claimed by it, whether or not its POST had reached the receiver
      // yet (the worker sends several at once; the kill follows the first arrival). Its next claim
      // records the attempt as interrupted.
      const interrupted = d.attempt_count === 2 && /^interrupted/.test(d.attempts[0].error ?? '');
      expect(d.attempt_count, d.event_id).toBe(interrupted ? 2 : 1);
      // Nothing lost: every event arrived; repeated only if its attempt was in flight when the worker died.
      if (interrupted) expect([1, 2], d.event_id).toContain(counts.get(d.event_id));
      else expect(counts.get(d.event_id), d.event_id).toBe(1);
      if (inFlight.includes(d.event_id)) {
        expect(interrupted, d.event_id).toBe(true);
        expect(counts.get(d.event_id), d.event_id).toBe(2);
      }
    }
    expect(inFlight.length).toBeGreaterThan(0);
    expect(inFlight.length).toBeLessThan(6);
  });
});
